#include "passes/pipeline_stage_sharding.h"

#include <algorithm>
#include <optional>
#include <set>

#include "ir/diagnostics.h"
#include "passes/optimizer.h"
#include "passes/pipeline_split.h"
#include "passes/sharding_rules.h"

namespace mlc {

bool shards_pipeline_stages(const ParallelPlan& plan) {
  if (!plan.pipelined()) return false;
  for (const MeshAxis& a : plan.mesh.axes)
    if (a.name != "pp") return true;
  return false;
}

namespace {

bool is_activation(const std::string& name) {
  return name.starts_with("pipe.in.") || (name.starts_with("pipe.out.") && name.ends_with(".grad"));
}

class StageSharder {
 public:
  StageSharder(Module& stage, const ParallelPlan& plan) : stage_(stage), plan_(plan), mesh_(plan.mesh) {
    for (size_t a = 0; a < mesh_.axes.size(); ++a)
      if (is_data_axis(mesh_.axes[a].name)) data_devices_ *= mesh_.axes[a].size;
    if (const Function* update = stage.find("apply_update"))
      for (size_t i = 0; i < update->args.size(); ++i)
        if (update->arg_kinds[i] == ArgKind::param) params_.insert(update->args[i]->name);
  }

  Status run(std::map<std::string, std::vector<LedgerEntry>>* ledger) {
    stage_.set_mesh(mesh_);
    // @loss_grad first: where it leaves each gradient is every function's.
    std::vector<std::string> order = {"loss_grad"};
    for (const auto& f : stage_.functions)
      if (f->name != "loss_grad") order.push_back(f->name);
    for (const std::string& name : order) {
      for (auto& f : stage_.functions) {
        if (f->name != name) continue;
        MLC_TRY(ShardedFunction sharded, shard(*f));
        if (name == "loss_grad") learn_gradient_placements(*f, *sharded.function);
        else MLC_CHECK_OK(check_gradient_placements(*f, *sharded.function));
        if (Status rules = check_sharding_rules(*sharded.function, mesh_); !rules)
          return make_error("mlc internal error: pipeline stage @" + name + ": " + rules.error().message);
        if (ledger) (*ledger)[name] = std::move(sharded.ledger);
        f = std::move(sharded.function);
      }
    }
    return {};
  }

 private:
  // S(0) on the data axes for a value whose dim 0 splits over them, else R.
  Placements activation(const TensorType& t, bool evaluation) const {
    Placements p = replicated(mesh_.axes.size());
    if (evaluation || t.rank() == 0 || t.shape[0] % data_devices_ != 0) return p;
    for (size_t a = 0; a < mesh_.axes.size(); ++a)
      if (is_data_axis(mesh_.axes[a].name)) p[a] = Placement::S(0);
    return p;
  }

  // P on the data axes, the parameter's tensor-parallel placement on tp.
  Placements gradient(const std::string& param) const {
    if (auto learned = gradients_.find(param); learned != gradients_.end()) return learned->second;
    Placements p = replicated(mesh_.axes.size());
    for (size_t a = 0; a < mesh_.axes.size(); ++a) {
      if (is_data_axis(mesh_.axes[a].name)) p[a] = Placement::P();
      if (mesh_.axes[a].name != "tp") continue;
      for (const TensorParallelParam& t : plan_.tensor_parallel.params)
        if (t.name == param && t.dim >= 0) p[a] = Placement::S(t.dim);
    }
    return p;
  }

  // The parameter whose gradient argument `name` is ("<p>.grad", "<p>.micro_grad").
  std::optional<std::string> gradient_of(const std::string& name) const {
    for (const char* suffix : {".grad", ".micro_grad"})
      if (name.ends_with(suffix)) {
        std::string p = name.substr(0, name.size() - std::string_view(suffix).size());
        if (params_.count(p)) return p;
      }
    return std::nullopt;
  }

  Expected<ShardedFunction> shard(Function& f) {
    const bool evaluation = f.name == "eval" || f.name == "eval_forward";
    MLC_TRY(ShardingPlan plan, data_parallel_plan(f, mesh_, plan_.zero));
    // The tensor-parallel plan of the parameters this function takes.
    TensorParallelPlan tp = plan_.tensor_parallel;
    std::erase_if(tp.params, [&](const TensorParallelParam& p) {
      return std::none_of(f.args.begin(), f.args.end(), [&](const Value* a) { return a->name == p.name; });
    });
    MLC_CHECK_OK(apply_tensor_parallel(f, tp, plan));
    for (size_t i = 0; i < f.args.size(); ++i) {
      const Value* v = f.args[i];
      if (is_activation(v->name)) plan.args[v->name] = activation(v->type, evaluation);
      else if (auto p = gradient_of(v->name)) plan.args[v->name] = gradient(*p);
      else if (v->name == kGradNormsArg) plan.args[v->name] = replicated(mesh_.axes.size());
      else if (f.arg_kinds[i] == ArgKind::input && evaluation) plan.args[v->name] = replicated(mesh_.axes.size());
    }
    // Results: what the next stage receives, the gradients sent back and the parameters'.
    const std::vector<std::string> grads = gradient_results(f);
    for (size_t k = 0; k < f.results.size(); ++k) {
      const TensorType& t = f.results[k]->type;
      if (f.name == "forward") plan.results[k] = activation(t, false);
      else if (f.name == "eval_forward") plan.results[k] = activation(t, true);
      else if (k < grads.size() && !grads[k].empty()) plan.results[k] = gradient(grads[k]);
      else if (k > 0 && k >= grads.size() && f.name.starts_with("loss_grad")) plan.results[k] = activation(t, false);
    }
    auto sharded = shard_function(f, plan);
    if (!sharded) return make_error("pipeline stage @" + f.name + ": " + sharded.error().message);
    return sharded;
  }

  // Per result of a @loss_grad function, the parameter whose gradient it is
  // ("" for the loss); results past the list are gradients of received activations.
  std::vector<std::string> gradient_results(const Function& f) const {
    std::vector<std::string> out;
    if (!f.name.starts_with("loss_grad")) return out;
    out.push_back("");
    if (f.name == "loss_grad_input") return out;
    for (size_t i = 0; i < f.args.size(); ++i)
      if (f.arg_kinds[i] == ArgKind::param) out.push_back(f.args[i]->name);
    return out;
  }

  void learn_gradient_placements(const Function& global, const Function& local) {
    const std::vector<std::string> grads = gradient_results(global);
    for (size_t k = 1; k < grads.size() && k < local.results.size(); ++k)
      gradients_[grads[k]] = local.results[k]->placements;
  }

  Status check_gradient_placements(const Function& global, const Function& local) const {
    const std::vector<std::string> grads = gradient_results(global);
    for (size_t k = 1; k < grads.size() && k < local.results.size(); ++k)
      if (local.results[k]->placements != gradient(grads[k]))
        return make_error("mlc internal error: pipeline stage @" + global.name + " leaves the gradient of '" +
                          grads[k] + "' " + placements_str(local.results[k]->placements) + ", @loss_grad " +
                          placements_str(gradient(grads[k])));
    return {};
  }

  Module& stage_;
  const ParallelPlan& plan_;
  const Mesh& mesh_;
  int64_t data_devices_ = 1;
  std::set<std::string> params_;
  std::map<std::string, Placements> gradients_;  // as @loss_grad leaves them
};

}  // namespace

Status shard_pipeline_stage(Module& stage, const ParallelPlan& plan,
                            std::map<std::string, std::vector<LedgerEntry>>* ledger) {
  return StageSharder(stage, plan).run(ledger);
}

}  // namespace mlc
