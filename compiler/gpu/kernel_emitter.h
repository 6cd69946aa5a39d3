// The GPU kernel text's emitter (compiler/gpu/kernel_source.h), internal to
// the files that define it: kernel_source.cc (the function's frame, the
// expressions' values, the C literals), kernel_source_schedules.cc (each
// schedule's loops over the domain, gpu_schedule.h) and
// kernel_source_reductions.cc (reductions: a thread's fold, a block's tree,
// the two phases' partial results).
//
// An Emitter renders one kernel under one schedule, once: every expression
// becomes a statement assigning a fresh temporary (m0, m1, ...), emitted
// where it is first needed and reused while the code block (`scoped`) that
// emitted it is open; the domain and reduction variables are named v0,
// v1, ... after kir::Expr's variables.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/gpu/gpu_schedule.h"
#include "compiler/kernel_ir.h"

namespace mlc::gpu::emit {

// Threads per CUDA warp: the tree's last levels shuffle within one.
inline constexpr int kWarpSize = 32;

// The C type an expression of dtype t is held in (half: its bit pattern).
const char* value_type(DType t);
// The element type of a buffer of dtype t.
const char* memory_type(DType t);
// What arithmetic computes dtype t in (ir/scalar_math.h: float for halves).
DType compute_dtype(DType t);
// C literals: an i64, and floats exactly (hexadecimal; non-finite ones by their bits).
std::string i64_literal(int64_t v);
std::string f32_literal(float f);
std::string f64_literal(double d);

class Emitter {
 public:
  Emitter(const kir::Kernel& k, const Schedule& s) : k_(k), s_(s) {}

  std::string run(const std::string& symbol);

 private:
  void line(const std::string& s) {
    out_.append(static_cast<size_t>(indent_) * 2, ' ');
    out_ += s;
    out_ += '\n';
  }
  std::string fresh(const char* type, const std::string& expr) {
    std::string name = "m" + std::to_string(temps_++);
    line(std::string(type) + " " + name + " = " + expr + ";");
    return name;
  }
  // Opens a block of code: what is emitted in it is not reused after it.
  template <class F>
  void scoped(const std::string& head, F body) {
    line(head.empty() ? "{" : head + " {");
    ++indent_;
    scopes_.emplace_back();
    body();
    for (int id : scopes_.back()) cache_[static_cast<size_t>(id)].clear();
    scopes_.pop_back();
    --indent_;
    line("}");
  }

  // ---- the text and the expressions' values (kernel_source.cc)

  int64_t domain_elements() const;

  // Sets the variables [var0, var0 + extents.size()) from the row-major linear index `lin`.
  void split_index(const std::string& lin, int var0, const std::vector<int64_t>& extents);

  // The current element's outputs (root, then more_roots) as their buffers hold them.
  std::vector<std::string> output_values(const std::function<std::string(std::string)>& root_adjust = nullptr);

  // Stores them at linear index `lin` of each output's buffer (root_adjust
  // rewrites the root's value first: a scatter's terms).
  void store_outputs(const std::string& lin, const std::function<std::string(std::string)>& root_adjust = nullptr);

  // Expression id's value: the temporary holding it, emitted where it is
  // first needed (compute) and reused while that code block is open.
  std::string value(int id);

  // Expression id's value as its compute dtype reads it (a half widened to float).
  std::string operand(int id);
  // r, computed in compute_dtype(t), as t holds it.
  std::string rounded(DType t, const std::string& r);

  // f applied to ir/scalar_math.h's handler over C text for dtype t.
  template <class F>
  std::string with_handler(DType t, F f);

  // x of dtype `from` as dtype `to`.
  std::string convert(std::string x, DType from, DType to);

  // Emits expression e (id) for the current element; returns its value.
  std::string compute(const kir::Expr& e, int id);

  // ---- the schedules' loops (kernel_source_schedules.cc)

  // The vector type of kVectorWidth elements of a buffer of dtype t (the
  // same name in CUDA C and OpenCL C).
  static std::string vector_type(DType t);

  // The inputs some load that the outputs depend on reads.
  std::vector<bool> loaded_inputs() const;

  // gpu_schedule.h's vector form: group g of kVectorWidth elements per
  // thread (grid-stride), one vector load per input read (its lanes are what
  // the element's loads return: compute's K::load), each element computed
  // in a scope of its own, one vector store per output.
  void emit_vector_groups(int64_t groups);

  void emit_elementwise_schedule();

  // The shared arrays of the schedule's block reductions, a slot per thread.
  void declare_shared_arrays(int block);
  // The block's reductions, in expression order (gpu_schedule.h: before the elements).
  void block_reductions();

  void emit_row_schedule(int block);

  // gpu_schedule.h's row in two phases (one row): phase 0 folds partial
  // `partial` of every block reduction (grid-stride over the G partials)
  // and stores the block's results into the scratch; phase 1 combines the
  // partials in every block, then the blocks' threads store the row's
  // elements (grid-stride).
  void emit_two_phase_row_schedule(int block);

  // The row schedule's domain variables for row `row` (all of them with
  // element_rows; none but the last's otherwise).
  void set_row_variables();

  // The row's elements after its block reductions, computed and stored by
  // the threads numbered `first` (an expression), every `stride`-th element
  // each: thread 0 alone where the row is one element (a rank-0 domain, or
  // element_rows).
  void store_row_elements(const std::string& first, const std::string& stride);

  // gpu_schedule.h's columns: a block per tile of kColumnTile elements; its
  // thread t is lane t % kColumnTile of part t / kColumnTile. Lanes past the
  // domain's end fold the last element's terms and store nothing (every
  // thread reaches every barrier).
  void emit_columns_schedule(int block);

  // gpu_schedule.h's transpose_tiles: per tile, each staged load's values
  // into its shared array (row: along the last dim, column: along the
  // second-to-last, so lane x reads along the load's contiguous direction),
  // a barrier, then the tile's elements with lane x along the last dim (the
  // staged loads read from the arrays, transposed back), and a barrier.
  void emit_transpose_tiles_schedule();
  // The dtype of the buffer staged load t reads.
  DType staged_param_type(size_t t) const;

  // gpu_schedule.h's scatter_rows: a block per output row; the initial
  // values, then the hits of each chunk of the leading update indices in
  // order, each thread adding to its own elements (at = row * inner + the
  // last update variable: the schedule checked the form).
  void emit_scatter_rows_schedule(int block);

  // kir::Kernel::scatter for the output element `lin` holding `v`: every
  // element of the scatter's domain, in row-major order, whose target is
  // `lin` adds its value, in the output's dtype: each output element gets its
  // terms in the reference kernel's order.
  std::string scatter_into(const std::string& v);


  // ---- reductions (kernel_source_reductions.cc)

  struct Acc {
    DType type;          // accumulator dtype
    std::string init;
    bool indexed;        // max/min/argmax carry their element's index
    bool fl;             // float input
  };
  Acc accumulator(const kir::Expr& e) const;

  // The sequential fold's step: acc (and index) folded with term x at linear index `at`.
  void fold_step(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index, const std::string& x,
                 const std::string& at);

  std::string reduce_result(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index);

  std::string linear_index(const kir::Expr& e);

  // The fold's body for the current element: where the mask holds, x folded in.
  void fold_element(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index,
                    const std::string& at);

  // Folded by this thread alone, in row-major order: the reference order.
  std::string thread_reduce(const kir::Expr& e);

  // A thread's (or a block's) partial result of a reduction: its
  // accumulator and, for max, min and argmax, its element's index (-1: no
  // element yet); `index` is empty for sums.
  struct Partial {
    std::string value, index;
  };

  // Folded by the block (gpu_schedule.h): the thread's partial result
  // (block_fold_terms, or in a two-phase kernel's combine the partial
  // blocks' results: read_partials), then block_tree's.
  std::string block_reduce(const kir::Expr& e, int id);

  // This thread's terms of reduction e folded in order: fold_.first, then
  // every fold_.stride-th.
  Partial block_fold_terms(const kir::Expr& e, const Acc& a);

  // The block's result of reduction e from each thread's partial result
  // `mine`: a fixed binary tree over the threads' slots, slot t taking slot
  // t + s: strides of a warp and more in shared memory; with
  // fold_.warp_levels the last five levels within the warp (the result in
  // slot 0), else the result in slot fold_.result_slot (columns: the tile's
  // lane l in slot l). Every thread gets it.
  Partial block_tree(const kir::Expr& e, const Acc& a, const Partial& mine);

  // Two phases, phase 0: the block's partial result of block reduction `id`
  // (its terms of partial `partial`: fold_) stored by thread 0 into the
  // reduction's scratch words (Schedule::scratch_word).
  void store_partial(int id);

  // Two phases, phase 1: thread t's partial result of block reduction `id`,
  // the partial block t's (threads from G on: the fold's identity, 0 or no
  // element, which no combination changes).
  Partial read_partials(const kir::Expr& e, const Acc& a, int id);

  // An accumulator of dtype t as the 8-byte scratch word that holds its bits, and back.
  static std::string scratch_bits(DType t, const std::string& v);
  static std::string scratch_value(DType t, const std::string& word);

  // The shared array (gpu_schedule.h's Schedule::shared_*) reduction e's
  // partial results are combined in.
  static std::string shared_array(const kir::Expr& e, const Acc& a);

  // The levels of the fixed tree over the `size` partial results in `arr`
  // (and mlc_sidx) with strides size / 2 down to `last` (powers of two):
  // slot t takes slot t + s combined into it; a barrier after each level.
  void shared_tree_levels(const kir::Expr& e, const Acc& a, const std::string& arr, int size, int last);

  // The tree's step: partial result (w, wi) combined with the one after it,
  // (o, oi), into (w, wi). Indices are those of the partial's element (-1:
  // none). The sequential fold's answer: for argmax the first NaN, else the
  // first maximal element; for max and min the last NaN, else the first
  // extreme element.
  void combine_partials(const kir::Expr& e, const Acc& a, const std::string& w, const std::string& wi,
                        const std::string& o, const std::string& oi);

  // How block_reduce splits a reduction's terms: the thread's first term
  // and the stride to its next (expressions); whether the tree's last five
  // levels run within a warp; the slot that holds the block's result after
  // the tree without them; and whether the threads' partial results are
  // the partial blocks' instead (two phases, phase 1).
  struct BlockFold {
    std::string first, stride;
    bool warp_levels = false;
    std::string result_slot;
    bool from_scratch = false;
  };

  const kir::Kernel& k_;
  const Schedule& s_;
  BlockFold fold_;
  int lane_ = -1;  // the vector form's element within its group, or -1
  bool staged_tiles_ = false;  // transpose_tiles: the staged loads read their tiles
  std::string out_;
  int indent_ = 0;
  int temps_ = 0;
  std::vector<int> store_param_;
  std::vector<std::string> cache_, vars_;
  std::vector<std::vector<int>> scopes_;
};

}  // namespace mlc::gpu::emit
