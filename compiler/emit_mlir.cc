// mlc module -> MLIR text in upstream dialects; see compiler/emit_mlir.h for
// the contract and the op mapping.
#include "compiler/emit_mlir.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>

#include "ir/decompose.h"
#include "ir/op_table.h"
#include "ir/scalar_math.h"
#include "ir/verifier.h"
#include "runtime/half.h"

namespace mlc {

std::string mlir_type(DType t) { return t == DType::boolean ? "i1" : std::string(dtype_name(t)); }

std::string mlir_type(const TensorType& t) {
  std::string s = "tensor<";
  for (int64_t d : t.shape) s += std::to_string(d) + "x";
  return s + mlir_type(t.dtype) + ">";
}

namespace {

// ---- types

int bit_width(DType t) { return t == DType::boolean ? 1 : dtype_size(t) * 8; }

// What elementwise arithmetic computes in: f32 for bf16/f16 (rounded once per
// result, as the reference kernels do), the dtype itself otherwise.
DType compute_dtype(DType t) { return is_half(t) ? DType::f32 : t; }

// The accumulator of float sums (f64, as the reference kernels) and integer sums (i64).
DType sum_dtype(DType t) { return is_float(t) ? DType::f64 : DType::i64; }

// ---- literals: values converted to a dtype as the reference kernels convert them

std::string hex_literal(uint64_t bits, int digits) {
  static const char* kHex = "0123456789ABCDEF";
  std::string s(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, bits >>= 4) s[static_cast<size_t>(i)] = kHex[bits & 15];
  return "0x" + s;
}

// MLIR float literals need a '.' in the mantissa ("1.0e-05", not "1e-05").
std::string with_point(std::string s) {
  if (s.find('.') != std::string::npos) return s;
  size_t e = s.find('e');
  if (e == std::string::npos) return s + ".0";
  return s.substr(0, e) + ".0" + s.substr(e);
}

// `x` rounded to the float dtype `t` (one rounding, as rt::kern::convert).
double round_to(double x, DType t) {
  switch (t) {
    case DType::f32: return static_cast<double>(static_cast<float>(x));
    case DType::bf16: return rt::bf16::from_double(x).to_float();
    case DType::f16: return rt::f16::from_double(x).to_float();
    default: return x;
  }
}

// A float literal for `x`, already a value of dtype `t`: the shortest decimal
// that MLIR's parser (decimal -> double -> t) reads back as exactly `x`;
// NaN and infinities as bit patterns.
std::string exact_float_text(double x, DType t) {
  const int digits = dtype_size(t) * 2;
  if (std::isnan(x)) {
    switch (t) {
      case DType::f64: return hex_literal(0x7FF8000000000000ull, digits);
      case DType::bf16: return hex_literal(0x7FC0, digits);
      case DType::f16: return hex_literal(0x7E00, digits);
      default: return hex_literal(0x7FC00000, digits);
    }
  }
  if (std::isinf(x)) {
    bool neg = x < 0;
    switch (t) {
      case DType::f64: return hex_literal(neg ? 0xFFF0000000000000ull : 0x7FF0000000000000ull, digits);
      case DType::bf16: return hex_literal(neg ? 0xFF80 : 0x7F80, digits);
      case DType::f16: return hex_literal(neg ? 0xFC00 : 0x7C00, digits);
      default: return hex_literal(neg ? 0xFF800000u : 0x7F800000u, digits);
    }
  }
  char buf[64];
  if (t != DType::f64) {
    // The fewest significant digits that round to x in t.
    for (int digits = 1; digits <= 9; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, x);
      double back = std::strtod(buf, nullptr);
      if (round_to(back, t) == x && std::signbit(back) == std::signbit(x)) return with_point(buf);
    }
  }
  auto res = std::to_chars(buf, buf + sizeof buf, x);
  return with_point(std::string(buf, res.ptr));
}

// Integer dtypes: convert<T>(double) truncates toward zero, saturates, NaN -> 0.
int64_t double_to_int(double x, DType t) {
  const double lo = t == DType::i32 ? -2147483648.0 : -9223372036854775808.0;
  double d = std::trunc(x);
  if (std::isnan(d)) return 0;
  if (d <= lo) return static_cast<int64_t>(lo);
  if (d >= -lo) return t == DType::i32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(d);
}

// The literal of `x` converted to dtype `t`.
std::string literal(double x, DType t) {
  if (is_float(t)) return exact_float_text(round_to(x, t), t);
  if (t == DType::boolean) return x != 0 ? "true" : "false";
  return std::to_string(double_to_int(x, t));
}

std::string literal(int64_t x, DType t) {
  if (t == DType::f32) return exact_float_text(static_cast<double>(static_cast<float>(x)), t);
  if (is_float(t)) return exact_float_text(round_to(static_cast<double>(x), t), t);
  if (t == DType::boolean) return x != 0 ? "true" : "false";
  if (t == DType::i32) return std::to_string(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(x))));
  return std::to_string(x);
}

std::string lowest_literal(DType t) {  // the identity of max
  if (is_float(t)) return literal(-std::numeric_limits<double>::infinity(), t);
  return t == DType::i32 ? std::to_string(std::numeric_limits<int32_t>::min())
                         : std::to_string(std::numeric_limits<int64_t>::min());
}
std::string highest_literal(DType t) {  // the identity of min
  if (is_float(t)) return literal(std::numeric_limits<double>::infinity(), t);
  return t == DType::i32 ? std::to_string(std::numeric_limits<int32_t>::max())
                         : std::to_string(std::numeric_limits<int64_t>::max());
}

// MLIR string literal: printable ASCII as is, the rest as \XX.
std::string mlir_string(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7F) {
      out += '\\';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

bool is_bare_id(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.')) return false;
  return true;
}

std::string symbol(std::string_view name) { return "@" + (is_bare_id(name) ? std::string(name) : mlir_string(name)); }

std::string join(const std::vector<std::string>& parts, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

std::string ints(const std::vector<int64_t>& v) {
  std::vector<std::string> parts;
  for (int64_t x : v) parts.push_back(std::to_string(x));
  return "[" + join(parts) + "]";
}

// ---- affine maps

std::string dim(size_t d) { return "d" + std::to_string(d); }

// sum of coef * d_k terms plus a constant, as an affine expression.
std::string affine_sum(const std::vector<std::pair<size_t, int64_t>>& terms, int64_t constant = 0) {
  std::string s;
  for (const auto& [d, coef] : terms) {
    if (coef == 0) continue;
    if (!s.empty()) s += " + ";
    s += dim(d) + (coef == 1 ? "" : " * " + std::to_string(coef));
  }
  if (constant != 0 || s.empty()) s += (s.empty() ? "" : " + ") + std::to_string(constant);
  return s;
}

std::vector<std::string> identity_map(size_t rank, size_t first = 0) {
  std::vector<std::string> m;
  for (size_t i = 0; i < rank; ++i) m.push_back(dim(first + i));
  return m;
}

// Map of an operand of shape `in` broadcast numpy-style (trailing dims
// aligned) to the loops of `out`: stretched size-1 dims read index 0.
std::vector<std::string> broadcast_map(const Shape& in, const Shape& out) {
  std::vector<std::string> m;
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    m.push_back(in[i] == 1 && out[offset + i] != 1 ? "0" : dim(offset + i));
  return m;
}

class MapTable {
 public:
  // "#mapN" for affine_map<(d0, ..., d{loops-1}) -> (results)>.
  std::string alias(size_t loops, const std::vector<std::string>& results) {
    std::string map = "affine_map<(" + join(identity_map(loops)) + ") -> (" + join(results) + ")>";
    auto [it, added] = index_.try_emplace(map, "#map" + std::to_string(order_.size()));
    if (added) order_.push_back(map);
    return it->second;
  }
  std::string definitions() const {
    std::string s;
    for (size_t i = 0; i < order_.size(); ++i) s += "#map" + std::to_string(i) + " = " + order_[i] + "\n";
    return s;
  }

 private:
  std::map<std::string, std::string> index_;
  std::vector<std::string> order_;
};

// ---- emission

struct TV {  // an emitted tensor value
  std::string name;
  TensorType type;
};

class FunctionEmitter;

// The body of a linalg.generic: scalar ops, one per line.
class Region {
 public:
  Region(FunctionEmitter& f, std::string indent) : f_(f), indent_(std::move(indent)) {}

  std::string op(const std::string& rhs);
  std::string constant(const std::string& lit, const std::string& type) {
    return op("arith.constant " + lit + " : " + type);
  }
  std::string constant(double x, DType t) { return constant(literal(x, t), mlir_type(t)); }
  std::string index(size_t d) { return op("linalg.index " + std::to_string(d) + " : index"); }
  std::string index_const(int64_t v) { return constant(std::to_string(v), "index"); }
  std::string index_op(const char* name, const std::string& a, const std::string& b) {
    return op(std::string("arith.") + name + " " + a + ", " + b + " : index");
  }
  // sum of coef * value terms plus a constant, in index arithmetic.
  std::string index_sum(const std::vector<std::pair<std::string, int64_t>>& terms, int64_t constant);
  std::string index_cmp(const char* pred, const std::string& a, const std::string& b) {
    return op(std::string("arith.cmpi ") + pred + ", " + a + ", " + b + " : index");
  }
  std::string all(const std::vector<std::string>& preds) {
    std::string acc = preds[0];
    for (size_t i = 1; i < preds.size(); ++i) acc = op("arith.andi " + acc + ", " + preds[i] + " : i1");
    return acc;
  }
  std::string select(const std::string& p, const std::string& a, const std::string& b, const std::string& type) {
    return op("arith.select " + p + ", " + a + ", " + b + " : " + type);
  }
  std::string to_i64(const std::string& index) { return op("arith.index_cast " + index + " : index to i64"); }
  std::string extract(const TV& t, const std::vector<std::string>& at) {
    return op("tensor.extract " + t.name + "[" + join(at) + "] : " + mlir_type(t.type));
  }
  // `v` of dtype `from` converted to `to` as mlc's cast (and the kernels' load/store) does.
  std::string cast(const std::string& v, DType from, DType to);

  const std::string& text() const { return text_; }

 private:
  FunctionEmitter& f_;
  std::string indent_;
  std::string text_;
};

std::string Region::index_sum(const std::vector<std::pair<std::string, int64_t>>& terms, int64_t constant) {
  std::string acc;
  for (const auto& [v, coef] : terms) {
    if (coef == 0) continue;
    std::string term = coef == 1 ? v : index_op("muli", v, index_const(coef));
    acc = acc.empty() ? term : index_op("addi", acc, term);
  }
  if (acc.empty()) return index_const(constant);
  if (constant != 0) acc = index_op("addi", acc, index_const(constant));
  return acc;
}

std::string Region::cast(const std::string& v, DType from, DType to) {
  if (from == to) return v;
  const std::string ft = mlir_type(from), tt = mlir_type(to);
  if (to == DType::boolean) {  // x != 0 (NaN is true)
    std::string zero = constant(0.0, from);
    return op(std::string(is_float(from) ? "arith.cmpf une, " : "arith.cmpi ne, ") + v + ", " + zero + " : " + ft);
  }
  if (from == DType::boolean) return op(std::string(is_float(to) ? "arith.uitofp " : "arith.extui ") + v + " : i1 to " + tt);
  if (is_float(from) && is_float(to)) {
    if (bit_width(from) == bit_width(to)) return cast(cast(v, from, DType::f32), DType::f32, to);  // bf16 <-> f16
    return op(std::string(bit_width(from) < bit_width(to) ? "arith.extf " : "arith.truncf ") + v + " : " + ft + " to " + tt);
  }
  if (is_float(from)) return op("arith.fptosi " + v + " : " + ft + " to " + tt);
  if (is_float(to)) return op("arith.sitofp " + v + " : " + ft + " to " + tt);
  return op(std::string(bit_width(from) < bit_width(to) ? "arith.extsi " : "arith.trunci ") + v + " : " + ft + " to " + tt);
}

std::string cmp_predicate(scalar::CmpDir d, DType t) {
  static const char* kFloat[] = {"oeq", "une", "olt", "ole", "ogt", "oge"};  // C++'s == != < <= > >=
  static const char* kSigned[] = {"eq", "ne", "slt", "sle", "sgt", "sge"};
  static const char* kUnsigned[] = {"eq", "ne", "ult", "ule", "ugt", "uge"};  // bool: false < true
  const int i = static_cast<int>(d);
  return is_float(t) ? kFloat[i] : t == DType::boolean ? kUnsigned[i] : kSigned[i];
}

std::string compare(Region& r, scalar::CmpDir d, DType t, const std::string& a, const std::string& b) {
  return r.op(std::string(is_float(t) ? "arith.cmpf " : "arith.cmpi ") + cmp_predicate(d, t) + ", " + a + ", " + b +
              " : " + mlir_type(t));
}

// The ir/scalar_math.h handler that writes MLIR: values are SSA names of the
// compute dtype `ct`.
template <bool kIsFloat>
struct MlirScalar {
  using Value = std::string;
  using Bool = std::string;
  static constexpr bool kFloat = kIsFloat;
  Region& r;
  DType ct;

  std::string t() const { return mlir_type(ct); }
  Value arith(const char* name, const Value& a, const Value& b) {
    return r.op(std::string("arith.") + name + " " + a + ", " + b + " : " + t());
  }
  Value math(const char* name, const Value& x) { return r.op(std::string("math.") + name + " " + x + " : " + t()); }

  Value constant(double c) { return r.constant(c, ct); }
  Value add(Value a, Value b) { return arith(kFloat ? "addf" : "addi", a, b); }
  Value sub(Value a, Value b) { return arith(kFloat ? "subf" : "subi", a, b); }
  Value mul(Value a, Value b) { return arith(kFloat ? "mulf" : "muli", a, b); }
  Value neg(Value x) {
    if constexpr (kFloat) return r.op("arith.negf " + x + " : " + t());
    else return sub(constant(0), x);
  }
  Value div(Value a, Value b) {
    if constexpr (kFloat) {
      return arith("divf", a, b);
    } else {
      // CppScalar: x / -1 is -x (INT_MIN / -1 wraps), which arith.divsi leaves undefined.
      Bool minus_one = cmp(scalar::CmpDir::eq, b, constant(-1));
      Value q = arith("divsi", a, select(minus_one, constant(1), b));
      return select(minus_one, neg(a), q);
    }
  }
  Value fabs(Value x) { return math("absf", x); }
  Value exp(Value x) { return math("exp", x); }
  Value log(Value x) { return math("log", x); }
  Value sqrt(Value x) { return math("sqrt", x); }
  Value tanh(Value x) { return math("tanh", x); }
  Value erf(Value x) { return math("erf", x); }
  Value sin(Value x) { return math("sin", x); }
  Value cos(Value x) { return math("cos", x); }
  Value pow(Value a, Value b) { return r.op("math.powf " + a + ", " + b + " : " + t()); }
  Bool is_nan(Value x) {
    if constexpr (kFloat) return r.op("arith.cmpf uno, " + x + ", " + x + " : " + t());
    else return r.constant("false", "i1");
  }
  Bool cmp(scalar::CmpDir d, Value a, Value b) { return compare(r, d, ct, a, b); }
  Value select(Bool p, Value a, Value b) { return r.select(p, a, b, t()); }
};

// acc + a * b, with a and b (of dtype dt) converted to the accumulator's dtype ct first.
std::string multiply_add(Region& r, DType dt, DType ct, const std::string& acc, const std::string& a, const std::string& b) {
  MlirScalar<true> h{r, ct};
  return h.add(acc, h.mul(r.cast(a, dt, ct), r.cast(b, dt, ct)));
}

// Unary or binary math of `code` on values of dtype `t` (computed in compute_dtype(t)).
std::string scalar_math(Region& r, OpCode code, DType t, const std::vector<std::string>& in) {
  const DType ct = compute_dtype(t);
  std::vector<std::string> x;
  for (const std::string& v : in) x.push_back(r.cast(v, t, ct));
  std::string y;
  auto run = [&](auto& h) {
    return x.size() == 1 ? scalar::unary_dispatch(h, code, x[0], y) : scalar::binary_dispatch(h, code, x[0], x[1], y);
  };
  bool ok;
  if (is_float(ct)) {
    MlirScalar<true> h{r, ct};
    ok = run(h);
  } else {
    MlirScalar<false> h{r, ct};
    ok = run(h);
  }
  if (!ok) return "";
  return r.cast(y, ct, t);
}

// A tensor.reshape / collapse / expand reassociation: groups of the
// higher-rank shape's dims whose sizes multiply to each dim of the other
// shape, or nullopt.
std::optional<std::vector<std::vector<int64_t>>> reassociation(const Shape& low, const Shape& high) {
  for (int64_t d : high)
    if (d == 0) return std::nullopt;
  std::vector<std::vector<int64_t>> groups;
  size_t i = 0;
  for (int64_t target : low) {
    std::vector<int64_t> g;
    int64_t prod = 1;
    do {
      if (i >= high.size()) return std::nullopt;
      prod *= high[i];
      g.push_back(static_cast<int64_t>(i++));
    } while (prod < target);
    if (prod != target) return std::nullopt;
    groups.push_back(std::move(g));
  }
  for (; i < high.size(); ++i) {
    if (high[i] != 1 || groups.empty()) return std::nullopt;
    groups.back().push_back(static_cast<int64_t>(i));
  }
  return groups;
}

std::string reassociation_text(const std::vector<std::vector<int64_t>>& groups) {
  std::vector<std::string> parts;
  for (const auto& g : groups) parts.push_back(ints(g));
  return "[" + join(parts) + "]";
}

int64_t norm_axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// Geometry of the window ops from their attributes.
struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
};
Window conv_window(const Op& op, const Shape& w) {
  const auto& s = op.attrs.get_ints("stride");
  const auto& p = op.attrs.get_ints("padding");
  const auto& d = op.attrs.get_ints("dilation");
  return {w[2], w[3], s[0], s[1], p[0], p[1], d[0], d[1]};
}
Window pool_window(const Op& op) {
  const auto& k = op.attrs.get_ints("kernel");
  const auto& s = op.attrs.get_ints("stride");
  const auto& p = op.attrs.get_ints("padding");
  return {k[0], k[1], s[0], s[1], p[0], p[1]};
}
Window unfold_window(const Op& op) {
  Window w = pool_window(op);
  const auto& d = op.attrs.get_ints("dilation");
  w.dh = d[0];
  w.dw = d[1];
  return w;
}

class FunctionEmitter {
 public:
  explicit FunctionEmitter(MapTable& maps) : maps_(maps) {}

  Expected<std::string> emit(const Function& f);

  std::string fresh() { return "%" + std::to_string(next_++); }

 private:
  using BodyFn = std::function<std::vector<std::string>(Region&, const std::vector<std::string>&)>;
  struct Operand {
    TV value;
    std::vector<std::string> map;  // affine results over the loops
  };

  // One top-level op line; returns its result.
  std::string line(const std::string& rhs) {
    std::string name = fresh();
    body_ += kIndent + name + " = " + rhs + loc_ + "\n";
    return name;
  }
  std::string scalar(const std::string& lit, DType t) { return line("arith.constant " + lit + " : " + mlir_type(t)); }
  TV empty(const TensorType& t) { return {line("tensor.empty() : " + mlir_type(t)), t}; }
  TV fill(const std::string& lit, const TensorType& t) {
    std::string c = scalar(lit, t.dtype);
    TV e = empty(t);
    return {line("linalg.fill ins(" + c + " : " + mlir_type(t.dtype) + ") outs(" + e.name + " : " +
                 mlir_type(t) + ") -> " + mlir_type(t)),
            t};
  }
  std::vector<TV> generic(size_t loops, const std::vector<bool>& reduction, const std::vector<Operand>& ins,
                          const std::vector<Operand>& outs, const BodyFn& body);
  TV generic1(size_t loops, const std::vector<bool>& reduction, const std::vector<Operand>& ins,
              const Operand& out, const BodyFn& body) {
    return generic(loops, reduction, ins, {out}, body)[0];
  }
  // An elementwise map over `shape` of the (identically shaped) inputs into dtype `to`.
  TV map(const std::vector<TV>& in, const TensorType& out, const BodyFn& body) {
    std::vector<Operand> ops;
    for (const TV& t : in) ops.push_back({t, identity_map(t.type.rank())});
    return generic1(out.shape.size(), std::vector<bool>(out.shape.size(), false), ops,
                    {empty(out), identity_map(out.shape.size())}, body);
  }
  TV convert(const TV& t, DType to) {
    if (t.type.dtype == to) return t;
    DType from = t.type.dtype;
    return map({t}, {to, t.type.shape},
               [&](Region& r, const std::vector<std::string>& a) { return std::vector<std::string>{r.cast(a[0], from, to)}; });
  }
  TV reshape(const TV& t, const Shape& to);
  TV pad(const TV& t, const std::vector<int64_t>& low, const std::vector<int64_t>& high, const std::string& lit);
  TV window_dummy(int64_t kh, int64_t kw) { return empty({DType::boolean, {kh, kw}}); }

  Expected<TV> emit_op(const Op& op, const std::vector<TV>& in);
  Expected<TV> elementwise(const Op& op, const std::vector<TV>& in);
  TV reduce(const Op& op, const TV& x);
  TV argmax(const Op& op, const TV& x);
  TV dot(const Op& op, const TV& a, const TV& b);
  TV conv2d(const Op& op, const TV& x, const TV& w);
  TV conv2d_input_grad(const Op& op, const TV& dy, const TV& w);
  TV conv2d_weight_grad(const Op& op, const TV& x, const TV& dy);
  std::pair<TV, TV> max_pool_select(const Op& op, const TV& x, const Shape& out);
  TV max_pool2d_grad(const Op& op, const TV& x, const TV& dy);
  TV route_to_chosen(const Op& op, const TV& where, const TV& dy);
  std::string avg_divisor(Region& r, const Op& op, const Window& w, const Shape& x);
  TV avg_pool2d(const Op& op, const TV& x);
  TV avg_pool2d_grad(const Op& op, const TV& dy);
  TV unfold(const Op& op, const TV& x);
  TV fold(const Op& op, const TV& cols);
  TV gather(const Op& op, const TV& table, const TV& idx);
  TV scatter_add(const Op& op, const TV& operand, const TV& idx, const TV& upd);
  TV constant(const Op& op);

  static constexpr const char* kIndent = "    ";
  MapTable& maps_;
  std::string body_;
  std::string loc_;  // " loc(...)" of the op being emitted, or ""
  int64_t next_ = 0;
};

std::string Region::op(const std::string& rhs) {
  std::string name = f_.fresh();
  text_ += indent_ + name + " = " + rhs + "\n";
  return name;
}

std::vector<TV> FunctionEmitter::generic(size_t loops, const std::vector<bool>& reduction,
                                         const std::vector<Operand>& ins, const std::vector<Operand>& outs,
                                         const BodyFn& body) {
  std::vector<std::string> maps, iters, in_names, in_types, out_names, out_types, args, arg_decls, yield_types;
  for (const Operand& o : ins) maps.push_back(maps_.alias(loops, o.map));
  for (const Operand& o : outs) maps.push_back(maps_.alias(loops, o.map));
  for (size_t i = 0; i < loops; ++i) iters.push_back(reduction[i] ? "\"reduction\"" : "\"parallel\"");
  std::string result = fresh();
  for (const Operand& o : ins) {
    in_names.push_back(o.value.name);
    in_types.push_back(mlir_type(o.value.type));
  }
  for (const Operand& o : outs) {
    out_names.push_back(o.value.name);
    out_types.push_back(mlir_type(o.value.type));
    yield_types.push_back(mlir_type(o.value.type.dtype));
  }
  for (const Operand* o : [&] {
         std::vector<const Operand*> all;
         for (const Operand& x : ins) all.push_back(&x);
         for (const Operand& x : outs) all.push_back(&x);
         return all;
       }()) {
    args.push_back(fresh());
    arg_decls.push_back(args.back() + ": " + mlir_type(o->value.type.dtype));
  }
  Region r(*this, std::string(kIndent) + "  ");
  std::vector<std::string> yields = body(r, args);
  std::string s = std::string(kIndent) + result + (outs.size() > 1 ? ":" + std::to_string(outs.size()) : "") +
                  " = linalg.generic {indexing_maps = [" + join(maps) + "], iterator_types = [" + join(iters) + "]}";
  if (!ins.empty()) s += " ins(" + join(in_names) + " : " + join(in_types) + ")";
  s += " outs(" + join(out_names) + " : " + join(out_types) + ") {\n";
  s += std::string(kIndent) + "^bb0(" + join(arg_decls) + "):\n" + r.text();
  s += std::string(kIndent) + "  linalg.yield " + join(yields) + " : " + join(yield_types) + "\n";
  s += std::string(kIndent) + "} -> " + (outs.size() > 1 ? "(" + join(out_types) + ")" : out_types[0]) + loc_ + "\n";
  body_ += s;
  std::vector<TV> results;
  for (size_t i = 0; i < outs.size(); ++i)
    results.push_back({outs.size() > 1 ? result + "#" + std::to_string(i) : result, outs[i].value.type});
  return results;
}

TV FunctionEmitter::reshape(const TV& t, const Shape& to) {
  const Shape& from = t.type.shape;
  TensorType type{t.type.dtype, to};
  if (from == to) return t;
  if (to.size() < from.size()) {
    if (auto g = reassociation(to, from))
      return {line("tensor.collapse_shape " + t.name + " " + reassociation_text(*g) + " : " + mlir_type(t.type) +
                   " into " + mlir_type(type)),
              type};
  } else if (to.size() > from.size()) {
    if (auto g = reassociation(from, to))
      return {line("tensor.expand_shape " + t.name + " " + reassociation_text(*g) + " output_shape " + ints(to) +
                   " : " + mlir_type(t.type) + " into " + mlir_type(type)),
              type};
  }
  std::string shape = line("arith.constant dense<" + ints(to) + "> : tensor<" + std::to_string(to.size()) + "xi64>");
  if (to.empty()) shape = line("arith.constant dense<> : tensor<0xi64>");
  return {line("tensor.reshape " + t.name + "(" + shape + ") : (" + mlir_type(t.type) + ", tensor<" +
               std::to_string(to.size()) + "xi64>) -> " + mlir_type(type)),
          type};
}

TV FunctionEmitter::pad(const TV& t, const std::vector<int64_t>& low, const std::vector<int64_t>& high,
                        const std::string& lit) {
  bool none = true;
  for (size_t i = 0; i < low.size(); ++i) none = none && low[i] == 0 && high[i] == 0;
  if (none) return t;
  TensorType type = t.type;
  for (size_t i = 0; i < low.size(); ++i) type.shape[i] += low[i] + high[i];
  std::string value = scalar(lit, t.type.dtype);
  std::string name = fresh();
  std::vector<std::string> idx;
  for (size_t i = 0; i < low.size(); ++i) idx.push_back(fresh() + ": index");
  body_ += std::string(kIndent) + name + " = tensor.pad " + t.name + " low" + ints(low) + " high" + ints(high) + " {\n";
  body_ += std::string(kIndent) + "^bb0(" + join(idx) + "):\n";
  body_ += std::string(kIndent) + "  tensor.yield " + value + " : " + mlir_type(t.type.dtype) + "\n";
  body_ += std::string(kIndent) + "} : " + mlir_type(t.type) + " to " + mlir_type(type) + loc_ + "\n";
  return {name, type};
}

// ---- elementwise

// random_uniform's scalar (ir/random.h) in arith ops: Philox4x32-10 on
// (lo32(index), hi32(index), lo32(step), stream), the round keys folded to
// constants, then (word 0 >> 8) * 2^-24.
std::string philox_uniform(Region& r, const Op& op, const std::string& index, const std::string& step) {
  auto i32 = [&](uint32_t v) { return r.constant(std::to_string(static_cast<int32_t>(v)), "i32"); };
  auto i64 = [&](uint64_t v) { return r.constant(std::to_string(v), "i64"); };
  auto trunc = [&](const std::string& v) { return r.op("arith.trunci " + v + " : i64 to i32"); };
  auto xor32 = [&](const std::string& a, const std::string& b) { return r.op("arith.xori " + a + ", " + b + " : i32"); };
  const uint64_t seed = static_cast<uint64_t>(op.attrs.get_int("seed"));
  std::string c[4] = {trunc(index), trunc(r.op("arith.shrui " + index + ", " + i64(32) + " : i64")), trunc(step),
                      i32(static_cast<uint32_t>(op.attrs.get_int("stream")))};
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  const std::string m0 = i64(0xD2511F53u), m1 = i64(0xCD9E8D57u), shift = i64(32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    std::string p0 = r.op("arith.muli " + r.op("arith.extui " + c[0] + " : i32 to i64") + ", " + m0 + " : i64");
    std::string p1 = r.op("arith.muli " + r.op("arith.extui " + c[2] + " : i32 to i64") + ", " + m1 + " : i64");
    std::string hi0 = trunc(r.op("arith.shrui " + p0 + ", " + shift + " : i64"));
    std::string hi1 = trunc(r.op("arith.shrui " + p1 + ", " + shift + " : i64"));
    std::string next[4] = {xor32(xor32(hi1, c[1]), i32(k0)), trunc(p1), xor32(xor32(hi0, c[3]), i32(k1)), trunc(p0)};
    for (int i = 0; i < 4; ++i) c[i] = next[i];
  }
  std::string bits = r.op("arith.shrui " + c[0] + ", " + i32(8) + " : i32");
  std::string u = r.op("arith.uitofp " + bits + " : i32 to f32");
  return r.op("arith.mulf " + u + ", " + r.constant(literal(0x1p-24, DType::f32), "f32") + " : f32");
}

Expected<TV> FunctionEmitter::elementwise(const Op& op, const std::vector<TV>& in) {
  const TensorType& rt = op.result()->type;
  if (op.code == OpCode::Cast && in[0].type.dtype == rt.dtype) return in[0];
  std::vector<Operand> ins;
  for (const TV& t : in) ins.push_back({t, broadcast_map(t.type.shape, rt.shape)});
  const DType dt = in.back().type.dtype;  // the dtype of the math (select: of its values)
  bool failed = false;
  BodyFn body = [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
    switch (op.code) {
      case OpCode::Compare:
        return {compare(r, scalar::parse_direction(op.attrs.get_string("direction")), dt, a[0], a[1])};
      case OpCode::Select:
        return {r.select(a[0], a[1], a[2], mlir_type(dt))};
      case OpCode::Cast:
        return {r.cast(a[0], dt, rt.dtype)};
      case OpCode::RandomUniform:
        return {philox_uniform(r, op, a[0], a[1])};
      default: {
        std::string y = scalar_math(r, op.code, dt, {a.begin(), a.begin() + static_cast<std::ptrdiff_t>(in.size())});
        if (y.empty()) {
          failed = true;
          y = a[0];
        }
        return {y};
      }
    }
  };
  TV out = generic1(rt.shape.size(), std::vector<bool>(rt.shape.size(), false), ins,
                    {empty(rt), identity_map(rt.shape.size())}, body);
  if (failed)
    return make_error(std::string(op_name(op.code)) + " on " + in[0].type.str() + " has no MLIR form");
  return out;
}

// ---- reductions

TV FunctionEmitter::reduce(const Op& op, const TV& x) {
  const int64_t rank = x.type.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d : op.attrs.get_ints("dims")) reduced[static_cast<size_t>(norm_axis(d, rank))] = true;
  std::vector<std::string> out_map;
  Shape kept;
  for (size_t i = 0; i < reduced.size(); ++i)
    if (!reduced[i]) {
      out_map.push_back(dim(i));
      kept.push_back(x.type.shape[i]);
    }
  const DType dt = x.type.dtype;
  const bool sum = op.code == OpCode::ReduceSum, max = op.code == OpCode::ReduceMax;
  const DType acc_t = sum ? sum_dtype(dt) : compute_dtype(dt);
  const std::string init = sum ? literal(0.0, acc_t) : max ? lowest_literal(acc_t) : highest_literal(acc_t);
  TV acc = fill(init, {acc_t, kept});
  TV r = generic1(reduced.size(), reduced, {{x, identity_map(reduced.size())}}, {acc, out_map},
                  [&](Region& b, const std::vector<std::string>& a) -> std::vector<std::string> {
                    std::string v = b.cast(a[0], dt, acc_t);
                    const std::string t = mlir_type(acc_t);
                    if (sum) return {b.op(std::string(is_float(acc_t) ? "arith.addf " : "arith.addi ") + v + ", " + a[1] + " : " + t)};
                    // rt::Extremum: a NaN element wins; otherwise strictly greater (less) replaces.
                    auto dir = max ? scalar::CmpDir::gt : scalar::CmpDir::lt;
                    std::string best = b.select(compare(b, dir, acc_t, v, a[1]), v, a[1], t);
                    if (is_float(acc_t)) best = b.select(b.op("arith.cmpf uno, " + v + ", " + v + " : " + t), v, best, t);
                    return {best};
                  });
  return reshape(convert(r, dt), op.result()->type.shape);
}

TV FunctionEmitter::argmax(const Op& op, const TV& x) {
  const int64_t rank = x.type.rank();
  const size_t axis = static_cast<size_t>(norm_axis(op.attrs.get_int("axis"), rank));
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  reduced[axis] = true;
  std::vector<std::string> out_map;
  for (size_t i = 0; i < reduced.size(); ++i)
    if (i != axis) out_map.push_back(dim(i));
  const DType dt = x.type.dtype, ct = compute_dtype(dt);
  const Shape& out = op.result()->type.shape;
  // (best, index) starts at (lowest, 0): the first element then wins unless it is
  // the lowest value, where index 0 is already right.
  TV best = fill(lowest_literal(ct), {ct, out});
  TV idx = fill("0", {DType::i64, out});
  auto r = generic(reduced.size(), reduced, {{x, identity_map(reduced.size())}}, {{best, out_map}, {idx, out_map}},
                   [&](Region& b, const std::vector<std::string>& a) -> std::vector<std::string> {
                     const std::string t = mlir_type(ct);
                     std::string v = b.cast(a[0], dt, ct);
                     std::string beats = compare(b, scalar::CmpDir::gt, ct, v, a[1]);
                     if (is_float(ct)) {  // rt::beats: a NaN beats anything but a NaN
                       std::string v_nan = b.op("arith.cmpf uno, " + v + ", " + v + " : " + t);
                       std::string best_ord = b.op("arith.cmpf ord, " + a[1] + ", " + a[1] + " : " + t);
                       beats = b.select(v_nan, best_ord, beats, "i1");
                     }
                     std::string k = b.to_i64(b.index(axis));
                     return {b.select(beats, v, a[1], t), b.select(beats, k, a[2], "i64")};
                   });
  return r[1];
}

// ---- contractions

TV FunctionEmitter::dot(const Op& op, const TV& a, const TV& b) {
  const TensorType& rt = op.result()->type;
  const bool ta = op.attrs.get_bool("transpose_a"), tb = op.attrs.get_bool("transpose_b");
  const size_t rank = rt.shape.size();
  const bool shared = b.type.rank() == 2 && rank > 2;
  const DType dt = rt.dtype, ct = compute_dtype(dt);
  TV acc = fill(literal(0.0, ct), {ct, rt.shape});
  std::string named;
  if (!(ta && tb)) {
    const char* suffix = ta ? "_transpose_a" : tb ? "_transpose_b" : "";
    if (rank == 2) named = std::string("linalg.matmul") + suffix;
    else if (rank == 3 && !shared) named = std::string("linalg.batch_matmul") + suffix;
  }
  TV r;
  if (!named.empty()) {
    r = {line(named + " ins(" + a.name + ", " + b.name + " : " + mlir_type(a.type) + ", " + mlir_type(b.type) +
              ") outs(" + acc.name + " : " + mlir_type(acc.type) + ") -> " + mlir_type(acc.type)),
         acc.type};
  } else {
    // loops: batch dims, m, n, k
    const size_t m = rank - 2, n = rank - 1, k = rank;
    std::vector<std::string> batch = identity_map(rank - 2);
    std::vector<std::string> amap = batch, bmap = shared ? std::vector<std::string>{} : batch, omap = batch;
    amap.push_back(dim(ta ? k : m));
    amap.push_back(dim(ta ? m : k));
    bmap.push_back(dim(tb ? n : k));
    bmap.push_back(dim(tb ? k : n));
    omap.push_back(dim(m));
    omap.push_back(dim(n));
    std::vector<bool> red(rank + 1, false);
    red[k] = true;
    r = generic1(rank + 1, red, {{a, amap}, {b, bmap}}, {acc, omap},
                 [&](Region& g, const std::vector<std::string>& x) -> std::vector<std::string> {
                   return {multiply_add(g, dt, ct, x[2], x[0], x[1])};
                 });
  }
  return convert(r, dt);
}

TV FunctionEmitter::conv2d(const Op& op, const TV& x, const TV& w) {
  const TensorType& rt = op.result()->type;
  const Window win = conv_window(op, w.type.shape);
  const int64_t groups = op.attrs.get_int("groups");
  const DType dt = rt.dtype, ct = compute_dtype(dt);
  TV xp = pad(x, {0, 0, win.ph, win.pw}, {0, 0, win.ph, win.pw}, literal(0.0, dt));
  const std::string attrs = " {dilations = dense<[" + std::to_string(win.dh) + ", " + std::to_string(win.dw) +
                            "]> : tensor<2xi64>, strides = dense<[" + std::to_string(win.sh) + ", " +
                            std::to_string(win.sw) + "]> : tensor<2xi64>}";
  auto conv = [&](const char* name, const TV& in, const TV& k, const Shape& out) -> TV {
    TV acc = fill(literal(0.0, ct), {ct, out});
    return {line(std::string(name) + attrs + " ins(" + in.name + ", " + k.name + " : " + mlir_type(in.type) + ", " +
                 mlir_type(k.type) + ") outs(" + acc.name + " : " + mlir_type(acc.type) + ") -> " +
                 mlir_type(acc.type)),
            acc.type};
  };
  TV r;
  if (groups == 1) {
    r = conv("linalg.conv_2d_nchw_fchw", xp, w, rt.shape);
  } else {
    const Shape& xs = xp.type.shape;
    const Shape& ws = w.type.shape;
    TV xe = reshape(xp, {xs[0], groups, xs[1] / groups, xs[2], xs[3]});
    TV we = reshape(w, {groups, ws[0] / groups, ws[1], ws[2], ws[3]});
    r = conv("linalg.conv_2d_ngchw_gfchw", xe, we, {rt.shape[0], groups, rt.shape[1] / groups, rt.shape[2], rt.shape[3]});
    r = reshape(r, {rt.shape[0], rt.shape[1], rt.shape[2], rt.shape[3]});
  }
  return convert(r, dt);
}

// The window origin `o` whose tap `k` (scaled by `dil`) reads input position
// `h`: h = o * stride - pad + k * dil, 0 <= o < out. Returns (o, or 0 where
// there is none; whether there is one).
std::pair<std::string, std::string> window_origin(Region& r, const std::string& h, int64_t pad, const std::string& k,
                                                  int64_t dil, int64_t stride, int64_t out) {
  std::string t = r.index_sum({{h, 1}, {k, -dil}}, pad);
  std::string zero = r.index_const(0);
  std::vector<std::string> valid = {r.index_cmp("sge", t, zero)};
  std::string q = t;
  if (stride != 1) {
    std::string s = r.index_const(stride);
    valid.push_back(r.index_cmp("eq", r.index_op("remsi", t, s), zero));
    q = r.index_op("divsi", t, s);
  }
  valid.push_back(r.index_cmp("slt", q, r.index_const(out)));
  std::string ok = r.all(valid);
  return {r.select(ok, q, zero, "index"), ok};
}

TV FunctionEmitter::conv2d_input_grad(const Op& op, const TV& dy, const TV& w) {
  // dx[n, g, c, h, x] = sum over (o, kh, kw) of dy[n, g, o, oy, ox] * w[g, o, c, kh, kw]
  // where h = oy * sh - ph + kh * dh (and likewise x), read with tensor.extract.
  const TensorType& rt = op.result()->type;
  const Window win = conv_window(op, w.type.shape);
  const int64_t groups = op.attrs.get_int("groups");
  const DType dt = rt.dtype, ct = compute_dtype(dt);
  const Shape& ds = dy.type.shape;
  const Shape& ws = w.type.shape;
  const int64_t og = ws[0] / groups, cg = ws[1];
  const Shape acc_shape = {rt.shape[0], groups, cg, rt.shape[2], rt.shape[3]};
  TV acc = fill(literal(0.0, ct), {ct, acc_shape});
  if (dy.type.num_elements() > 0) {
    TV dye = reshape(dy, {ds[0], groups, og, ds[2], ds[3]});
    TV we = reshape(w, {groups, og, cg, ws[2], ws[3]});
    // loops: n g c h x | o kh kw
    std::vector<bool> red = {false, false, false, false, false, true, true, true};
    acc = generic1(8, red, {{we, {dim(1), dim(5), dim(2), dim(6), dim(7)}}}, {acc, identity_map(5)},
                   [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                     auto [oy, vy] = window_origin(r, r.index(3), win.ph, r.index(6), win.dh, win.sh, ds[2]);
                     auto [ox, vx] = window_origin(r, r.index(4), win.pw, r.index(7), win.dw, win.sw, ds[3]);
                     std::string valid = r.all({vy, vx});
                     std::string g = r.extract(dye, {r.index(0), r.index(1), r.index(5), oy, ox});
                     std::string sum = multiply_add(r, dt, ct, a[1], g, a[0]);
                     return {r.select(valid, sum, a[1], mlir_type(ct))};
                   });
  }
  return convert(reshape(acc, rt.shape), dt);
}

TV FunctionEmitter::conv2d_weight_grad(const Op& op, const TV& x, const TV& dy) {
  // dw[g, o, c, kh, kw] = sum over (n, oy, ox) of xpad[n, g, c, oy*sh + kh*dh, ox*sw + kw*dw] * dy[n, g, o, oy, ox]
  const TensorType& rt = op.result()->type;
  const Window win = conv_window(op, rt.shape);
  const int64_t groups = op.attrs.get_int("groups");
  const DType dt = rt.dtype, ct = compute_dtype(dt);
  TV xp = pad(x, {0, 0, win.ph, win.pw}, {0, 0, win.ph, win.pw}, literal(0.0, dt));
  const Shape& xs = xp.type.shape;
  const Shape& ds = dy.type.shape;
  const int64_t og = rt.shape[0] / groups, cg = rt.shape[1];
  TV xe = reshape(xp, {xs[0], groups, cg, xs[2], xs[3]});
  TV dye = reshape(dy, {ds[0], groups, og, ds[2], ds[3]});
  TV acc = fill(literal(0.0, ct), {ct, {groups, og, cg, rt.shape[2], rt.shape[3]}});
  // loops: g o c kh kw | n oy ox
  std::vector<bool> red = {false, false, false, false, false, true, true, true};
  std::vector<std::string> xmap = {dim(5), dim(0), dim(2), affine_sum({{6, win.sh}, {3, win.dh}}),
                                   affine_sum({{7, win.sw}, {4, win.dw}})};
  acc = generic1(8, red, {{xe, xmap}, {dye, {dim(5), dim(0), dim(1), dim(6), dim(7)}}}, {acc, identity_map(5)},
                 [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                   return {multiply_add(r, dt, ct, a[2], a[0], a[1])};
                 });
  return convert(reshape(acc, rt.shape), dt);
}

// ---- pooling

// max_pool2d's choice per window, as rt's select_max: the first NaN, else the
// first maximal element in row-major window order, never padding. Returns
// (value in the compute dtype, -inf for a window of padding only; flat index
// h * W + w in the plane, -1 for none).
std::pair<TV, TV> FunctionEmitter::max_pool_select(const Op& op, const TV& x, const Shape& out) {
  const Window win = pool_window(op);
  const DType dt = x.type.dtype, ct = compute_dtype(dt);
  const int64_t h = x.type.shape[2], w = x.type.shape[3];
  TV best = fill(lowest_literal(ct), {ct, out});
  TV where = fill("-1", {DType::i64, out});
  if (x.type.num_elements() == 0) return {best, where};
  // loops: n c oy ox | ki kj
  std::vector<bool> red = {false, false, false, false, true, true};
  auto r = generic(6, red, {{window_dummy(win.kh, win.kw), {dim(4), dim(5)}}}, {{best, identity_map(4)}, {where, identity_map(4)}},
                   [&](Region& b, const std::vector<std::string>& a) -> std::vector<std::string> {
                     const std::string t = mlir_type(ct);
                     std::string iy = b.index_sum({{b.index(2), win.sh}, {b.index(4), 1}}, -win.ph);
                     std::string ix = b.index_sum({{b.index(3), win.sw}, {b.index(5), 1}}, -win.pw);
                     std::string zero = b.index_const(0);
                     std::string valid = b.all({b.index_cmp("sge", iy, zero), b.index_cmp("slt", iy, b.index_const(h)),
                                                b.index_cmp("sge", ix, zero), b.index_cmp("slt", ix, b.index_const(w))});
                     std::string cy = b.select(valid, iy, zero, "index"), cx = b.select(valid, ix, zero, "index");
                     std::string v = b.cast(b.extract(x, {b.index(0), b.index(1), cy, cx}), dt, ct);
                     std::string first = b.op("arith.cmpi slt, " + a[2] + ", " + b.constant("0", "i64") + " : i64");
                     std::string ord = b.op("arith.cmpf ord, " + a[1] + ", " + a[1] + " : " + t);
                     std::string gt = b.op("arith.cmpf ugt, " + v + ", " + a[1] + " : " + t);
                     std::string better = b.op("arith.ori " + first + ", " + gt + " : i1");
                     std::string take = b.all({valid, ord, better});
                     std::string pos = b.to_i64(b.index_sum({{cy, w}, {cx, 1}}, 0));
                     return {b.select(take, v, a[1], t), b.select(take, pos, a[2], "i64")};
                   });
  return {r[0], r[1]};
}

TV FunctionEmitter::max_pool2d_grad(const Op& op, const TV& x, const TV& dy) {
  if (dy.type.num_elements() == 0) return route_to_chosen(op, dy, dy);
  return route_to_chosen(op, max_pool_select(op, x, dy.type.shape).second, dy);
}

TV FunctionEmitter::route_to_chosen(const Op& op, const TV& where, const TV& dy) {
  // dx[n, c, h, w] = sum of dy over the windows containing (h, w) whose choice
  // `where` (i64, flat in the plane) is (h, w), in f64.
  const TensorType& rt = op.result()->type;
  const Window win = pool_window(op);
  const DType dt = rt.dtype;
  const Shape& ds = dy.type.shape;
  TV acc = fill(literal(0.0, DType::f64), {DType::f64, rt.shape});
  if (dy.type.num_elements() > 0) {
    const int64_t w = rt.shape[3];
    std::vector<bool> red = {false, false, false, false, true, true};
    acc = generic1(6, red, {{window_dummy(win.kh, win.kw), {dim(4), dim(5)}}}, {acc, identity_map(4)},
                   [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                     std::string hh = r.index(2), ww = r.index(3);
                     auto [oy, vy] = window_origin(r, hh, win.ph, r.index(4), 1, win.sh, ds[2]);
                     auto [ox, vx] = window_origin(r, ww, win.pw, r.index(5), 1, win.sw, ds[3]);
                     std::vector<std::string> at = {r.index(0), r.index(1), oy, ox};
                     std::string chosen = r.extract(where, at);
                     std::string here = r.to_i64(r.index_sum({{hh, w}, {ww, 1}}, 0));
                     std::string hit = r.all({vy, vx, r.op("arith.cmpi eq, " + chosen + ", " + here + " : i64")});
                     std::string g = r.cast(r.extract(dy, at), dt, DType::f64);
                     std::string sum = r.op("arith.addf " + a[1] + ", " + g + " : f64");
                     return {r.select(hit, sum, a[1], "f64")};
                   });
  }
  return convert(acc, dt);
}

// avg_pool2d's divisor (rt's avg_divisor) for the window at loops 2, 3 (oy, ox), as i64 -> f64.
std::string FunctionEmitter::avg_divisor(Region& r, const Op& op, const Window& win, const Shape& x) {
  const bool include_pad = op.attrs.get_bool("count_include_pad");
  auto extent = [&](size_t loop, int64_t k, int64_t s, int64_t p, int64_t size) {
    std::string start = r.index_sum({{r.index(loop), s}}, -p);
    std::string end = r.index_op("minsi", r.index_sum({{start, 1}}, k), r.index_const(include_pad ? size + p : size));
    std::string begin = include_pad ? start : r.index_op("maxsi", start, r.index_const(0));
    return r.index_op("subi", end, begin);
  };
  std::string n = r.index_op("muli", extent(2, win.kh, win.sh, win.ph, x[2]), extent(3, win.kw, win.sw, win.pw, x[3]));
  return r.op("arith.sitofp " + r.to_i64(n) + " : i64 to f64");
}

TV FunctionEmitter::avg_pool2d(const Op& op, const TV& x) {
  const TensorType& rt = op.result()->type;
  const Window win = pool_window(op);
  const DType dt = rt.dtype;
  TV xp = pad(x, {0, 0, win.ph, win.pw}, {0, 0, win.ph, win.pw}, literal(0.0, dt));
  TV acc = fill(literal(0.0, DType::f64), {DType::f64, rt.shape});
  // loops: n c oy ox | ki kj; the padding zeros add nothing to the f64 sum
  std::vector<bool> red = {false, false, false, false, true, true};
  std::vector<std::string> xmap = {dim(0), dim(1), affine_sum({{2, win.sh}, {4, 1}}), affine_sum({{3, win.sw}, {5, 1}})};
  acc = generic1(6, red, {{xp, xmap}, {window_dummy(win.kh, win.kw), {dim(4), dim(5)}}}, {acc, identity_map(4)},
                 [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                   return {r.op("arith.addf " + a[2] + ", " + r.cast(a[0], dt, DType::f64) + " : f64")};
                 });
  return map({acc}, rt, [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
    std::string q = r.op("arith.divf " + a[0] + ", " + avg_divisor(r, op, win, x.type.shape) + " : f64");
    return {r.cast(q, DType::f64, dt)};
  });
}

TV FunctionEmitter::avg_pool2d_grad(const Op& op, const TV& dy) {
  // dx[n, c, h, w] = sum over the windows holding (h, w) of dy / divisor, in f64.
  const TensorType& rt = op.result()->type;
  const Window win = pool_window(op);
  const DType dt = rt.dtype;
  const Shape& ds = dy.type.shape;
  TV share = map({dy}, {DType::f64, ds}, [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
    return {r.op("arith.divf " + r.cast(a[0], dt, DType::f64) + ", " + avg_divisor(r, op, win, rt.shape) + " : f64")};
  });
  TV acc = fill(literal(0.0, DType::f64), {DType::f64, rt.shape});
  std::vector<bool> red = {false, false, false, false, true, true};
  acc = generic1(6, red, {{window_dummy(win.kh, win.kw), {dim(4), dim(5)}}}, {acc, identity_map(4)},
                 [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                   auto [oy, vy] = window_origin(r, r.index(2), win.ph, r.index(4), 1, win.sh, ds[2]);
                   auto [ox, vx] = window_origin(r, r.index(3), win.pw, r.index(5), 1, win.sw, ds[3]);
                   std::string v = r.extract(share, {r.index(0), r.index(1), oy, ox});
                   std::string sum = r.op("arith.addf " + a[1] + ", " + v + " : f64");
                   return {r.select(r.all({vy, vx}), sum, a[1], "f64")};
                 });
  return convert(acc, dt);
}

// ---- unfold / fold

TV FunctionEmitter::unfold(const Op& op, const TV& x) {
  // cols[n, c, kh, kw, oy, ox] = xpad[n, c, oy*sh + kh*dh, ox*sw + kw*dw], then [N, C*KH*KW, OH*OW].
  const TensorType& rt = op.result()->type;
  const Window win = unfold_window(op);
  const Shape& xs = x.type.shape;
  const int64_t oh = (xs[2] + 2 * win.ph - win.dh * (win.kh - 1) - 1) / win.sh + 1;
  const int64_t ow = rt.shape[2] / oh;
  TV xp = pad(x, {0, 0, win.ph, win.pw}, {0, 0, win.ph, win.pw}, literal(0.0, rt.dtype));
  std::vector<std::string> xmap = {dim(0), dim(1), affine_sum({{4, win.sh}, {2, win.dh}}),
                                   affine_sum({{5, win.sw}, {3, win.dw}})};
  TV cols = generic1(6, std::vector<bool>(6, false), {{xp, xmap}},
                     {empty({rt.dtype, {xs[0], xs[1], win.kh, win.kw, oh, ow}}), identity_map(6)},
                     [](Region&, const std::vector<std::string>& a) { return std::vector<std::string>{a[0]}; });
  return reshape(cols, rt.shape);
}

TV FunctionEmitter::fold(const Op& op, const TV& cols) {
  // y[n, c, h, w] = sum over (kh, kw) of cols[n, c, kh, kw, oy, ox] where h = oy*sh - ph + kh*dh
  // (and likewise w), in f64 in row-major (kh, kw) order.
  const TensorType& rt = op.result()->type;
  const Window win = unfold_window(op);
  const Shape& ys = rt.shape;
  const int64_t oh = (ys[2] + 2 * win.ph - win.dh * (win.kh - 1) - 1) / win.sh + 1;
  const int64_t ow = cols.type.shape[2] / oh;
  TV acc = fill(literal(0.0, DType::f64), {DType::f64, ys});
  if (cols.type.num_elements() > 0) {
    TV c6 = reshape(cols, {ys[0], ys[1], win.kh, win.kw, oh, ow});
    std::vector<bool> red = {false, false, false, false, true, true};
    acc = generic1(6, red, {{window_dummy(win.kh, win.kw), {dim(4), dim(5)}}}, {acc, identity_map(4)},
                   [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                     auto [oy, vy] = window_origin(r, r.index(2), win.ph, r.index(4), win.dh, win.sh, oh);
                     auto [ox, vx] = window_origin(r, r.index(3), win.pw, r.index(5), win.dw, win.sw, ow);
                     std::string v = r.extract(c6, {r.index(0), r.index(1), r.index(4), r.index(5), oy, ox});
                     std::string sum = r.op("arith.addf " + a[1] + ", " + r.cast(v, rt.dtype, DType::f64) + " : f64");
                     return {r.select(r.all({vy, vx}), sum, a[1], "f64")};
                   });
  }
  return convert(acc, rt.dtype);
}

// ---- indexing

TV FunctionEmitter::gather(const Op& op, const TV& table, const TV& idx) {
  const TensorType& rt = op.result()->type;
  const size_t axis = static_cast<size_t>(norm_axis(op.attrs.get_int("axis"), table.type.rank()));
  const size_t k = idx.type.shape.size();
  return generic1(rt.shape.size(), std::vector<bool>(rt.shape.size(), false), {{idx, identity_map(k, axis)}},
                  {empty(rt), identity_map(rt.shape.size())},
                  [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                    std::vector<std::string> at;
                    for (size_t d = 0; d < table.type.shape.size(); ++d) {
                      if (d < axis) at.push_back(r.index(d));
                      else if (d == axis) at.push_back(r.op("arith.index_cast " + a[0] + " : " + mlir_type(idx.type.dtype) + " to index"));
                      else at.push_back(r.index(d - 1 + k));
                    }
                    return {r.extract(table, at)};
                  });
}

TV FunctionEmitter::scatter_add(const Op& op, const TV& operand, const TV& idx, const TV& upd) {
  // out[pre, i, post] = operand + the updates[pre, j, post] whose index[j] == i, added in
  // row-major order of j (bf16/f16 accumulate in f32, round once).
  const size_t rank = operand.type.shape.size(), k = idx.type.shape.size();
  const size_t axis = static_cast<size_t>(norm_axis(op.attrs.get_int("axis"), static_cast<int64_t>(rank)));
  const DType dt = operand.type.dtype, ct = compute_dtype(dt);
  std::vector<std::string> umap = identity_map(axis);
  for (const std::string& d : identity_map(k, rank)) umap.push_back(d);
  for (size_t d = axis + 1; d < rank; ++d) umap.push_back(dim(d));
  std::vector<bool> red(rank + k, false);
  for (size_t j = rank; j < rank + k; ++j) red[j] = true;
  TV acc = generic1(rank + k, red, {{idx, identity_map(k, rank)}, {upd, umap}}, {convert(operand, ct), identity_map(rank)},
                    [&](Region& r, const std::vector<std::string>& a) -> std::vector<std::string> {
                      std::string i = r.cast(a[0], idx.type.dtype, DType::i64);
                      std::string hit = r.op("arith.cmpi eq, " + i + ", " + r.to_i64(r.index(axis)) + " : i64");
                      MlirScalar<true> hf{r, ct};
                      MlirScalar<false> hi{r, ct};
                      std::string u = r.cast(a[1], dt, ct);
                      std::string sum = is_float(ct) ? hf.add(a[2], u) : hi.add(a[2], u);
                      return {r.select(hit, sum, a[2], mlir_type(ct))};
                    });
  return convert(acc, dt);
}

// ---- sources

TV FunctionEmitter::constant(const Op& op) {
  const TensorType& rt = op.result()->type;
  const AttrValue& v = *op.attrs.find("value");
  std::vector<std::string> elems;
  if (auto* i = std::get_if<int64_t>(&v)) elems = {literal(*i, rt.dtype)};
  else if (auto* f = std::get_if<double>(&v)) elems = {literal(*f, rt.dtype)};
  else if (auto* is = std::get_if<std::vector<int64_t>>(&v))
    for (int64_t x : *is) elems.push_back(literal(x, rt.dtype));
  else if (auto* fs = std::get_if<std::vector<double>>(&v))
    for (double x : *fs) elems.push_back(literal(x, rt.dtype));
  std::string dense;
  if (elems.size() == 1 || rt.num_elements() == 0) {
    dense = elems.empty() ? literal(0.0, rt.dtype) : elems[0];  // a splat
  } else {
    // Nested brackets, one level per dim.
    size_t next = 0;
    std::function<std::string(size_t)> nest = [&](size_t d) -> std::string {
      if (d == rt.shape.size()) return elems[next++];
      std::vector<std::string> parts;
      for (int64_t i = 0; i < rt.shape[d]; ++i) parts.push_back(nest(d + 1));
      return "[" + join(parts) + "]";
    };
    dense = nest(0);
  }
  return {line("arith.constant dense<" + dense + "> : " + mlir_type(rt)), rt};
}

// ---- dispatch

Expected<TV> FunctionEmitter::emit_op(const Op& op, const std::vector<TV>& in) {
  const TensorType& rt = op.result()->type;
  const size_t rank = rt.shape.size();
  switch (op.code) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Sqrt:
    case OpCode::Rsqrt: case OpCode::Tanh: case OpCode::Sigmoid: case OpCode::Erf: case OpCode::Sin:
    case OpCode::Cos: case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div:
    case OpCode::Max: case OpCode::Min: case OpCode::Pow: case OpCode::Compare: case OpCode::Select:
    case OpCode::Cast: case OpCode::RandomUniform:
      return elementwise(op, in);
    case OpCode::Broadcast: {
      const auto& dims = op.attrs.get_ints("dims");
      std::vector<std::string> m;
      for (size_t i = 0; i < dims.size(); ++i)
        m.push_back(in[0].type.shape[i] == 1 && rt.shape[static_cast<size_t>(dims[i])] != 1 ? "0" : dim(static_cast<size_t>(dims[i])));
      return generic1(rank, std::vector<bool>(rank, false), {{in[0], m}}, {empty(rt), identity_map(rank)},
                      [](Region&, const std::vector<std::string>& a) { return std::vector<std::string>{a[0]}; });
    }
    case OpCode::Reshape:
      return reshape(in[0], rt.shape);
    case OpCode::Transpose: {
      const auto& perm = op.attrs.get_ints("perm");
      bool identity = true;
      for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
      if (identity) return in[0];  // also rank 0, which linalg.transpose does not take
      TV e = empty(rt);
      return TV{line("linalg.transpose ins(" + in[0].name + " : " + mlir_type(in[0].type) + ") outs(" + e.name +
                     " : " + mlir_type(rt) + ") permutation = " + ints(perm)),
                rt};
    }
    case OpCode::Slice: {
      if (rank == 0) return in[0];
      return TV{line("tensor.extract_slice " + in[0].name + ints(op.attrs.get_ints("start")) + " " + ints(rt.shape) +
                     " " + ints(op.attrs.get_ints("stride")) + " : " + mlir_type(in[0].type) + " to " + mlir_type(rt)),
                rt};
    }
    case OpCode::Concat: {
      // tensor.insert_slice of each operand into an empty result, at its offset along axis.
      const size_t axis = static_cast<size_t>(norm_axis(op.attrs.get_int("axis"), static_cast<int64_t>(rank)));
      TV acc = empty(rt);
      std::vector<int64_t> offsets(rank, 0), strides(rank, 1);
      for (const TV& t : in) {
        if (t.type.num_elements() > 0)
          acc = {line("tensor.insert_slice " + t.name + " into " + acc.name + ints(offsets) + " " + ints(t.type.shape) +
                      " " + ints(strides) + " : " + mlir_type(t.type) + " into " + mlir_type(rt)),
                 rt};
        offsets[axis] += t.type.shape[axis];
      }
      return acc;
    }
    case OpCode::Pad:
      return pad(in[0], op.attrs.get_ints("low"), op.attrs.get_ints("high"), literal(op.attrs.get_float("value"), rt.dtype));
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
      return reduce(op, in[0]);
    case OpCode::Argmax:
      return argmax(op, in[0]);
    case OpCode::Dot:
      return dot(op, in[0], in[1]);
    case OpCode::Conv2d:
      return conv2d(op, in[0], in[1]);
    case OpCode::Conv2dInputGrad:
      return conv2d_input_grad(op, in[0], in[1]);
    case OpCode::Conv2dWeightGrad:
      return conv2d_weight_grad(op, in[0], in[1]);
    case OpCode::MaxPool2d:
      return convert(max_pool_select(op, in[0], rt.shape).first, rt.dtype);
    case OpCode::AvgPool2d:
      return avg_pool2d(op, in[0]);
    case OpCode::MaxPool2dIndices:
      return max_pool_select(op, in[0], rt.shape).second;
    case OpCode::MaxPool2dGrad:
      return max_pool2d_grad(op, in[0], in[1]);
    case OpCode::MaxPool2dScatter:
      return route_to_chosen(op, in[1], in[0]);
    case OpCode::AvgPool2dGrad:
      return avg_pool2d_grad(op, in[0]);
    case OpCode::Unfold:
      return unfold(op, in[0]);
    case OpCode::Fold:
      return fold(op, in[0]);
    case OpCode::Gather:
      return gather(op, in[0], in[1]);
    case OpCode::ScatterAdd:
      return scatter_add(op, in[0], in[1], in[2]);
    case OpCode::Iota: {
      const size_t d = static_cast<size_t>(op.attrs.get_int("dim"));
      return generic1(rank, std::vector<bool>(rank, false), {}, {empty(rt), identity_map(rank)},
                      [&](Region& r, const std::vector<std::string>&) {
                        return std::vector<std::string>{r.cast(r.to_i64(r.index(d)), DType::i64, rt.dtype)};
                      });
    }
    case OpCode::Constant:
      return constant(op);
    default:
      break;
  }
  return make_error(std::string(op_name(op.code)) + " has no MLIR form");
}

Expected<std::string> FunctionEmitter::emit(const Function& original) {
  // Composites are emitted as their decomposition, as the interpreter runs them.
  std::unique_ptr<Function> copy = original.clone();
  decompose_composites(*copy);
  const Function& f = *copy;

  std::unordered_map<const Value*, TV> values;
  std::string sig = "  func.func " + symbol(f.name) + "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    const Value* a = f.args[i];
    // Verified argument names ([A-Za-z_][A-Za-z0-9_.]*, unique) are MLIR value names
    // as they are, and never clash with the numbered values %0, %1, ...
    std::string name = "%" + a->name;
    values[a] = {name, a->type};
    ArgKind kind = i < f.arg_kinds.size() ? f.arg_kinds[i] : ArgKind::input;
    sig += (i ? ", " : "") + name + ": " + mlir_type(a->type) + " {mlc.arg = \"" + std::string(arg_kind_name(kind)) + "\"}";
  }
  sig += ") -> (";
  for (size_t k = 0; k < f.results.size(); ++k) {
    sig += (k ? ", " : "") + mlir_type(f.results[k]->type);
    int a = f.updated_arg(k);
    if (a >= 0 && a < static_cast<int>(f.args.size())) sig += " {mlc.updates = " + mlir_string(f.args[a]->name) + "}";
  }
  sig += ") {\n";

  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Op& op = *f.ops[i];
    loc_ = op.loc.known() ? " loc(" + mlir_string(op.loc.file) + ":" + std::to_string(op.loc.line) + ":" +
                                std::to_string(op.loc.col) + ")"
                          : "";
    std::vector<TV> in;
    for (const Value* v : op.operands) in.push_back(values.at(v));
    auto out = emit_op(op, in);
    if (!out) {
      std::string where = op.loc.known() ? op.loc.str() + ": " : "";
      return make_error(where + "error: emit mlir: @" + f.name + " op #" + std::to_string(i) + ": " + out.error().message);
    }
    values[op.result()] = *out;
  }
  std::vector<std::string> names, types;
  for (const Value* v : f.results) {
    names.push_back(values.at(v).name);
    types.push_back(mlir_type(v->type));
  }
  body_ += std::string(kIndent) + "return" + (names.empty() ? "" : " " + join(names) + " : " + join(types)) + "\n";
  return sig + body_ + "  }\n";
}

}  // namespace

Expected<std::string> emit_mlir(const Module& m) {
  MLC_CHECK_OK(verify_module(m));
  MapTable maps;
  std::string funcs;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    FunctionEmitter e(maps);
    MLC_TRY(std::string text, e.emit(*m.functions[i]));
    funcs += (i ? "\n" : "") + text;
  }
  std::string head = "module";
  if (!m.name.empty()) head += " " + symbol(m.name);
  if (!m.attrs.empty()) {
    std::vector<std::string> attrs;
    for (const NamedAttr& a : m.attrs.list()) {
      const std::string* s = std::get_if<std::string>(&a.value);
      attrs.push_back("mlc." + a.name + " = " + (s ? mlir_string(*s) : attr_value_to_string(a.value)));
    }
    head += " attributes {" + join(attrs) + "}";
  }
  return maps.definitions() + head + " {\n" + funcs + "}\n";
}

}  // namespace mlc
