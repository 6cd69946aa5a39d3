// Gradient accumulation (train.grad_accumulation_steps, `mlc run --grad-accum
// K`; driver/step_schedule.h), beyond the PyTorch oracle (training_test.cc):
//  - the schedules: [@train_step] for K = 1, K x [@loss_grad, @accumulate_grads]
//    then [@apply_update] for K > 1;
//  - the accumulated gradient equals the whole batch's within the bound of
//    reordered f32 sums (derived below, per element);
//  - K = 2 and 4 train as K = 1 does within a stated tolerance (SGD with
//    momentum and AdamW on the digits MLP);
//  - the model file's field (JSON and the model language) and the flag, and
//    their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "frontends/model_file.h"
#include "runtime/dataset.h"
#include "runtime/parameters.h"
#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"
#include "driver/program.h"
#include "driver/rank.h"
#include "driver/step_runner.h"
#include "driver/step_schedule.h"
#include "driver/train.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
using testing::slurp;

constexpr double kU = 0x1p-24;  // f32's unit roundoff

std::string scratch(const std::string& name) {
  const fs::path dir = testing::scratch_dir("mlc_grad_accum") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// examples/digits_mlp.json with `edit` applied to its "train" section, in
// `dir` (its data is given by TrainOptions::data_path).
std::string digits_mlp(const std::string& dir, const std::function<void(nlohmann::ordered_json&)>& edit) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(slurp("examples/digits_mlp.json"));
  edit(j["train"]);
  const std::string path = dir + "/model.json";
  std::ofstream(path) << j.dump(1);
  return path;
}

ModelFile load(const std::string& path) {
  auto m = ModelFile::load(path);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

// The schedules build_step_schedule makes, call by call.
TEST(StepSchedule, OneCallWithoutAccumulationAndMicroBatchCallsWithIt) {
  ModelFile model = load("examples/digits_mlp.json");
  const Program program = Program::from_model(model, Backend::compiled);
  FunctionCache functions(program);
  Rank rank;
  rank.functions = &functions;
  auto one = build_step_schedule(rank, 32, 1);
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one->calls.size(), 1u);
  EXPECT_EQ(one->calls[0].function, "train_step");
  EXPECT_EQ(one->calls[0].batch, 32);
  EXPECT_EQ(one->calls[0].loss, std::optional<size_t>(0));
  EXPECT_TRUE(one->buffers.empty());
  EXPECT_EQ(optimizer_state_function(1), "train_step");

  auto four = build_step_schedule(rank, 32, 4);
  ASSERT_TRUE(four.ok()) << four.error().message;
  std::vector<std::string> calls;
  for (const StepSchedule::Call& c : four->calls) {
    calls.push_back(c.function + "(" + std::to_string(c.batch) + ") mb" + std::to_string(c.micro_batch));
    EXPECT_EQ(c.loss.has_value(), c.function == "loss_grad");
  }
  EXPECT_EQ(calls, (std::vector<std::string>{"loss_grad(8) mb0", "accumulate_grads(8) mb0", "loss_grad(8) mb1",
                                             "accumulate_grads(8) mb1", "loss_grad(8) mb2", "accumulate_grads(8) mb2",
                                             "loss_grad(8) mb3", "accumulate_grads(8) mb3", "apply_update(8) mb0"}));
  EXPECT_EQ(four->micro_batches, 4);
  EXPECT_EQ(optimizer_state_function(4), "apply_update");
  auto bad = build_step_schedule(rank, 32, 5);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "mlc internal error: no step schedule for 5 micro-batches of a batch of 32");
}

// Arguments of `f` by kind and name: model inputs from `batch`, parameters
// from `params`, the step counter.
std::vector<rt::Tensor*> bind_args(const StepFunction& f, const ModelConfig& config, std::vector<rt::Tensor>& batch,
                              std::vector<rt::NamedTensor>& params, rt::Tensor* step) {
  std::vector<rt::Tensor*> args;
  for (const Signature::Arg& a : f.signature().args) {
    rt::Tensor* t = a.kind == ArgKind::step ? step : nullptr;
    for (size_t j = 0; j < config.inputs.size() && a.kind == ArgKind::input; ++j)
      if (config.inputs[j].name == a.name) t = &batch[j];
    for (rt::NamedTensor& p : params)
      if (p.name == a.name && a.kind != ArgKind::input) t = &p.tensor;
    EXPECT_NE(t, nullptr) << a.name;
    args.push_back(t);
  }
  return args;
}

// The accumulated gradient of K micro-batches against @loss_grad of the whole
// batch of B = 32, on the same parameters and rows. Both are f32 sums of the
// same B per-example terms t_i (the mean's 1/B and 1/K scalings are powers of
// two, exact), added in different orders: each computed sum of n terms is
// within (n-1)u * sum|t_i| of the exact one (Higham, Accuracy and Stability
// of Numerical Algorithms, 4.2), so |acc - whole| <= 2(B-1)u * sum|t_i| per
// element, with S = sum|t_i| measured from @loss_grad of each example alone.
// The largest |acc - whole| / (u S) measured is printed; the bound is 2(B-1) = 62.
TEST(GradAccumulation, AccumulatedGradientIsTheWholeBatchsWithinTheSummationBound) {
  ModelFile model = load("examples/digits_mlp.json");
  const ModelConfig& config = model.config();
  const Program program = Program::from_model(model, Backend::compiled);
  FunctionCache functions(program);
  Rank rank;
  rank.functions = &functions;
  auto data = rt::read_safetensors("examples/data/digits.safetensors");
  ASSERT_TRUE(data.ok()) << data.error().message;
  auto split = rt::Split::load(*data, config.data.train, config.inputs, "train");
  ASSERT_TRUE(split.ok()) << split.error().message;
  constexpr int64_t B = 32;
  std::vector<int64_t> rows(B);
  for (int64_t i = 0; i < B; ++i) rows[i] = 3 * i + 1;  // not the first batch, not contiguous
  std::vector<rt::NamedTensor> params = rt::init_parameters(config.params, 0);
  rt::Tensor step(DType::i64, {});
  step.data<int64_t>()[0] = 1;

  // The whole batch's gradients, and S per element from each example's.
  auto whole = functions.get("loss_grad", B);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  std::vector<rt::Tensor> batch;
  split->gather_into(rows, batch);
  ASSERT_TRUE(whole->run(bind_args(*whole, config, batch, params, &step)).ok());
  auto one = functions.get("loss_grad", 1);
  ASSERT_TRUE(one.ok()) << one.error().message;
  std::vector<std::string> names;
  for (const Signature::Arg& a : whole->signature().args)
    if (a.kind == ArgKind::param) names.push_back(a.name);
  std::vector<std::vector<double>> abs_sum(names.size());
  for (size_t p = 0; p < names.size(); ++p) abs_sum[p].assign(whole->result(1 + p).num_elements(), 0.0);
  std::vector<rt::Tensor> example;
  for (int64_t i = 0; i < B; ++i) {
    split->gather_into(std::span<const int64_t>(rows).subspan(i, 1), example);
    ASSERT_TRUE(one->run(bind_args(*one, config, example, params, &step)).ok());
    for (size_t p = 0; p < names.size(); ++p)
      for (int64_t e = 0; e < one->result(1 + p).num_elements(); ++e)
        abs_sum[p][e] += std::fabs(one->result(1 + p).data<float>()[e]) / B;
  }

  for (int64_t k : {2, 4}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    auto schedule = build_step_schedule(rank, B, k);
    ASSERT_TRUE(schedule.ok()) << schedule.error().message;
    auto runner = StepRunner::create(*schedule, rank, false);
    ASSERT_TRUE(runner.ok()) << runner.error().message;
    std::vector<rt::NamedTensor> p2 = params, state;  // SGD with momentum: zero momentum buffers
    for (const StepRunner::Compiled& f : runner->functions())
      if (f.name == "apply_update")
        for (const Signature::Arg& a : f.fn.signature().args)
          if (a.kind == ArgKind::state) state.push_back({a.name, rt::Tensor(a.type)});
    ASSERT_TRUE(runner->bind(config, p2, state, &step).ok());
    for (int64_t j = 0; j < k; ++j)
      split->gather_into(std::span<const int64_t>(rows).subspan(j * B / k, B / k), runner->inputs(j));
    ASSERT_TRUE(runner->run().ok());
    double worst = 0;
    for (size_t p = 0; p < names.size(); ++p) {
      const rt::Tensor* acc = runner->buffer(names[p] + ".grad");
      ASSERT_NE(acc, nullptr) << names[p];
      const rt::Tensor& want = whole->result(1 + p);
      ASSERT_EQ(acc->type(), want.type());
      for (int64_t e = 0; e < want.num_elements(); ++e) {
        const double diff = std::fabs(double(acc->data<float>()[e]) - want.data<float>()[e]);
        const double bound = 2 * (B - 1) * kU * abs_sum[p][e];
        EXPECT_LE(diff, bound) << names[p] << "[" << e << "]";
        if (abs_sum[p][e] > 0) worst = std::max(worst, diff / (kU * abs_sum[p][e]));
      }
    }
    std::printf("K=%lld: max |accumulated - whole| / (u * sum|t_i|) = %.2f (bound %lld)\n",
                static_cast<long long>(k), worst, static_cast<long long>(2 * (B - 1)));
  }
}

struct Trained {
  std::vector<double> losses;
  std::vector<rt::NamedTensor> params;
};

Trained train_digits(const ModelFile& model, std::optional<int64_t> k, const std::string& dir) {
  TrainOptions o;
  o.steps = 10;
  o.data_path = "examples/data/digits.safetensors";
  o.save_path = dir + "/final.safetensors";
  o.grad_accumulation_steps = k;
  Trained r;
  o.on_step = [&](int64_t, double loss) { r.losses.push_back(loss); };
  auto s = train(model, o);
  EXPECT_TRUE(s.ok()) << s.error().message;
  auto saved = rt::read_safetensors(o.save_path);
  EXPECT_TRUE(saved.ok());
  if (saved.ok())
    for (const rt::SafetensorsEntry& e : saved->entries) r.params.push_back({e.name, e.tensor});
  return r;
}

// Ten steps of the digits MLP with K = 2 and 4 against K = 1 (and K = 1 given
// explicitly against none: the same bytes). The step's gradients differ from
// K = 1's only by the reordered sums bounded above (2(B-1) u * sum|t_i|; the
// test above measures up to 34 u * sum|t_i|); ten updates at lr 0.1 (SGD,
// momentum 0.9) or 0.01 (AdamW) carry them into the parameters and losses.
// Measured: losses within 7e-8 relative (about one f32 ulp), parameters
// within 2.4e-7 of each tensor's largest |p| for SGD and 4.8e-6 for AdamW,
// whose update divides each element by its own gradient's magnitude, so that
// elements with nearly cancelling gradients turn the sums' small absolute
// error into a large relative one of their step. Checked: losses at 1e-5
// relative (the oracle tolerance of training_test.cc), parameters at 2e-5 of
// max|p|; either catches a missing or doubled 1/K (errors of order 1).
TEST(GradAccumulation, TrainsAsTheWholeBatchDoes) {
  for (const std::string optimizer : {"sgd", "adamw"}) {
    SCOPED_TRACE(optimizer);
    const std::string dir = scratch(optimizer);
    ModelFile model = load(digits_mlp(dir, [&](nlohmann::ordered_json& t) {
      if (optimizer == "adamw") t["optimizer"] = {{"type", "adamw"}, {"lr", 0.01}, {"weight_decay", 0.01}};
    }));
    const Trained base = train_digits(model, std::nullopt, scratch(optimizer + "_base"));
    const Trained explicit_one = train_digits(model, 1, scratch(optimizer + "_k1"));
    EXPECT_EQ(base.losses, explicit_one.losses);
    ASSERT_EQ(base.params.size(), explicit_one.params.size());
    for (size_t p = 0; p < base.params.size(); ++p)
      EXPECT_EQ(std::memcmp(base.params[p].tensor.bytes(), explicit_one.params[p].tensor.bytes(),
                            base.params[p].tensor.num_bytes()), 0) << base.params[p].name;
    for (int64_t k : {2, 4}) {
      SCOPED_TRACE("K = " + std::to_string(k));
      const Trained r = train_digits(model, k, scratch(optimizer + "_k" + std::to_string(k)));
      ASSERT_EQ(r.losses.size(), base.losses.size());
      double worst_loss = 0, worst_param = 0;
      for (size_t s = 0; s < r.losses.size(); ++s) {
        const double rel = std::fabs(r.losses[s] - base.losses[s]) / std::fabs(base.losses[s]);
        EXPECT_LE(rel, 1e-5) << "step " << s << ": " << r.losses[s] << " vs " << base.losses[s];
        worst_loss = std::max(worst_loss, rel);
      }
      ASSERT_EQ(r.params.size(), base.params.size());
      for (size_t p = 0; p < r.params.size(); ++p) {
        const rt::Tensor &got = r.params[p].tensor, &want = base.params[p].tensor;
        double max_diff = 0, max_abs = 0;
        for (int64_t e = 0; e < want.num_elements(); ++e) {
          max_diff = std::max<double>(max_diff, std::fabs(got.data<float>()[e] - want.data<float>()[e]));
          max_abs = std::max<double>(max_abs, std::fabs(want.data<float>()[e]));
        }
        EXPECT_LE(max_diff, 2e-5 * max_abs) << r.params[p].name;
        worst_param = std::max(worst_param, max_diff / max_abs);
      }
      std::printf("%s K=%lld: losses within %.2e relative, parameters within %.2e of max|p|\n", optimizer.c_str(),
                  static_cast<long long>(k), worst_loss, worst_param);
    }
  }
}

// The field in the model language, and the flag's and field's errors.
TEST(GradAccumulation, FieldFlagAndErrors) {
  const std::string dir = scratch("field");
  // The model language: the train section is the file's last.
  std::ofstream(dir + "/model.mlc") << slurp("examples/digits_mlp.mlc") << "    grad_accumulation_steps = 4\n";
  ModelFile mlc = load(dir + "/model.mlc");
  EXPECT_EQ(mlc.config().train.grad_accumulation_steps, 4);
  EXPECT_EQ(load("examples/digits_mlp.json").config().train.grad_accumulation_steps, 1);

  std::ofstream(dir + "/three.mlc") << slurp("examples/digits_mlp.mlc") << "    grad_accumulation_steps = 3\n";
  auto three = ModelFile::load(dir + "/three.mlc");
  ASSERT_FALSE(three.ok());
  EXPECT_NE(three.error().message.find("error: 'grad_accumulation_steps': must divide batch_size 32 (each step "
                                       "takes 3 micro-batches of equal size), got 3"),
            std::string::npos)
      << three.error().message;

  testing::RunResult r = testing::run_mlc("run examples/digits_mlp.json --steps 1 --grad-accum 5");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("examples/digits_mlp.json: error: --grad-accum 5 must divide train.batch_size 32 (each "
                       "step takes 5 micro-batches of equal size)"),
            std::string::npos)
      << r.err;
  r = testing::run_mlc("run examples/digits_mlp.json --steps 1 --grad-accum 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--grad-accum needs an integer >= 1, got '0'"), std::string::npos) << r.err;
  r = testing::run_mlc("run examples/digits_mlp.json --steps 1 --grad-accum 2 --mesh dp=2");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("examples/digits_mlp.json: error: --grad-accum 2 with --mesh dp=2: gradient accumulation "
                       "is not supported on a mesh yet"),
            std::string::npos)
      << r.err;
  r = testing::run_mlc("run examples/digits_mlp.json --steps 3 --grad-accum 2 --metrics " + dir + "/m.jsonl");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(testing::read_metrics(dir + "/m.jsonl").losses.size(), 3u);
  EXPECT_NE(slurp(dir + "/m.jsonl").find("\"grad_accumulation_steps\":2"), std::string::npos);

  // An artifact of a model file with K = 2 holds the schedule's functions and
  // trains as the model file does; another K needs another compilation.
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(slurp("examples/digits_mlp.json"));
  j["train"]["grad_accumulation_steps"] = 2;
  j["data"]["file"] = fs::absolute("examples/data/digits.safetensors").string();
  std::ofstream(dir + "/k2.json") << j.dump(1);
  r = testing::run_mlc("compile " + dir + "/k2.json -o " + dir + "/k2.mlcx");
  ASSERT_EQ(r.status, 0) << r.err;
  r = testing::run_mlc("run " + dir + "/k2.mlcx --steps 3 --metrics " + dir + "/artifact.jsonl");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(testing::read_metrics(dir + "/artifact.jsonl").losses, testing::read_metrics(dir + "/m.jsonl").losses);
  r = testing::run_mlc("run " + dir + "/k2.mlcx --steps 1 --grad-accum 4");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("k2.mlcx: error: the artifact has no @apply_update for batches of 8 (it has batches of 16); "
                       "compile the model with train.grad_accumulation_steps set to this run's"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace mlc
