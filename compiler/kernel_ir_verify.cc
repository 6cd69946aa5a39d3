#include "compiler/kernel_ir_verify.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ir/dtype.h"
#include "ir/op_table.h"

namespace mlc::kir {

namespace {

constexpr int64_t kMaxDomain = int64_t{1} << 40;
constexpr int64_t kMaxReduceTrips = int64_t{1} << 62;
// Variables an expression may depend on; real kernels need a handful.
constexpr size_t kMaxFreeVars = 32;

bool is_index(ExprKind k) { return k <= ExprKind::imax || k == ExprKind::checked_index; }
std::string dtype_str(DType t) { return std::string(dtype_name(t)); }

Error at(const Kernel& k, size_t id, const std::string& what) {
  return Error{"kernel IR e" + std::to_string(id) + " (" + std::string(kind_name(k.exprs[id].kind)) + "): " + what};
}

// Which of a, b, c each kind reads: 0 none, 1 required, 2 optional (a reduce's mask).
struct Operands {
  int a, b, c;
};
Operands operands_of(ExprKind kind) {
  switch (kind) {
    case ExprKind::var: case ExprKind::iconst: case ExprKind::constant: return {0, 0, 0};
    case ExprKind::load: case ExprKind::unary: case ExprKind::cast: case ExprKind::index_value:
    case ExprKind::checked_index: return {1, 0, 0};
    case ExprKind::select: return {1, 1, 1};
    case ExprKind::reduce: return {1, 2, 0};
    default: return {1, 1, 0};  // index ops, ilt, binary, cmp
  }
}

// The i64 interval [lo, hi] an index expression takes; empty (lo > hi) when
// it is never evaluated (it depends on a variable of extent 0).
struct Range {
  int64_t lo = 0, hi = -1;
  bool empty() const { return lo > hi; }
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
  std::string str() const { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; }
};

using Wide = __int128;
constexpr Wide kI64Min = std::numeric_limits<int64_t>::min(), kI64Max = std::numeric_limits<int64_t>::max();

// The interval of every index expression (others: empty), or the first that
// may divide by zero or leave i64. Needs verify_kernel's operand checks.
Expected<std::vector<Range>> index_ranges(const Kernel& k) {
  std::vector<int64_t> extent(static_cast<size_t>(k.num_vars), 0);
  for (size_t d = 0; d < k.domain.size() && d < extent.size(); ++d) extent[d] = k.domain[d];
  for (size_t j = 0; k.scatters() && j < k.scatter.domain.size(); ++j)
    if (static_cast<size_t>(k.scatter.var0) + j < extent.size())
      extent[static_cast<size_t>(k.scatter.var0) + j] = k.scatter.domain[j];
  for (const Expr& e : k.exprs)
    if (e.kind == ExprKind::reduce)
      for (size_t j = 0; j < e.extents.size(); ++j)
        if (static_cast<size_t>(e.var0) + j < extent.size()) extent[static_cast<size_t>(e.var0) + j] = e.extents[j];
  std::vector<Range> r(k.exprs.size());
  for (size_t id = 0; id < k.exprs.size(); ++id) {
    const Expr& e = k.exprs[id];
    if (!is_index(e.kind)) continue;
    if (e.kind == ExprKind::var) {
      r[id] = {0, extent[static_cast<size_t>(e.i)] - 1};
      continue;
    }
    if (e.kind == ExprKind::iconst) {
      r[id] = {e.i, e.i};
      continue;
    }
    if (e.kind == ExprKind::checked_index) {  // the kernel stops where the value is outside
      r[id] = {0, e.i - 1};
      continue;
    }
    const Range x = r[static_cast<size_t>(e.a)], y = r[static_cast<size_t>(e.b)];
    if (x.empty() || y.empty()) continue;
    Wide lo, hi;
    auto corners = [&](auto f) {
      const Wide c[] = {f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo), f(x.hi, y.hi)};
      lo = *std::min_element(std::begin(c), std::end(c));
      hi = *std::max_element(std::begin(c), std::end(c));
    };
    if ((e.kind == ExprKind::idiv || e.kind == ExprKind::irem) && y.contains(0))
      return at(k, id, "divides by e" + std::to_string(e.b) + ", which may be 0 (it takes values in " + y.str() + ")");
    switch (e.kind) {
      case ExprKind::iadd: lo = Wide{x.lo} + y.lo, hi = Wide{x.hi} + y.hi; break;
      case ExprKind::imul: corners([](Wide p, Wide q) { return p * q; }); break;
      case ExprKind::idiv: corners([](Wide p, Wide q) { return p / q; }); break;  // truncating, as sdiv
      case ExprKind::irem: {
        if (x.lo == kI64Min && y.contains(-1)) return at(k, id, "may compute INT64_MIN % -1");
        auto magnitude = [](int64_t v) { return v < 0 ? -Wide{v} : Wide{v}; };
        const Wide big = std::max(magnitude(y.lo), magnitude(y.hi)), small = std::min(magnitude(y.lo), magnitude(y.hi));
        // The remainder has x's sign and a magnitude below |y|: x itself where |x| < |y|.
        if ((x.lo >= 0 && x.hi < small) || (x.hi <= 0 && -Wide{x.lo} < small)) {
          lo = x.lo, hi = x.hi;
        } else {
          lo = x.lo >= 0 ? Wide{0} : std::max(Wide{x.lo}, 1 - big);
          hi = x.hi <= 0 ? Wide{0} : std::min(Wide{x.hi}, big - 1);
        }
        break;
      }
      case ExprKind::imin: lo = std::min(x.lo, y.lo), hi = std::min(x.hi, y.hi); break;
      case ExprKind::imax: lo = std::max(x.lo, y.lo), hi = std::max(x.hi, y.hi); break;
      default: continue;
    }
    if (lo < kI64Min || hi > kI64Max)
      return at(k, id, "may overflow i64: e" + std::to_string(e.a) + " in " + x.str() + ", e" + std::to_string(e.b) +
                           " in " + y.str());
    r[id] = {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
  }
  return r;
}

class Verifier {
 public:
  explicit Verifier(const Kernel& k) : k_(k) {}

  Status run() {
    if (k_.exprs.empty() || static_cast<int64_t>(k_.exprs.size()) > kMaxExprs)
      return Error{"kernel IR: expected 1 to " + std::to_string(kMaxExprs) + " expressions, found " +
                   std::to_string(k_.exprs.size())};
    MLC_CHECK_OK(check_signature());
    MLC_CHECK_OK(check_variables());
    depth_.assign(k_.exprs.size(), 0);
    free_.assign(k_.exprs.size(), {});
    for (size_t id = 0; id < k_.exprs.size(); ++id) MLC_CHECK_OK(check_expr(id));
    const int inputs = k_.num_inputs();
    for (int o = 0; o < k_.num_outputs(); ++o) {
      const int r = o == 0 ? k_.root : k_.more_roots[static_cast<size_t>(o - 1)];
      const std::string name = o == 0 ? "root" : "more_roots[" + std::to_string(o - 1) + "]";
      if (r < 0 || r >= static_cast<int>(k_.exprs.size()))
        return Error{"kernel IR " + name + ": e" + std::to_string(r) + " is not an expression"};
      const DType want = k_.params[static_cast<size_t>(inputs + o)], got = k_.exprs[static_cast<size_t>(r)].dtype;
      if (got != want)
        return Error{"kernel IR " + name + ": e" + std::to_string(r) + " is " + dtype_str(got) + ", its output param " +
                     dtype_str(want)};
      for (int64_t v : free_[static_cast<size_t>(r)])
        if (v >= static_cast<int64_t>(k_.domain.size()))
          return Error{"kernel IR " + name + ": e" + std::to_string(r) + " depends on variable " + std::to_string(v) +
                       ", which only a reduction binds, outside that reduction"};
      const int alias = o == 0 ? k_.output_alias : k_.more_alias[static_cast<size_t>(o - 1)];
      if (alias < 0) continue;
      if (!k_.elementwise_input[static_cast<size_t>(alias)])
        return Error{"kernel IR " + std::string(o == 0 ? "output_alias" : "more_alias") + ": output " +
                     std::to_string(o) + " is written into input " + std::to_string(alias) +
                     ", which is not an elementwise input"};
      if (k_.params[static_cast<size_t>(alias)] != want)
        return Error{"kernel IR " + std::string(o == 0 ? "output_alias" : "more_alias") + ": output " +
                     std::to_string(o) + " (" + dtype_str(want) + ") is written into input " + std::to_string(alias) +
                     " (" + dtype_str(k_.params[static_cast<size_t>(alias)]) + ")"};
    }
    MLC_CHECK_OK(check_scatter());
    MLC_TRY(std::vector<Range> ranges, index_ranges(k_));
    (void)ranges;
    return {};
  }

  // Kernel::Scatter: its expressions exist, value has the output's dtype (a
  // number), row and at are index expressions, all three depend on the
  // scatter's variables only and hold no reduction.
  Status check_scatter() {
    if (!k_.scatters()) return {};
    const Kernel::Scatter& sc = k_.scatter;
    const DType out = k_.params[static_cast<size_t>(k_.num_inputs())];
    const int n = static_cast<int>(k_.exprs.size());
    const std::pair<const char*, int> parts[] = {{"value", sc.value}, {"row", sc.row}, {"at", sc.at}};
    for (auto [name, x] : parts) {
      const std::string field = std::string("kernel IR scatter.") + name + ": e" + std::to_string(x);
      if (x < 0 || x >= n) return Error{field + " is not an expression"};
      const bool value = std::string_view(name) == "value";
      if (value && (k_.exprs[static_cast<size_t>(x)].dtype != out || out == DType::boolean))
        return Error{field + " is " + dtype_str(k_.exprs[static_cast<size_t>(x)].dtype) + ", expected the output's " +
                     dtype_str(out) + " (a number)"};
      if (!value && !is_index(k_.exprs[static_cast<size_t>(x)].kind)) return Error{field + " is not an index expression"};
      for (int64_t v : free_[static_cast<size_t>(x)])
        if (v < sc.var0 || v >= sc.var0 + static_cast<int64_t>(sc.domain.size()))
          return Error{field + " depends on variable " + std::to_string(v) + ", not one of the scatter's"};
      std::vector<bool> in(static_cast<size_t>(x) + 1, false);
      in[static_cast<size_t>(x)] = true;
      for (size_t id = static_cast<size_t>(x) + 1; id-- > 0;) {
        if (!in[id]) continue;
        const Expr& e = k_.exprs[id];
        if (e.kind == ExprKind::reduce) return Error{field + " holds a reduction (e" + std::to_string(id) + ")"};
        for (int y : {e.a, e.b, e.c})
          if (y >= 0) in[static_cast<size_t>(y)] = true;
      }
    }
    return {};
  }

 private:
  // The params, the lists that go with them, the domain.
  Status check_signature() {
    if (k_.params.size() < static_cast<size_t>(k_.num_outputs()))
      return Error{"kernel IR params: " + std::to_string(k_.params.size()) + " for " +
                   std::to_string(k_.num_outputs()) + " outputs"};
    const size_t inputs = static_cast<size_t>(k_.num_inputs());
    if (k_.elementwise_input.size() != inputs)
      return Error{"kernel IR elementwise_input: " + std::to_string(k_.elementwise_input.size()) + " entries for " +
                   std::to_string(inputs) + " inputs"};
    if (k_.more_alias.size() != k_.more_roots.size())
      return Error{"kernel IR more_alias: " + std::to_string(k_.more_alias.size()) + " entries for " +
                   std::to_string(k_.more_roots.size()) + " further outputs"};
    for (int alias : k_.more_alias)
      if (alias < -1 || alias >= static_cast<int>(inputs)) return Error{"kernel IR more_alias: " + std::to_string(alias) + " is not an input"};
    if (k_.output_alias < -1 || k_.output_alias >= static_cast<int>(inputs))
      return Error{"kernel IR output_alias: " + std::to_string(k_.output_alias) + " is not an input"};
    int64_t elements = 1;
    for (int64_t d : k_.domain) {
      if (d < 0 || (d > 0 && elements > kMaxDomain / d))
        return Error{"kernel IR domain " + shape_to_string(k_.domain) + ": expected at most 2^40 elements"};
      elements *= d;
    }
    return {};
  }

  // Each variable bound once: the domain's, then each reduction's range.
  Status check_variables() {
    const int64_t rank = static_cast<int64_t>(k_.domain.size());
    std::vector<int> binder(static_cast<size_t>(std::max(0, k_.num_vars)), -2);  // -2 unbound, -1 the domain
    if (k_.num_vars < rank)
      return Error{"kernel IR num_vars: " + std::to_string(k_.num_vars) + " for a domain of rank " + std::to_string(rank)};
    for (int64_t d = 0; d < rank; ++d) binder[static_cast<size_t>(d)] = -1;
    if (k_.scatters()) {
      const Kernel::Scatter& sc = k_.scatter;
      const int64_t end = int64_t{sc.var0} + static_cast<int64_t>(sc.domain.size());
      if (sc.var0 < rank || end > k_.num_vars)
        return Error{"kernel IR scatter: binds variables [" + std::to_string(sc.var0) + ", " + std::to_string(end) +
                     "), expected a range within [" + std::to_string(rank) + ", num_vars " + std::to_string(k_.num_vars) + ")"};
      int64_t elements = 1;
      for (int64_t d : sc.domain) {
        if (d < 0 || (d > 0 && elements > kMaxDomain / d))
          return Error{"kernel IR scatter.domain " + shape_to_string(sc.domain) + ": expected at most 2^40 elements"};
        elements *= d;
      }
      for (int64_t v = sc.var0; v < end; ++v) binder[static_cast<size_t>(v)] = -3;
    }
    for (size_t id = 0; id < k_.exprs.size(); ++id) {
      const Expr& e = k_.exprs[id];
      if (e.kind != ExprKind::reduce) continue;
      Wide trips = 1;
      for (int64_t x : e.extents) {
        if (x < 0 || x > kMaxDomain) return at(k_, id, "extent " + std::to_string(x) + " is not in [0, 2^40]");
        trips *= x;
        if (trips > kMaxReduceTrips) return at(k_, id, "extents " + shape_to_string(e.extents) + " exceed 2^62 elements");
      }
      const int64_t end = int64_t{e.var0} + static_cast<int64_t>(e.extents.size());
      if (e.var0 < rank || end > k_.num_vars)
        return at(k_, id, "binds variables [" + std::to_string(e.var0) + ", " + std::to_string(end) +
                              "), expected a range within [" + std::to_string(rank) + ", num_vars " +
                              std::to_string(k_.num_vars) + ")");
      for (int64_t v = e.var0; v < end; ++v) {
        int& b = binder[static_cast<size_t>(v)];
        if (b == -3) return at(k_, id, "binds variable " + std::to_string(v) + ", which the scatter binds");
        if (b != -2) return at(k_, id, "binds variable " + std::to_string(v) + ", which e" + std::to_string(b) + " binds");
        b = static_cast<int>(id);
      }
    }
    for (size_t v = 0; v < binder.size(); ++v)
      if (binder[v] == -2) return Error{"kernel IR num_vars: variable " + std::to_string(v) + " is bound by nothing"};
    return {};
  }

  const Expr& operand(int x) const { return k_.exprs[static_cast<size_t>(x)]; }

  Status check_expr(size_t id) {
    const Expr& e = k_.exprs[id];
    if (static_cast<int>(e.kind) > static_cast<int>(kLastExprKind))
      return Error{"kernel IR e" + std::to_string(id) + ": kind " + std::to_string(static_cast<int>(e.kind)) +
                   " does not exist"};
    const Operands uses = operands_of(e.kind);
    const std::pair<char, int> fields[] = {{'a', e.a}, {'b', e.b}, {'c', e.c}};
    const int use[] = {uses.a, uses.b, uses.c};
    std::vector<int64_t>& free = free_[id];
    for (int f = 0; f < 3; ++f) {
      const auto [name, x] = fields[f];
      const std::string field = std::string(1, name);
      if (use[f] == 0 && x != -1) return at(k_, id, "operand " + field + " is e" + std::to_string(x) + ", expected none (-1)");
      if (use[f] == 1 && x == -1) return at(k_, id, "has no operand " + field);
      if (x == -1) continue;
      if (x < 0 || static_cast<size_t>(x) >= id)
        return at(k_, id, "operand " + field + " is e" + std::to_string(x) + ", expected an earlier expression");
      depth_[id] = std::max(depth_[id], depth_[static_cast<size_t>(x)] + 1);
      free.insert(free.end(), free_[static_cast<size_t>(x)].begin(), free_[static_cast<size_t>(x)].end());
    }
    if (depth_[id] > kMaxDepth)
      return at(k_, id, "is " + std::to_string(depth_[id]) + " operands deep, more than " + std::to_string(kMaxDepth));
    if (static_cast<int>(e.dtype) > static_cast<int>(DType::boolean))
      return at(k_, id, "dtype " + std::to_string(static_cast<int>(e.dtype)) + " does not exist");
    if (e.kind == ExprKind::var) {
      if (e.i < 0 || e.i >= k_.num_vars)
        return at(k_, id, "variable " + std::to_string(e.i) + " is not in [0, num_vars " + std::to_string(k_.num_vars) + ")");
      free.push_back(e.i);
    }
    if (e.kind == ExprKind::reduce)
      std::erase_if(free, [&](int64_t v) { return v >= e.var0 && v < e.var0 + static_cast<int64_t>(e.extents.size()); });
    std::sort(free.begin(), free.end());
    free.erase(std::unique(free.begin(), free.end()), free.end());
    if (free.size() > kMaxFreeVars)
      return at(k_, id, "depends on " + std::to_string(free.size()) + " variables, more than " + std::to_string(kMaxFreeVars));
    return check_types(id, e);
  }

  Status need(size_t id, bool ok, const std::string& what) const {
    if (ok) return {};
    return at(k_, id, what);
  }
  std::string dtype_of(int x) const { return "e" + std::to_string(x) + " is " + dtype_str(operand(x).dtype); }

  Status check_types(size_t id, const Expr& e) {
    const DType t = e.dtype;
    const std::string is = "is " + dtype_str(t);
    auto index_operand = [&](int x) {
      return need(id, is_index(operand(x).kind), "operand e" + std::to_string(x) + " (" +
                                                     std::string(kind_name(operand(x).kind)) +
                                                     ") is not an index expression");
    };
    auto same_dtype = [&](int x) { return need(id, operand(x).dtype == t, is + ", but its operand " + dtype_of(x)); };
    switch (e.kind) {
      case ExprKind::var: case ExprKind::iconst: return need(id, t == DType::i64, is + ", expected i64");
      case ExprKind::iadd: case ExprKind::imul: case ExprKind::idiv: case ExprKind::irem: case ExprKind::imin:
      case ExprKind::imax:
        MLC_CHECK_OK(need(id, t == DType::i64, is + ", expected i64"));
        MLC_CHECK_OK(index_operand(e.a));
        return index_operand(e.b);
      case ExprKind::ilt:
        MLC_CHECK_OK(need(id, t == DType::boolean, is + ", expected bool"));
        MLC_CHECK_OK(index_operand(e.a));
        return index_operand(e.b);
      case ExprKind::constant: return {};
      case ExprKind::load: {
        const int64_t inputs = k_.num_inputs();
        MLC_CHECK_OK(need(id, e.i >= 0 && e.i < inputs,
                          "reads param " + std::to_string(e.i) + ", expected an input in [0, " + std::to_string(inputs) + ")"));
        const DType p = k_.params[static_cast<size_t>(e.i)];
        MLC_CHECK_OK(need(id, p == t, is + ", but its param " + std::to_string(e.i) + " is " + dtype_str(p)));
        return index_operand(e.a);
      }
      case ExprKind::unary: {
        static constexpr OpCode kAny[] = {OpCode::Neg, OpCode::Abs};
        static constexpr OpCode kFloat[] = {OpCode::Exp,  OpCode::Log, OpCode::Sqrt, OpCode::Rsqrt,  OpCode::Tanh,
                                            OpCode::Erf,  OpCode::Sin, OpCode::Cos,  OpCode::Sigmoid};
        const bool any = std::find(std::begin(kAny), std::end(kAny), e.op) != std::end(kAny);
        const bool fl = std::find(std::begin(kFloat), std::end(kFloat), e.op) != std::end(kFloat);
        MLC_CHECK_OK(arithmetic(id, e, any, fl, "unary"));
        return same_dtype(e.a);
      }
      case ExprKind::binary: {
        static constexpr OpCode kAny[] = {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Max, OpCode::Min};
        const bool any = std::find(std::begin(kAny), std::end(kAny), e.op) != std::end(kAny);
        MLC_CHECK_OK(arithmetic(id, e, any, e.op == OpCode::Pow, "binary"));
        MLC_CHECK_OK(same_dtype(e.a));
        return same_dtype(e.b);
      }
      case ExprKind::cmp:
        MLC_CHECK_OK(need(id, t == DType::boolean, is + ", expected bool"));
        MLC_CHECK_OK(need(id, static_cast<int>(e.dir) <= static_cast<int>(scalar::CmpDir::ge),
                          "direction " + std::to_string(static_cast<int>(e.dir)) + " does not exist"));
        return need(id, operand(e.a).dtype == operand(e.b).dtype,
                    "compares operands of two dtypes: " + dtype_of(e.a) + ", " + dtype_of(e.b));
      case ExprKind::select:
        MLC_CHECK_OK(need(id, operand(e.a).dtype == DType::boolean, "its condition " + dtype_of(e.a) + ", expected bool"));
        MLC_CHECK_OK(same_dtype(e.b));
        return same_dtype(e.c);
      case ExprKind::cast:
        return need(id, !is_float(operand(e.a).dtype) || is_float(t) || t == DType::boolean,
                    "converts e" + std::to_string(e.a) + " (" + dtype_str(operand(e.a).dtype) + ") to " + dtype_str(t) +
                        ": float to integer is never fused");
      case ExprKind::index_value: return index_operand(e.a);
      case ExprKind::checked_index:
        MLC_CHECK_OK(need(id, t == DType::i64, is + ", expected i64"));
        MLC_CHECK_OK(need(id, operand(e.a).dtype == DType::i32 || operand(e.a).dtype == DType::i64,
                          "checks " + dtype_of(e.a) + ", expected an i32 or i64 value"));
        MLC_CHECK_OK(need(id, !is_index(operand(e.a).kind), "checks e" + std::to_string(e.a) + " (" +
                                                               std::string(kind_name(operand(e.a).kind)) +
                                                               "), an index expression, expected a value"));
        return need(id, e.i >= 1, "bound " + std::to_string(e.i) + ", expected at least 1");
      case ExprKind::random:
        MLC_CHECK_OK(need(id, t == DType::f32, is + ", expected f32"));
        MLC_CHECK_OK(need(id, operand(e.a).dtype == DType::i64 && !is_index(operand(e.a).kind),
                          "its index " + dtype_of(e.a) + ", expected an i64 value"));
        MLC_CHECK_OK(need(id, operand(e.b).dtype == DType::i64 && !is_index(operand(e.b).kind),
                          "its step " + dtype_of(e.b) + ", expected an i64 value"));
        return need(id, e.f >= 0 && e.f < 4294967296.0 && e.f == static_cast<double>(static_cast<int64_t>(e.f)),
                    "stream " + float_to_string(e.f) + ", expected an integer in [0, 2^32)");
      case ExprKind::reduce: {
        const DType in = operand(e.a).dtype;
        if (e.b >= 0)
          MLC_CHECK_OK(need(id, operand(e.b).dtype == DType::boolean, "its mask " + dtype_of(e.b) + ", expected bool"));
        MLC_CHECK_OK(need(id, in != DType::boolean, "folds " + dtype_of(e.a) + ", expected a number"));
        if (e.op == OpCode::Argmax) return need(id, t == DType::i64, "argmax " + is + ", expected i64");
        MLC_CHECK_OK(need(id, e.op == OpCode::ReduceSum || e.op == OpCode::ReduceMax || e.op == OpCode::ReduceMin,
                          "op " + std::string(op_name(e.op)) + " is not reduce_sum, reduce_max, reduce_min or argmax"));
        return same_dtype(e.a);
      }
    }
    return {};
  }

  // A unary or binary op: one of scalar_math.h's (`any`: on every number,
  // `float_only`: on floats), on numbers.
  Status arithmetic(size_t id, const Expr& e, bool any, bool float_only, const char* kind) const {
    if (!any && !float_only)
      return at(k_, id, "op " + std::string(op_name(e.op)) + " is not a " + kind + " op of ir/scalar_math.h");
    if (e.dtype == DType::boolean) return at(k_, id, std::string(op_name(e.op)) + " on bool, expected a number");
    if (float_only && !is_float(e.dtype)) return at(k_, id, std::string(op_name(e.op)) + " on " + dtype_str(e.dtype) + ", expected a float");
    return {};
  }

  const Kernel& k_;
  std::vector<int> depth_;
  std::vector<std::vector<int64_t>> free_;  // per expression: the variables it depends on, sorted
};

}  // namespace

Status verify_kernel(const Kernel& k) { return Verifier(k).run(); }

Status verify_kernel_buffers(const Kernel& k, const std::vector<TensorType>& buffers) {
  if (buffers.size() != k.params.size())
    return Error{"the kernel IR has " + std::to_string(k.params.size()) + " params, the kernel runs on " +
                 std::to_string(buffers.size()) + " buffers"};
  const int inputs = k.num_inputs();
  for (size_t p = 0; p < buffers.size(); ++p) {
    const std::string which = static_cast<int>(p) < inputs ? "input " + std::to_string(p)
                                                           : "output " + std::to_string(static_cast<int>(p) - inputs);
    if (buffers[p].dtype != k.params[p])
      return Error{"the kernel IR's " + which + " is " + dtype_str(k.params[p]) + ", its buffer " + buffers[p].str()};
    if (static_cast<int>(p) >= inputs && buffers[p].shape != k.domain)
      return Error{"the kernel IR's " + which + " has the domain's shape " + shape_to_string(k.domain) +
                   ", its buffer is " + buffers[p].str()};
  }
  const int64_t elements = num_elements(k.domain);
  for (int o = 0; o < k.num_outputs(); ++o) {
    const int alias = o == 0 ? k.output_alias : k.more_alias[static_cast<size_t>(o - 1)];
    if (alias >= 0 && buffers[static_cast<size_t>(alias)].num_elements() != elements)
      return Error{"the kernel IR's output " + std::to_string(o) + " is written into input " + std::to_string(alias) +
                   ", whose buffer " + buffers[static_cast<size_t>(alias)].str() + " does not hold its " +
                   std::to_string(elements) + " elements"};
  }
  MLC_TRY(std::vector<Range> ranges, index_ranges(k));
  if (k.scatters()) {
    const Range r = ranges[static_cast<size_t>(k.scatter.at)];
    if (!r.empty() && (r.lo < 0 || r.hi >= elements))
      return Error{"the kernel IR's scatter adds to output element e" + std::to_string(k.scatter.at) +
                   ", which takes values in " + r.str() + ", outside its " + std::to_string(elements) + " elements"};
  }
  for (size_t id = 0; id < k.exprs.size(); ++id) {
    const Expr& e = k.exprs[id];
    if (e.kind != ExprKind::load) continue;
    const Range r = ranges[static_cast<size_t>(e.a)];
    const TensorType& buffer = buffers[static_cast<size_t>(e.i)];
    if (!r.empty() && (r.lo < 0 || r.hi >= buffer.num_elements()))
      return at(k, id, "reads input " + std::to_string(e.i) + " (" + buffer.str() + ", " +
                           std::to_string(buffer.num_elements()) + " elements) at e" + std::to_string(e.a) +
                           ", which takes values in " + r.str());
  }
  return {};
}

}  // namespace mlc::kir
