#include "compiler/cpu/reduce_strategy.h"

#include <algorithm>
#include <optional>

namespace mlc::cpu {

using kir::Expr;
using kir::ExprKind;

namespace {

// The coefficient of variable `var` in index expression `id` when the index is
// affine in it (loads' indices mostly are), else nullopt.
std::optional<int64_t> coefficient(const kir::Kernel& k, int id, int64_t var) {
  const Expr& e = k.exprs[static_cast<size_t>(id)];
  switch (e.kind) {
    case ExprKind::var: return e.i == var ? 1 : 0;
    case ExprKind::iconst: return 0;
    case ExprKind::iadd: {
      auto a = coefficient(k, e.a, var), b = coefficient(k, e.b, var);
      if (!a || !b) return std::nullopt;
      return *a + *b;
    }
    case ExprKind::imul: {
      auto a = coefficient(k, e.a, var), b = coefficient(k, e.b, var);
      if (!a || !b) return std::nullopt;
      if (*a == 0 && *b == 0) return 0;
      if (k.exprs[static_cast<size_t>(e.a)].kind == ExprKind::iconst) return k.exprs[static_cast<size_t>(e.a)].i * *b;
      if (k.exprs[static_cast<size_t>(e.b)].kind == ExprKind::iconst) return *a * k.exprs[static_cast<size_t>(e.b)].i;
      return std::nullopt;
    }
    default: {  // idiv, irem, imin, imax: affine only where they do not involve var
      for (int x : {e.a, e.b, e.c})
        if (x >= 0 && coefficient(k, x, var) != std::optional<int64_t>(0)) return std::nullopt;
      return 0;
    }
  }
}

// interleaved for float sums of at least kLongChain terms per element over
// rows of at most kInterleavedRow elements (reduce_strategies).
constexpr int64_t kLongChain = 1024;
constexpr int64_t kInterleavedRow = 64;

}  // namespace

std::vector<ReduceStrategy> reduce_strategies(const kir::Kernel& k) {
  const size_t n = k.exprs.size();
  std::vector<ReduceStrategy> out(n, ReduceStrategy::per_element);
  const int64_t rank = static_cast<int64_t>(k.domain.size());
  if (rank == 0) return out;
  const int64_t inner_var = rank - 1, inner = k.domain.back();
  // Per expression: does it depend on a variable that changes within a row
  // (the innermost domain variable, or a reduction's own variable that it
  // does not bind); is it inside a reduction's operand (operands come first:
  // walk backwards).
  std::vector<std::vector<int64_t>> free(n);  // those variables, sorted
  std::vector<bool> nested(n, false);
  for (size_t id = 0; id < n; ++id) {
    const Expr& e = k.exprs[id];
    std::vector<int64_t>& f = free[id];
    if (e.kind == ExprKind::var && e.i >= inner_var) f.push_back(e.i);
    for (int x : {e.a, e.b, e.c})
      if (x >= 0) f.insert(f.end(), free[static_cast<size_t>(x)].begin(), free[static_cast<size_t>(x)].end());
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    if (e.kind == ExprKind::reduce)
      std::erase_if(f, [&](int64_t v) { return v >= e.var0 && v < e.var0 + static_cast<int64_t>(e.extents.size()); });
  }
  for (size_t id = n; id-- > 0;) {
    const Expr& e = k.exprs[id];
    for (int x : {e.a, e.b, e.c})
      if (x >= 0 && (nested[id] || e.kind == ExprKind::reduce)) nested[static_cast<size_t>(x)] = true;
  }
  for (size_t id = 0; id < n; ++id) {
    const Expr& e = k.exprs[id];
    if (e.kind != ExprKind::reduce) continue;
    // The same value for the whole row, even inside another reduction's
    // operand (softmax's max inside its sum of exponentials): once per row.
    if (free[id].empty()) {
      out[id] = ReduceStrategy::per_row;
      continue;
    }
    if (nested[id]) continue;
    if (e.op == OpCode::Argmax || e.b >= 0 || inner < 2 || inner > 4096) continue;  // masked: folded per element
    // Loads of the operand: unit stride along the row but not along the
    // reduction's innermost loop favour across_row, and the opposite per_element.
    const int64_t reduce_var = e.var0 + static_cast<int64_t>(e.extents.size()) - 1;
    int votes = 0;
    std::vector<bool> in_operand(n, false);
    in_operand[static_cast<size_t>(e.a)] = true;
    for (size_t x = static_cast<size_t>(e.a) + 1; x-- > 0;) {
      if (!in_operand[x]) continue;
      const Expr& o = k.exprs[x];
      for (int y : {o.a, o.b, o.c})
        if (y >= 0) in_operand[static_cast<size_t>(y)] = true;
      if (o.kind != ExprKind::load) continue;
      const bool along_row = coefficient(k, o.a, inner_var) == std::optional<int64_t>(1);
      const bool along_reduce = coefficient(k, o.a, reduce_var) == std::optional<int64_t>(1);
      votes += along_row && !along_reduce ? 1 : along_reduce && !along_row ? -1 : 0;
    }
    if (votes > 0) out[id] = ReduceStrategy::across_row;
    if (votes > 0 || e.op != OpCode::ReduceSum || !is_float(e.dtype) || e.extents.size() < 2) continue;
    // A long float sum per element is one chain of dependent adds, bound by
    // their latency: over a short row, the elements' chains interleave.
    int64_t trips = 1;
    for (int64_t x : e.extents) trips *= x;
    if (trips >= kLongChain && inner <= kInterleavedRow) out[id] = ReduceStrategy::interleaved;
  }
  return out;
}

}  // namespace mlc::cpu
