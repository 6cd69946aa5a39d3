// torch.optim's optimizers, flags, parameter groups and lr_scheduler's
// schedules against torch 1.13's own objects (tests/oracle/torch_optim.py,
// recorded in tests/data/torch_optim): every loss and the final parameters,
// on the compiled backend, the reference interpreter and the host device.
//
// Tolerances: those of the optimizer cases in training_test.cc (valid f32
// PyTorch runs differing in GEMM kernels agree to <= 9e-7 relative on these
// losses and <= 6e-6 on parameters): losses at 1e-5 relative, parameters at 1e-5.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "driver/program.h"
#include "runtime/target.h"
#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

using namespace mlc::oracle;

const std::vector<std::string>& torch_optim_cases() {
  static const std::vector<std::string> names = {
      "adadelta",          "adadelta_maximize",  "adamax",          "nadam",
      "radam",             "adam_amsgrad",       "adamw_amsgrad_maximize",
      "sgd_maximize",      "rmsprop_maximize",   "adagrad_maximize", "adamw_param_groups",
      "sgd_param_groups",  "sgd_linear",         "sgd_exponential", "sgd_multistep",
      "sgd_onecycle",      "adam_onecycle_three_phase", "adamw_onecycle_no_momentum",
      "sgd_warm_restarts", "sgd_warm_restarts_t_mult_1", "sgd_sequential", "sgd_chained",
      "sgd_step_per_epoch", "sgd_multistep_per_epoch"};
  return names;
}

class TorchOptim : public ::testing::TestWithParam<std::tuple<std::string, Backend>> {};

TEST_P(TorchOptim, MatchesPyTorch) {
  const auto& [name, backend] = GetParam();
  const std::string base = "tests/data/torch_optim/" + name;
  ModelFile model = load_model(base + ".json");
  TrainOptions o;
  o.backend = backend;
  o.init_path = "tests/data/optimizers/init.safetensors";
  const std::string dir = temp_dir("torch_optim_" + name + (backend == Backend::interp ? "_interp" : ""));
  expect_training_matches(model, o, dir, base + ".losses.json", base + ".final.safetensors", 1e-5);
}

INSTANTIATE_TEST_SUITE_P(All, TorchOptim,
                         ::testing::Combine(::testing::ValuesIn(torch_optim_cases()),
                                            ::testing::Values(Backend::compiled, Backend::interp)),
                         [](const auto& info) {
                           return std::get<0>(info.param) +
                                  (std::get<1>(info.param) == Backend::interp ? "_interp" : "_compiled");
                         });

// The same on the host device (runtime/host_gpu/), where the build has it.
class HostGpuTorchOptim : public ::testing::TestWithParam<std::string> {};

TEST_P(HostGpuTorchOptim, MatchesPyTorch) {
  if (!rt::find_target(rt::kHostGpuTarget)) GTEST_SKIP() << "this build has no host-gpu target (OpenCL was not found)";
  const std::string base = "tests/data/torch_optim/" + GetParam();
  ModelFile model = load_model(base + ".json");
  TrainOptions o;
  o.device.target = std::string(rt::kHostGpuTarget);
  o.init_path = "tests/data/optimizers/init.safetensors";
  expect_training_matches(model, o, temp_dir("host_gpu_torch_optim_" + GetParam()), base + ".losses.json",
                          base + ".final.safetensors", 1e-5);
}

INSTANTIATE_TEST_SUITE_P(All, HostGpuTorchOptim, ::testing::ValuesIn(torch_optim_cases()),
                         [](const auto& info) { return info.param; });

// Optimizer state is named as torch's state_dict() names it, per parameter
// group: NAdam's mu_product is a scalar; SGD's group without momentum keeps no buffer.
TEST(TorchOptimState, NamesAndShapesFollowTorch) {
  for (const auto& [name, want] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"nadam", {"fc1.weight.exp_avg", "fc1.weight.exp_avg_sq", "fc1.weight.mu_product"}},
           {"adam_amsgrad", {"fc1.weight.exp_avg", "fc1.weight.exp_avg_sq", "fc1.weight.max_exp_avg_sq"}},
           {"sgd_param_groups", {"fc2.weight.momentum_buffer", "fc2.bias.momentum_buffer"}}}) {
    SCOPED_TRACE(name);
    ModelFile model = load_model("tests/data/torch_optim/" + name + ".json");
    Program program = Program::from_model(model, Backend::interp);
    auto f = program.ir("train_step", 16);
    ASSERT_TRUE(f.ok()) << f.error().message;
    std::vector<std::string> state;
    for (size_t i = 0; i < (*f)->args.size(); ++i)
      if ((*f)->arg_kinds[i] == ArgKind::state) state.push_back((*f)->args[i]->name);
    for (const std::string& n : want) EXPECT_NE(std::find(state.begin(), state.end(), n), state.end()) << n;
    if (name == "nadam") {
      for (const Value* a : (*f)->args)
        if (a->name == "fc1.weight.mu_product") EXPECT_EQ(a->type.rank(), 0);
    }
    if (name == "sgd_param_groups") {
      EXPECT_EQ(std::find(state.begin(), state.end(), "fc1.weight.momentum_buffer"), state.end());
    }
  }
}


// The model file of a recorded case with `from` replaced by `to` in its text.
Expected<const Function*> train_step_of_edited(const std::string& name, const std::string& from,
                                               const std::string& to, std::optional<ModelFile>& model) {
  std::ifstream in("tests/data/torch_optim/" + name + ".json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find(from), from.size(), to);
  auto parsed = ModelFile::parse(text, "tests/data/torch_optim/" + name + ".json");
  if (!parsed.ok()) return parsed.take_error();
  model = std::move(*parsed);
  return Program::from_model(*model, Backend::interp).ir("train_step", 16);
}

// A group's pattern that matches no parameter is an error at the group,
// listing the parameters; a schedule stepping per epoch needs the data's
// steps per epoch, which only training knows.
TEST(TorchOptimErrors, UnmatchedPatternAndEpochsWithoutData) {
  std::optional<ModelFile> model;
  auto f = train_step_of_edited("adamw_param_groups", "\"*.bias\"", "\"*.bais\"", model);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message,
            "tests/data/torch_optim/adamw_param_groups.json:57:5: error: optimizer: param_groups[0]: the pattern "
            "'*.bais' matches no parameter (the parameters: fc1.weight, fc1.bias, fc2.weight, fc2.bias)");
  f = train_step_of_edited("sgd_step_per_epoch", "\"gamma\"", "\"gamma\"", model);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("sgd_step_per_epoch.json:57:15: error: schedule: \"interval\": \"epoch\" needs "
                                   "the number of steps per epoch"),
            std::string::npos)
      << f.error().message;
}

}  // namespace
}  // namespace mlc
