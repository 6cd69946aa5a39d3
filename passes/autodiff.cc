#include "passes/autodiff.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/decompose.h"
#include "ir/diagnostics.h"
#include "ir/op_table.h"
#include "passes/vjp.h"

namespace mlc {

namespace {

// Composites with a VJP rule of their own stay; the others are differentiated
// through their decomposition.
bool has_own_rule(const Op& op) { return vjp_rule(op.code).kind != VjpRule::Kind::via_decomposition; }

bool differentiated(ArgKind kind) { return kind == ArgKind::param; }

// A call's gradient is @<callee>_vjp(operands..., result, dresult) -> one
// gradient per operand (ir/ops.def `call`): it must exist with that signature.
Status check_call_gradient(const Module& module, const Op& call) {
  const std::string name = call.attrs.get_string("callee") + "_vjp";
  const Function* vjp = module.find(name);
  auto fail = [&](const std::string& what) {
    return error_at(call.loc, "autodiff: the gradient of call @" + call.attrs.get_string("callee") + " is @" + name +
                                  ", which " + what);
  };
  if (!vjp) return fail("is not a function of the module");
  const size_t n = call.operands.size();
  if (vjp->args.size() != n + 2 || vjp->results.size() != n)
    return fail("does not take (operands..., result, dresult) and return one gradient per operand");
  for (size_t i = 0; i < n; ++i)
    if (vjp->args[i]->type != call.operands[i]->type || vjp->results[i]->type != call.operands[i]->type)
      return fail("does not match operand #" + std::to_string(i) + " (" + call.operands[i]->type.str() + ")");
  if (vjp->args[n]->type != call.result()->type || vjp->args[n + 1]->type != call.result()->type)
    return fail("does not take the result (" + call.result()->type.str() + ") and its gradient");
  return {};
}

}  // namespace

Expected<Function*> differentiate(Module& module, const Function& f, const std::vector<size_t>& also_wrt,
                                  bool params) {
  if (f.results.empty() || f.results[0]->type.rank() != 0 || !is_float(f.results[0]->type.dtype))
    return make_error("error: autodiff: @" + f.name + " must return a 0-d float loss first, got " +
                      (f.results.empty() ? std::string("no results") : f.results[0]->type.str()));
  std::unique_ptr<Function> owned = f.clone();
  Function& g = *owned;
  g.name = f.name + "_grad";
  if (module.find(g.name)) return make_error("error: autodiff: @" + g.name + " already exists");
  decompose_composites(g, has_own_rule);

  // Values that depend differentiably on a differentiated argument. Ops whose
  // gradient is zero by definition stop the dependence; ops without a rule do
  // not, so a loss that needs their gradient is an error below.
  for (size_t i : also_wrt)
    if (i >= g.args.size() || differentiated(g.arg_kinds[i]))
      return make_error("mlc internal error: autodiff: @" + f.name + " has no non-parameter argument #" +
                        std::to_string(i) + " to differentiate");
  std::vector<size_t> wrt;
  for (size_t i = 0; i < g.args.size(); ++i)
    if (params && differentiated(g.arg_kinds[i])) wrt.push_back(i);
  wrt.insert(wrt.end(), also_wrt.begin(), also_wrt.end());
  std::unordered_set<const Value*> active;
  for (size_t i : wrt) active.insert(g.args[i]);
  std::vector<Op*> forward;
  for (auto& op : g.ops) {
    forward.push_back(op.get());
    if (vjp_rule(op->code).kind == VjpRule::Kind::zero) continue;
    for (const Value* v : op->operands)
      if (active.count(v)) {
        active.insert(op->result());
        break;
      }
  }

  Value* loss = g.results[0];
  Builder b(g);
  std::unordered_map<const Value*, Value*> adjoint;
  // The seed: 1, or the loss scale (mixed precision's loss scaling, passes/autodiff.h).
  Value* seed = nullptr;
  for (size_t i = 0; i < g.args.size(); ++i)
    if (g.arg_kinds[i] == ArgKind::state && g.args[i]->name == kLossScaleArg && g.args[i]->type.rank() == 0)
      seed = g.args[i]->type.dtype == loss->type.dtype ? g.args[i] : b.cast(g.args[i], loss->type.dtype);
  adjoint[loss] = seed ? seed : b.scalar(1.0, loss->type.dtype);
  std::vector<Value*> dx;
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    Op* op = *it;
    auto found = adjoint.find(op->result());
    if (found == adjoint.end() || !active.count(op->result())) continue;
    const VjpRule& rule = vjp_rule(op->code);
    bool max_all_reduce = op->code == OpCode::AllReduce && op->attrs.get_string("reduce") != "sum";
    if (rule.kind != VjpRule::Kind::rule || max_all_reduce)
      return error_at(op->loc, "autodiff: no gradient rule for " + std::string(op_name(op->code)) +
                                   (max_all_reduce ? " with reduce = \"" + op->attrs.get_string("reduce") + "\"" : "") +
                                   ", and the loss depends on its operands through it");
    if (op->code == OpCode::Call) MLC_CHECK_OK(check_call_gradient(module, *op));
    b.set_loc(op->loc);
    b.set_scope(op->meta.scope);
    dx.assign(op->operands.size(), nullptr);
    rule.fn(b, *op, found->second, dx);
    for (size_t i = 0; i < dx.size(); ++i) {
      Value* v = op->operands[i];
      if (!dx[i] || !active.count(v)) continue;
      auto [slot, inserted] = adjoint.emplace(v, dx[i]);
      if (!inserted) slot->second = b.add(slot->second, dx[i]);  // fan-out: sum
    }
  }

  b.set_loc(Loc{});
  b.set_scope("");
  // Results that update an argument (a {buffer}'s new value: BatchNorm's
  // running statistics) are carried through undifferentiated, after the
  // gradients, with what they update.
  std::vector<Value*> carried;
  std::vector<int> carried_updates;
  for (size_t k = 1; k < g.results.size(); ++k)
    if (g.updated_arg(k) >= 0) {
      carried.push_back(g.results[k]);
      carried_updates.push_back(g.updated_arg(k));
    }
  g.results = {loss};
  for (size_t i : wrt) {
    Value* arg = g.args[i];
    auto found = adjoint.find(arg);
    g.results.push_back(found != adjoint.end()
                            ? found->second
                            : b.broadcast_to(b.scalar(0.0, arg->type.dtype), arg->type.shape));
  }
  g.result_updates.clear();
  if (!carried.empty()) {
    g.result_updates.assign(g.results.size(), -1);
    g.results.insert(g.results.end(), carried.begin(), carried.end());
    g.result_updates.insert(g.result_updates.end(), carried_updates.begin(), carried_updates.end());
  }
  module.functions.push_back(std::move(owned));
  return module.functions.back().get();
}

Expected<bool> AutodiffPass::run(Module& module) {
  const Function* loss = module.find("loss");
  if (!loss || module.find("loss_grad")) return false;
  MLC_TRY(Function * grad, differentiate(module, *loss));
  (void)grad;
  return true;
}

}  // namespace mlc
