#include "compiler/cpu/row_split.h"

#include <algorithm>
#include <vector>

namespace mlc::cpu {

using kir::Expr;
using kir::ExprKind;

int64_t kernel_rows(const kir::Kernel& k) {
  int64_t r = 1;
  for (size_t d = 0; d + 1 < k.domain.size(); ++d) r *= k.domain[d];
  return r;
}

int64_t kernel_row_cost(const kir::Kernel& k) {
  int64_t per_element = 1;
  std::vector<bool> nested(k.exprs.size(), false), loaded(k.params.size(), false);
  for (size_t id = k.exprs.size(); id-- > 0;) {
    const Expr& e = k.exprs[id];
    for (int x : {e.a, e.b, e.c})
      if (x >= 0 && (nested[id] || e.kind == ExprKind::reduce)) nested[static_cast<size_t>(x)] = true;
    if (e.kind == ExprKind::reduce) {
      int64_t trips = 1;
      for (int64_t x : e.extents) trips *= x;
      per_element += trips;
    } else if (e.kind == ExprKind::load && !nested[id]) {
      // A further tap of an input already read (an unrolled window: fold).
      if (loaded[static_cast<size_t>(e.i)]) ++per_element;
      loaded[static_cast<size_t>(e.i)] = true;
    }
  }
  int64_t cost = (k.domain.empty() ? 1 : k.domain.back()) * per_element;
  // Every thread visits the whole scatter: spread over the rows, per row.
  if (k.scatters()) cost += num_elements(k.scatter.domain) / std::max<int64_t>(1, kernel_rows(k));
  return cost;
}

}  // namespace mlc::cpu
