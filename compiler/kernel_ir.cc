// What a built kernel (compiler/kernel_ir.h) is as data: its signature and
// symbol, its expressions' reachability, and its text. build_kernel is
// compiler/kernel_builder.cc's.
#include "compiler/kernel_ir.h"

#include <type_traits>

#include "ir/op_table.h"
#include "runtime/checksum.h"

namespace mlc::kir {

std::string signature(const Kernel& k) {
  std::string s;
  auto put = [&s](auto v) {
    static_assert(std::is_trivially_copyable_v<decltype(v)>);
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  auto put_list = [&](const auto& list) {
    put(static_cast<uint64_t>(list.size()));
    for (const auto& x : list) put(x);
  };
  put(static_cast<uint64_t>(k.exprs.size()));
  for (const Expr& e : k.exprs) {
    put(e.kind);
    put(e.dtype);
    // The op by name, not by its enumerator: adding a row to ir/ops.def
    // renumbers the ops after it, and a kernel cache shared with another
    // build must not take one op's object for another's.
    const std::string_view op = op_name(e.op);
    put(static_cast<uint64_t>(op.size()));
    s.append(op);
    put(e.dir);
    put(e.a);
    put(e.b);
    put(e.c);
    put(e.i);
    put(e.f);
    put(e.var0);
    put_list(e.extents);
  }
  put_list(k.domain);
  put(k.root);
  put_list(k.more_roots);
  put_list(k.params);
  put(k.num_vars);
  put(k.output_alias);
  put_list(k.more_alias);
  if (k.scatters()) {  // absent before scatters existed: earlier signatures stay
    put_list(k.scatter.domain);
    put(k.scatter.var0);
    put(k.scatter.value);
    put(k.scatter.row);
    put(k.scatter.at);
  }
  return s;
}

void for_each_reachable(const Kernel& k, std::vector<int> roots, const std::function<void(int id, const Expr&)>& visit) {
  std::vector<bool> seen(k.exprs.size(), false);
  while (!roots.empty()) {
    const int x = roots.back();
    roots.pop_back();
    if (x < 0 || seen[static_cast<size_t>(x)]) continue;
    seen[static_cast<size_t>(x)] = true;
    const Expr& e = k.exprs[static_cast<size_t>(x)];
    visit(x, e);
    roots.insert(roots.end(), {e.a, e.b, e.c});
  }
}

std::string_view kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::var: return "var";
    case ExprKind::iconst: return "iconst";
    case ExprKind::iadd: return "iadd";
    case ExprKind::imul: return "imul";
    case ExprKind::idiv: return "idiv";
    case ExprKind::irem: return "irem";
    case ExprKind::imin: return "imin";
    case ExprKind::imax: return "imax";
    case ExprKind::ilt: return "ilt";
    case ExprKind::constant: return "constant";
    case ExprKind::load: return "load";
    case ExprKind::unary: return "unary";
    case ExprKind::binary: return "binary";
    case ExprKind::cmp: return "cmp";
    case ExprKind::select: return "select";
    case ExprKind::cast: return "cast";
    case ExprKind::index_value: return "index_value";
    case ExprKind::reduce: return "reduce";
    case ExprKind::checked_index: return "checked_index";
    case ExprKind::random: return "random";
  }
  return "?";
}

std::string kernel_symbol(const Kernel& k) { return "mlc_kernel_" + rt::hex64(rt::fnv1a64(signature(k))); }

std::string print_kernel(const Kernel& k) {
  std::string s = "kernel @" + k.name + "(";
  const size_t inputs = static_cast<size_t>(k.num_inputs());
  for (size_t p = 0; p < k.params.size(); ++p) {
    std::string name = p < inputs ? "p" + std::to_string(p) : p == inputs ? "out" : "out" + std::to_string(p - inputs);
    s += (p ? ", " : "") + name + ": " + std::string(dtype_name(k.params[p]));
  }
  s += ") domain " + shape_to_string(k.domain) + " {\n";
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const Expr& e = k.exprs[i];
    s += "  e" + std::to_string(i) + " = " + std::string(kind_name(e.kind));
    if (e.kind == ExprKind::unary || e.kind == ExprKind::binary || e.kind == ExprKind::reduce)
      s += " " + std::string(op_name(e.op));
    if (e.kind == ExprKind::iconst || e.kind == ExprKind::var || e.kind == ExprKind::load ||
        e.kind == ExprKind::checked_index || e.kind == ExprKind::random)
      s += " " + std::to_string(e.i);
    if (e.kind == ExprKind::random) s += " " + float_to_string(e.f);
    if (e.kind == ExprKind::constant) s += " " + float_to_string(e.f);
    for (int x : {e.a, e.b, e.c})
      if (x >= 0) s += (e.kind == ExprKind::reduce && x == e.b ? " where e" : " e") + std::to_string(x);
    if (e.kind == ExprKind::reduce) s += " over " + shape_to_string(e.extents);
    s += " : " + std::string(dtype_name(e.dtype)) + "\n";
  }
  s += "  store e" + std::to_string(k.root);
  for (int r : k.more_roots) s += ", e" + std::to_string(r);
  if (k.scatters())
    s += "\n  scatter_add e" + std::to_string(k.scatter.value) + " at e" + std::to_string(k.scatter.at) + " row e" +
         std::to_string(k.scatter.row) + " over " + shape_to_string(k.scatter.domain) + " from var " +
         std::to_string(k.scatter.var0);
  return s + "\n}\n";
}

}  // namespace mlc::kir
