#include "passes/pipeline_split.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/pipeline_stages.h"
#include "passes/autodiff.h"
#include "passes/optimizer.h"
#include "passes/pass.h"

namespace mlc {

std::string pipeline_received_name(size_t k) { return "pipe.in." + std::to_string(k); }
std::string pipeline_seed_name(size_t k) { return "pipe.out." + std::to_string(k) + ".grad"; }

bool PipelineStageProgram::has_gradient(const TensorType& t) { return is_float(t.dtype); }

namespace {

// The values crossing cut `cut` (see the header), in program order of their producers.
std::vector<const Value*> crossing_values(const Function& f, const std::vector<int>& op_stage, int cut) {
  std::unordered_map<const Value*, int> produced_in;
  std::unordered_set<const Value*> read_later;
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Op& op = *f.ops[i];
    if (op_stage[i] > cut)
      for (const Value* v : op.operands) read_later.insert(v);
    if (op_stage[i] <= cut && !op.operands.empty())
      for (const Value* r : op.results) produced_in[r] = op_stage[i];
  }
  std::vector<const Value*> out;
  for (const auto& op : f.ops)
    for (const Value* r : op->results)
      if (produced_in.count(r) && read_later.count(r)) out.push_back(r);
  return out;
}

// The stages whose ops read each argument of @loss, ascending.
std::unordered_map<const Value*, std::vector<int>> argument_readers(const Function& loss,
                                                                    const std::vector<int>& op_stage) {
  std::unordered_map<const Value*, std::vector<int>> readers;
  for (size_t i = 0; i < loss.ops.size(); ++i)
    for (const Value* v : loss.ops[i]->operands) {
      if (v->producer) continue;
      std::vector<int>& s = readers[v];
      if (std::find(s.begin(), s.end(), op_stage[i]) == s.end()) s.push_back(op_stage[i]);
    }
  for (auto& [v, s] : readers) std::sort(s.begin(), s.end());
  return readers;
}

// What a pipeline does not carry: buffer updates and dynamic loss scaling.
Status check_stage_arguments(const Function& loss) {
  for (size_t a = 0; a < loss.args.size(); ++a) {
    if (loss.arg_kinds[a] == ArgKind::buffer)
      return make_error("error: pipeline: the forward updates buffer '" + loss.args[a]->name +
                        "' (BatchNorm's running statistics); pipeline stages do not carry buffer updates yet");
    if (loss.arg_kinds[a] == ArgKind::state && loss.args[a]->name == kLossScaleArg)
      return make_error("error: pipeline: dynamic loss scaling (train.mixed_precision with f16) is not "
                        "supported on a pipeline");
  }
  return {};
}

// Builds @<name>: stage `stage`'s ops of `loss` with the arguments they read
// and its received values as pipe.in.K; `map` gets @loss's values to the new function's.
Function& build_stage_body(Module& module, const std::string& name, const Function& loss,
                           const std::vector<int>& op_stage, int stage, const std::vector<const Value*>& received,
                           std::unordered_map<const Value*, Value*>& map) {
  Function& f = module.add_function(name);
  // Ops of the stage, and the operand-less ops they read (copied, not sent).
  std::unordered_set<const Value*> read;
  for (size_t i = 0; i < loss.ops.size(); ++i)
    if (op_stage[i] == stage)
      for (const Value* v : loss.ops[i]->operands) read.insert(v);
  std::vector<const Op*> ops;
  for (size_t i = 0; i < loss.ops.size(); ++i) {
    const Op& op = *loss.ops[i];
    const bool copied = op.operands.empty() &&
                        std::any_of(op.results.begin(), op.results.end(), [&](const Value* r) { return read.count(r); });
    if (op_stage[i] == stage || copied) ops.push_back(&op);
  }
  for (size_t a = 0; a < loss.args.size(); ++a)
    if (read.count(loss.args[a]))
      (map[loss.args[a]] = f.add_arg(loss.args[a]->name, loss.args[a]->type, loss.arg_kinds[a]))->placements =
          loss.args[a]->placements;
  for (size_t k = 0; k < received.size(); ++k)
    map[received[k]] = f.add_arg(pipeline_received_name(k), received[k]->type, ArgKind::input);
  for (const Op* op : ops) {
    std::vector<Value*> operands;
    for (const Value* v : op->operands) operands.push_back(map.at(v));
    std::vector<TensorType> types;
    for (const Value* r : op->results) types.push_back(r->type);
    Op* copy = f.insert_op(f.ops.size(), op->code, std::move(operands), op->attrs, std::move(types), op->loc);
    copy->meta = op->meta;
    copy->body = op->body;
    for (size_t k = 0; k < op->results.size(); ++k) map[op->results[k]] = copy->results[k];
  }
  return f;
}

}  // namespace

Expected<PipelineStageProgram> build_pipeline_stage(const Module& built, const std::vector<TopLayer>& layers,
                                                    const std::vector<size_t>& cuts, int stage,
                                                    const OptimizerConfig& optimizer) {
  const Function* loss = built.find("loss");
  if (!loss) return make_error("mlc internal error: pipeline: the module has no @loss");
  const int stages = static_cast<int>(cuts.size()) + 1;
  if (stage < 0 || stage >= stages)
    return make_error("mlc internal error: pipeline: no stage " + std::to_string(stage) + " of " +
                      std::to_string(stages));
  const std::vector<int> op_stage = pipeline_op_stages(*loss, layers, cuts);
  MLC_CHECK_OK(check_stage_arguments(*loss));
  for (size_t k = 1; k < loss->results.size(); ++k)
    if (loss->updated_arg(k) >= 0)
      return make_error("error: pipeline: the forward updates '" + loss->args[static_cast<size_t>(loss->updated_arg(k))]->name +
                        "'; pipeline stages do not carry buffer updates yet");

  PipelineStageProgram out;
  Module& m = out.module;
  m.name = built.name;
  m.attrs = built.attrs;
  // The callees of calls (custom ops and their VJPs) stay available.
  for (const auto& f : built.functions)
    if (f->name != "loss" && f->name != "eval" && f->name != "loss_grad") m.functions.push_back(f->clone());

  const bool last = stage + 1 == stages;
  const std::vector<const Value*> received = stage > 0 ? crossing_values(*loss, op_stage, stage - 1)
                                                       : std::vector<const Value*>{};
  const std::vector<const Value*> sent = last ? std::vector<const Value*>{} : crossing_values(*loss, op_stage, stage);
  for (const Value* v : received) out.received.push_back(v->type);
  for (const Value* v : sent) out.sent.push_back(v->type);

  if (!last) {
    std::unordered_map<const Value*, Value*> map;
    Function& fwd = build_stage_body(m, "forward", *loss, op_stage, stage, received, map);
    for (const Value* v : sent) fwd.results.push_back(map.at(v));
  }
  // The function autodiff differentiates, named @loss so that its gradient is @loss_grad.
  std::unordered_map<const Value*, Value*> map;
  Function& body = build_stage_body(m, "loss", *loss, op_stage, stage, received, map);
  if (last) {
    body.results.push_back(map.at(loss->results[0]));
  } else {
    Builder b(body);
    Value* seeded = nullptr;
    for (size_t k = 0; k < sent.size(); ++k) {
      if (!PipelineStageProgram::has_gradient(sent[k]->type)) continue;
      Value* seed = body.add_arg(pipeline_seed_name(k), sent[k]->type, ArgKind::input);
      std::vector<int64_t> dims(static_cast<size_t>(sent[k]->type.rank()));
      for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d);
      Value* term = b.reduce_sum(b.mul(map.at(sent[k]), seed), dims, false);
      if (term->type.dtype != DType::f32) term = b.cast(term, DType::f32);
      seeded = seeded ? b.add(seeded, term) : term;
    }
    body.results.push_back(seeded ? seeded : b.scalar(0.0, DType::f32));
  }
  // Evaluation through the stages: @eval's ops cut the same way (its own crossings).
  if (const Function* eval = built.find("eval")) {
    const std::vector<int> eval_stage = pipeline_op_stages(*eval, layers, cuts);
    const std::vector<const Value*> eval_in = stage > 0 ? crossing_values(*eval, eval_stage, stage - 1)
                                                        : std::vector<const Value*>{};
    std::unordered_map<const Value*, Value*> eval_map;
    Function& e = build_stage_body(m, last ? "eval" : "eval_forward", *eval, eval_stage, stage, eval_in, eval_map);
    if (last) {
      for (const Value* r : eval->results) e.results.push_back(eval_map.at(r));
    } else {
      for (const Value* v : crossing_values(*eval, eval_stage, stage)) e.results.push_back(eval_map.at(v));
    }
  }
  std::vector<size_t> also_wrt;
  for (size_t k = 0; k < received.size(); ++k)
    if (PipelineStageProgram::has_gradient(received[k]->type))
      for (size_t a = 0; a < body.args.size(); ++a)
        if (body.args[a]->name == pipeline_received_name(k)) also_wrt.push_back(a);
  // The split halves first (differentiate names its result @loss_grad).
  MLC_TRY(Function * input_half, differentiate(m, body, also_wrt, false));
  input_half->name = "loss_grad_input";
  MLC_TRY(Function * weight_half, differentiate(m, body, {}));
  weight_half->name = "loss_grad_weight";
  MLC_TRY(Function * grad, differentiate(m, body, also_wrt));
  (void)grad;
  // The model's squared gradient norms, each counted by the first stage reading its parameter.
  const std::unordered_map<const Value*, std::vector<int>> readers = argument_readers(*loss, op_stage);
  SplitUpdate split;
  for (size_t a = 0; a < loss->args.size(); ++a) {
    if (loss->arg_kinds[a] != ArgKind::param) continue;
    auto it = readers.find(loss->args[a]);
    if (it != readers.end() && std::find(it->second.begin(), it->second.end(), stage) != it->second.end()) {
      split.norm_index.push_back(it->second.front() == stage ? split.norm_count : -1);
      if (it->second.size() > 1) out.shared_params.push_back(loss->args[a]->name);
    }
    ++split.norm_count;
  }
  MLC_CHECK_OK(build_update_functions(m, optimizer, {}, &split));
  for (const char* pass : {"decompose", "canonicalize"}) {
    std::unique_ptr<Pass> p = create_pass(pass);
    MLC_TRY(bool changed, p->run(m));
    (void)changed;
  }
  return out;
}

}  // namespace mlc
