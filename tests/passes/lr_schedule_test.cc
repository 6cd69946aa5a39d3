// passes/lr_schedule against torch 1.13's schedulers: the learning rate of
// every step of the recorded runs (tests/oracle/torch_optim.py, the lr of
// param group 0 before each optimizer step), computed by the IR on the
// interpreter. torch steps its chainable schedulers recursively, mlc in
// closed form: over 12 steps of f64 arithmetic they agree to a few units in
// the last place, so the check is 1e-14 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "frontends/model_file.h"
#include "passes/lr_schedule.h"
#include "runtime/interpreter.h"

namespace mlc {
namespace {

class LrSchedule : public ::testing::TestWithParam<std::string> {};

TEST_P(LrSchedule, MatchesTorchStepForStep) {
  const std::string base = "tests/data/torch_optim/" + GetParam();
  auto model = ModelFile::load(base + ".json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  std::ifstream in(base + ".losses.json");
  const std::vector<double> want = nlohmann::json::parse(in)["lrs"].get<std::vector<double>>();
  OptimizerConfig config = model->config().train.optimizer;
  config.steps_per_epoch = 4;  // 64 examples in batches of 16
  const double lr = config.param_groups.empty() ? config.lr : config.param_groups[0].lr;
  Module m;
  Function& f = m.add_function("lr");
  Value* step = f.add_arg("step", TensorType{DType::i64, {}}, ArgKind::step);
  Builder b(f);
  auto values = scheduled_values(b, config, lr, step);
  ASSERT_TRUE(values.ok()) << values.error().message;
  f.results.push_back(values->lr);
  f.result_updates.push_back(-1);
  auto interp = rt::Interpreter::create(f);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  for (size_t s = 0; s < want.size(); ++s) {
    rt::Tensor t = rt::Tensor::uninitialized(TensorType{DType::i64, {}});
    t.span<int64_t>()[0] = static_cast<int64_t>(s + 1);
    auto out = interp->run(std::vector<rt::Tensor>{t});
    ASSERT_TRUE(out.ok()) << out.error().message;
    const double got = (*out)[0].span<double>()[0];
    EXPECT_NEAR(got, want[s], 1e-14 * std::fabs(want[s])) << "step " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Recorded, LrSchedule,
                         ::testing::Values("adamw_param_groups", "sgd_linear", "sgd_exponential", "sgd_multistep",
                                           "sgd_onecycle", "adam_onecycle_three_phase", "adamw_onecycle_no_momentum",
                                           "sgd_warm_restarts", "sgd_warm_restarts_t_mult_1", "sgd_sequential",
                                           "sgd_chained", "sgd_step_per_epoch", "sgd_multistep_per_epoch"));

}  // namespace
}  // namespace mlc
