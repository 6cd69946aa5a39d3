#include "driver/plan_estimate.h"

#include <atomic>
#include <functional>
#include <set>
#include <thread>

#include "compiler/pass_pipeline.h"
#include "driver/program.h"
#include "frontends/model_depth.h"
#include "ir/op_table.h"
#include "ir/pipeline_stages.h"
#include "passes/optimizer.h"
#include "passes/pipeline_split.h"

namespace mlc {

namespace {

// Every field of `t`, in each()'s order.
template <class T>
std::vector<double*> fields(T& t) {
  std::vector<double*> v;
  t.each([&](double& x) { v.push_back(&x); });
  return v;
}

// a + w * b, field by field (the same map keys in both).
template <class T>
T add_scaled(T a, T b, double w) {
  std::vector<double*> x = fields(a), y = fields(b);
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) *x[i] += w * *y[i];
  return a;
}

// f(1) + (copies - 1) (f(2) - f(1)).
template <class T>
T affine(const T& one, const T& two, double copies) {
  return add_scaled(one, add_scaled(two, one, -1.0), copies - 1);
}

std::string stage_fn(int stage, const char* name) { return "stage" + std::to_string(stage) + "." + name; }

// The cached build of `key`, made by `make` unless it is there; the lock is
// not held while making, so builds of different keys run at once.
template <class T, class K, class F>
Expected<T> cached(std::mutex& mutex, std::map<K, PlanEstimator::Built<T>>& cache, const K& key, F&& make) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) {
      if (it->second.value) return *it->second.value;
      return make_error(it->second.error);
    }
  }
  Expected<T> made = make();
  std::lock_guard<std::mutex> lock(mutex);
  PlanEstimator::Built<T>& b = cache[key];
  if (made) b.value = *made;
  else b.error = made.error().message;
  return made;
}

}  // namespace

Expected<std::unique_ptr<PlanEstimator>> PlanEstimator::create(std::string text, std::string path) {
  std::unique_ptr<PlanEstimator> e(new PlanEstimator());
  MLC_TRY(ModelFile model, ModelFile::parse(text, path));
  if (!model.config().train.phases.empty())
    return make_error(path + ": error: planning: a model trained in phases (train.phases) runs on one device; there "
                      "is no parallel plan to search");
  if (model.config().train.optimizer.type.empty())
    return make_error(path + ": error: planning needs a \"train\" section with an optimizer");
  e->model_ = std::make_unique<ModelFile>(std::move(model));
  MLC_TRY(int64_t copies, model_repeat_copies(text, path));
  e->copies_ = std::max<int64_t>(copies, 0);
  // The shapes need layers before and after the blocks.
  const std::vector<TopLayer>& layers = e->model_->config().layers;
  if (layers.empty() || layers.front().block || layers.back().block) e->copies_ = 0;
  if (e->extrapolated_copies())
    for (int64_t depth : {1, 2, 4}) {
      MLC_TRY(ModelFile m, model_at_depth(text, path, depth));
      e->shallow_[depth] = std::make_unique<ModelFile>(std::move(m));
    }
  e->text_ = std::move(text);
  e->path_ = std::move(path);
  return e;
}

int64_t PlanEstimator::batch() const { return model_->config().trial_batch(); }

int PlanEstimator::max_stages() const {
  const std::vector<TopLayer>& layers = model_->config().layers;
  int cuts = 0;
  for (size_t i = 1; i < layers.size(); ++i) cuts += pipeline_cut_refusal(layers, i).empty();
  return cuts + 1;
}

Expected<StepFigures> PlanEstimator::step_at(const StepKey& key) {
  return cached(mutex_, steps_, key, [&]() -> Expected<StepFigures> {
    const auto& [depth, mesh_text, zero, sequence_parallel] = key;
    const ModelFile& model = at(depth);
    const ModelConfig& config = model.config();
    MLC_TRY(Module module, model.build(config.trial_batch()));
    PassPipelineOptions options;
    options.optimizer = config.train.optimizer;
    options.mixed_precision = config.train.mixed_precision;
    ParallelFlags flags;
    Mesh mesh;
    if (!mesh_text.empty()) {
      MLC_TRY(mesh, Mesh::parse(mesh_text));
      flags.mesh = mesh;
    }
    flags.zero = zero;
    flags.sequence_parallel = sequence_parallel;
    options.parallel = make_parallel_plan(flags, config.parallel);
    std::map<std::string, std::vector<LedgerEntry>> ledger;
    options.ledger = &ledger;
    MLC_CHECK_OK(run_pass_pipeline(module, options));
    const Function& step = *module.find("train_step");
    MLC_TRY(LoweredFunction lowered, lower_for_plan(step));
    StepFigures f;
    for (const MeshAxis& a : mesh.axes) f.axis_us[a.name] = 0;
    double us = 0;
    for (const LedgerEntry& e : ledger["train_step"]) {
      f.axis_us[e.axis] += e.estimated_us;
      us += e.estimated_us;
    }
    f.cost = call_cost(step, lowered, us);
    f.arena = static_cast<double>(lowered.plan.arena_bytes);
    for (size_t i = 0; i < step.args.size(); ++i) {
      const double bytes = static_cast<double>(step.args[i]->type.num_bytes());
      switch (step.arg_kinds[i]) {
        case ArgKind::param:
        case ArgKind::frozen:
        case ArgKind::buffer: f.parameters += bytes; break;
        case ArgKind::state: f.optimizer_state += bytes; break;
        case ArgKind::input: f.inputs += bytes; break;
        default: break;
      }
    }
    return f;
  });
}

Expected<StepFigures> PlanEstimator::sharded_step(const Mesh& mesh, int zero, bool sequence_parallel) {
  // ZeRO 2 is ZeRO 1's program: the sharding pass places optimizer state
  // alike for both, and gradients reach it reduce-scattered either way
  // (passes/sharding.h data_parallel_plan).
  if (zero == 2) zero = 1;
  if (!extrapolated_copies()) return step_at({0, mesh.str(), zero, sequence_parallel});
  MLC_TRY(StepFigures one, step_at({1, mesh.str(), zero, sequence_parallel}));
  MLC_TRY(StepFigures two, step_at({2, mesh.str(), zero, sequence_parallel}));
  return affine(one, two, static_cast<double>(copies_));
}

Expected<PlanEstimator::Pipeline> PlanEstimator::stages_at(const StagesKey& key) {
  return cached(mutex_, stages_, key, [&]() -> Expected<Pipeline> {
    const auto& [depth, split_before, stages, micro] = key;
    const ModelFile& model = at(depth);
    const ModelConfig& config = model.config();
    ParallelPlan plan;
    plan.mesh = Mesh::parse("pp=" + std::to_string(stages)).value();
    plan.micro_batches = static_cast<int>(std::max<int64_t>(1, config.trial_batch() / micro));
    plan.schedule = PipelineScheduleKind::gpipe;
    plan.split_before = split_before;
    const Program program = Program::from_model(model, Backend::compiled, plan);
    Pipeline out;
    std::map<std::string, std::set<int>> readers;  // parameter -> stages
    std::map<std::string, double> param_bytes;
    for (int s = 0; s < stages; ++s) {
      StageFigures st;
      std::map<std::string, std::pair<CallCost, double>> fn;  // cost, arena
      for (const char* name : {"forward", "loss_grad", "loss_grad_input", "loss_grad_weight", "accumulate_grads",
                               "apply_update", "grad_norms"}) {
        if (std::string(name) == "forward" && s + 1 == stages) continue;
        Expected<const Function*> f = program.ir(stage_fn(s, name), micro);
        if (!f) {
          if (std::string(name) == "grad_norms") continue;  // without global-norm clipping
          return f.take_error();
        }
        MLC_TRY(LoweredFunction l, lower_for_plan(**f));
        fn[name] = {call_cost(**f, l), static_cast<double>(l.plan.arena_bytes)};
        const Function& g = **f;
        const std::string n = name;
        for (size_t i = 0; i < g.args.size(); ++i) {
          const Value* a = g.args[i];
          const double bytes = static_cast<double>(a->type.num_bytes());
          const ArgKind kind = g.arg_kinds[i];
          if (n == "loss_grad") {
            if (kind == ArgKind::param || kind == ArgKind::frozen) {
              readers[a->name].insert(s);
              param_bytes[a->name] = bytes;
              st.parameters += bytes;
            }
            if (kind == ArgKind::param) st.gradient_sums += bytes, st.parameter_tensors += 1;
            for (size_t k = 0; k < g.args.size(); ++k)
              if (a->name == pipeline_received_name(k)) st.received += bytes;
          }
          if (n == "apply_update" && kind == ArgKind::state && a->name != kGradNormsArg) st.optimizer_state += bytes;
          if (n == "apply_update" && a->name == kGradNormsArg) st.other_buffers += bytes;
          if (n == "accumulate_grads" && a->name == "grad_scale") st.other_buffers += bytes;
        }
        if (n == "forward")
          for (const Value* r : g.results) {
            st.sent_bytes += static_cast<double>(r->type.num_bytes());
            if (PipelineStageProgram::has_gradient(r->type)) st.seeds += static_cast<double>(r->type.num_bytes());
          }
      }
      auto cost = [&](const char* name) { return fn.count(name) ? fn[name].first : CallCost{}; };
      auto arena = [&](const char* name) { return fn.count(name) ? fn[name].second : 0.0; };
      st.forward = cost("forward");
      st.backward = add_scaled(cost("loss_grad"), cost("accumulate_grads"), 1);
      st.input_grad = cost("loss_grad_input");
      st.weight_grad = add_scaled(cost("loss_grad_weight"), cost("accumulate_grads"), 1);
      st.update = add_scaled(cost("apply_update"), cost("grad_norms"), 1);
      const double common = arena("forward") + arena("accumulate_grads") + arena("apply_update") + arena("grad_norms");
      st.arena_whole = common + arena("loss_grad");
      st.arena_split = common + arena("loss_grad_input") + arena("loss_grad_weight");
      out.stages.push_back(st);
    }
    for (const auto& [name, stages_reading] : readers) {
      if (stages_reading.size() < 2) continue;
      out.shared_gradients += param_bytes[name];
      for (int s : stages_reading) out.stages[static_cast<size_t>(s)].shared_gradients += param_bytes[name];
    }
    return out;
  });
}

std::vector<PlanEstimator::StagesKey> PlanEstimator::shape_keys(int64_t micro) const {
  // The names of the blocks and of the first layer after them, at a depth.
  auto names = [&](int64_t depth) {
    std::vector<std::string> blocks;
    std::string post;
    for (const TopLayer& l : at(depth).config().layers) {
      if (l.block) blocks.push_back(l.name);
      else if (!blocks.empty() && post.empty()) post = l.name;
    }
    return std::pair{blocks, post};
  };
  const auto [blocks2, post2] = names(2);
  const auto [blocks4, post4] = names(4);
  return {{2, {blocks2[0], blocks2[1], post2}, 4, micro},  // [pre | block | block | post]
          {2, {blocks2[1]}, 2, micro},                     // [pre + block | block + post]
          {4, {blocks4[2]}, 2, micro},                     // [pre + 2 blocks | 2 blocks + post]
          {4, {blocks4[1], blocks4[3]}, 3, micro}};        // [pre + block | 2 blocks | block + post]
}

Expected<std::vector<int64_t>> PlanEstimator::layer_flops(int64_t micro) {
  return cached(mutex_, flops_, micro, [&]() -> Expected<std::vector<int64_t>> {
    // Forward FLOPs per layer at the micro-batch, as the runtime cuts (driver/program.cc).
    const ModelFile& one = at(1);
    MLC_TRY(Module m, one.build(micro));
    PassPipelineOptions options;
    options.mixed_precision = one.config().train.mixed_precision;
    MLC_CHECK_OK(run_pass_pipeline(m, options, "autocast"));
    const Function& loss = *m.find("loss");
    const std::vector<size_t> op_layer = pipeline_op_layers(loss, one.config().layers);
    std::vector<int64_t> flops(one.config().layers.size(), 0);
    for (size_t k = 0; k < loss.ops.size(); ++k) flops[op_layer[k]] += op_cost(*loss.ops[k]).flops;
    return flops;
  });
}

Expected<std::vector<size_t>> PlanEstimator::cuts(int stages, int64_t micro) {
  MLC_TRY(std::vector<int64_t> flops, layer_flops(micro));
  const std::vector<TopLayer>& shallow = at(1).config().layers;
  std::vector<int64_t> cost;
  for (const TopLayer& l : model_->config().layers) {
    size_t i = 0;
    while (i < shallow.size() && (l.block ? !shallow[i].block : shallow[i].name != l.name)) ++i;
    cost.push_back(i < shallow.size() ? flops[i] : 0);
  }
  return balanced_pipeline_cuts(model_->config().layers, cost, stages);
}

Expected<PlanEstimator::Pipeline> PlanEstimator::pipeline_stages(int stages, int64_t micro) {
  if (!extrapolated_copies()) {
    std::vector<std::string> split = model_->config().parallel.pipeline.split_before;
    if (split.size() + 1 != static_cast<size_t>(stages)) split.clear();
    return stages_at({0, split, stages, micro});
  }
  const std::vector<StagesKey> keys = shape_keys(micro);
  MLC_TRY(Pipeline ends0, stages_at(keys[0]));
  MLC_TRY(Pipeline ends1, stages_at(keys[1]));
  MLC_TRY(Pipeline ends2, stages_at(keys[2]));
  MLC_TRY(Pipeline middle2, stages_at(keys[3]));
  // What one more block adds to a first, middle and last stage.
  const StageFigures first_block = add_scaled(ends2.stages[0], ends1.stages[0], -1);
  const StageFigures middle_block = add_scaled(middle2.stages[1], ends0.stages[1], -1);
  const StageFigures last_block = add_scaled(ends2.stages[1], ends1.stages[1], -1);
  MLC_TRY(std::vector<size_t> at_cut, cuts(stages, micro));
  const std::vector<TopLayer>& layers = model_->config().layers;
  Pipeline p;
  for (int s = 0; s < stages; ++s) {
    const size_t begin = s == 0 ? 0 : at_cut[static_cast<size_t>(s - 1)];
    const size_t end = s + 1 == stages ? layers.size() : at_cut[static_cast<size_t>(s)];
    int64_t k = 0;
    for (size_t i = begin; i < end; ++i) k += layers[i].block;
    const bool first = s == 0, last = s + 1 == stages;
    const StageFigures& shape = first ? (k == 0 ? ends0.stages[0] : ends1.stages[0])
                                : last ? (k == 0 ? ends0.stages[3] : ends1.stages[1])
                                       : ends0.stages[1];
    const StageFigures& block = first ? first_block : last ? last_block : middle_block;
    p.stages.push_back(add_scaled(shape, block, static_cast<double>(std::max<int64_t>(k - 1, 0))));
  }
  p.shared_gradients = ends1.shared_gradients;
  return p;
}

void PlanEstimator::prepare(const std::vector<std::tuple<Mesh, int, bool>>& steps,
                            const std::vector<std::pair<int, int64_t>>& pipelines, int threads) {
  std::set<StepKey> step_keys;
  std::set<StagesKey> stage_keys;
  std::set<int64_t> flops;
  for (auto [mesh, zero, sp] : steps) {
    if (zero == 2) zero = 1;
    for (int64_t depth : extrapolated_copies() ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{0})
      step_keys.insert({depth, mesh.str(), zero, sp});
  }
  for (const auto& [stages, micro] : pipelines) {
    if (!extrapolated_copies()) {
      std::vector<std::string> split = model_->config().parallel.pipeline.split_before;
      if (split.size() + 1 != static_cast<size_t>(stages)) split.clear();
      stage_keys.insert({0, split, stages, micro});
      continue;
    }
    for (const StagesKey& k : shape_keys(micro)) stage_keys.insert(k);
    flops.insert(micro);
  }
  std::vector<std::function<void()>> jobs;
  for (const StepKey& k : step_keys) jobs.push_back([this, k] { (void)step_at(k); });
  for (const StagesKey& k : stage_keys) jobs.push_back([this, k] { (void)stages_at(k); });
  for (int64_t micro : flops) jobs.push_back([this, micro] { (void)layer_flops(micro); });
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) jobs[j]();
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace mlc
