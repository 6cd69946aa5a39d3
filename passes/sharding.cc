#include "passes/sharding.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/diagnostics.h"
#include "ir/op_table.h"
#include "passes/sharding_rules.h"

namespace mlc {

Expected<ShardingPlan> data_parallel_plan(const Function& f, const Mesh& mesh, int zero) {
  if (zero < 0 || zero > 3) return make_error("--zero must be 0, 1, 2 or 3, got " + std::to_string(zero));
  ShardingPlan plan;
  plan.mesh = mesh;
  plan.zero = zero;
  std::optional<size_t> last_data;
  for (size_t a = 0; a < mesh.axes.size(); ++a)
    if (is_data_axis(mesh.axes[a].name)) last_data = a;
  for (size_t i = 0; i < f.args.size(); ++i) {
    const Value* v = f.args[i];
    Placements p = replicated(mesh.axes.size());
    ArgKind kind = f.arg_kinds[i];
    if (kind == ArgKind::input && v->type.rank() > 0) {
      for (size_t a = 0; a < mesh.axes.size(); ++a)
        if (is_data_axis(mesh.axes[a].name)) p[a] = Placement::S(0);
    } else if (last_data && ((kind == ArgKind::state && zero >= 1) ||
                             ((kind == ArgKind::param || kind == ArgKind::frozen) && zero == 3))) {
      int64_t n = mesh.axes[*last_data].size;
      for (int64_t d = 0; d < v->type.rank(); ++d)
        if (v->type.shape[d] % n == 0) {
          p[*last_data] = Placement::S(d);
          break;
        }
    }
    plan.args[v->name] = std::move(p);
  }
  return plan;
}

int64_t collective_bytes(OpCode code, int64_t n, int64_t bytes) {
  switch (code) {
    case OpCode::AllReduce: return 2 * (n - 1) * bytes / n;
    case OpCode::ReduceScatter:
    case OpCode::AllToAll: return (n - 1) * bytes / n;
    case OpCode::AllGather: return (n - 1) * bytes;
    default: return 0;
  }
}

std::string describe_op(const Op& op) {
  std::string s(op_name(op.code));
  if (op.loc.known()) s += " at " + op.loc.str();
  if (!op.meta.scope.empty()) s += " (" + op.meta.scope + ")";
  return s;
}

namespace {

constexpr double kImpossible = std::numeric_limits<double>::infinity();

// One step of a move on one axis: the collective and the placement after it.
struct Step {
  OpCode code;
  Placement to;
};

// The collective that takes `from` to `to` on one axis; nullopt when there is
// none (R or S -> P).
std::optional<Step> step_between(Placement from, Placement to) {
  if (from == to) return std::nullopt;
  if (to.is_partial()) return std::nullopt;
  if (from.is_partial()) {
    if (to.is_sharded() && from.kind == Placement::Kind::partial_max) return std::nullopt;  // no max-scatter
    return Step{to.is_sharded() ? OpCode::ReduceScatter : OpCode::AllReduce, to};
  }
  if (from.is_sharded()) return Step{to.is_sharded() ? OpCode::AllToAll : OpCode::AllGather, to};
  return Step{OpCode::ShardSlice, to};
}

double step_us(OpCode code, int64_t n, int64_t bytes) {
  if (code == OpCode::ShardSlice) return 0;
  return kCollectiveLatencyUs + static_cast<double>(collective_bytes(code, n, bytes)) / kLinkBytesPerUs;
}

class Sharder {
 public:
  Sharder(const Function& g, const ShardingPlan& plan) : g_(g), plan_(plan), mesh_(plan.mesh) {}

  Expected<ShardedFunction> run() {
    out_ = std::make_unique<Function>(g_.name);
    count_uses();
    prefer();
    for (size_t i = 0; i < g_.args.size(); ++i) MLC_CHECK_OK(add_arg(i));
    for (const auto& op : g_.ops) MLC_CHECK_OK(shard_op(*op));
    for (size_t k = 0; k < g_.results.size(); ++k) {
      int a = g_.updated_arg(k);
      Placements target = a >= 0 ? placed_.at(g_.args[a]) : replicated(mesh_.axes.size());
      if (auto planned = plan_.results.find(k); planned != plan_.results.end()) {
        target = planned->second;
        const Placements& now = placed_.at(g_.results[k]);
        for (size_t x = 0; x < target.size(); ++x)
          if (target[x].is_partial() && now[x] != target[x]) target[x] = Placement::R();
      }
      std::string consumer = "result #" + std::to_string(k) + (a >= 0 ? " (updates %" + g_.args[a]->name + ")" : "");
      MLC_TRY(Value * v, move(g_.results[k], target, consumer, "", 0, Loc{}, ""));
      out_->results.push_back(v);
    }
    out_->result_updates = g_.result_updates;
    return ShardedFunction{std::move(out_), std::move(ledger_)};
  }

 private:
  // ---- analysis of the global function
  void count_uses() {
    for (const auto& op : g_.ops)
      for (const Value* v : op->operands) ++uses_[v];
    for (const Value* v : g_.results) ++uses_[v];
  }

  // Preferred placements: an updated argument's for the value that updates
  // it, passed back through elementwise ops to same-shaped operands.
  void prefer() {
    for (size_t k = 0; k < g_.results.size(); ++k) {
      int a = g_.updated_arg(k);
      if (a < 0) continue;
      auto it = plan_.args.find(g_.args[a]->name);
      if (it != plan_.args.end()) {
        preferred_.emplace(g_.results[k], it->second);
        required_.emplace(g_.results[k], it->second);
      }
    }
    for (const auto& [k, p] : plan_.results)
      if (k < g_.results.size()) preferred_.emplace(g_.results[k], p);
    for (auto it = g_.ops.rbegin(); it != g_.ops.rend(); ++it) {
      const Op& op = **it;
      auto p = preferred_.find(op.result());
      if (p == preferred_.end() || !op_info(op.code).has(kElementwise)) continue;
      for (const Value* v : op.operands)
        if (v->type.shape == op.result()->type.shape) preferred_.emplace(v, p->second);
    }
  }

  // ---- values
  Status add_arg(size_t i) {
    const Value* v = g_.args[i];
    auto it = plan_.args.find(v->name);
    Placements p = it != plan_.args.end() ? it->second : replicated(mesh_.axes.size());
    auto shape = local_shape(v->type.shape, p, mesh_);
    if (!shape)
      return make_error("error: sharding: argument '" + v->name + "' (" + v->type.str() + ") cannot be placed " +
                        placements_str(p) + " on mesh " + mesh_.str() + ": " + shape.error().message);
    Value* local = out_->add_arg(v->name, {v->type.dtype, *shape}, g_.arg_kinds[i]);
    local->placements = p;
    local_[v] = local;
    placed_[v] = std::move(p);
    if (g_.arg_kinds[i] == ArgKind::param || g_.arg_kinds[i] == ArgKind::frozen) is_parameter_.insert(v);
    if (auto pin = plan_.pinned.find(v->name); pin != plan_.pinned.end()) pinned_[v] = pin->second;
    return {};
  }

  int64_t local_bytes(const Value* v, const Placements& p) const {
    auto shape = local_shape(v->type.shape, p, mesh_);
    return shape ? num_elements(*shape) * dtype_size(v->type.dtype) : 0;
  }

  // The steps that move a value placed `from` to `to`, axes in reverse order
  // for everything but R -> S (so an inner axis is undone before an outer
  // one), then R -> S forward. Empty optional: impossible (to P, or undoing an
  // outer axis's chunks of a dim an inner axis keeps sharded).
  std::optional<std::vector<std::pair<size_t, Step>>> plan_move(const Placements& from, const Placements& to) const {
    if (auto steps = plan_move_in_order(from, to, true)) return steps;
    if (auto steps = plan_move_in_order(from, to, false)) return steps;
    // Nested chunks of one dim that change order (<S(0),S(0)> -> <R,S(0)>,
    // <R,S(0)> -> <S(0),S(0)>): whole first (inner axes first), then sliced.
    const Placements whole = replicated(from.size());
    auto gather = plan_move_in_order(from, whole, true);
    auto slice = plan_move_in_order(whole, to, true);
    if (!gather || !slice) return std::nullopt;
    gather->insert(gather->end(), slice->begin(), slice->end());
    return gather;
  }

  // plan_move with the axes taken last to first (`reverse`) or first to last.
  std::optional<std::vector<std::pair<size_t, Step>>> plan_move_in_order(Placements from, const Placements& to,
                                                                         bool reverse) const {
    std::vector<std::pair<size_t, Step>> steps;
    const size_t axes = mesh_.axes.size();
    for (size_t k = 0; k < axes; ++k) {
      const size_t a = reverse ? axes - 1 - k : k;
      if (from[a] == to[a] || (from[a].is_replicated() && to[a].is_sharded())) continue;
      auto s = step_between(from[a], to[a]);
      if (!s || !keeps_nesting(from, a, s->to)) return std::nullopt;
      steps.push_back({a, *s});
      from[a] = s->to;
    }
    for (size_t a = 0; a < mesh_.axes.size(); ++a)
      if (from[a] != to[a]) {
        if (!keeps_nesting(from, a, to[a])) return std::nullopt;
        steps.push_back({a, Step{OpCode::ShardSlice, to[a]}});
        from[a] = to[a];
      }
    return steps;
  }

  // Chunks of a dim sharded by several axes nest in mesh-axis order (the
  // first axis picks the outer chunk), so a step on axis a may neither undo
  // nor add the chunks of a dim that an axis after a shards.
  static bool keeps_nesting(const Placements& from, size_t a, Placement to) {
    for (size_t b = a + 1; b < from.size(); ++b) {
      if (!from[b].is_sharded()) continue;
      if (from[a].is_sharded() && from[b].dim == from[a].dim) return false;
      if (to.is_sharded() && from[b].dim == to.dim) return false;
    }
    return true;
  }

  // Estimated time to move v from `from` to `to`; kImpossible if it cannot.
  // A move already made (and shared: not an FSDP re-gather) costs nothing more.
  double move_us(const Value* v, Placements from, const Placements& to) const {
    if (splat_placeable(v, to)) return 0;
    if (auto made = moved_.find(v); made != moved_.end() && made->second.count(placements_str(to)) &&
                                    placed_.at(v) == from && !(plan_.zero == 3 && is_parameter_.count(v)))
      return 0;
    auto steps = plan_move(from, to);
    if (!steps) return kImpossible;
    double us = 0;
    for (auto [a, s] : *steps) {
      us += step_us(s.code, mesh_.axes[a].size, local_bytes(v, from));
      from[a] = s.to;
    }
    return us;
  }

  // `loc` and `scope` are the consumer's (the ledger records `loc`). The
  // collectives inserted carry them, or where the consumer has none (an
  // optimizer update, a result) the moved value's producer's: they are the
  // collective's name in the runtime's errors (runtime/collective_run.h).
  Expected<Value*> move(const Value* v, const Placements& to, const std::string& consumer,
                        const std::string& alternative, double alternative_us, const Loc& loc,
                        const std::string& scope) {
    Placements from = placed_.at(v);
    if (from == to) return local_.at(v);
    bool fsdp_gather = plan_.zero == 3 && is_parameter_.count(v);  // parameters are re-gathered at each use
    std::string key = placements_str(to);
    if (!fsdp_gather)
      if (auto it = moved_[v].find(key); it != moved_[v].end()) return it->second;
    if (splat_placeable(v, to)) {  // made again, locally: no collective
      const Op& c = *v->producer;
      Builder b(*out_);
      b.set_loc(c.loc);
      b.set_scope(c.meta.scope);
      MLC_TRY(Shape shape, local_shape(v->type.shape, to, mesh_));
      MLC_TRY(Value * x, b.try_create(c.code, {}, c.attrs, TensorType{v->type.dtype, shape}));
      x->placements = to;
      moved_[v][key] = x;
      return x;
    }
    auto steps = plan_move(from, to);
    if (!steps)
      return make_error("mlc internal error: sharding: cannot move " + describe_value(v) + " from " +
                        placements_str(from) + " to " + placements_str(to));
    Value* x = local_.at(v);
    Builder b(*out_);
    const Op* producer = v->producer;
    b.set_loc(loc.known() || !producer ? loc : producer->loc);
    b.set_scope(!scope.empty() || !producer ? scope : producer->meta.scope);
    for (auto [a, s] : *steps) {
      const MeshAxis& axis = mesh_.axes[a];
      Placements next = from;
      next[a] = s.to;
      MLC_TRY(Shape shape, local_shape(v->type.shape, next, mesh_));
      TensorType type{v->type.dtype, shape};
      Attrs attrs{{"mesh_axis", axis.name}};
      if (s.code == OpCode::AllReduce) attrs.set("reduce", std::string(from[a].reduction()));
      if (s.code == OpCode::AllGather) attrs.set("dim", from[a].dim);
      if (s.code == OpCode::ReduceScatter || s.code == OpCode::ShardSlice) attrs.set("dim", s.to.dim);
      if (s.code == OpCode::AllToAll) {
        attrs.set("split_dim", s.to.dim);
        attrs.set("concat_dim", from[a].dim);
      }
      MLC_TRY(Value * y, b.try_create(s.code, {x}, attrs, type));
      y->placements = next;
      y->producer->meta.ledger = static_cast<int>(ledger_.size());  // the entry below
      int64_t moved = local_bytes(v, from);
      LedgerEntry e;
      e.id = static_cast<int>(ledger_.size());
      e.collective = std::string(op_name(s.code));
      e.axis = axis.name;
      e.value = describe_value(v);
      e.consumer = consumer;
      e.from = from;
      e.to = next;
      e.type = x->type;
      e.bytes = collective_bytes(s.code, axis.size, moved);
      e.estimated_us = step_us(s.code, axis.size, moved);
      e.alternative = alternative;
      e.alternative_us = alternative_us;
      e.loc = loc;
      ledger_.push_back(std::move(e));
      x = y;
      from = next;
    }
    if (!fsdp_gather) moved_[v][key] = x;
    return x;
  }

  // A splat constant is made at any placement where it is local: sharded on
  // any dim, and, when it is zero, as a partial sum (zeros sum to zeros).
  bool splat_placeable(const Value* v, const Placements& to) const {
    if (!v->producer || v->producer->code != OpCode::Constant || !local_shape(v->type.shape, to, mesh_)) return false;
    const AttrValue* value = v->producer->attrs.find("value");
    bool zero;
    if (value && std::holds_alternative<double>(*value)) zero = std::get<double>(*value) == 0;
    else if (value && std::holds_alternative<int64_t>(*value)) zero = std::get<int64_t>(*value) == 0;
    else return false;  // dense
    for (const Placement& p : to)
      if (p.kind == Placement::Kind::partial_max || (p.is_partial() && !zero)) return false;
    return true;
  }

  std::string describe_value(const Value* v) const {
    return v->producer ? describe_op(*v->producer) : "%" + v->name;
  }

  // ---- ops
  struct Choice {
    std::vector<Placements> operands, results;
  };

  static std::string describe_signature(const ShardingSignature& s) {
    std::string t = "(";
    for (size_t i = 0; i < s.operands.size(); ++i) t += (i ? ", " : "") + s.operands[i].str();
    t += ") -> ";
    for (size_t i = 0; i < s.results.size(); ++i) t += (i ? ", " : "") + s.results[i].str();
    return t;
  }

  Status shard_op(const Op& op) {
    const size_t axes = mesh_.axes.size();
    std::vector<ShardingSignature> sigs = sharding_signatures(op);
    Choice c;
    for (const Value* v : op.operands) c.operands.push_back(placed_.at(v));
    c.results.assign(op.results.size(), replicated(axes));
    // The runner-up of each axis, for the ledger.
    std::vector<std::string> alternative(axes);
    std::vector<double> alternative_us(axes, 0);
    for (size_t a = 0; a < axes; ++a) {
      struct Scored {
        double us;
        int preferred, moves;
        size_t index;
      };
      std::optional<Scored> best, second;
      for (size_t k = 0; k < sigs.size(); ++k) {
        const ShardingSignature& s = sigs[k];
        Choice t = c;
        for (size_t i = 0; i < s.operands.size(); ++i) t.operands[i][a] = s.operands[i];
        for (size_t r = 0; r < s.results.size(); ++r) t.results[r][a] = s.results[r];
        if (!fits(op, t) || keeps_parameter_sharded(op, s, a) || moves_pinned(op, s, a)) continue;
        if (reduces_before_widening(op, s, a)) continue;
        Scored sc{0, 0, 0, k};
        for (size_t i = 0; i < op.operands.size(); ++i) {
          sc.us += axis_move_us(op.operands[i], a, s.operands[i]);
          sc.moves += placed_.at(op.operands[i])[a] != s.operands[i];
        }
        if (sc.us == kImpossible) continue;
        for (size_t r = 0; r < op.results.size(); ++r) {
          auto p = preferred_.find(op.results[r]);
          sc.preferred += p != preferred_.end() && p->second[a] == s.results[r];
          // Look ahead: a result the calling convention needs elsewhere (an
          // update of an argument placed otherwise) will be moved there.
          // Only there: charging every op of an update chain for the same
          // final move would make each branch of the chain gather on its own.
          auto q = required_.find(op.results[r]);
          if (q != required_.end() && q->second[a] != s.results[r]) {
            Placements to = t.results[r];
            to[a] = q->second[a];
            sc.us += move_us(op.results[r], t.results[r], to);
          }
        }
        auto better = [](const Scored& x, const Scored& y) {
          if (x.us != y.us) return x.us < y.us;
          if (x.preferred != y.preferred) return x.preferred > y.preferred;
          return x.moves < y.moves;  // even a free slice: sources stay replicated
        };
        if (!best || better(sc, *best)) {
          second = best;
          best = sc;
        } else if (!second || better(sc, *second)) {
          second = sc;
        }
      }
      if (!best) {
        for (const Value* v : op.operands)
          if (is_pinned(v, a))
            return error_at(op.loc, "sharding: " + describe_op(op) + " cannot read %" + v->name + " as planned, " +
                                        placements_str(placed_.at(v)) + " (it has no signature that keeps " +
                                        placed_.at(v)[a].str() + " on axis " + "'" + mesh_.axes[a].name + "'" +
                                        "); change the tensor-parallel plan of " + "'" + v->name + "'");
        return make_error("mlc internal error: sharding: no signature of " + describe_op(op) + " fits");
      }
      const ShardingSignature& s = sigs[best->index];
      for (size_t i = 0; i < s.operands.size(); ++i) c.operands[i][a] = s.operands[i];
      for (size_t r = 0; r < s.results.size(); ++r) c.results[r][a] = s.results[r];
      if (second) {
        alternative[a] = std::string(op_name(op.code)) + " " + describe_signature(sigs[second->index]) + " on " +
                         mesh_.axes[a].name;
        alternative_us[a] = second->us;
      }
    }
    // Move the operands, build the op on local types.
    std::vector<Value*> operands;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Value* v = op.operands[i];
      std::string alt, sep;
      double alt_us = 0;
      for (size_t a = 0; a < axes; ++a)
        if (placed_.at(v)[a] != c.operands[i][a] && !alternative[a].empty()) {
          alt += sep + alternative[a];
          sep = "; ";
          alt_us += alternative_us[a];
        }
      MLC_TRY(Value * x, move(v, c.operands[i], describe_op(op), alt, alt_us, op.loc, op.meta.scope));
      operands.push_back(x);
    }
    std::vector<TensorType> declared;
    for (size_t r = 0; r < op.results.size(); ++r) {
      MLC_TRY(Shape shape, local_shape(op.results[r]->type.shape, c.results[r], mesh_));
      declared.push_back({op.results[r]->type.dtype, shape});
    }
    Builder b(*out_);
    b.set_loc(op.loc);
    b.set_scope(op.meta.scope);
    const Attrs attrs = slice_attrs_for(op, op.operands.empty() ? Shape{} : op.operands[0]->type.shape,
                                        operands.empty() ? Shape{} : operands[0]->type.shape);
    auto made = b.try_create_results(op.code, std::move(operands), attrs, declared);
    if (!made)
      return make_error("mlc internal error: sharding " + describe_op(op) + ": " + made.error().message);
    for (size_t r = 0; r < op.results.size(); ++r) {
      (*made)[r]->placements = c.results[r];
      local_[op.results[r]] = (*made)[r];
      placed_[op.results[r]] = c.results[r];
      MLC_CHECK_OK(settle(op.results[r]));
      MLC_CHECK_OK(resolve_partial(op.results[r]));
    }
    return {};
  }

  // Mixed precision: a partial (sum) value that is widened is reduced after
  // the cast, in the wider dtype (FSDP2's reduce_dtype = f32; PyTorch's AMP
  // reduces the f32 gradients of f32 parameters), never before it.
  bool reduces_before_widening(const Op& op, const ShardingSignature& s, size_t a) const {
    return widens(op) && placed_.at(op.operands[0])[a].kind == Placement::Kind::partial &&
           s.operands[0].kind != Placement::Kind::partial;
  }

  // FSDP (zero = 3): a sharded parameter is gathered for every use but the
  // elementwise optimizer update, which stays sharded (on the axes where
  // tensor parallelism pins it, it stays sharded everywhere).
  bool keeps_parameter_sharded(const Op& op, const ShardingSignature& s, size_t a) const {
    if (plan_.zero != 3 || op_info(op.code).has(kElementwise)) return false;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Value* v = op.operands[i];
      if (is_parameter_.count(v) && !is_pinned(v, a) && !s.operands[i].is_replicated() && placed_.at(v)[a].is_sharded())
        return true;
    }
    return false;
  }

  bool is_pinned(const Value* v, size_t a) const {
    auto it = pinned_.find(v);
    return it != pinned_.end() && std::find(it->second.begin(), it->second.end(), a) != it->second.end();
  }

  // Tensor parallelism: the signature would move a pinned argument on axis a.
  bool moves_pinned(const Op& op, const ShardingSignature& s, size_t a) const {
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (is_pinned(op.operands[i], a) && placed_.at(op.operands[i])[a] != s.operands[i]) return true;
    return false;
  }

  // The plan's settled outputs: moved on their axis as soon as they are made.
  Status settle(const Value* v) {
    auto it = plan_.settle.find(v);
    if (it == plan_.settle.end()) return {};
    Placements target = placed_.at(v);
    for (const ShardingPlan::Settle& s : it->second) target[s.axis] = s.to;
    if (target == placed_.at(v)) return {};
    if (!local_shape(v->type.shape, target, mesh_))
      for (const ShardingPlan::Settle& s : it->second) target[s.axis] = Placement::R();
    MLC_TRY(Value * x, move(v, target, "the layer's output (tensor-parallel plan)", "", 0,
                            v->producer ? v->producer->loc : Loc{}, ""));
    local_[v] = x;
    placed_[v] = target;
    return {};
  }

  // Every operand and result of the candidate has a valid local shape.
  bool fits(const Op& op, const Choice& t) const {
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (!local_shape(op.operands[i]->type.shape, t.operands[i], mesh_)) return false;
    for (size_t r = 0; r < op.results.size(); ++r)
      if (!local_shape(op.results[r]->type.shape, t.results[r], mesh_)) return false;
    return true;
  }

  // Time to move v to `to` on axis a only (its other axes as they are).
  double axis_move_us(const Value* v, size_t a, Placement to) const {
    Placements target = placed_.at(v);
    target[a] = to;
    return move_us(v, placed_.at(v), target);
  }

  // A partial sum read twice (a return counts as a read) is summed once where it is made:
  // to its preferred placement where it has one, else replicated.
  Status resolve_partial(const Value* v) {
    Placements p = placed_.at(v);
    bool partial = false;
    for (const Placement& x : p) partial |= x.is_partial();
    if (!partial || uses_[v] < 2) return {};
    auto pref = preferred_.find(v);
    Placements target = p;
    for (size_t a = 0; a < p.size(); ++a)
      if (p[a].is_partial())
        target[a] = p[a].kind == Placement::Kind::partial && pref != preferred_.end() && !pref->second[a].is_partial()
                        ? pref->second[a]
                        : Placement::R();
    if (!local_shape(v->type.shape, target, mesh_)) target = replicated(p.size());
    MLC_TRY(Value * x, move(v, target, "its " + std::to_string(uses_[v]) + " uses (a partial sum is summed once)",
                            "", 0, v->producer ? v->producer->loc : Loc{}, ""));
    local_[v] = x;
    placed_[v] = target;
    return {};
  }

  const Function& g_;
  const ShardingPlan& plan_;
  const Mesh& mesh_;
  std::unique_ptr<Function> out_;
  std::unordered_map<const Value*, Value*> local_;       // the local value now standing for a global one
  std::unordered_map<const Value*, Placements> placed_;  // its placements
  std::unordered_map<const Value*, std::unordered_map<std::string, Value*>> moved_;  // made moves
  std::unordered_map<const Value*, Placements> preferred_;
  std::unordered_map<const Value*, Placements> required_;  // results that update an argument
  std::unordered_map<const Value*, int> uses_;
  std::unordered_set<const Value*> is_parameter_;
  std::unordered_map<const Value*, std::vector<size_t>> pinned_;  // arguments kept in place on these axes
  std::vector<LedgerEntry> ledger_;
};

}  // namespace

Expected<ShardedFunction> shard_function(const Function& global, const ShardingPlan& plan) {
  for (const auto& op : global.ops)
    if (op_info(op->code).is_composite() || op_info(op->code).has(kCollective))
      return make_error("mlc internal error: sharding: @" + global.name + " holds " + describe_op(*op) +
                        "; shard after decompose, before fusion, and only once");
  return Sharder(global, plan).run();
}

Expected<bool> ShardingPass::run(Module& module) {
  ledger_.clear();
  Mesh mesh = module.mesh();
  if (mesh.empty()) return false;
  if (Status axes = check_mesh_axes(mesh); !axes)
    return make_error("error: sharding: mesh " + mesh.str() + ": " + axes.error().message);
  bool changed = false;
  for (auto& f : module.functions) {
    if (f->name != "train_step" && f->name != "eval" && f->name != "loss_grad") continue;
    if (!f->args.empty() && !f->args[0]->placements.empty()) continue;  // sharded already
    MLC_TRY(ShardingPlan plan, data_parallel_plan(*f, mesh, zero_));
    MLC_CHECK_OK(apply_tensor_parallel(*f, tp_, plan));
    MLC_TRY(ShardedFunction sharded, shard_function(*f, plan));
    if (Status rules = check_sharding_rules(*sharded.function, mesh); !rules)
      return make_error("mlc internal error: " + rules.error().message);
    ledger_[f->name] = std::move(sharded.ledger);
    f = std::move(sharded.function);
    changed = true;
  }
  return changed;
}

std::vector<PassOption> ShardingPass::options() {
  return {integer_option("zero", &zero_, 0, 3, "ZeRO stage over the last data axis (3: FSDP)")};
}

}  // namespace mlc
