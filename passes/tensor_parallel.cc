// apply_tensor_parallel (passes/sharding.h): a model file's tensor-parallel
// plan as placements, pins and settled outputs of a ShardingPlan.
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/diagnostics.h"
#include "passes/sharding.h"

namespace mlc {

namespace {

// A table that `f` reads by gather along axis 0 (an embedding).
bool vocabulary_table(const Function& f, const Value* table) {
  for (const auto& op : f.ops)
    if (op->code == OpCode::Gather && op->operands[0] == table && op->attrs.get_int("axis") == 0) return true;
  return false;
}

// The values the function's fresh results (not updates) depend on.
std::unordered_set<const Value*> forward_values(const Function& f) {
  std::unordered_set<const Value*> seen;
  std::vector<const Value*> work;
  for (size_t k = 0; k < f.results.size(); ++k)
    if (f.updated_arg(k) < 0) work.push_back(f.results[k]);
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second || !v->producer) continue;
    for (const Value* x : v->producer->operands) work.push_back(x);
  }
  return seen;
}

// Vocabulary parallelism. An embedding table [V, ...] sharded S(0) over n
// devices holds rows [iV/n, (i+1)V/n) on device i, so a lookup must give
// zeros for the rows other devices hold. As a computation on whole tensors
// (which the pass then shards by the usual rules, with honest placements):
//   T3 = reshape(table) [n, V/n, ...]          S(0): device i holds T3[i]
//   q = idx / (V/n), r = idx - q * (V/n)        which slab, which row in it (R)
//   G = gather(T3, r) {axis = 1} [n, idx..., ...]  S(0)
//   M = (iota over n == q)                      the slab each index reads
//   lookup = reduce_sum(select(M, G, 0), 0)     P: one slab contributes
// and its gradient scatter_add(zeros [V, ...], idx, dy) likewise, into
// reshape(zeros) [n, V/n, ...] at r, with dy masked by M. Each output
// element is its one value plus zeros, so the lookup and the gradient are
// bit-identical to the unsharded ops' (up to the sign of zero).
class VocabularyParallel {
 public:
  VocabularyParallel(Function& f, int64_t n) : f_(f), n_(n) {}

  // Rewrites the gathers from `table` (axis 0) and the scatter_adds with the
  // same indices into a tensor of its type; returns the new lookup results.
  // Precondition: n divides the table's rows.
  std::vector<const Value*> rewrite(const Value* table) {
    std::vector<const Value*> lookups;
    std::unordered_set<const Value*> indices;
    rewrite_ops(f_, [&](Builder& b, Op& op) -> Value* {
      bool lookup = op.code == OpCode::Gather && op.operands[0] == table && op.attrs.get_int("axis") == 0;
      bool gradient = op.code == OpCode::ScatterAdd && op.attrs.get_int("axis") == 0 &&
                      indices.count(op.operands[1]) && op.operands[0]->type == table->type;
      if (!lookup && !gradient) return nullptr;
      Value* out = lookup ? rewrite_gather(b, op) : rewrite_scatter_add(b, op);
      if (lookup) {
        indices.insert(op.operands[1]);
        lookups.push_back(out);
      }
      return out;
    });
    f_.erase_dead_values();
    return lookups;
  }

 private:
  struct Split {
    Value *row, *mask;  // r, and M broadcast to G's shape
  };

  Shape slabs(const Shape& table) const {
    Shape s{n_, table[0] / n_};
    s.insert(s.end(), table.begin() + 1, table.end());
    return s;
  }

  // r, and M broadcast to [n, idx..., rest...].
  Split split(Builder& b, Value* idx, const Shape& table) {
    const int64_t rows = table[0] / n_;
    Value* size = b.scalar(static_cast<double>(rows), idx->type.dtype);
    Value* q = b.div(idx, size);
    Value* r = b.sub(idx, b.mul(q, size));
    Shape stacked{n_};
    stacked.insert(stacked.end(), idx->type.shape.begin(), idx->type.shape.end());
    std::vector<int64_t> after_slab;
    for (int64_t d = 1; d < static_cast<int64_t>(stacked.size()); ++d) after_slab.push_back(d);
    Value* slab = b.iota({idx->type.dtype, stacked}, 0);
    Value* m = b.compare(slab, b.broadcast(q, stacked, after_slab), "eq");
    Shape full = stacked;
    full.insert(full.end(), table.begin() + 1, table.end());
    std::vector<int64_t> leading(stacked.size());
    for (size_t d = 0; d < leading.size(); ++d) leading[d] = static_cast<int64_t>(d);
    return {r, b.broadcast(m, full, leading)};
  }

  Value* rewrite_gather(Builder& b, const Op& op) {
    Value *table = op.operands[0], *idx = op.operands[1];
    Split s = split(b, idx, table->type.shape);
    Value* g = b.create(OpCode::Gather, {b.reshape(table, slabs(table->type.shape)), s.row}, {{"axis", int64_t{1}}});
    Value* picked = b.select(s.mask, g, b.scalar(0, table->type.dtype));
    return b.reduce_sum(picked, {0}, false);
  }

  Value* rewrite_scatter_add(Builder& b, const Op& op) {
    Value *into = op.operands[0], *idx = op.operands[1], *updates = op.operands[2];
    const Shape& shape = into->type.shape;
    Split s = split(b, idx, shape);
    std::vector<int64_t> after_slab;
    for (int64_t d = 1; d <= updates->type.rank(); ++d) after_slab.push_back(d);
    Value* spread = b.broadcast(updates, s.mask->type.shape, after_slab);
    Value* masked = b.select(s.mask, spread, b.scalar(0, updates->type.dtype));
    Value* added =
        b.create(OpCode::ScatterAdd, {b.reshape(into, slabs(shape)), s.row, masked}, {{"axis", int64_t{1}}});
    return b.reshape(added, shape);
  }

  Function& f_;
  int64_t n_;
};

}  // namespace

Status apply_tensor_parallel(Function& f, const TensorParallelPlan& tp, ShardingPlan& plan) {
  auto axis = plan.mesh.find("tp");
  if (!axis || tp.empty()) return {};
  const size_t a = *axis;
  // Where a rowwise layer's output settles: whole, or with sequence
  // parallelism on the sequence dim of [batch, seq, ...] activations.
  auto settled = [&](const Value* v) {
    return tp.sequence_parallel && v->type.rank() >= 3 ? Placement::S(1) : Placement::R();
  };
  std::unordered_map<std::string, size_t> arg_index;
  for (size_t i = 0; i < f.args.size(); ++i) arg_index[f.args[i]->name] = i;
  std::unordered_set<const Value*> rowwise;
  for (const TensorParallelParam& p : tp.params) {
    auto it = arg_index.find(p.name);
    if (it == arg_index.end())
      return error_at(p.loc, "tensor-parallel plan: @" + f.name + " takes no parameter " + "'" + p.name + "'");
    if (p.rowwise) rowwise.insert(f.args[it->second]);
    if (p.dim < 0) continue;
    // (Rows that do not divide are the sharding pass's error, naming the table.)
    if (p.rowwise && p.dim == 0 && vocabulary_table(f, f.args[it->second]) &&
        f.args[it->second]->type.shape[0] % plan.mesh.axes[a].size == 0)
      for (const Value* v : VocabularyParallel(f, plan.mesh.axes[a].size).rewrite(f.args[it->second]))
        plan.settle[v].push_back({a, settled(v)});
    // The parameter and its optimizer state ("<param>.<slot>", same type).
    for (size_t i = 0; i < f.args.size(); ++i) {
      const Value* v = f.args[i];
      bool state = f.arg_kinds[i] == ArgKind::state && v->name.starts_with(p.name + ".") &&
                   v->type == f.args[it->second]->type;
      if (i != it->second && !state) continue;
      Placements& placed = plan.args.try_emplace(v->name, replicated(plan.mesh.axes.size())).first->second;
      placed[a] = Placement::S(p.dim);
      plan.pinned[v->name].push_back(a);
    }
  }
  const auto forward = forward_values(f);
  for (const auto& op : f.ops) {
    if (op->code != OpCode::Dot || !forward.count(op->result())) continue;
    bool reads_rowwise = false;
    for (const Value* x : op->operands) reads_rowwise |= rowwise.count(x) > 0;
    if (reads_rowwise) plan.settle[op->result()].push_back({a, settled(op->result())});
  }
  return {};
}

}  // namespace mlc
