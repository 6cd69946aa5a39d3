#include "compiler/kernel_ir_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>

#include "ir/dtype.h"
#include "ir/op_table.h"
#include "support/json_parse.h"

namespace mlc::kir {

namespace {

using Json = json::Json;

constexpr const char* kDirNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};

// The text of a JSON value, cut to a few dozen bytes for messages.
std::string quote(const Json& j) {
  std::string s = j.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string float_text(double f) {
  if (std::isfinite(f)) return {};
  uint64_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(bits));
  return buf;
}

// A member of the kernel's object (or of one expression), by its path.
struct Member {
  const Json* value;  // null: absent
  std::string path;

  Error fail(const std::string& what) const { return Error{"kernel IR field '" + path + "': " + what}; }
  Error expected(const std::string& what) const {
    return fail("expected " + what + ", found " + (value ? quote(*value) : std::string("nothing")));
  }
  Expected<int64_t> integer(int64_t lo, int64_t hi) const {
    if (value && value->is_number_integer()) {
      if (value->is_number_unsigned()) {
        const uint64_t u = value->get<uint64_t>();
        if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) && static_cast<int64_t>(u) >= lo &&
            static_cast<int64_t>(u) <= hi)
          return static_cast<int64_t>(u);
      } else if (const int64_t v = value->get<int64_t>(); v >= lo && v <= hi) {
        return v;
      }
    }
    return expected("an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  Expected<std::string> text() const {
    if (!value || !value->is_string()) return expected("a string");
    return value->get<std::string>();
  }
  Expected<size_t> list_size(int64_t max) const {
    if (!value || !value->is_array()) return expected("a list");
    if (static_cast<int64_t>(value->size()) > max)
      return fail("expected at most " + std::to_string(max) + " entries, found " + std::to_string(value->size()));
    return value->size();
  }
  Member item(size_t i) const { return {&(*value)[i], path + "[" + std::to_string(i) + "]"}; }
};

Member member(const Json& object, const std::string& parent, const char* key) {
  auto it = object.find(key);
  return {it == object.end() ? nullptr : &*it, parent.empty() ? key : parent + "." + key};
}

Expected<DType> read_dtype(const Member& m) {
  MLC_TRY(std::string name, m.text());
  auto t = parse_dtype(name);
  if (!t) return m.expected("a dtype (f32, f64, bf16, f16, i32, i64, bool)");
  return *t;
}

template <class T, class F>
Expected<std::vector<T>> read_list(const Member& m, int64_t max, F read_item) {
  MLC_TRY(size_t n, m.list_size(max));
  std::vector<T> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    MLC_TRY(T v, read_item(m.item(i)));
    out.push_back(v);
  }
  return out;
}

Expected<double> read_float(const Member& m) {
  if (m.value && m.value->is_number()) return m.value->get<double>();
  if (m.value && m.value->is_string()) {
    const std::string s = m.value->get<std::string>();
    uint64_t bits = 0;
    bool hex = s.size() == 18 && s.compare(0, 2, "0x") == 0;
    for (size_t i = 2; hex && i < s.size(); ++i) {
      const char c = s[i];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      hex = digit >= 0;
      bits = bits << 4 | static_cast<uint64_t>(digit < 0 ? 0 : digit);
    }
    double f;
    std::memcpy(&f, &bits, sizeof f);
    if (hex && !std::isfinite(f)) return f;
  }
  return m.expected("a finite number, or a non-finite one's bits as \"0x\" and 16 lowercase hex digits");
}

// One expression: exprs[id]. Operands must be earlier expressions.
Expected<Expr> read_expr(const Member& m, int64_t id) {
  if (!m.value->is_object()) return m.expected("an object");
  static const char* const kKeys[] = {"kind", "dtype", "op", "dir", "a", "b", "c", "i", "f", "var0", "extents"};
  for (auto it = m.value->begin(); it != m.value->end(); ++it)
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return it.key() == k; }) ==
        std::end(kKeys))
      return m.fail("unknown field \"" + it.key().substr(0, 40) + "\"");
  Expr e;
  auto field = [&](const char* key) { return member(*m.value, m.path, key); };
  MLC_TRY(std::string kind, field("kind").text());
  bool known = false;
  for (int k = 0; k <= static_cast<int>(kLastExprKind) && !known; ++k)
    if (kind == kind_name(static_cast<ExprKind>(k))) {
      e.kind = static_cast<ExprKind>(k);
      known = true;
    }
  if (!known) return field("kind").expected("an expression kind (var, iconst, iadd, ..., load, ..., reduce)");
  if (Member d = field("dtype"); d.value) {
    MLC_TRY(e.dtype, read_dtype(d));
  }
  if (Member op = field("op"); op.value) {
    MLC_TRY(std::string name, op.text());
    auto code = find_op(name);
    if (!code) return op.expected("an op of the op table");
    e.op = *code;
  }
  if (Member dir = field("dir"); dir.value) {
    MLC_TRY(std::string name, dir.text());
    auto it = std::find_if(std::begin(kDirNames), std::end(kDirNames), [&](const char* d) { return name == d; });
    if (it == std::end(kDirNames)) return dir.expected("a comparison direction (eq, ne, lt, le, gt, ge)");
    e.dir = static_cast<scalar::CmpDir>(it - std::begin(kDirNames));
  }
  for (auto [key, out] : {std::pair<const char*, int*>{"a", &e.a}, {"b", &e.b}, {"c", &e.c}})
    if (Member o = field(key); o.value) {
      MLC_TRY(int64_t v, o.integer(-1, id - 1));
      *out = static_cast<int>(v);
    }
  if (Member i = field("i"); i.value) {
    MLC_TRY(e.i, i.integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
  }
  if (Member f = field("f"); f.value) {
    MLC_TRY(e.f, read_float(f));
  }
  if (Member v = field("var0"); v.value) {
    MLC_TRY(int64_t var0, v.integer(0, kMaxJsonExprs));
    e.var0 = static_cast<int>(var0);
  }
  if (Member x = field("extents"); x.value) {
    MLC_TRY(e.extents, read_list<int64_t>(x, kMaxJsonRank, [](const Member& d) {
              return d.integer(0, std::numeric_limits<int64_t>::max());
            }));
  }
  return e;
}

Expected<Kernel> read_kernel(const Json& j) {
  if (!j.is_object()) return Error{"kernel IR: expected an object, found " + quote(j)};
  static const char* const kKeys[] = {"domain",   "root",          "more_roots",   "params",    "num_vars",
                                      "elementwise_input", "output_alias", "more_alias", "exprs", "scatter"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return it.key() == k; }) ==
        std::end(kKeys))
      return Error{"kernel IR: unknown field \"" + it.key().substr(0, 40) + "\""};
  auto field = [&](const char* key) { return member(j, "", key); };
  Kernel k;
  Member exprs = field("exprs");
  MLC_TRY(size_t n, exprs.list_size(kMaxJsonExprs));
  if (n == 0) return exprs.fail("a kernel has at least one expression");
  k.exprs.reserve(n);
  for (size_t id = 0; id < n; ++id) {
    MLC_TRY(Expr e, read_expr(exprs.item(id), static_cast<int64_t>(id)));
    k.exprs.push_back(std::move(e));
  }
  const int64_t last = static_cast<int64_t>(n) - 1;
  auto expr_index = [&](const Member& m) -> Expected<int> {
    MLC_TRY(int64_t v, m.integer(0, last));
    return static_cast<int>(v);
  };
  MLC_TRY(k.domain, read_list<int64_t>(field("domain"), kMaxJsonRank,
                                       [](const Member& d) { return d.integer(0, std::numeric_limits<int64_t>::max()); }));
  MLC_TRY(k.root, expr_index(field("root")));
  MLC_TRY(k.more_roots, read_list<int>(field("more_roots"), kMaxJsonExprs, expr_index));
  Member params = field("params");
  MLC_TRY(k.params, read_list<DType>(params, kMaxJsonExprs, read_dtype));
  if (k.params.size() < static_cast<size_t>(k.num_outputs()))
    return params.fail("expected a dtype per input and per output (" + std::to_string(k.num_outputs()) +
                       " outputs), found " + std::to_string(k.params.size()) + " entries");
  MLC_TRY(int64_t vars, field("num_vars").integer(0, kMaxJsonExprs));
  k.num_vars = static_cast<int>(vars);
  const int64_t inputs = k.num_inputs();
  Member elementwise = field("elementwise_input");
  MLC_TRY(size_t ne, elementwise.list_size(kMaxJsonExprs));
  if (static_cast<int64_t>(ne) != inputs)
    return elementwise.fail("expected one entry per input (" + std::to_string(inputs) + "), found " +
                            std::to_string(ne));
  for (size_t p = 0; p < ne; ++p) {
    const Member item = elementwise.item(p);
    if (!item.value->is_boolean()) return item.expected("true or false");
    k.elementwise_input.push_back(item.value->get<bool>());
  }
  auto alias = [&](const Member& m) -> Expected<int> {
    MLC_TRY(int64_t v, m.integer(-1, inputs - 1));
    return static_cast<int>(v);
  };
  MLC_TRY(k.output_alias, alias(field("output_alias")));
  Member more_alias = field("more_alias");
  MLC_TRY(k.more_alias, read_list<int>(more_alias, kMaxJsonExprs, alias));
  if (k.more_alias.size() != k.more_roots.size())
    return more_alias.fail("expected one entry per further output (" + std::to_string(k.more_roots.size()) +
                           "), found " + std::to_string(k.more_alias.size()));
  if (Member s = field("scatter"); s.value) {
    if (!s.value->is_object()) return s.expected("an object");
    static const char* const kScatterKeys[] = {"domain", "var0", "value", "row", "at"};
    for (auto it = s.value->begin(); it != s.value->end(); ++it)
      if (std::find_if(std::begin(kScatterKeys), std::end(kScatterKeys), [&](const char* key) { return it.key() == key; }) ==
          std::end(kScatterKeys))
        return s.fail("unknown field \"" + it.key().substr(0, 40) + "\"");
    auto sub = [&](const char* key) { return member(*s.value, s.path, key); };
    MLC_TRY(k.scatter.domain, read_list<int64_t>(sub("domain"), kMaxJsonRank, [](const Member& d) {
              return d.integer(0, std::numeric_limits<int64_t>::max());
            }));
    MLC_TRY(int64_t var0, sub("var0").integer(0, kMaxJsonExprs));
    k.scatter.var0 = static_cast<int>(var0);
    MLC_TRY(k.scatter.value, expr_index(sub("value")));
    MLC_TRY(k.scatter.row, expr_index(sub("row")));
    MLC_TRY(k.scatter.at, expr_index(sub("at")));
  }
  return k;
}

}  // namespace

std::string kernel_to_json(const Kernel& k) {
  Json exprs = Json::array();
  const Expr none;
  for (const Expr& e : k.exprs) {
    Json j = {{"kind", std::string(kind_name(e.kind))}};
    if (e.dtype != none.dtype) j["dtype"] = std::string(dtype_name(e.dtype));
    if (e.op != none.op) j["op"] = std::string(op_name(e.op));
    if (e.dir != none.dir) j["dir"] = kDirNames[static_cast<int>(e.dir)];
    if (e.a != none.a) j["a"] = e.a;
    if (e.b != none.b) j["b"] = e.b;
    if (e.c != none.c) j["c"] = e.c;
    if (e.i != none.i) j["i"] = e.i;
    if (std::memcmp(&e.f, &none.f, sizeof e.f) != 0) {
      if (std::isfinite(e.f)) j["f"] = e.f;
      else j["f"] = float_text(e.f);
    }
    if (e.var0 != none.var0) j["var0"] = e.var0;
    if (!e.extents.empty()) j["extents"] = e.extents;
    exprs.push_back(std::move(j));
  }
  Json params = Json::array();
  for (DType t : k.params) params.push_back(std::string(dtype_name(t)));
  Json out = {{"domain", k.domain},
              {"root", k.root},
              {"more_roots", k.more_roots},
              {"params", params},
              {"num_vars", k.num_vars},
              {"elementwise_input", k.elementwise_input},
              {"output_alias", k.output_alias},
              {"more_alias", k.more_alias},
              {"exprs", exprs}};
  if (k.scatters())
    out["scatter"] = {{"domain", k.scatter.domain},
                      {"var0", k.scatter.var0},
                      {"value", k.scatter.value},
                      {"row", k.scatter.row},
                      {"at", k.scatter.at}};
  return out.dump();
}

Expected<Kernel> kernel_from_json(std::string_view text) {
  // A kernel's JSON nests 4 deep (object, exprs, an expression, its extents);
  // every value takes at least 2 bytes of text.
  static constexpr json::Limits kLimits{8, int64_t{1} << 26, true};
  Json j;
  if (auto failure = json::parse(text, kLimits, j)) {
    std::string why = failure->kind == json::Failure::Kind::syntax ? failure->detail : json::describe(*failure, kLimits);
    if (why.size() > 200) why = why.substr(0, 197) + "...";
    return Error{"kernel IR: not valid JSON at byte " + std::to_string(failure->offset) + ": " + why};
  }
  return read_kernel(j);
}

}  // namespace mlc::kir
