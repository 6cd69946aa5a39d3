#include "compiler/gpu/gpu_schedule.h"

#include <algorithm>

namespace mlc::gpu {

namespace {

// A block reduction needs at least this many terms per row to be worth a
// block (below it, a thread per element folds its own).
constexpr int64_t kMinBlockReduceTrips = 32;

int64_t trips(const kir::Expr& e) {
  int64_t t = 1;
  for (int64_t x : e.extents) t *= x;
  return t;
}

// Per expression: does it depend on a variable that changes within a domain
// row (the innermost domain variable or a reduction variable it does not
// bind)?
std::vector<bool> varies_within_row(const kir::Kernel& k) {
  const size_t n = k.exprs.size();
  const int64_t first_row_var = k.domain.empty() ? 0 : static_cast<int64_t>(k.domain.size()) - 1;
  std::vector<std::vector<int64_t>> free(n);
  std::vector<bool> out(n, false);
  for (size_t id = 0; id < n; ++id) {
    const kir::Expr& e = k.exprs[id];
    std::vector<int64_t>& f = free[id];
    if (e.kind == kir::ExprKind::var && e.i >= first_row_var) f.push_back(e.i);
    for (int x : {e.a, e.b, e.c})
      if (x >= 0) f.insert(f.end(), free[static_cast<size_t>(x)].begin(), free[static_cast<size_t>(x)].end());
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    if (e.kind == kir::ExprKind::reduce)
      std::erase_if(f, [&](int64_t v) { return v >= e.var0 && v < e.var0 + static_cast<int64_t>(e.extents.size()); });
    out[id] = !f.empty();
  }
  return out;
}

int64_t pow2_at_least(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

}  // namespace

// Does expression `id` read variable `var`?
bool reads_var(const kir::Kernel& k, int id, int64_t var) {
  std::vector<bool> seen(k.exprs.size(), false);
  std::vector<int> stack = {id};
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    if (x < 0 || seen[static_cast<size_t>(x)]) continue;
    seen[static_cast<size_t>(x)] = true;
    const kir::Expr& e = k.exprs[static_cast<size_t>(x)];
    if (e.kind == kir::ExprKind::var && e.i == var) return true;
    stack.insert(stack.end(), {e.a, e.b, e.c});
  }
  return false;
}

// Is the scatter's target `at` = row * inner + (the last update variable),
// the form compiler/kernel_ir.cc builds when the output's last dim is the
// updates' last dim, with a row that does not read that variable?
bool scatters_whole_rows(const kir::Kernel& k) {
  const kir::Kernel::Scatter& sc = k.scatter;
  if (sc.domain.empty() || k.domain.empty() || sc.domain.back() != k.domain.back()) return false;
  const int64_t last = sc.var0 + static_cast<int64_t>(sc.domain.size()) - 1;
  if (reads_var(k, sc.row, last)) return false;
  const DType out = k.params[static_cast<size_t>(k.num_inputs())];
  if (is_half(out) || out == DType::boolean) return false;
  auto is = [&](int id, kir::ExprKind kind) { return id >= 0 && k.exprs[static_cast<size_t>(id)].kind == kind; };
  auto last_var = [&](int id) { return is(id, kir::ExprKind::var) && k.exprs[static_cast<size_t>(id)].i == last; };
  auto row_times_inner = [&](int id) {
    if (!is(id, kir::ExprKind::imul)) return false;
    const kir::Expr& m = k.exprs[static_cast<size_t>(id)];
    auto inner = [&](int c) { return is(c, kir::ExprKind::iconst) && k.exprs[static_cast<size_t>(c)].i == k.domain.back(); };
    return (m.a == sc.row && inner(m.b)) || (m.b == sc.row && inner(m.a));
  };
  if (!is(sc.at, kir::ExprKind::iadd)) return false;
  const kir::Expr& at = k.exprs[static_cast<size_t>(sc.at)];
  return (last_var(at.a) && row_times_inner(at.b)) || (last_var(at.b) && row_times_inner(at.a));
}

std::string_view schedule_kind_name(ScheduleKind k) {
  switch (k) {
    case ScheduleKind::row: return "row";
    case ScheduleKind::scatter_rows: return "scatter_rows";
    case ScheduleKind::elementwise: break;
  }
  return "elementwise";
}

Schedule schedule_kernel(const kir::Kernel& k) {
  Schedule s;
  s.block_reduce.assign(k.exprs.size(), false);
  int64_t elements = 1;
  for (int64_t d : k.domain) elements *= d;
  if (k.scatters() && scatters_whole_rows(k)) {
    s.kind = ScheduleKind::scatter_rows;
    s.scatter_leading.assign(k.scatter.domain.begin(), k.scatter.domain.end() - 1);
    s.launch.block = static_cast<int>(std::clamp<int64_t>(pow2_at_least(k.domain.back()), 32, kBlockSize));
    s.rows = 1;
    for (size_t d = 0; d + 1 < k.domain.size(); ++d) s.rows *= k.domain[d];
    s.launch.grid = std::clamp<int64_t>(s.rows, 1, kMaxGrid);
    s.launch.shared_bytes = s.launch.block * 4;
    return s;
  }
  // Any other scatter: every thread folds its own element's terms (kernel_source.cc).
  if (!k.scatters()) {
    const std::vector<bool> varies = varies_within_row(k);
    int64_t widest = 0;
    for (size_t id = 0; id < k.exprs.size(); ++id) {
      const kir::Expr& e = k.exprs[id];
      if (e.kind != kir::ExprKind::reduce || varies[id]) continue;
      s.block_reduce[id] = true;
      widest = std::max(widest, trips(e));
    }
    if (widest >= kMinBlockReduceTrips) {
      s.kind = ScheduleKind::row;
      s.rows = 1;
      for (size_t d = 0; d + 1 < k.domain.size(); ++d) s.rows *= k.domain[d];
      const int64_t inner = k.domain.empty() ? 1 : k.domain.back();
      s.launch.block = static_cast<int>(std::clamp<int64_t>(pow2_at_least(std::max(inner, widest)), 32, kBlockSize));
      s.launch.grid = std::clamp<int64_t>(s.rows, 1, kMaxGrid);
      for (size_t id = 0; id < k.exprs.size(); ++id) {
        if (!s.block_reduce[id]) continue;
        const kir::Expr& e = k.exprs[id];
        const DType in = k.exprs[static_cast<size_t>(e.a)].dtype;
        if (e.op != OpCode::ReduceSum) s.shared_index = true;
        if (e.op == OpCode::ReduceSum) (is_float(in) ? s.shared_f64 : s.shared_i64) = true;
        else if (in == DType::f64) s.shared_f64 = true;
        else if (is_float(in)) s.shared_f32 = true;
        else s.shared_i64 = true;
      }
      s.launch.shared_bytes = s.launch.block * (8 * s.shared_f64 + 8 * s.shared_i64 + 4 * s.shared_f32 + 8 * s.shared_index);
      return s;
    }
    s.block_reduce.assign(k.exprs.size(), false);
  }
  s.kind = ScheduleKind::elementwise;
  s.launch.block = kBlockSize;
  s.launch.grid = std::clamp<int64_t>((elements + kBlockSize - 1) / kBlockSize, 1, kMaxGrid);
  s.launch.shared_bytes = 0;
  return s;
}

}  // namespace mlc::gpu
