#include "compiler/gpu/kernel_source.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "runtime/half.h"

namespace mlc::gpu {

namespace {

// Threads per CUDA warp: the tree's last levels shuffle within one.
constexpr int kWarpSize = 32;

// `s` inside a C comment: no "*/" ends it early.
std::string comment_safe(std::string s) {
  for (size_t i = s.find("*/"); i != std::string::npos; i = s.find("*/", i)) s.replace(i, 2, "* /");
  return s;
}

// The C type an expression of dtype t is held in (half: its bit pattern).
const char* value_type(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::bf16: case DType::f16: return "u16";
    case DType::i32: return "int";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
  }
  return "void";
}
// The element type of a buffer of dtype t.
const char* memory_type(DType t) { return t == DType::boolean ? "u8" : value_type(t); }
// What arithmetic computes dtype t in (ir/scalar_math.h: float for halves).
DType compute_dtype(DType t) { return is_half(t) ? DType::f32 : t; }

std::string i64_literal(int64_t v) {
  if (v == INT64_MIN) return "(-(i64)9223372036854775807 - 1)";
  return "((i64)" + std::to_string(v) + ")";
}

std::string f32_literal(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  char buf[64];
  if (!std::isfinite(f)) {
    std::snprintf(buf, sizeof buf, "MLC_BITS_F32(0x%08" PRIx32 "u)", bits);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(f));
  return buf;
}

std::string f64_literal(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  char buf[64];
  if (!std::isfinite(d)) {
    std::snprintf(buf, sizeof buf, "MLC_BITS_F64(0x%016" PRIx64 "ull)", bits);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%a", d);
  return buf;
}

// ir/scalar_math.h's handler over C text: each primitive becomes a statement
// assigning a fresh temporary (so every result is rounded to its type, and
// the text stays linear), its name the Value.
template <bool kIsFloat>
struct TextScalar {
  using Value = std::string;
  using Bool = std::string;
  static constexpr bool kFloat = kIsFloat;
  std::function<std::string(const char* type, const std::string& expr)> emit;
  DType t;  // the compute dtype

  const char* type() const { return value_type(t); }
  std::string tmp(const std::string& expr) { return emit(type(), expr); }
  std::string fn(const char* name, const std::string& x) {
    return tmp(std::string("MLC_") + name + (t == DType::f64 ? "_F64(" : "_F32(") + x + ")");
  }
  // Integer arithmetic wraps: computed on the unsigned type.
  std::string wrap(const std::string& a, const char* op, const std::string& b) {
    const char* u = t == DType::i64 ? "u64" : "u32";
    return tmp("(" + std::string(type()) + ")((" + u + ")" + a + " " + op + " (" + u + ")" + b + ")");
  }

  Value constant(double c) {
    if constexpr (kFloat) return t == DType::f64 ? f64_literal(c) : f32_literal(static_cast<float>(c));
    else {
      if (t == DType::boolean) return c != 0 ? "true" : "false";
      if (t == DType::i64) return i64_literal(static_cast<int64_t>(c));
      return "((int)" + std::to_string(static_cast<int64_t>(c)) + ")";
    }
  }
  Value add(const Value& a, const Value& b) { return kFloat ? tmp(a + " + " + b) : wrap(a, "+", b); }
  Value sub(const Value& a, const Value& b) { return kFloat ? tmp(a + " - " + b) : wrap(a, "-", b); }
  Value mul(const Value& a, const Value& b) { return kFloat ? tmp(a + " * " + b) : wrap(a, "*", b); }
  Value neg(const Value& a) { return kFloat ? tmp("-" + a) : wrap(constant(0), "-", a); }
  Value div(const Value& a, const Value& b) {
    if constexpr (kFloat) return tmp(a + " / " + b);
    // Never fused (compiler/fusion.h), but total: x / 0 = 0, INT_MIN / -1 wraps.
    return tmp("(" + b + " == 0 ? " + constant(0) + " : " + b + " == -1 ? " + neg(a) + " : " + a + " / " + b + ")");
  }
  Value fabs(const Value& x) { return fn("FABS", x); }
  Value exp(const Value& x) { return fn("EXP", x); }
  Value log(const Value& x) { return fn("LOG", x); }
  Value sqrt(const Value& x) { return fn("SQRT", x); }
  Value tanh(const Value& x) { return fn("TANH", x); }
  Value erf(const Value& x) { return fn("ERF", x); }
  Value sin(const Value& x) { return fn("SIN", x); }
  Value cos(const Value& x) { return fn("COS", x); }
  Value pow(const Value& x, const Value& y) {
    return tmp(std::string("MLC_POW") + (t == DType::f64 ? "_F64(" : "_F32(") + x + ", " + y + ")");
  }
  Bool is_nan(const Value& x) {
    if constexpr (kFloat) return emit("bool", "(" + x + " != " + x + ")");
    else return "false";
  }
  Bool cmp(scalar::CmpDir d, const Value& x, const Value& y) {
    static constexpr const char* kOps[] = {"==", "!=", "<", "<=", ">", ">="};
    return emit("bool", "(" + x + " " + kOps[static_cast<int>(d)] + " " + y + ")");
  }
  Value select(const Bool& p, const Value& x, const Value& y) { return tmp("(" + p + " ? " + x + " : " + y + ")"); }
};

class Emitter {
 public:
  Emitter(const kir::Kernel& k, const Schedule& s) : k_(k), s_(s) {}

  std::string run(const std::string& symbol) {
    const int block = s_.launch.block;
    out_ += "/* " + k_.name + ": " + comment_safe(k_.origin) + " */\n";
    const bool two_phase = s_.launch.two_phase();
    const std::string phases =
        two_phase ? " in two phases (" + std::to_string(s_.partials) + " partial blocks, then " +
                        std::to_string(s_.launch.combine_grid) + " combining)"
                  : "";
    out_ += "/* schedule: " + std::string(schedule_kind_name(s_.kind)) + phases + ", block " + std::to_string(block) + " */\n";
    out_ += "MLC_KERNEL(" + std::to_string(block) + ") " + symbol + "(";
    for (size_t p = 0; p < k_.params.size(); ++p)
      out_ += "MLC_PARAM(" + std::string(memory_type(k_.params[p])) + ", p" + std::to_string(p) + "), ";
    // Two phases (rt::GpuLaunch): the scratch words, then the status word, then the phase.
    if (two_phase) out_ += "MLC_PARAM(u64, mlc_scratch), ";
    out_ += two_phase ? "MLC_STATUS_PARAM, i64 mlc_phase) {\n" : "MLC_STATUS_PARAM) {\n";
    indent_ = 1;
    for (size_t p = 0; p < k_.params.size(); ++p)
      line("MLC_BIND(" + std::string(memory_type(k_.params[p])) + ", p" + std::to_string(p) + ");");
    if (two_phase) line("MLC_BIND(u64, mlc_scratch);");
    // An output written into an input's buffer is stored through the input's pointer.
    const int out = k_.num_inputs();
    store_param_.assign(static_cast<size_t>(k_.num_outputs()), 0);
    for (int o = 0; o < k_.num_outputs(); ++o) {
      const int alias = o == 0 ? k_.output_alias : k_.more_alias[static_cast<size_t>(o - 1)];
      store_param_[static_cast<size_t>(o)] = alias >= 0 ? alias : out + o;
    }
    cache_.assign(k_.exprs.size(), "");
    vars_.assign(static_cast<size_t>(k_.num_vars), "");
    scopes_.emplace_back();
    if (s_.kind == ScheduleKind::row && s_.launch.two_phase()) emit_two_phase_row_schedule(block);
    else if (s_.kind == ScheduleKind::row) emit_row_schedule(block);
    else if (s_.kind == ScheduleKind::columns) emit_columns_schedule(block);
    else if (s_.kind == ScheduleKind::transpose_tiles) emit_transpose_tiles_schedule();
    else if (s_.kind == ScheduleKind::scatter_rows) emit_scatter_rows_schedule(block);
    else emit_elementwise_schedule();
    out_ += "}\n";
    return std::move(out_);
  }

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

  int64_t domain_elements() const {
    int64_t n = 1;
    for (int64_t d : k_.domain) n *= d;
    return n;
  }

  // Sets the variables [var0, var0 + extents.size()) from the row-major linear index `lin`.
  void split_index(const std::string& lin, int var0, const std::vector<int64_t>& extents) {
    std::string rem = lin;
    for (size_t d = extents.size(); d-- > 0;) {
      const std::string v = "v" + std::to_string(var0 + static_cast<int>(d));
      if (d == 0) {
        line("const i64 " + v + " = " + rem + ";");
      } else {
        line("const i64 " + v + " = " + rem + " % " + i64_literal(extents[d]) + ";");
        const std::string next = "q" + std::to_string(temps_++);
        line("const i64 " + next + " = " + rem + " / " + i64_literal(extents[d]) + ";");
        rem = next;
      }
      vars_[static_cast<size_t>(var0) + d] = v;
    }
  }

  // The current element's outputs (root, then more_roots) as their buffers hold them.
  std::vector<std::string> output_values(const std::function<std::string(std::string)>& root_adjust = nullptr) {
    std::vector<std::string> v = {value(k_.root)};
    if (root_adjust) v[0] = root_adjust(v[0]);
    for (int r : k_.more_roots) v.push_back(value(r));
    const int out = k_.num_inputs();
    for (size_t o = 0; o < v.size(); ++o)
      if (k_.params[static_cast<size_t>(out) + o] == DType::boolean) v[o] = "(u8)(" + v[o] + ")";
    return v;
  }

  void store_outputs(const std::string& lin, const std::function<std::string(std::string)>& root_adjust = nullptr) {
    const std::vector<std::string> v = output_values(root_adjust);
    for (size_t o = 0; o < v.size(); ++o) line("p" + std::to_string(store_param_[o]) + "[" + lin + "] = " + v[o] + ";");
  }

  // The vector type of kVectorWidth elements of a buffer of dtype t (the
  // same name in CUDA C and OpenCL C).
  static std::string vector_type(DType t) {
    const std::string m = memory_type(t);
    return (m == "u16" ? "ushort" : m == "u8" ? "uchar" : m) + std::to_string(kVectorWidth);
  }

  // The inputs some load that the outputs depend on reads.
  std::vector<bool> loaded_inputs() const {
    std::vector<bool> loaded(static_cast<size_t>(k_.num_inputs()), false);
    std::vector<int> roots = {k_.root};
    roots.insert(roots.end(), k_.more_roots.begin(), k_.more_roots.end());
    kir::for_each_reachable(k_, roots, [&](int, const kir::Expr& e) {
      if (e.kind == kir::ExprKind::load) loaded[static_cast<size_t>(e.i)] = true;
    });
    return loaded;
  }

  // gpu_schedule.h's vector form: group g of kVectorWidth elements per
  // thread (grid-stride), one vector load per input read (its lanes are what
  // the element's loads return: compute's K::load), each element computed
  // in a scope of its own, one vector store per output.
  void emit_vector_groups(int64_t groups) {
    const int block = s_.launch.block;
    const int out = k_.num_inputs();
    const std::vector<bool> loaded = loaded_inputs();
    scoped("for (i64 vec = MLC_BLOCK * " + std::to_string(block) + " + MLC_THREAD; vec < " + i64_literal(groups) +
               "; vec += MLC_BLOCKS * " + std::to_string(block) + ")",
           [&] {
             for (int p = 0; p < out; ++p)
               if (loaded[static_cast<size_t>(p)])
                 line(vector_type(k_.params[static_cast<size_t>(p)]) + " mlc_v" + std::to_string(p) + " = MLC_LOAD4(" +
                      vector_type(k_.params[static_cast<size_t>(p)]) + ", p" + std::to_string(p) + ", vec);");
             std::vector<std::vector<std::string>> lanes(static_cast<size_t>(k_.num_outputs()));
             for (int o = 0; o < k_.num_outputs(); ++o)
               for (int j = 0; j < kVectorWidth; ++j) {
                 lanes[static_cast<size_t>(o)].push_back("mlc_r" + std::to_string(o) + "_" + std::to_string(j));
                 line(std::string(memory_type(k_.params[static_cast<size_t>(out + o)])) + " " + lanes[static_cast<size_t>(o)].back() + ";");
               }
             for (int j = 0; j < kVectorWidth; ++j) {
               lane_ = j;
               scoped("", [&] {
                 line("const i64 lin = vec * " + std::to_string(kVectorWidth) + " + " + std::to_string(j) + ";");
                 split_index("lin", 0, k_.domain);
                 const std::vector<std::string> v = output_values();
                 for (size_t o = 0; o < v.size(); ++o) line(lanes[o][static_cast<size_t>(j)] + " = " + v[o] + ";");
               });
             }
             lane_ = -1;
             for (int o = 0; o < k_.num_outputs(); ++o) {
               const std::string vt = vector_type(k_.params[static_cast<size_t>(out + o)]);
               std::string all;
               for (const std::string& l : lanes[static_cast<size_t>(o)]) all += ", " + l;
               line("MLC_STORE4(" + vt + ", p" + std::to_string(store_param_[static_cast<size_t>(o)]) + ", vec, MLC_VEC4(" + vt +
                    all + "));");
             }
           });
  }

  void emit_elementwise_schedule() {
    const int64_t n = domain_elements();
    // The vector form's groups, then a thread per element of the rest.
    const int64_t groups = s_.vector_width > 1 ? n / s_.vector_width : 0;
    if (groups > 0) emit_vector_groups(groups);
    const std::string first = groups > 0 ? i64_literal(groups * s_.vector_width) + " + " : "";
    scoped("for (i64 lin = " + first + "MLC_BLOCK * " + std::to_string(s_.launch.block) + " + MLC_THREAD; lin < " + i64_literal(n) +
               "; lin += MLC_BLOCKS * " + std::to_string(s_.launch.block) + ")",
           [&] {
             split_index("lin", 0, k_.domain);
             if (k_.scatters()) store_outputs("lin", [&](std::string v) { return scatter_into(v); });
             else store_outputs("lin");
           });
  }

  // The shared arrays of the schedule's block reductions, a slot per thread.
  void declare_shared_arrays(int block) {
    if (s_.shared_f64) line("MLC_SHARED double mlc_sf64[" + std::to_string(block) + "];");
    if (s_.shared_i64) line("MLC_SHARED i64 mlc_si64[" + std::to_string(block) + "];");
    if (s_.shared_f32) line("MLC_SHARED float mlc_sf32[" + std::to_string(block) + "];");
    if (s_.shared_index) line("MLC_SHARED i64 mlc_sidx[" + std::to_string(block) + "];");
  }
  // The block's reductions, in expression order (gpu_schedule.h: before the elements).
  void block_reductions() {
    for (size_t id = 0; id < k_.exprs.size(); ++id)
      if (s_.block_reduce[id]) value(static_cast<int>(id));
  }

  void emit_row_schedule(int block) {
    declare_shared_arrays(block);
    line("const i64 tid = MLC_THREAD;");
    fold_ = {"tid", std::to_string(block), true, "0", false};
    scoped("for (i64 row = MLC_BLOCK; row < " + i64_literal(s_.rows) + "; row += MLC_BLOCKS)", [&] {
      set_row_variables();
      block_reductions();
      store_row_elements("tid", std::to_string(block));
    });
  }

  // gpu_schedule.h's row in two phases (one row): phase 0 folds partial
  // `partial` of every block reduction (grid-stride over the G partials)
  // and stores the block's results into the scratch; phase 1 combines the
  // partials in every block, then the blocks' threads store the row's
  // elements (grid-stride).
  void emit_two_phase_row_schedule(int block) {
    const std::string b = std::to_string(block);
    declare_shared_arrays(block);
    line("const i64 tid = MLC_THREAD;");
    line("const i64 row = 0;");
    scoped("if (mlc_phase == 0)", [&] {
      scoped("for (i64 partial = MLC_BLOCK; partial < " + i64_literal(s_.partials) + "; partial += MLC_BLOCKS)", [&] {
        set_row_variables();
        fold_ = {"partial * " + b + " + tid", i64_literal(s_.partials * block), true, "0", false};
        for (size_t id = 0; id < k_.exprs.size(); ++id)
          if (s_.block_reduce[id]) store_partial(static_cast<int>(id));
      });
    });
    scoped("if (mlc_phase == 1)", [&] {
      set_row_variables();
      fold_ = {"", "", true, "0", true};
      block_reductions();
      store_row_elements("MLC_BLOCK * " + b + " + tid", "MLC_BLOCKS * " + b);
    });
  }

  // The row schedule's domain variables for row `row` (all of them with
  // element_rows; none but the last's otherwise).
  void set_row_variables() {
    const size_t rank = k_.domain.size();
    if (s_.element_rows) split_index("row", 0, k_.domain);
    else if (rank > 1) split_index("row", 0, std::vector<int64_t>(k_.domain.begin(), k_.domain.end() - 1));
  }

  // The row's elements after its block reductions, computed and stored by
  // the threads numbered `first` (an expression), every `stride`-th element
  // each: thread 0 alone where the row is one element (a rank-0 domain, or
  // element_rows).
  void store_row_elements(const std::string& first, const std::string& stride) {
    const size_t rank = k_.domain.size();
    if (rank == 0 || s_.element_rows) {
      scoped("if (" + first + " == 0)", [&] { store_outputs("row"); });
      return;
    }
    const int64_t inner = k_.domain.back();
    scoped("for (i64 inner = " + first + "; inner < " + i64_literal(inner) + "; inner += " + stride + ")", [&] {
      line("const i64 v" + std::to_string(rank - 1) + " = inner;");
      vars_[rank - 1] = "v" + std::to_string(rank - 1);
      store_outputs("row * " + i64_literal(inner) + " + inner");
    });
  }

  // gpu_schedule.h's columns: a block per tile of kColumnTile elements; its
  // thread t is lane t % kColumnTile of part t / kColumnTile. Lanes past the
  // domain's end fold the last element's terms and store nothing (every
  // thread reaches every barrier).
  void emit_columns_schedule(int block) {
    const int64_t n = domain_elements();
    const std::string tile = std::to_string(kColumnTile);
    declare_shared_arrays(block);
    line("const i64 tid = MLC_THREAD;");
    line("const i64 lane = tid % " + tile + ";");
    line("const i64 part = tid / " + tile + ";");
    fold_ = {"part", std::to_string(block / kColumnTile), false, "lane", false};
    scoped("for (i64 tile = MLC_BLOCK; tile < " + i64_literal(s_.rows) + "; tile += MLC_BLOCKS)", [&] {
      line("const i64 col = tile * " + tile + " + lane;");
      line("const i64 lin = col < " + i64_literal(n) + " ? col : " + i64_literal(n - 1) + ";");
      split_index("lin", 0, k_.domain);
      block_reductions();
      scoped("if (part == 0 && col < " + i64_literal(n) + ")", [&] { store_outputs("lin"); });
    });
  }

  // gpu_schedule.h's transpose_tiles: per tile, each staged load's values
  // into its shared array (row: along the last dim, column: along the
  // second-to-last, so lane x reads along the load's contiguous direction),
  // a barrier, then the tile's elements with lane x along the last dim (the
  // staged loads read from the arrays, transposed back), and a barrier.
  void emit_transpose_tiles_schedule() {
    const size_t rank = k_.domain.size();
    const int64_t rows = k_.domain[rank - 2], cols = k_.domain[rank - 1];
    const std::string side = std::to_string(kTransposeTile), pitch = std::to_string(kTransposeTile + 1);
    const std::string steps = std::to_string(s_.launch.block / kTransposeTile);
    const int64_t col_tiles = (cols + kTransposeTile - 1) / kTransposeTile;
    const int64_t row_tiles = (rows + kTransposeTile - 1) / kTransposeTile;
    for (size_t t = 0; t < s_.staged_loads.size(); ++t)
      line("MLC_SHARED " + std::string(memory_type(staged_param_type(t))) + " mlc_tile" + std::to_string(t) + "[" +
           std::to_string(kTransposeTile * (kTransposeTile + 1)) + "];");
    line("const i64 tid = MLC_THREAD;");
    line("const i64 tx = tid % " + side + ";");
    line("const i64 ty = tid / " + side + ";");
    const std::vector<int64_t> leading(k_.domain.begin(), k_.domain.end() - 2);
    // The element (lead, row, col) of the domain: its variables.
    auto set_element = [&](const std::string& row, const std::string& col) {
      if (!leading.empty()) split_index("lead", 0, leading);
      line("const i64 v" + std::to_string(rank - 2) + " = " + row + ";");
      line("const i64 v" + std::to_string(rank - 1) + " = " + col + ";");
      vars_[rank - 2] = "v" + std::to_string(rank - 2);
      vars_[rank - 1] = "v" + std::to_string(rank - 1);
    };
    scoped("for (i64 tile = MLC_BLOCK; tile < " + i64_literal(s_.rows) + "; tile += MLC_BLOCKS)", [&] {
      line("const i64 col0 = (tile % " + i64_literal(col_tiles) + ") * " + side + ";");
      line("const i64 row0 = ((tile / " + i64_literal(col_tiles) + ") % " + i64_literal(row_tiles) + ") * " + side + ";");
      line("const i64 lead = tile / " + i64_literal(col_tiles * row_tiles) + ";");
      scoped("for (int k = 0; k < " + side + "; k += " + steps + ")", [&] {
        // Past an edge: the last row or column (in bounds, never used).
        line("const i64 srow = row0 + tx < " + i64_literal(rows) + " ? row0 + tx : " + i64_literal(rows - 1) + ";");
        line("const i64 scol = col0 + ty + k < " + i64_literal(cols) + " ? col0 + ty + k : " + i64_literal(cols - 1) + ";");
        set_element("srow", "scol");
        for (size_t t = 0; t < s_.staged_loads.size(); ++t) {
          const kir::Expr& load = k_.exprs[static_cast<size_t>(s_.staged_loads[t])];
          line("mlc_tile" + std::to_string(t) + "[(ty + k) * " + pitch + " + tx] = p" + std::to_string(load.i) + "[" +
               value(load.a) + "];");
        }
      });
      line("MLC_BARRIER();");
      staged_tiles_ = true;
      scoped("for (int k = 0; k < " + side + "; k += " + steps + ")", [&] {
        line("const i64 row = row0 + ty + k;");
        line("const i64 col = col0 + tx;");
        scoped("if (row < " + i64_literal(rows) + " && col < " + i64_literal(cols) + ")", [&] {
          set_element("row", "col");
          store_outputs("(lead * " + i64_literal(rows) + " + row) * " + i64_literal(cols) + " + col");
        });
      });
      staged_tiles_ = false;
      line("MLC_BARRIER();");  // before the next tile's staging
    });
  }
  // The dtype of the buffer staged load t reads.
  DType staged_param_type(size_t t) const {
    return k_.params[static_cast<size_t>(k_.exprs[static_cast<size_t>(s_.staged_loads[t])].i)];
  }

  // gpu_schedule.h's scatter_rows: a block per output row; the initial
  // values, then the hits of each chunk of the leading update indices in
  // order, each thread adding to its own elements (at = row * inner + the
  // last update variable: the schedule checked the form).
  void emit_scatter_rows_schedule(int block) {
    const kir::Kernel::Scatter& sc = k_.scatter;
    const size_t rank = k_.domain.size();
    const int64_t inner = k_.domain.back();
    const DType t = k_.params[static_cast<size_t>(k_.num_inputs())];
    const std::string out = "p" + std::to_string(store_param_[0]);
    int64_t leading = 1;
    for (int64_t d : s_.scatter_leading) leading *= d;
    const std::string b = std::to_string(block);
    const int last = sc.var0 + static_cast<int>(sc.domain.size()) - 1;
    line("MLC_SHARED int mlc_sflag[" + b + "];");
    line("const i64 tid = MLC_THREAD;");
    scoped("for (i64 row = MLC_BLOCK; row < " + i64_literal(s_.rows) + "; row += MLC_BLOCKS)", [&] {
      if (rank > 1) split_index("row", 0, std::vector<int64_t>(k_.domain.begin(), k_.domain.end() - 1));
      const std::string v_inner = "v" + std::to_string(rank - 1);
      scoped("for (i64 inner = tid; inner < " + i64_literal(inner) + "; inner += " + b + ")", [&] {
        line("const i64 " + v_inner + " = inner;");
        vars_[rank - 1] = v_inner;
        store_outputs("row * " + i64_literal(inner) + " + inner");
      });
      scoped("for (i64 sbase = 0; sbase < " + i64_literal(leading) + "; sbase += " + b + ")", [&] {
        scoped("", [&] {
          line("const i64 sj = sbase + tid;");
          line("int hit = 0;");
          scoped("if (sj < " + i64_literal(leading) + ")", [&] {
            split_index("sj", sc.var0, s_.scatter_leading);
            line("hit = " + value(sc.row) + " == row;");
          });
          line("mlc_sflag[tid] = hit;");
        });
        line("MLC_BARRIER();");
        scoped("for (int st = 0; st < " + b + "; ++st)", [&] {
          scoped("if (mlc_sflag[st])", [&] {
            line("const i64 sj = sbase + st;");
            split_index("sj", sc.var0, s_.scatter_leading);
            scoped("for (i64 inner = tid; inner < " + i64_literal(inner) + "; inner += " + b + ")", [&] {
              line("const i64 v" + std::to_string(last) + " = inner;");
              vars_[static_cast<size_t>(last)] = "v" + std::to_string(last);
              const std::string x = value(sc.value);
              const std::string at = out + "[row * " + i64_literal(inner) + " + inner]";
              if (is_float(t)) line(at + " = " + at + " + " + x + ";");
              else line(at + " = (" + std::string(value_type(t)) + ")((u64)" + at + " + (u64)" + x + ");");
            });
          });
        });
        line("MLC_BARRIER();");
      });
    });
  }

  // kir::Kernel::scatter for the output element `lin` holding `v`: every
  // element of the scatter's domain, in row-major order, whose target is
  // `lin` adds its value, in the output's dtype: each output element gets its
  // terms in the reference kernel's order.
  std::string scatter_into(const std::string& v) {
    const kir::Kernel::Scatter& sc = k_.scatter;
    const DType t = k_.params[static_cast<size_t>(k_.num_inputs())];
    const int64_t inner = k_.domain.empty() ? 1 : k_.domain.back();
    const std::string acc = fresh(value_type(t), v);
    int64_t n = 1;
    for (int64_t d : sc.domain) n *= d;
    scoped("for (i64 sj = 0; sj < " + i64_literal(n) + "; ++sj)", [&] {
      split_index("sj", sc.var0, sc.domain);
      scoped("if (" + value(sc.row) + " == lin / " + i64_literal(inner) + " && " + value(sc.at) + " == lin)", [&] {
        const std::string x = value(sc.value);
        if (is_float(t)) line(acc + " = " + acc + " + " + x + ";");
        else line(acc + " = (" + value_type(t) + ")((u64)" + acc + " + (u64)" + x + ");");
      });
    });
    return acc;
  }

  std::string value(int id) {
    std::string& c = cache_[static_cast<size_t>(id)];
    if (!c.empty()) return c;
    std::string v = compute(k_.exprs[static_cast<size_t>(id)], id);
    cache_[static_cast<size_t>(id)] = v;
    scopes_.back().push_back(id);
    return v;
  }

  // Expression id's value as its compute dtype reads it (a half widened to float).
  std::string operand(int id) {
    const DType t = k_.exprs[static_cast<size_t>(id)].dtype;
    std::string v = value(id);
    if (t == DType::bf16) return "mlc_bf16_to_f32(" + v + ")";
    if (t == DType::f16) return "mlc_f16_to_f32(" + v + ")";
    return v;
  }
  // r, computed in compute_dtype(t), as t holds it.
  std::string rounded(DType t, const std::string& r) {
    if (t == DType::bf16) return "mlc_f32_to_bf16(" + r + ")";
    if (t == DType::f16) return "mlc_f32_to_f16(" + r + ")";
    return r;
  }

  template <class F>
  std::string with_handler(DType t, F f) {
    auto emit = [this](const char* type, const std::string& e) { return fresh(type, e); };
    if (is_float(t)) {
      TextScalar<true> h{emit, compute_dtype(t)};
      return f(h);
    }
    TextScalar<false> h{emit, t};
    return f(h);
  }

  // x of dtype `from` as dtype `to`.
  std::string convert(std::string x, DType from, DType to) {
    if (from == to) return x;
    if (is_half(from)) {
      x = (from == DType::bf16 ? "mlc_bf16_to_f32(" : "mlc_f16_to_f32(") + x + ")";
      from = DType::f32;
      if (to == DType::f32) return x;
    }
    if (is_half(to)) {
      const char* name = to == DType::bf16 ? "bf16" : "f16";
      if (from == DType::f32) return "mlc_f32_to_" + std::string(name) + "(" + x + ")";
      // Doubles directly, integers through double: one rounding.
      return "mlc_f64_to_" + std::string(name) + "((double)(" + x + "))";
    }
    if (to == DType::boolean) return "(" + x + " != 0)";
    if (from == DType::boolean) return "((" + std::string(value_type(to)) + ")(" + x + " ? 1 : 0))";
    return "((" + std::string(value_type(to)) + ")(" + x + "))";
  }

  std::string compute(const kir::Expr& e, int id) {
    using K = kir::ExprKind;
    auto idx = [&](const char* op) { return fresh("i64", value(e.a) + " " + op + " " + value(e.b)); };
    switch (e.kind) {
      case K::var: return vars_[static_cast<size_t>(e.i)];
      case K::iconst: return i64_literal(e.i);
      case K::iadd: return idx("+");
      case K::imul: return idx("*");
      case K::idiv: return idx("/");
      case K::irem: return idx("%");
      case K::imin: return fresh("i64", "(" + value(e.a) + " < " + value(e.b) + " ? " + value(e.a) + " : " + value(e.b) + ")");
      case K::imax: return fresh("i64", "(" + value(e.a) + " > " + value(e.b) + " ? " + value(e.a) + " : " + value(e.b) + ")");
      case K::ilt: return fresh("bool", "(" + value(e.a) + " < " + value(e.b) + ")");
      case K::constant:
        switch (e.dtype) {
          case DType::f32: return f32_literal(static_cast<float>(e.f));
          case DType::f64: return f64_literal(e.f);
          case DType::bf16: return "((u16)" + std::to_string(rt::bf16::from_double(e.f).bits) + "u)";
          case DType::f16: return "((u16)" + std::to_string(rt::f16::from_double(e.f).bits) + "u)";
          case DType::i32: return "((int)" + std::to_string(e.i) + ")";
          case DType::i64: return i64_literal(e.i);
          case DType::boolean: return e.i != 0 ? "true" : "false";
        }
        return "0";
      case K::load: {
        if (staged_tiles_) {  // transpose_tiles: the staged value, transposed back
          const auto it = std::find(s_.staged_loads.begin(), s_.staged_loads.end(), id);
          if (it != s_.staged_loads.end()) {
            const std::string x = "mlc_tile" + std::to_string(it - s_.staged_loads.begin()) + "[tx * " +
                                  std::to_string(kTransposeTile + 1) + " + ty + k]";
            return fresh(value_type(e.dtype), e.dtype == DType::boolean ? "(" + x + " != 0)" : x);
          }
        }
        if (lane_ >= 0) {  // the vector form: lane lane_ of the input's vector load
          const std::string x = "mlc_v" + std::to_string(e.i) + "." + "xyzw"[lane_];
          return fresh(value_type(e.dtype), e.dtype == DType::boolean ? "(" + x + " != 0)" : x);
        }
        const std::string p = "p" + std::to_string(e.i) + "[" + value(e.a) + "]";
        return fresh(value_type(e.dtype), e.dtype == DType::boolean ? "(" + p + " != 0)" : p);
      }
      case K::unary: {
        const std::string x = operand(e.a);
        return rounded(e.dtype, with_handler(e.dtype, [&](auto& h) {
          std::string r;
          scalar::unary_dispatch(h, e.op, x, r);
          return r;
        }));
      }
      case K::binary: {
        const std::string x = operand(e.a), y = operand(e.b);
        return fresh(value_type(e.dtype), rounded(e.dtype, with_handler(e.dtype, [&](auto& h) {
          std::string r;
          scalar::binary_dispatch(h, e.op, x, y, r);
          return r;
        })));
      }
      case K::cmp: {
        const std::string x = operand(e.a), y = operand(e.b);
        return with_handler(k_.exprs[static_cast<size_t>(e.a)].dtype, [&](auto& h) { return h.cmp(e.dir, x, y); });
      }
      case K::select:
        return fresh(value_type(e.dtype), "(" + value(e.a) + " ? " + value(e.b) + " : " + value(e.c) + ")");
      case K::cast:
        return fresh(value_type(e.dtype), convert(value(e.a), k_.exprs[static_cast<size_t>(e.a)].dtype, e.dtype));
      case K::index_value: return fresh(value_type(e.dtype), convert(value(e.a), DType::i64, e.dtype));
      case K::reduce: return s_.block_reduce[static_cast<size_t>(id)] ? block_reduce(e, id) : thread_reduce(e);
      case K::checked_index: {
        // Out of range: the status word says so, and element 0 is read instead.
        const std::string v = fresh("i64", "(i64)(" + value(e.a) + ")");
        line("if ((u64)" + v + " >= (u64)" + i64_literal(e.i) + ") { *mlc_status = 1; " + v + " = 0; }");
        return v;
      }
      case K::random:
        return fresh("float", "mlc_uniform(" + value(e.a) + ", " + value(e.b) + ", (u64)" + i64_literal(e.i) + ", " +
                                  std::to_string(static_cast<uint32_t>(e.f)) + "u)");
    }
    return "0";
  }

  // ---- reductions

  struct Acc {
    DType type;          // accumulator dtype
    std::string init;
    bool indexed;        // max/min/argmax carry their element's index
    bool fl;             // float input
  };
  Acc accumulator(const kir::Expr& e) const {
    const DType in = k_.exprs[static_cast<size_t>(e.a)].dtype;
    Acc a;
    a.fl = is_float(in);
    a.indexed = e.op != OpCode::ReduceSum;
    if (e.op == OpCode::ReduceSum) {
      a.type = a.fl ? DType::f64 : DType::i64;
      a.init = a.fl ? "0.0" : i64_literal(0);
      return a;
    }
    a.type = compute_dtype(in);
    if (a.type == DType::boolean || a.type == DType::i32) a.type = DType::i64;  // held wide; narrowed at the end
    const bool high = e.op == OpCode::ReduceMin;
    if (a.fl) {
      a.init = a.type == DType::f64 ? f64_literal(high ? INFINITY : -INFINITY) : f32_literal(high ? INFINITY : -INFINITY);
    } else {
      const int64_t lo = in == DType::i32 ? INT32_MIN : in == DType::boolean ? 0 : INT64_MIN;
      const int64_t hi = in == DType::i32 ? INT32_MAX : in == DType::boolean ? 1 : INT64_MAX;
      a.init = i64_literal(high ? hi : lo);
    }
    return a;
  }

  // The sequential fold's step: acc (and index) folded with term x at linear index `at`.
  void fold_step(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index, const std::string& x,
                 const std::string& at) {
    if (e.op == OpCode::ReduceSum) {
      if (a.fl) line(acc + " += (double)" + x + ";");
      else line(acc + " = (i64)((u64)" + acc + " + (u64)(i64)" + x + ");");
      return;
    }
    const std::string xv = fresh(value_type(a.type), "(" + std::string(value_type(a.type)) + ")" + x);
    std::string beats;
    if (e.op == OpCode::Argmax) {
      beats = a.fl ? "(" + xv + " != " + xv + " ? " + acc + " == " + acc + " : " + xv + " > " + acc + ")" : "(" + xv + " > " + acc + ")";
      beats = "(" + index + " < 0 || " + beats + ")";
    } else {
      const char* cmp = e.op == OpCode::ReduceMax ? " > " : " < ";
      // Strictly better, or a NaN (which sticks: the last NaN wins).
      beats = "(" + index + " < 0 || " + xv + cmp + acc + (a.fl ? " || " + xv + " != " + xv : "") + ")";
    }
    scoped("if " + beats, [&] {
      line(acc + " = " + xv + ";");
      line(index + " = " + at + ";");
    });
  }

  std::string reduce_result(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index) {
    if (e.op == OpCode::Argmax) return index;
    if (is_half(e.dtype)) {
      const char* name = e.dtype == DType::bf16 ? "bf16" : "f16";
      if (a.type == DType::f64) return fresh("u16", "mlc_f64_to_" + std::string(name) + "(" + acc + ")");
      return fresh("u16", "mlc_f32_to_" + std::string(name) + "(" + acc + ")");
    }
    return fresh(value_type(e.dtype), "(" + std::string(value_type(e.dtype)) + ")" + acc);
  }

  std::string linear_index(const kir::Expr& e) {
    std::string l = i64_literal(0);
    for (size_t j = 0; j < e.extents.size(); ++j)
      l = "(" + l + " * " + i64_literal(e.extents[j]) + " + " + vars_[static_cast<size_t>(e.var0) + j] + ")";
    return l;
  }

  // The fold's body for the current element: where the mask holds, x folded in.
  void fold_element(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index, const std::string& at) {
    auto fold = [&] { fold_step(e, a, acc, index, operand(e.a), at); };
    if (e.b >= 0) scoped("if (" + value(e.b) + ")", fold);
    else fold();
  }

  // Folded by this thread alone, in row-major order: the reference order.
  std::string thread_reduce(const kir::Expr& e) {
    const Acc a = accumulator(e);
    const std::string acc = fresh(value_type(a.type), a.init);
    // Max and min start with no element (index -1); an unmasked argmax starts at element 0.
    const std::string index = a.indexed ? fresh("i64", e.op == OpCode::Argmax && e.b < 0 ? "0" : "-1") : "";
    std::function<void(size_t)> nest = [&](size_t j) {
      if (j == e.extents.size()) {
        fold_element(e, a, acc, index, a.indexed ? linear_index(e) : "");
        return;
      }
      const std::string v = "v" + std::to_string(e.var0 + static_cast<int>(j));
      vars_[static_cast<size_t>(e.var0) + j] = v;
      scoped("for (i64 " + v + " = 0; " + v + " < " + i64_literal(e.extents[j]) + "; ++" + v + ")", [&] { nest(j + 1); });
    };
    nest(0);
    return reduce_result(e, a, acc, index);
  }

  // A thread's (or a block's) partial result of a reduction: its
  // accumulator and, for max, min and argmax, its element's index (-1: no
  // element yet); `index` is empty for sums.
  struct Partial {
    std::string value, index;
  };

  // Folded by the block (gpu_schedule.h): the thread's partial result
  // (block_fold_terms, or in a two-phase kernel's combine the partial
  // blocks' results: read_partials), then block_tree's.
  std::string block_reduce(const kir::Expr& e, int id) {
    const Acc a = accumulator(e);
    const Partial mine = fold_.from_scratch ? read_partials(e, a, id) : block_fold_terms(e, a);
    const Partial total = block_tree(e, a, mine);
    return reduce_result(e, a, total.value, total.index);
  }

  // This thread's terms of reduction e folded in order: fold_.first, then
  // every fold_.stride-th.
  Partial block_fold_terms(const kir::Expr& e, const Acc& a) {
    int64_t n = 1;
    for (int64_t x : e.extents) n *= x;
    const Partial p{fresh(value_type(a.type), a.init), a.indexed ? fresh("i64", "-1") : ""};
    scoped("for (i64 rj = " + fold_.first + "; rj < " + i64_literal(n) + "; rj += " + fold_.stride + ")", [&] {
      split_index("rj", e.var0, e.extents);
      fold_element(e, a, p.value, p.index, "rj");
    });
    return p;
  }

  // The block's result of reduction e from each thread's partial result
  // `mine`: a fixed binary tree over the threads' slots, slot t taking slot
  // t + s: strides of a warp and more in shared memory; with
  // fold_.warp_levels the last five levels within the warp (the result in
  // slot 0), else the result in slot fold_.result_slot (columns: the tile's
  // lane l in slot l). Every thread gets it.
  Partial block_tree(const kir::Expr& e, const Acc& a, const Partial& mine) {
    const int block = s_.launch.block;
    const std::string arr = shared_array(e, a);
    line(arr + "[tid] = " + mine.value + ";");
    if (a.indexed) line("mlc_sidx[tid] = " + mine.index + ";");
    line("MLC_BARRIER();");
    shared_tree_levels(e, a, arr, block, kWarpSize);
    const char* type = value_type(a.type);
    std::string result_slot = fold_.result_slot;
    if (fold_.warp_levels) {
      // The tree's last five levels (strides 16 to 1) within the first warp:
      // the partner's partial result through MLC_WARP_DOWN (CUDA: a register
      // shuffle; OpenCL: the shared array, MLC_WARP_PUT storing each level's
      // result and MLC_WARP_FENCE a barrier). Every thread of the block runs
      // them (a shuffle needs its whole warp, a barrier its whole block); the
      // threads at or past a level's stride combine nothing.
      const std::string w = fresh(type, arr + "[tid]");
      const std::string wi = a.indexed ? fresh("i64", "mlc_sidx[tid]") : "";
      scoped("for (int s = " + std::to_string(kWarpSize / 2) + "; s > 0; s >>= 1)", [&] {
        const std::string o = fresh(type, "MLC_WARP_DOWN(" + arr + ", " + w + ", s)");
        const std::string oi = a.indexed ? fresh("i64", "MLC_WARP_DOWN(mlc_sidx, " + wi + ", s)") : "";
        scoped("if (tid < s)", [&] {
          combine_partials(e, a, w, wi, o, oi);
          line("MLC_WARP_PUT(" + arr + ", " + w + ");");
          if (a.indexed) line("MLC_WARP_PUT(mlc_sidx, " + wi + ");");
        });
        line("MLC_WARP_FENCE();");
      });
      scoped("if (tid == 0)", [&] {
        line(arr + "[0] = " + w + ";");
        if (a.indexed) line("mlc_sidx[0] = " + wi + ";");
      });
      line("MLC_BARRIER();");
      result_slot = "0";
    }
    const Partial total{fresh(type, arr + "[" + result_slot + "]"),
                        a.indexed ? fresh("i64", "mlc_sidx[" + result_slot + "]") : ""};
    line("MLC_BARRIER();");  // before the arrays are used again
    return total;
  }

  // Two phases, phase 0: the block's partial result of block reduction `id`
  // (its terms of partial `partial`: fold_) stored by thread 0 into the
  // reduction's scratch words (Schedule::scratch_word).
  void store_partial(int id) {
    const kir::Expr& e = k_.exprs[static_cast<size_t>(id)];
    const Acc a = accumulator(e);
    const Partial total = block_tree(e, a, block_fold_terms(e, a));
    const int64_t word = s_.scratch_word[static_cast<size_t>(id)];
    scoped("if (tid == 0)", [&] {
      line("mlc_scratch[" + i64_literal(word) + " + partial] = " + scratch_bits(a.type, total.value) + ";");
      if (a.indexed)
        line("mlc_scratch[" + i64_literal(word + s_.partials) + " + partial] = (u64)" + total.index + ";");
    });
  }

  // Two phases, phase 1: thread t's partial result of block reduction `id`,
  // the partial block t's (threads from G on: the fold's identity, 0 or no
  // element, which no combination changes).
  Partial read_partials(const kir::Expr& e, const Acc& a, int id) {
    const int64_t word = s_.scratch_word[static_cast<size_t>(id)];
    const Partial p{fresh(value_type(a.type), a.init), a.indexed ? fresh("i64", "-1") : ""};
    scoped("if (tid < " + i64_literal(s_.partials) + ")", [&] {
      line(p.value + " = " + scratch_value(a.type, "mlc_scratch[" + i64_literal(word) + " + tid]") + ";");
      if (a.indexed) line(p.index + " = (i64)mlc_scratch[" + i64_literal(word + s_.partials) + " + tid];");
    });
    return p;
  }

  // An accumulator of dtype t as the 8-byte scratch word that holds its bits, and back.
  static std::string scratch_bits(DType t, const std::string& v) {
    if (t == DType::f64) return "MLC_F64_BITS(" + v + ")";
    if (t == DType::f32) return "(u64)MLC_F32_BITS(" + v + ")";
    return "(u64)" + v;
  }
  static std::string scratch_value(DType t, const std::string& word) {
    if (t == DType::f64) return "MLC_BITS_F64(" + word + ")";
    if (t == DType::f32) return "MLC_BITS_F32((u32)" + word + ")";
    return "(i64)" + word;
  }

  // The shared array (gpu_schedule.h's Schedule::shared_*) reduction e's
  // partial results are combined in.
  static std::string shared_array(const kir::Expr& e, const Acc& a) {
    if (e.op == OpCode::ReduceSum) return a.fl ? "mlc_sf64" : "mlc_si64";
    return a.type == DType::f64 ? "mlc_sf64" : a.fl ? "mlc_sf32" : "mlc_si64";
  }

  // The levels of the fixed tree over the `size` partial results in `arr`
  // (and mlc_sidx) with strides size / 2 down to `last` (powers of two):
  // slot t takes slot t + s combined into it; a barrier after each level.
  void shared_tree_levels(const kir::Expr& e, const Acc& a, const std::string& arr, int size, int last) {
    if (size / 2 < last) return;
    scoped("for (int s = " + std::to_string(size / 2) + "; s >= " + std::to_string(last) + "; s >>= 1)", [&] {
      scoped("if (tid < s)", [&] {
        const char* type = value_type(a.type);
        const std::string w = fresh(type, arr + "[tid]"), o = fresh(type, arr + "[tid + s]");
        const std::string wi = a.indexed ? fresh("i64", "mlc_sidx[tid]") : "";
        const std::string oi = a.indexed ? fresh("i64", "mlc_sidx[tid + s]") : "";
        combine_partials(e, a, w, wi, o, oi);
        line(arr + "[tid] = " + w + ";");
        if (a.indexed) line("mlc_sidx[tid] = " + wi + ";");
      });
      line("MLC_BARRIER();");
    });
  }

  // The tree's step: partial result (w, wi) combined with the one after it,
  // (o, oi), into (w, wi). Indices are those of the partial's element (-1:
  // none). The sequential fold's answer: for argmax the first NaN, else the
  // first maximal element; for max and min the last NaN, else the first
  // extreme element.
  void combine_partials(const kir::Expr& e, const Acc& a, const std::string& w, const std::string& wi,
                        const std::string& o, const std::string& oi) {
    if (e.op == OpCode::ReduceSum) {
      if (a.fl) line(w + " = " + w + " + " + o + ";");
      else line(w + " = (i64)((u64)" + w + " + (u64)" + o + ");");
      return;
    }
    const std::string w_nan = a.fl ? "(" + w + " != " + w + ")" : "false";
    const std::string o_nan = a.fl ? "(" + o + " != " + o + ")" : "false";
    const char* cmp = e.op == OpCode::ReduceMin ? " < " : " > ";
    // Both NaN: argmax keeps the first, max and min take the last.
    const char* nan_order = e.op == OpCode::Argmax ? " < " : " > ";
    const std::string take_o = "(" + wi + " < 0 || (" + oi + " >= 0 && (" + w_nan + " ? (" + o_nan + " && " + oi + nan_order +
                               wi + ") : (" + o_nan + " || " + o + cmp + w + " || (" + o + " == " + w + " && " + oi + " < " +
                               wi + ")))))";
    scoped("if " + take_o, [&] {
      line(w + " = " + o + ";");
      line(wi + " = " + oi + ";");
    });
  }

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

}  // namespace

std::string kernel_function(const kir::Kernel& k, const Schedule& s, const std::string& symbol) {
  return Emitter(k, s).run(symbol);
}

std::string kernel_source(const kir::Kernel& k, const Schedule& s, const std::string& symbol, Dialect d) {
  std::string text(prelude(d));
  text += '\n';
  text += kernel_function(k, s, symbol);
  return text;
}

}  // namespace mlc::gpu
