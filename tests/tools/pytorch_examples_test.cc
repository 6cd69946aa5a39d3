// The examples of PyTorch's examples repository and torchvision
// (examples/pytorch/NAME.{json,mlc}) against their recorded torch 1.13 runs
// (tests/oracle/*.py, recorded under tests/data/oracle/), one table: from
// PyTorch's initial weights (or, for super_resolution, mlc's seeded init,
// which must be torch.manual_seed(0)'s bit for bit), on the compiled path and
// the interpreter, from the forms listed: every step's loss within 1e-5
// relative, where recorded the first step's gradients within 1e-5 of their
// largest magnitude, and the final parameters (and BatchNorm running
// statistics) within 1e-4 absolute (a few f32 roundings of reordered sums,
// compounded over the steps).
//  - mnist and vae draw dropout masks and randn_like noise: their recordings
//    are fed the ones mlc draws (tests/oracle/mlc_random.py), so the runs are
//    the same computation.
//  - The vision transformer trains with Adam, which turns the rounding noise
//    of the key bias's gradient (0 in exact arithmetic: it shifts a query's
//    every score alike) into full steps, in torch and here differently: those
//    tensors are not compared.
// The recurrent examples are tests/tools/recurrent_test.cc's, dcgan
// tests/tools/phases_training_test.cc's (their own comparisons).
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/parameters.h"
#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

struct Example {
  std::string name;
  std::string ref;                 // the recording's folder
  std::vector<std::string> forms;  // model files compared: "json", "mlc"
  bool own_init = false;           // mlc's seeded init, not the recording's init.safetensors
  std::optional<int64_t> steps;    // the recorded run's, when not the model file's
  bool grads = false;              // grads_step0.safetensors recorded
  std::vector<std::string> noise_only = {};
};

const std::vector<Example>& examples() {
  static const std::vector<Example> e = {
      {"mnist", "tests/data/oracle/pytorch_mnist", {"json"}},
      {"vae", "tests/data/oracle/pytorch_vae", {"json"}},
      {"super_resolution", "tests/data/oracle/super_resolution", {"json", "mlc"}, true},
      {"resnet18", "tests/data/oracle/resnet18", {"json", "mlc"}},
      {"word_language_model_transformer", "tests/data/oracle/pytorch/word_language_model_transformer", {"json"},
       false, 24, true},
      {"vision_transformer", "tests/data/oracle/pytorch/vision_transformer", {"json"}, false, 24, true,
       {"encoder.layers.0.self_attn.in_proj_bias", "encoder.layers.1.self_attn.in_proj_bias"}},
  };
  return e;
}

struct Case {
  size_t example;
  std::string form;
  Backend backend;
};

class PyTorchExample : public ::testing::TestWithParam<Case> {};

TEST_P(PyTorchExample, MatchesPyTorchStepForStep) {
  const Case& c = GetParam();
  const Example& e = examples()[c.example];
  const std::string backend = c.backend == Backend::compiled ? "compiled" : "interp";
  const std::string dir = oracle::temp_dir("pytorch_" + e.name + "_" + c.form + "_" + backend);
  ModelFile model = oracle::load_model("examples/pytorch/" + e.name + "." + c.form);
  TrainOptions o;
  o.backend = c.backend;
  o.steps = e.steps;
  if (!e.own_init) o.init_path = e.ref + "/init.safetensors";
  o.metrics_path = dir + "/metrics.jsonl";
  o.save_path = dir + "/final.safetensors";
  if (e.grads) o.dump_grads_path = dir + "/grads.safetensors";
  oracle::run(model, o);
  auto want = oracle::read_json(e.ref + "/losses.json")["losses"].get<std::vector<double>>();
  oracle::Metrics m = oracle::read_metrics(o.metrics_path);
  ASSERT_GE(want.size(), 20u);
  ASSERT_EQ(m.losses.size(), want.size());
  oracle::expect_losses(m.losses, want, want.size(), 1e-5);
  if (e.grads) oracle::expect_tensors(o.dump_grads_path, e.ref + "/grads_step0.safetensors", 1e-5, true);
  oracle::expect_tensors(o.save_path, e.ref + "/final.safetensors", 1e-4, false, e.noise_only);
}

std::vector<Case> cases() {
  std::vector<Case> c;
  for (size_t i = 0; i < examples().size(); ++i)
    for (const std::string& form : examples()[i].forms)
      for (Backend b : {Backend::compiled, Backend::interp}) c.push_back({i, form, b});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Recorded, PyTorchExample, ::testing::ValuesIn(cases()), [](const auto& info) {
  const Case& c = info.param;
  return examples()[c.example].name + "_" + c.form + (c.backend == Backend::compiled ? "_compiled" : "_interp");
});

TEST(PyTorchExampleInit, SuperResolutionSeedZeroIsPyTorchsInit) {
  ModelFile model = oracle::load_model("examples/pytorch/super_resolution.json");
  std::vector<rt::NamedTensor> mine = rt::init_parameters(model.config().params, 0);
  auto ref = rt::read_safetensors("tests/data/oracle/super_resolution/init.safetensors");
  ASSERT_TRUE(ref.ok());
  int compared = 0;
  for (const rt::NamedTensor& p : mine) {
    auto t = ref->get(p.name);
    if (!t.ok()) continue;  // conv2.weight is left out of the recording (its size)
    ASSERT_EQ(p.tensor.type(), (*t)->type()) << p.name;
    EXPECT_EQ(std::memcmp(p.tensor.bytes(), (*t)->bytes(), p.tensor.num_bytes()), 0) << p.name;
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(mine.size()) - 1);
}

}  // namespace
}  // namespace mlc
