#include "compiler/gpu/gpu_schedule.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace mlc::gpu {

namespace {

// A block reduction needs at least this many terms per row to be worth a
// block (below it, a thread per element folds its own).
constexpr int64_t kMinBlockReduceTrips = 32;
// Reductions that vary along the row take a block per element (or per tile
// of columns) only in a domain of at most this many elements: beyond it a
// thread per element already gives a GPU enough threads.
constexpr int64_t kMaxElementsForBlockReductions = int64_t{1} << 16;
// transpose_tiles: both sides of the transposed dims at least this long (a
// narrower tile wastes most of its threads), and at most this many staged
// loads (their tiles within every GPU's static shared memory).
constexpr int64_t kMinTransposeSide = 16;
constexpr size_t kMaxStagedLoads = 4;

int64_t trips(const kir::Expr& e) {
  int64_t t = 1;
  for (int64_t x : e.extents) t *= x;
  return t;
}

// Per expression: the variables it reads that no reduction within it binds.
std::vector<std::vector<int64_t>> free_vars(const kir::Kernel& k) {
  const size_t n = k.exprs.size();
  std::vector<std::vector<int64_t>> free(n);
  for (size_t id = 0; id < n; ++id) {
    const kir::Expr& e = k.exprs[id];
    std::vector<int64_t>& f = free[id];
    if (e.kind == kir::ExprKind::var) f.push_back(e.i);
    for (int x : {e.a, e.b, e.c})
      if (x >= 0) f.insert(f.end(), free[static_cast<size_t>(x)].begin(), free[static_cast<size_t>(x)].end());
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    if (e.kind == kir::ExprKind::reduce)
      std::erase_if(f, [&](int64_t v) { return v >= e.var0 && v < e.var0 + static_cast<int64_t>(e.extents.size()); });
  }
  return free;
}

// The value of index expression `id` with the variables at `vars`; nullopt
// where it reads a value (a checked index) or divides by zero.
std::optional<int64_t> eval_index(const kir::Kernel& k, int id, const std::vector<int64_t>& vars) {
  const kir::Expr& e = k.exprs[static_cast<size_t>(id)];
  using K = kir::ExprKind;
  if (e.kind == K::var) return vars[static_cast<size_t>(e.i)];
  if (e.kind == K::iconst) return e.i;
  if (e.kind != K::iadd && e.kind != K::imul && e.kind != K::idiv && e.kind != K::irem && e.kind != K::imin &&
      e.kind != K::imax)
    return std::nullopt;
  const std::optional<int64_t> a = eval_index(k, e.a, vars), b = eval_index(k, e.b, vars);
  if (!a || !b) return std::nullopt;
  switch (e.kind) {
    case K::iadd: return *a + *b;
    case K::imul: return *a * *b;
    case K::idiv: return *b == 0 ? std::nullopt : std::optional<int64_t>(*a / *b);
    case K::irem: return *b == 0 ? std::nullopt : std::optional<int64_t>(*a % *b);
    case K::imin: return std::min(*a, *b);
    default: return std::max(*a, *b);
  }
}

// Sets vars[var0, var0 + extents.size()) to the row-major digits of `linear`.
void set_digits(std::vector<int64_t>& vars, int var0, const std::vector<int64_t>& extents, int64_t linear) {
  for (size_t d = extents.size(); d-- > 0;) {
    vars[static_cast<size_t>(var0) + d] = extents[d] > 0 ? linear % extents[d] : 0;
    linear = extents[d] > 0 ? linear / extents[d] : 0;
  }
}

// How the loads under reduction `id` move through memory, counted over its
// loads: by one element from its term 0 to term 1 (a row's sum: a block's
// threads read neighbouring terms), and from the domain's element 0 to
// element 1 (a column's sum: neighbouring elements read neighbouring
// columns). Loads at a data-dependent index count for neither.
struct ReadDirections {
  int along_terms = 0, along_elements = 0;
};
void count_read_directions(const kir::Kernel& k, int id, ReadDirections& out) {
  const kir::Expr& r = k.exprs[static_cast<size_t>(id)];
  std::vector<int64_t> base(static_cast<size_t>(k.num_vars), 0), term1 = base, element1 = base;
  set_digits(term1, r.var0, r.extents, 1);
  set_digits(element1, 0, k.domain, 1);
  kir::for_each_reachable(k, {r.a, r.b}, [&](int, const kir::Expr& e) {
    if (e.kind != kir::ExprKind::load) return;
    const std::optional<int64_t> at = eval_index(k, e.a, base), t = eval_index(k, e.a, term1),
                                 el = eval_index(k, e.a, element1);
    if (at && t && *t - *at == 1) ++out.along_terms;
    if (at && el && *el - *at == 1) ++out.along_elements;
  });
}

// Marks in `block_reduce` (reset first) the reductions that read no variable
// from `first_free` on but their own; returns the most terms one of them has.
int64_t mark_block_reductions(const kir::Kernel& k, const std::vector<std::vector<int64_t>>& free, int64_t first_free,
                              std::vector<bool>& block_reduce) {
  block_reduce.assign(k.exprs.size(), false);
  int64_t widest = 0;
  for (size_t id = 0; id < k.exprs.size(); ++id) {
    const kir::Expr& e = k.exprs[id];
    if (e.kind != kir::ExprKind::reduce) continue;
    if (std::any_of(free[id].begin(), free[id].end(), [&](int64_t v) { return v >= first_free; })) continue;
    block_reduce[id] = true;
    widest = std::max(widest, trips(e));
  }
  return widest;
}

// The shared arrays block reductions `block_reduce` combine in, and their size.
void set_shared_arrays(const kir::Kernel& k, Schedule& s) {
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
}

int64_t pow2_at_least(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

int64_t pow2_at_most(int64_t x) {
  int64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// Does some block reduction's term or mask read another block reduction's
// value (softmax's sum reads its max)? Its partial results would need that
// value before the partials of the other exist.
bool block_reductions_read_each_other(const kir::Kernel& k, const std::vector<bool>& block_reduce) {
  for (size_t id = 0; id < k.exprs.size(); ++id) {
    if (!block_reduce[id]) continue;
    bool reads = false;
    kir::for_each_reachable(k, {k.exprs[id].a, k.exprs[id].b},
                            [&](int other, const kir::Expr&) { reads = reads || block_reduce[static_cast<size_t>(other)]; });
    if (reads) return true;
  }
  return false;
}

// A row schedule of one row (header: row in two phases): where its widest
// block reduction (`widest` terms) has kTwoPhaseMinTerms and its block
// reductions read none of each other's values, G partial blocks, the
// scratch words, and the combining blocks.
void plan_two_phase(const kir::Kernel& k, int64_t widest, int64_t elements, Schedule& s) {
  if (s.rows != 1 || widest < kTwoPhaseMinTerms || block_reductions_read_each_other(k, s.block_reduce)) return;
  const int64_t block = s.launch.block;
  s.partials = std::clamp<int64_t>(pow2_at_most(widest / (kTwoPhaseTermsPerThread * block)), 2, kBlockSize);
  s.scratch_word.assign(k.exprs.size(), -1);
  int64_t words = 0;
  for (size_t id = 0; id < k.exprs.size(); ++id) {
    if (!s.block_reduce[id]) continue;
    s.scratch_word[id] = words;
    words += s.partials * (k.exprs[id].op == OpCode::ReduceSum ? 1 : 2);  // values, then indices
  }
  s.launch.grid = s.partials;
  s.launch.scratch_bytes = 8 * words;
  s.launch.combine_grid = std::clamp<int64_t>((elements + block - 1) / block, 1, s.partials);
}

// Can each thread of the elementwise schedule take kVectorWidth neighbouring
// elements, with one vector load per input and one vector store per output?
// Every buffer's elements are at most 4 bytes and every input is read at the
// element's own linear index (kir::Kernel::elementwise_input: no broadcast,
// transpose or gather), with no reduction and no scatter.
bool vectorizable(const kir::Kernel& k) {
  if (k.scatters()) return false;
  for (DType t : k.params)
    if (dtype_size(t) > 4) return false;
  for (int p = 0; p < k.num_inputs(); ++p)
    if (!k.elementwise_input[static_cast<size_t>(p)]) return false;
  for (const kir::Expr& e : k.exprs)
    if (e.kind == kir::ExprKind::reduce || e.kind == kir::ExprKind::checked_index) return false;
  return true;
}

// The loads of an elementwise kernel (no reduction, scatter or checked
// index; both last domain dims at least kMinTransposeSide) that read their
// input transposed: moving by one element along the domain's second-to-last
// dim and by more than one along its last (evaluated at the domain's origin),
// the outputs' roots depend on, at most kMaxStagedLoads of them; or none.
std::vector<int> transposed_loads(const kir::Kernel& k) {
  const size_t rank = k.domain.size();
  if (k.scatters() || rank < 2 || k.domain[rank - 2] < kMinTransposeSide || k.domain[rank - 1] < kMinTransposeSide) return {};
  for (const kir::Expr& e : k.exprs)
    if (e.kind == kir::ExprKind::reduce || e.kind == kir::ExprKind::checked_index) return {};
  std::vector<int64_t> base(static_cast<size_t>(k.num_vars), 0), down = base, right = base;
  down[rank - 2] = 1;
  right[rank - 1] = 1;
  std::vector<int> roots = {k.root}, staged;
  roots.insert(roots.end(), k.more_roots.begin(), k.more_roots.end());
  for (size_t id = 0; id < k.exprs.size(); ++id) {
    const kir::Expr& e = k.exprs[id];
    if (e.kind != kir::ExprKind::load) continue;
    const std::optional<int64_t> at = eval_index(k, e.a, base), d = eval_index(k, e.a, down), r = eval_index(k, e.a, right);
    if (at && d && r && *d - *at == 1 && std::abs(*r - *at) > 1) staged.push_back(static_cast<int>(id));
  }
  // Only loads the outputs read (lowering can leave dead expressions).
  std::vector<bool> live(k.exprs.size(), false);
  kir::for_each_reachable(k, roots, [&](int id, const kir::Expr&) { live[static_cast<size_t>(id)] = true; });
  std::erase_if(staged, [&](int id) { return !live[static_cast<size_t>(id)]; });
  if (staged.size() > kMaxStagedLoads) return {};
  return staged;
}

}  // namespace

// Does expression `id` read variable `var`?
bool reads_var(const kir::Kernel& k, int id, int64_t var) {
  bool reads = false;
  kir::for_each_reachable(k, {id}, [&](int, const kir::Expr& e) { reads = reads || (e.kind == kir::ExprKind::var && e.i == var); });
  return reads;
}

// Is the scatter's target `at` = row * inner + (the last update variable),
// the form compiler/kernel_builder.cc builds when the output's last dim is the
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
    case ScheduleKind::columns: return "columns";
    case ScheduleKind::transpose_tiles: return "transpose_tiles";
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
  // Any other scatter: every thread folds its own element's terms (kernel_source_schedules.cc).
  if (!k.scatters()) {
    const std::vector<std::vector<int64_t>> free = free_vars(k);
    const int64_t rank = static_cast<int64_t>(k.domain.size());
    const int64_t first_row_var = rank == 0 ? 0 : rank - 1;
    // Reductions the same for the whole row: the row schedule.
    int64_t widest = mark_block_reductions(k, free, first_row_var, s.block_reduce);
    if (widest >= kMinBlockReduceTrips) {
      s.kind = ScheduleKind::row;
      s.rows = 1;
      for (size_t d = 0; d + 1 < k.domain.size(); ++d) s.rows *= k.domain[d];
      const int64_t inner = k.domain.empty() ? 1 : k.domain.back();
      s.launch.block = static_cast<int>(std::clamp<int64_t>(pow2_at_least(std::max(inner, widest)), 32, kBlockSize));
      s.launch.grid = std::clamp<int64_t>(s.rows, 1, kMaxGrid);
      set_shared_arrays(k, s);
      plan_two_phase(k, widest, elements, s);
      return s;
    }
    // Reductions that vary along the row but read no other reduction's
    // variable (a row's sum with the row dropped, a column's sum): a block
    // per element, or per tile of columns, where the domain is too small
    // for a thread per element to fill a GPU.
    widest = mark_block_reductions(k, free, rank, s.block_reduce);
    ReadDirections reads;
    for (size_t id = 0; id < k.exprs.size(); ++id)
      if (s.block_reduce[id]) count_read_directions(k, static_cast<int>(id), reads);
    if (widest >= kMinBlockReduceTrips && elements <= kMaxElementsForBlockReductions) {
      if (reads.along_elements > reads.along_terms) {
        s.kind = ScheduleKind::columns;
        s.launch.block = kBlockSize;
        s.rows = (elements + kColumnTile - 1) / kColumnTile;
        s.launch.grid = std::clamp<int64_t>(s.rows, 1, kMaxGrid);
      } else {
        s.kind = ScheduleKind::row;
        s.element_rows = true;
        s.rows = elements;
        s.launch.block = static_cast<int>(std::clamp<int64_t>(pow2_at_least(widest), 32, kBlockSize));
        s.launch.grid = std::clamp<int64_t>(s.rows, 1, kMaxGrid);
      }
      set_shared_arrays(k, s);
      if (s.kind == ScheduleKind::row) plan_two_phase(k, widest, elements, s);
      return s;
    }
    s.block_reduce.assign(k.exprs.size(), false);
  }
  s.staged_loads = transposed_loads(k);
  if (!s.staged_loads.empty()) {
    s.kind = ScheduleKind::transpose_tiles;
    const size_t rank = k.domain.size();
    const int64_t row_tiles = (k.domain[rank - 2] + kTransposeTile - 1) / kTransposeTile;
    const int64_t col_tiles = (k.domain[rank - 1] + kTransposeTile - 1) / kTransposeTile;
    s.rows = elements / (k.domain[rank - 2] * k.domain[rank - 1]) * row_tiles * col_tiles;
    s.launch.block = kBlockSize;
    s.launch.grid = std::clamp<int64_t>(s.rows, 1, kMaxGrid);
    s.launch.shared_bytes = 0;
    for (int id : s.staged_loads)
      s.launch.shared_bytes += kTransposeTile * (kTransposeTile + 1) *
                               dtype_size(k.params[static_cast<size_t>(k.exprs[static_cast<size_t>(id)].i)]);
    return s;
  }
  s.kind = ScheduleKind::elementwise;
  s.vector_width = vectorizable(k) ? kVectorWidth : 1;
  const int64_t threads = s.vector_width > 1 ? elements / s.vector_width : elements;
  s.launch.block = kBlockSize;
  s.launch.grid = std::clamp<int64_t>((threads + kBlockSize - 1) / kBlockSize, 1, kMaxGrid);
  s.launch.shared_bytes = 0;
  return s;
}

}  // namespace mlc::gpu
