// Losses and activations against PyTorch (tests/oracle/losses.py, recorded in
// tests/data/oracle/losses): every activation layer, every loss of the "loss"
// section with its options, a VAE in the model language whose forward returns
// BCE(sum) + KL ("type": "output"), and a forward using every functional form,
// each trained 4 SGD steps from PyTorch's initial weights on the compiled path
// and the interpreter, and three of them on a dp=2 mesh (the loss's sums and
// denominators split over the ranks). Tolerances as tests/tools/training_test.cc: losses 1e-5
// relative, first-step gradients 1e-5 of each tensor's largest entry, final
// parameters 1e-4 (a few f32 roundings of the reordered sums, 4 steps).
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

struct LossCase {
  std::string name;
  Backend backend;
  const char* mesh = "";
};

class LossOracle : public ::testing::TestWithParam<LossCase> {};

TEST_P(LossOracle, MatchesPyTorchStepForStep) {
  const LossCase& c = GetParam();
  const std::string base = "tests/data/oracle/losses/" + c.name;
  const std::string path = std::filesystem::exists(base + ".mlc") ? base + ".mlc" : base + ".json";
  const std::string dir = oracle::temp_dir("losses_" + c.name + (c.backend == Backend::compiled ? "_compiled" : "_interp") +
                                          (*c.mesh ? "_mesh" : ""));
  ModelFile model = oracle::load_model(path);
  TrainOptions o;
  o.backend = c.backend;
  if (*c.mesh) o.parallel = make_parallel_plan({Mesh::parse(c.mesh).value()}, model.config().parallel);
  o.init_path = base + ".init.safetensors";
  o.dump_grads_path = dir + "/grads.safetensors";
  oracle::expect_training_matches(model, o, dir, base + ".losses.json", base + ".final.safetensors", 1e-4);
  oracle::expect_tensors(o.dump_grads_path, base + ".grads_step0.safetensors", 1e-5, true);
}

std::vector<LossCase> cases() {
  std::vector<LossCase> c;
  for (const char* name : {"activations", "cross_entropy", "l1_loss", "smooth_l1_loss", "huber_loss",
                           "binary_cross_entropy", "bce_with_logits", "kl_div", "kl_div_log_target", "vae",
                           "functional"})
    for (Backend b : {Backend::compiled, Backend::interp}) c.push_back({name, b});
  for (const char* name : {"activations", "cross_entropy", "vae"}) c.push_back({name, Backend::compiled, "dp=2"});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Recorded, LossOracle, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.name + (info.param.backend == Backend::compiled ? "_compiled" : "_interp") +
         (*info.param.mesh ? "_dp2" : "");
});

}  // namespace
}  // namespace mlc
