// PyTorch's examples in examples/pytorch against PyTorch: the word language
// model's TransformerModel (tests/oracle/word_language_model_transformer.py)
// and a vision transformer (tests/oracle/vision_transformer.py, its first 24
// steps), recorded in tests/data/oracle/pytorch/NAME, trained from PyTorch's
// initial weights on the compiled path and the interpreter: every loss within
// 1e-5 relative, the first step's gradients within 1e-5 of their largest
// magnitude, the final parameters within 1e-4 (tests/tools/oracle_compare.h).
#include <gtest/gtest.h>

#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

struct ExampleCase {
  std::string name;
  Backend backend;
};

class PyTorchTransformerExample : public ::testing::TestWithParam<ExampleCase> {};

TEST_P(PyTorchTransformerExample, MatchesPyTorchStepForStep) {
  const ExampleCase& c = GetParam();
  const std::string ref = "tests/data/oracle/pytorch/" + c.name;
  const std::string dir =
      oracle::temp_dir("pytorch_" + c.name + (c.backend == Backend::compiled ? "_compiled" : "_interp"));
  ModelFile model = oracle::load_model("examples/pytorch/" + c.name + ".json");
  TrainOptions o;
  o.backend = c.backend;
  o.steps = 24;  // the recorded run's
  o.init_path = ref + "/init.safetensors";
  o.metrics_path = dir + "/metrics.jsonl";
  o.save_path = dir + "/final.safetensors";
  o.dump_grads_path = dir + "/grads.safetensors";
  oracle::run(model, o);
  auto want = oracle::read_json(ref + "/losses.json")["losses"].get<std::vector<double>>();
  oracle::Metrics m = oracle::read_metrics(o.metrics_path);
  ASSERT_EQ(m.losses.size(), want.size());
  oracle::expect_losses(m.losses, want, want.size(), 1e-5);
  oracle::expect_tensors(o.dump_grads_path, ref + "/grads_step0.safetensors", 1e-5, true);
  // The vision transformer trains with Adam, which turns the rounding noise of
  // the key bias's gradient (0 in exact arithmetic: it shifts a query's every
  // score alike) into full steps, in torch and here differently.
  std::vector<std::string> noise_only;
  if (c.name == "vision_transformer")
    noise_only = {"encoder.layers.0.self_attn.in_proj_bias", "encoder.layers.1.self_attn.in_proj_bias"};
  oracle::expect_tensors(o.save_path, ref + "/final.safetensors", 1e-4, false, noise_only);
}

std::vector<ExampleCase> cases() {
  std::vector<ExampleCase> c;
  for (const char* name : {"word_language_model_transformer", "vision_transformer"})
    for (Backend b : {Backend::compiled, Backend::interp}) c.push_back({name, b});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Recorded, PyTorchTransformerExample, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.name + (info.param.backend == Backend::compiled ? "_compiled" : "_interp");
});

}  // namespace
}  // namespace mlc
