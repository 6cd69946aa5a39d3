// The kernel function's frame, the expressions' values and the C literals
// (compiler/gpu/kernel_emitter.h); the schedules' loops are in
// kernel_source_schedules.cc, the reductions in kernel_source_reductions.cc.
#include "compiler/gpu/kernel_source.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "compiler/gpu/kernel_emitter.h"
#include "runtime/half.h"

namespace mlc::gpu {

namespace emit {

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
const char* memory_type(DType t) { return t == DType::boolean ? "u8" : value_type(t); }
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

namespace {

// `s` inside a C comment: no "*/" ends it early.
std::string comment_safe(std::string s) {
  for (size_t i = s.find("*/"); i != std::string::npos; i = s.find("*/", i)) s.replace(i, 2, "* /");
  return s;
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

}  // namespace

std::string Emitter::run(const std::string& symbol) {
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

int64_t Emitter::domain_elements() const {
  int64_t n = 1;
  for (int64_t d : k_.domain) n *= d;
  return n;
}

void Emitter::split_index(const std::string& lin, int var0, const std::vector<int64_t>& extents) {
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

std::vector<std::string> Emitter::output_values(const std::function<std::string(std::string)>& root_adjust) {
  std::vector<std::string> v = {value(k_.root)};
  if (root_adjust) v[0] = root_adjust(v[0]);
  for (int r : k_.more_roots) v.push_back(value(r));
  const int out = k_.num_inputs();
  for (size_t o = 0; o < v.size(); ++o)
    if (k_.params[static_cast<size_t>(out) + o] == DType::boolean) v[o] = "(u8)(" + v[o] + ")";
  return v;
}

void Emitter::store_outputs(const std::string& lin, const std::function<std::string(std::string)>& root_adjust) {
  const std::vector<std::string> v = output_values(root_adjust);
  for (size_t o = 0; o < v.size(); ++o) line("p" + std::to_string(store_param_[o]) + "[" + lin + "] = " + v[o] + ";");
}

std::string Emitter::value(int id) {
  std::string& c = cache_[static_cast<size_t>(id)];
  if (!c.empty()) return c;
  std::string v = compute(k_.exprs[static_cast<size_t>(id)], id);
  cache_[static_cast<size_t>(id)] = v;
  scopes_.back().push_back(id);
  return v;
}

std::string Emitter::operand(int id) {
  const DType t = k_.exprs[static_cast<size_t>(id)].dtype;
  std::string v = value(id);
  if (t == DType::bf16) return "mlc_bf16_to_f32(" + v + ")";
  if (t == DType::f16) return "mlc_f16_to_f32(" + v + ")";
  return v;
}

std::string Emitter::rounded(DType t, const std::string& r) {
  if (t == DType::bf16) return "mlc_f32_to_bf16(" + r + ")";
  if (t == DType::f16) return "mlc_f32_to_f16(" + r + ")";
  return r;
}

template <class F>
std::string Emitter::with_handler(DType t, F f) {
  auto emit = [this](const char* type, const std::string& e) { return fresh(type, e); };
  if (is_float(t)) {
    TextScalar<true> h{emit, compute_dtype(t)};
    return f(h);
  }
  TextScalar<false> h{emit, t};
  return f(h);
}

std::string Emitter::convert(std::string x, DType from, DType to) {
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

std::string Emitter::compute(const kir::Expr& e, int id) {
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

}  // namespace emit

std::string kernel_function(const kir::Kernel& k, const Schedule& s, const std::string& symbol) {
  return emit::Emitter(k, s).run(symbol);
}

std::string kernel_source(const kir::Kernel& k, const Schedule& s, const std::string& symbol, Dialect d) {
  std::string text(prelude(d));
  text += '\n';
  text += kernel_function(k, s, symbol);
  return text;
}

}  // namespace mlc::gpu
