// The host device (runtime/host_gpu/: the GPU kernels' text run by OpenCL on
// this CPU, GEMMs on the CPU's libraries) trains as the CPU does: the oracle
// comparisons of training_test.cc step for step at the same tolerances, and
// the examples without a PyTorch run against the reference interpreter.
// Skipped in builds without OpenCL.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/target.h"
#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

using namespace mlc::oracle;

#define SKIP_WITHOUT_HOST_GPU()                                             \
  if (!rt::find_target(rt::kHostGpuTarget))                                 \
  GTEST_SKIP() << "this build has no host-gpu target (OpenCL was not found)"

TrainOptions on_host_gpu() {
  TrainOptions o;
  o.device.target = std::string(rt::kHostGpuTarget);
  return o;
}

class HostGpuOracle : public ::testing::TestWithParam<std::string> {};

// digits_mlp (135 steps), tiny_gpt and gpt8 (40 steps): every loss, the
// first step's gradients and the final parameters, as training_test.cc's
// OracleModel (oracle_compare.h expect_oracle_model_matches).
TEST_P(HostGpuOracle, MatchesPyTorchStepForStep) {
  SKIP_WITHOUT_HOST_GPU();
  expect_oracle_model_matches(GetParam(), on_host_gpu(), temp_dir("host_gpu_" + GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Examples, HostGpuOracle, ::testing::ValuesIn(oracle_examples()));

// Every optimizer and schedule against PyTorch (training_test.cc's Optimizers).
class HostGpuOptimizers : public ::testing::TestWithParam<std::string> {};

TEST_P(HostGpuOptimizers, MatchPyTorch) {
  SKIP_WITHOUT_HOST_GPU();
  expect_optimizer_case_matches(GetParam(), on_host_gpu(), temp_dir("host_gpu_" + GetParam()));
}

INSTANTIATE_TEST_SUITE_P(All, HostGpuOptimizers, ::testing::ValuesIn(oracle_optimizer_cases()));

// A model file's first 12 steps on host-gpu against the reference
// interpreter: losses within 1e-5 relative, final parameters within 1e-4
// (the oracle tolerances; both runs are valid f32 runs that differ in
// summation order and platform math). `noise_only`: parameters whose values
// are rounding noise (below).
// The directory of a run of the model file's first 12 steps: metrics.jsonl, final.safetensors.
std::string train_12_steps(const std::string& path, TrainOptions o, const std::string& tag) {
  const std::string dir = temp_dir("host_gpu_examples_" + tag);
  o.steps = 12;
  o.metrics_path = dir + "/metrics.jsonl";
  o.save_path = dir + "/final.safetensors";
  run(load_model(path), o);
  return dir;
}

TrainOptions on_interpreter() {
  TrainOptions o;
  o.backend = Backend::interp;
  return o;
}

void expect_host_gpu_matches_interpreter(const std::string& path, const std::string& tag,
                                         const std::vector<std::string>& noise_only = {}) {
  const std::string want = train_12_steps(path, on_interpreter(), tag + "_interp"),
                    got = train_12_steps(path, on_host_gpu(), tag + "_host_gpu");
  Metrics w = read_metrics(want + "/metrics.jsonl"), g = read_metrics(got + "/metrics.jsonl");
  ASSERT_EQ(w.losses.size(), 12u);
  expect_losses(g.losses, w.losses, w.losses.size(), 1e-5);
  expect_tensors(got + "/final.safetensors", want + "/final.safetensors", 1e-4, false, noise_only);
}

// The examples no PyTorch run covers here, against the reference interpreter.
class HostGpuExamples : public ::testing::TestWithParam<std::string> {};

TEST_P(HostGpuExamples, MatchTheInterpreter) {
  SKIP_WITHOUT_HOST_GPU();
  const std::string name = GetParam();
  // gpt2_tied's key biases: their gradient is 0 in exact arithmetic (softmax
  // over the keys is invariant to the q.b_k that the bias adds to a query's
  // every score), so they are rounding noise, which Adam scales to the
  // learning rate: the CPU's compiled run and the interpreter part there too.
  const std::vector<std::string> noise_only = {"h.0.attn.k.bias", "h.1.attn.k.bias"};
  expect_host_gpu_matches_interpreter("examples/" + name + ".json", name,
                                      name == "gpt2_tied" ? noise_only : std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(Examples, HostGpuExamples,
                         ::testing::Values("digits_cnn", "digits_cnn_bn", "batchnorm_mlp", "legendre", "gpt2_tied"));

// An MLP whose every GEMM takes a cuBLASLt epilogue on GPU targets, the tanh
// GELU's forward (bias_gelu_aux) and backward (dgelu_bgrad) included
// (tests/tools/gpu_cli_test.cc checks which): the host's epilogues
// (runtime/gemm_epilogue.h) train as the interpreter's ops do.
TEST(HostGpuEpilogues, TanhGeluMlpMatchesTheInterpreter) {
  SKIP_WITHOUT_HOST_GPU();
  expect_host_gpu_matches_interpreter("tests/data/gemm_epilogues/mlp_gelu_tanh.mlc", "mlp_gelu_tanh");
}

// The same MLP under bf16 autocast, with the same epilogues on bf16 GEMMs:
// they compute in f32 and round once where the interpreter rounds the
// product, the bias add and the activation each, so the two are bf16 runs
// that round at different places. Bounded as tests/tools/mixed_precision_test.cc
// bounds a bf16 run: D = the largest relative distance over the 12 steps
// between the interpreter's bf16 and f32 losses (bf16's own drift, 3.8e-5
// here); host-gpu's bf16 losses within 2 D of the interpreter's (measured:
// 1.06 D), and at least D / 10 from the f32 ones (it did round to bf16).
TEST(HostGpuEpilogues, Bf16TanhGeluMlpMatchesTheInterpreterToBf16Rounding) {
  SKIP_WITHOUT_HOST_GPU();
  const std::string dir = "tests/data/gemm_epilogues/";
  auto losses = [&](const std::string& model, TrainOptions o, const std::string& tag) {
    Metrics m = read_metrics(train_12_steps(dir + model, o, tag) + "/metrics.jsonl");
    EXPECT_EQ(m.losses.size(), 12u) << tag;
    return m.losses;
  };
  const std::vector<double> f32 = losses("mlp_gelu_tanh.mlc", on_interpreter(), "f32_interp"),
                            want = losses("mlp_gelu_tanh_bf16.mlc", on_interpreter(), "bf16_interp"),
                            got = losses("mlp_gelu_tanh_bf16.mlc", on_host_gpu(), "bf16_host_gpu");
  ASSERT_EQ(f32.size(), want.size());
  ASSERT_EQ(got.size(), want.size());
  auto distance = [](const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]) / std::fabs(b[i]));
    return d;
  };
  const double drift = distance(want, f32);
  ASSERT_GT(drift, 0) << "the bf16 run rounded nothing";
  EXPECT_LE(distance(got, want), 2 * drift);
  EXPECT_GE(distance(got, f32), drift / 10);
}

}  // namespace
}  // namespace mlc
