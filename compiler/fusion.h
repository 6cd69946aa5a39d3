// Fusion: groups a function's ops into the units the executable runs.
//
// A loop group is one kernel: a root op and the producers fused into it, each
// computed inside the kernel's loops with no intermediate in memory. A
// producer joins its consumer's group when every use of its result is inside
// the group (so the value never needs memory) and it is a loop op (below).
// Recomputation is bounded: a producer evaluated more than once per element
// (below a broadcast, for instance) must be cheap (movement, sources, and
// arithmetic other than transcendental functions); a reduction or an
// expensive op joins only where it is evaluated once per element, or once
// per row of the root's domain: a value broadcast along the root's last axis
// is the same across the kernel's inner loop, and a reduction over the last
// axis with one element per row (softmax's max and sum, a norm's mean of
// squares) is computed once per row before it (cpu::ReduceStrategy::per_row),
// each element of its operand evaluated once. (fusion.cc, RowWalk.)
//
// Loop ops: elementwise ops whose result cannot fail (not integer division
// but by a nonzero constant,
// not float-to-integer casts; random_uniform included), movement ops (unfold
// included) other than shard_slice, reductions (reduce_*, argmax, fold),
// window ops (max/avg pooling and their gradients), iota and splat constants,
// on every dtype (bf16 and f16 compute in float and round at each op's
// result, compiler/cpu/llvm_half.h). gather is one where its result has
// elements: the kernel checks each index (kir::ExprKind::checked_index), so
// a gather joins a consumer only where the kernel computes every element of
// it, and the value it reads as indices is never computed inside a kernel
// (the executor reads it to report an index out of range). scatter_add (not
// on bool, bf16 or f16; lowering runs half ones as f32 ones,
// compiler/half_accumulation.h) is the root of its kernel (kir::Kernel::scatter), with the
// elementwise and movement producers of its operand, where its output and
// updates have elements. Everything else (dot, convolutions, shard_slice,
// dense constants) is its own group of one op. Pooling
// evaluates its operand once per element only where windows do not overlap
// (stride >= kernel); the gradients of pooling evaluate their operands several
// times per element.
// A producer whose value is also read after the group (by groups scheduled
// later) or returned joins as a further output of the kernel where it is
// elementwise, has the root's shape and is evaluated at the root's own index
// (through same-shaped elementwise members): AdamW's m' and v' are stored by
// the kernel that computes p' from them, SwiGLU's sigmoid and silu by the
// kernel of their product; each output is written where it is computed, and
// the tensor is read once instead of being stored, then read again.
// Splat constants and iota are computed inside every loop kernel that reads
// them (they may be in several groups) and get a group of their own only
// where another kind of group reads them. A reshape that is not fused into a
// consumer becomes an alias group: a view of its operand's bytes, no
// instruction.
//
// A gemm update is a GEMM with the update of an argument as its epilogue:
// `[b *] x + [c *] dot(a, b)` (b, c splat constants), where x is an argument
// that this value replaces (a parameter's or optimizer state's new value:
// plain SGD's `p - lr * grad`, SGD momentum's `mu * buf + grad`, with the
// gradient from a dot), nothing after it reads x, the dot's result has no
// other use, and the value has at least kMinGemmUpdate elements. The GEMM
// library computes it in place as C = c * op(A) op(B) + b * C over x's
// buffer, so the gradient is never stored and the update kernel's pass
// disappears; the dot's sums are not rounded to the dtype before the update
// (the only difference in results). Its ops: the dot, the constants, the muls
// and the add; root: the add. (Smaller updates keep their kernel: they cost
// next to nothing.)

//
// A gemm epilogue (GPU targets only: FusionOptions::gemm_epilogues, which
// lowering sets for rt::is_gpu_target; the CPU keeps its loop kernels) is a
// dot (f32, bf16 or f16; one product: batch 1 or a b shared by batches
// folded into rows; batched products and f64 take none) with the
// elementwise ops after it that cuBLASLt computes in the GEMM's epilogue
// (runtime/executable.h GemmEpilogue). On a bf16 or f16 dot they are as
// autocast writes them: the bias add in the dot's dtype, relu and the GELU
// (and the GELU's backward) in f32 between a cast of their input to f32 and
// a cast of their result back, which the group takes too (the epilogue
// computes in f32 and rounds once):
//  - bias: `add(dot, bias)` where the bias is a row broadcast (n elements,
//    its last dim the dot's n: [n], [1, n]) of the dot's type;
//  - then relu, `max(y, 0)` (y first, 0 a splat constant), or the tanh GELU
//    in the form its decomposition takes (ir/op_rules_composite.cc:
//    0.5 y * (1 + tanh(sqrt(2/pi) * (y + (y * y * y) * 0.044715))), each
//    constant an f32 splat of that value, either operand order); the erf
//    GELU (PyTorch's default) has no epilogue and stays a loop kernel;
// where every intermediate value is read only inside the group and is not
// returned. The pre-activation y (the bias add's, or the dot's, value) may
// be read after the group where the activation is gelu: the GEMM stores it
// as the aux result (gelu_aux, bias_gelu_aux), where the dot's n is a
// multiple of 8 (cuBLASLt's aux leading dimension must be). A relu whose
// input is read elsewhere, or a chain cut short, leaves the rest to loop
// kernels (the bias alone still forms `bias`). Ops: the dot, the chain (with
// its splat constants, counted as absorbed); root: the activation's last op;
// the GEMM's result is the root's value and the aux, if any, `outputs[0]`.
//  - dgelu: the dot's value g, then the tanh GELU's backward at an x of g's
//    type as autodiff writes it (runtime/gemm_epilogue.h kGeluGradSteps:
//    the forward's intermediates recomputed from x, as
//    recompute_gelu_for_epilogues leaves them, then the VJPs and their sum;
//    an add's or a mul's operands either way round), where g and every
//    step's value but the last are read only by the steps and not returned,
//    and n is a multiple of 8; x (the forward's aux) is the epilogue's
//    operand, the last step's value the GEMM's result, whose readers run
//    after the group. dgelu_bgrad: also a reduce_sum of that result
//    (through reshapes) over every dim but the last, the bias gradient of
//    the linear before the GELU, as the further result (outputs[0]), where
//    every reader of either runs after both. Ops: the dot, the steps, their
//    constants (and the reduce_sum); root: the last of them.
//  - bgradb: a weight gradient dot(dy, x) {transpose_a} (batch 1) and a
//    reduce_sum of dy (through reshapes) over every dim but the last: the
//    bias gradient, which the GEMM stores as its further result (outputs[0])
//    while it reads dy. Every reader of the two values runs after both; not
//    where the dot is a gemm update's.
// The dots are tried in program order, each for these in the order listed;
// in training the bias gradient of a linear before a GELU goes to the
// dgelu_bgrad of the GELU's gradient, which comes first, and its weight
// gradient stays a plain GEMM.
// The epilogue groups are chosen before the other groups (the dots in
// program order), so no loop kernel takes their ops.
//
// Groups are listed in the order of their roots, which is a valid schedule.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "runtime/executable.h"

namespace mlc {

inline constexpr int64_t kMinGemmUpdate = int64_t{1} << 16;  // elements

enum class GroupKind : uint8_t { loop, single, alias, gemm_update, gemm_epilogue };

struct FusionGroup {
  GroupKind kind = GroupKind::single;
  std::vector<const Op*> ops;  // program order; the root is last
  const Op* root() const { return ops.back(); }
  // loop: members whose values are also read after the group or returned,
  // stored by the kernel besides the root's (program order; see above).
  std::vector<const Op*> outputs;
  // gemm_update: the argument x it updates and the scales c, b (ops: the dot first).
  const Value* addend = nullptr;
  double alpha = 1, beta = 1;
  // gemm_epilogue (ops: its one dot, the ops it replaces, their constants):
  // the epilogue, the op whose value is the GEMM's result, and its operand
  // (the bias, or dgelu's aux); `outputs` holds the op of its further result.
  rt::GemmEpilogue epilogue = rt::GemmEpilogue::none;
  const Op* product = nullptr;
  const Value* operand = nullptr;
};

struct FusionPlan {
  std::vector<FusionGroup> groups;
  std::unordered_map<const Op*, int> group_of;
};

// Can `op` be computed inside a loop kernel?
bool is_loop_op(const Op& op);

// The parts of a gemm update rooted at `add` (see above).
struct GemmUpdate {
  const Op* dot = nullptr;
  const Op* scale = nullptr;      // the splat constant c, or null (c = 1)
  const Op* mul = nullptr;        // c * dot, or null
  const Value* addend = nullptr;  // x: an argument of the function
  const Op* addend_scale = nullptr;  // the splat constant b, or null (b = 1)
  const Op* addend_mul = nullptr;    // b * x, or null
  double alpha = 1, beta = 1;        // c, b, as their dtype holds them
};
std::optional<GemmUpdate> match_gemm_update(const Function& f, const Op& add);

// The gemm epilogue of `dot` (see above), or nullopt.
struct GemmEpilogueMatch {
  rt::GemmEpilogue epilogue = rt::GemmEpilogue::none;
  std::vector<const Op*> ops;   // the dot, the ops it replaces and their constants (program order)
  const Op* product = nullptr;    // its value is the GEMM's result
  const Value* operand = nullptr;  // the bias, or dgelu's aux
  const Op* extra = nullptr;       // the aux's (the pre-activation's) or the bias gradient's op
};
std::optional<GemmEpilogueMatch> match_gemm_epilogue(const Function& f, const Op& dot);

// Training's tanh GELU on GPU targets: the backward of its decomposition
// reads the chain's intermediates (0.5 y, y * y, the tanh, 1 + tanh), so no
// epilogue could replace the chain. This rewrite gives those readers copies
// of the intermediates, computed from the pre-activation y (the dot's or its
// bias add's value) right before the first of them, the same ops on the same
// values (so the same numbers); the chain is left with only y read
// elsewhere: a (bias_)gelu_aux epilogue, where cuBLASLt stores y for the
// backward, and the backward reads only y and its gradient: a
// dgelu(_bgrad) epilogue, which computes the copies inside cuBLASLt's
// epilogue (or, where none forms, its loop kernels inline). Only where the
// dot's n is a multiple of 8 (the aux's condition). Returns the chains
// rewritten. Lowering runs it for GPU targets only.
int recompute_gelu_for_epilogues(Function& f);

// bf16 and f16 training on GPU targets: autocast casts a bias gradient (the
// reduce_sum of the half dy) to f32 right after it, before the weight
// gradient's dot, so that no bgradb could take the two (every reader of the
// sum must run after the GEMM). This moves the ops between the sum and that
// dot that read the sum (or read those) to right after the dot, in their
// order, where nothing else up to the dot reads them: the same ops on the
// same values. Returns the moves made. Lowering runs it for GPU targets only.
int defer_bias_gradient_readers(Function& f);

struct FusionOptions {
  bool gemm_epilogues = false;  // form gemm epilogue groups (GPU targets)
};

FusionPlan plan_fusion(const Function& f, const FusionOptions& options = {});

}  // namespace mlc
