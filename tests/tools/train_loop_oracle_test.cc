// Training-loop features against PyTorch (tests/oracle/train_loop.py, torch
// 1.13, recorded in tests/data/train_loop): train.accumulate (K batches per
// optimizer step, driver/accumulate.h), ReduceLROnPlateau (schedule
// "plateau", driver/lr_plateau.h) and torch.optim.LBFGS (driver/lbfgs.h),
// each on the compiled backend and the interpreter. Losses are checked at
// 1e-5 relative and final parameters at 1e-5 absolute, training_test.cc's
// tolerances for f32 runs whose sums PyTorch orders differently. LBFGS
// amplifies rounding from step to step; its cases are ones where torch
// itself, perturbed by 1e-7 relative or run in f64, moves by at most 6.6e-7
// (tests/oracle/train_loop.py), so 1e-5 tests the algorithm
// (driver/lbfgs_step.h: dot products ulps apart from torch's BLAS), with and
// without the strong Wolfe line search (driver/lbfgs_wolfe.h).
// Also: a plateau run resumed from a checkpoint ends bit for bit where the
// run without a stop ends, and the loop's refusals name what conflicts.
#include <gtest/gtest.h>

#include "ir/dtype.h"
#include "ir/lr_plateau_state.h"
#include "tests/tools/oracle_compare.h"
#include "driver/program.h"
#include "driver/accumulate.h"
#include "driver/lr_plateau.h"

namespace mlc {
namespace {

using namespace mlc::oracle;

const std::string kRef = "tests/data/train_loop/";

struct Case {
  std::string name;
  Backend backend;
};

std::string label(const Case& c) { return c.name + (c.backend == Backend::interp ? "_interp" : "_compiled"); }
std::string case_name(const ::testing::TestParamInfo<Case>& info) { return label(info.param); }

std::vector<Case> cases(const std::vector<std::string>& names) {
  std::vector<Case> all;
  for (const std::string& n : names)
    for (Backend b : {Backend::compiled, Backend::interp}) all.push_back({n, b});
  return all;
}

// Trains recorded case `c` from `init` (with `data`, else the model file's)
// against PyTorch's losses and final parameters; returns the run's folder.
std::string expect_case_matches(const Case& c, const std::string& init, const std::string& data = "") {
  ModelFile model = load_model(kRef + c.name + ".json");
  TrainOptions o;
  o.backend = c.backend;
  o.init_path = init;
  o.data_path = data;
  const std::string dir = temp_dir(label(c));
  expect_training_matches(model, o, dir, kRef + c.name + ".losses.json", kRef + c.name + ".final.safetensors", 1e-5);
  return dir;
}

// The classifier's cases train on tests/data/optimizers' data and initial weights.
class ClassifierLoop : public ::testing::TestWithParam<Case> {};

TEST_P(ClassifierLoop, MatchesPyTorch) {
  expect_case_matches(GetParam(), "tests/data/optimizers/init.safetensors", "tests/data/optimizers/data.safetensors");
}

INSTANTIATE_TEST_SUITE_P(Recorded, ClassifierLoop,
                         ::testing::ValuesIn(cases({"accumulate_sgd_k3", "accumulate_adamw_k2_epoch_step",
                                                    "plateau_sgd_loss", "plateau_adam_accuracy"})),
                         case_name);

// The regressions train on tests/data/train_loop/lbfgs_data.safetensors from their own initial weights.
class LbfgsLoop : public ::testing::TestWithParam<Case> {};

// Besides the losses, the closure's calls over the run equal torch's
// state["func_evals"]: the same iterations, line-search trials and stops.
TEST_P(LbfgsLoop, MatchesPyTorch) {
  const Case& c = GetParam();
  const std::string dir = expect_case_matches(c, kRef + c.name + ".init.safetensors");
  int64_t evals = -1;
  std::ifstream in(dir + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);)
    if (auto j = nlohmann::json::parse(line); j.contains("func_evals")) evals = j["func_evals"];
  EXPECT_EQ(evals, read_json(kRef + c.name + ".losses.json")["func_evals"].get<int64_t>());
}

INSTANTIATE_TEST_SUITE_P(Recorded, LbfgsLoop,
                         ::testing::ValuesIn(cases({"lbfgs_tanh", "lbfgs_linear", "lbfgs_wolfe"})),
                         case_name);

// The scheduler's state is optimizer state: 6 steps, a checkpoint, then
// --resume for the other 6 ends on the straight run's parameters bit for bit
// (the lr drops after step 6's evaluation, which both runs make).
TEST(PlateauResume, ContinuesBitForBit) {
  ModelFile model = load_model(kRef + "plateau_sgd_loss.json");
  const std::string dir = temp_dir("plateau_resume");
  TrainOptions straight;
  straight.init_path = "tests/data/optimizers/init.safetensors";
  straight.data_path = "tests/data/optimizers/data.safetensors";
  straight.save_path = dir + "/straight.safetensors";
  run(model, straight);
  TrainOptions first = straight;
  first.save_path.clear();
  first.checkpoint_dir = dir + "/ckpt";
  first.steps = 6;
  run(model, first);
  TrainOptions second = straight;
  second.init_path.clear();
  second.checkpoint_dir = first.checkpoint_dir;
  second.resume = true;
  second.save_path = dir + "/resumed.safetensors";
  TrainSummary s = run(model, second);
  EXPECT_EQ(s.steps_run, 6);
  EXPECT_EQ(bytes_of(second.save_path), bytes_of(straight.save_path));
}

// The scheduler's lr and counters are {state} arguments of @train_step after
// every parameter's own state (ir/lr_plateau_state.h), which @optimizer_init
// starts at the optimizer's lr and zeros.
TEST(PlateauState, IsTheUpdatesState) {
  ModelFile model = load_model(kRef + "plateau_sgd_loss.json");
  const Program program = Program::from_model(model, Backend::interp);
  auto step = program.ir("train_step", 16);
  ASSERT_TRUE(step.ok()) << step.error().message;
  std::vector<std::string> state;
  for (size_t i = 0; i < (*step)->args.size(); ++i)
    if ((*step)->arg_kinds[i] == ArgKind::state)
      state.push_back((*step)->args[i]->name + ":" + std::string(dtype_name((*step)->args[i]->type.dtype)));
  EXPECT_EQ(state, (std::vector<std::string>{"fc1.weight.momentum_buffer:f32", "fc1.bias.momentum_buffer:f32",
                                             "fc2.weight.momentum_buffer:f32", "fc2.bias.momentum_buffer:f32",
                                             "lr_scheduler.lr:f64", "lr_scheduler.best:f64",
                                             "lr_scheduler.num_bad_epochs:i64", "lr_scheduler.cooldown_counter:i64",
                                             "lr_scheduler.last_epoch:i64"}));
  auto init = program.function("optimizer_init", 16);
  ASSERT_TRUE(init.ok()) << init.error().message;
  ASSERT_TRUE(init->run({}).ok());
  ASSERT_EQ(init->num_results(), state.size());
  EXPECT_EQ(init->result(4).data<double>()[0], 0.5);  // the optimizer's lr
  EXPECT_EQ(init->result(8).data<int64_t>()[0], 0);
}

// plateau_step against torch's ReduceLROnPlateau on fixed metric sequences
// (NaN and inf among them; tests/oracle/train_loop.py): the same lr after
// every step, exactly (both multiply and compare the same doubles).
TEST(PlateauStep, FollowsTorchsTraces) {
  for (const nlohmann::json& t : read_json(kRef + "plateau_traces.json")["traces"]) {
    const nlohmann::json& kw = t["settings"];
    ScheduleConfig sc;
    sc.type = "plateau";
    sc.mode = kw["mode"];
    sc.factor = kw["factor"];
    sc.patience = kw["patience"];
    sc.threshold = kw["threshold"];
    sc.threshold_mode = kw["threshold_mode"];
    sc.cooldown = kw["cooldown"];
    sc.min_lr = kw["min_lr"];
    sc.plateau_eps = kw["eps"];
    std::vector<rt::NamedTensor> state = {{plateau::lr_name(0), rt::Tensor(DType::f64, {})},
                                          {plateau::kBest, rt::Tensor(DType::f64, {})}};
    for (const char* name : {plateau::kNumBadEpochs, plateau::kCooldownCounter, plateau::kLastEpoch})
      state.push_back({name, rt::Tensor(DType::i64, {})});
    state[0].tensor.data<double>()[0] = t["lr"];
    state[1].tensor.data<double>()[0] = 0;
    for (size_t i = 2; i < state.size(); ++i) state[i].tensor.data<int64_t>()[0] = 0;
    const std::vector<std::string> metrics = t["metrics"];
    const std::vector<double> lrs = t["lrs"];
    ASSERT_EQ(metrics.size(), lrs.size());
    for (size_t i = 0; i < metrics.size(); ++i) {
      ASSERT_TRUE(plateau_step(sc, std::stod(metrics[i]), state).ok());
      EXPECT_EQ(state[0].tensor.data<double>()[0], lrs[i]) << kw.dump() << " after step " << i;
    }
  }
}

std::string error_of(const std::string& model_path, TrainOptions o) {
  ModelFile model = load_model(model_path);
  auto s = train(model, o);
  return s.ok() ? "(no error)" : s.error().message;
}

TEST(TrainLoopErrors, ConflictsAreNamed) {
  TrainOptions o;
  o.data_path = "tests/data/optimizers/data.safetensors";
  o.grad_accumulation_steps = 2;
  EXPECT_EQ(error_of(kRef + "accumulate_sgd_k3.json", o),
            kRef + "accumulate_sgd_k3.json: error: --grad-accum 2 with train.accumulate 3: give one of them "
                   "(accumulate takes K whole batches per step, --grad-accum splits each batch into micro-batches)");
  TrainOptions steps = o;
  steps.grad_accumulation_steps.reset();
  steps.data_path.clear();
  steps.checkpoint_dir = temp_dir("lbfgs_ckpt");
  EXPECT_EQ(error_of(kRef + "lbfgs_linear.json", steps),
            kRef + "lbfgs_linear.json: error: optimizer \"lbfgs\" keeps its history on the host: checkpoints "
                   "and --resume are not supported; train without --checkpoint-dir");
}

// accumulate's setup and refusals (driver/accumulate.h), on the K = 3,
// batch 8 case: 64 examples are 8 batches, 2 steps of 3 and 2 left over.
TEST(Accumulate, StepsCountWholeGroupsAndConflictsAreRefused) {
  ModelFile model = load_model(kRef + "accumulate_sgd_k3.json");
  ModelConfig config = model.config();
  auto setup = [&](int64_t n, const TrainOptions& o = {}, const std::string& mesh = "") -> Expected<TrainSetup> {
    TrainSetup s;
    s.batch = config.train.batch_size;
    MLC_CHECK_OK(apply_accumulate(config, n, o, mesh, "d.safetensors", s));
    return s;
  };
  auto s = setup(64);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->batch, 24);
  EXPECT_EQ(s->grad_accumulation_steps, 3);
  EXPECT_EQ(s->steps_per_epoch, 2);
  const std::string file = kRef + "accumulate_sgd_k3.json";
  EXPECT_EQ(setup(16).error().message, "d.safetensors: error: the training split has 16 examples, 2 batches of 8: "
                                       "fewer than the 3 batches of one optimizer step of train.accumulate 3");
  EXPECT_EQ(setup(64, {}, "dp=2").error().message,
            file + ": error: train.accumulate 3 with --mesh dp=2: gradient accumulation is not supported on a mesh "
                   "yet; train on one device");
  config.train.drop_last = false;  // 70 examples: 9 batches, the partial ninth in the third step
  EXPECT_EQ(setup(70).error().message,
            "d.safetensors: error: the training split has 70 examples: the last batch of every epoch (6 examples) is "
            "partial and would be one of an optimizer step's 3 batches of train.accumulate 3; set \"drop_last\": true "
            "in \"train\"");
  EXPECT_EQ(setup(62)->steps_per_epoch, 2);  // 8 batches, the partial eighth among the 2 left over
  config.params[0].buffer = true;  // as BatchNorm's running statistics are
  EXPECT_EQ(setup(64).error().message,
            file + ": error: train.accumulate 3: each epoch's last 2 batches fill no optimizer step and are not run, "
                   "but the model has forward buffers (BatchNorm's running statistics) that PyTorch's forward would "
                   "update on them; use a training split whose batches per epoch (8) divide by 3");
  EXPECT_TRUE(setup(72).ok());  // 9 batches: none left over
}

}  // namespace
}  // namespace mlc
