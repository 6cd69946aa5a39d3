// PyTorch's examples in examples/pytorch against PyTorch: the word language
// model's TransformerModel (tests/oracle/word_language_model_transformer.py)
// and a vision transformer (tests/oracle/vision_transformer.py), recorded in
// tests/data/oracle/pytorch/NAME, trained from PyTorch's initial weights on
// the compiled path and the interpreter: every loss within 1e-5 relative, the
// first step's gradients within 1e-5 of their largest magnitude, the final
// parameters within 1e-4 (tests/tools/oracle_compare.h).
#include <gtest/gtest.h>

#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

struct ExampleCase {
  std::string name;
  Backend backend;
};

class PyTorchExample : public ::testing::TestWithParam<ExampleCase> {};

TEST_P(PyTorchExample, MatchesPyTorchStepForStep) {
  const ExampleCase& c = GetParam();
  TrainOptions o;
  o.backend = c.backend;
  oracle::expect_oracle_model_matches(
      "pytorch/" + c.name, o,
      oracle::temp_dir("pytorch_" + c.name + (c.backend == Backend::compiled ? "_compiled" : "_interp")));
}

std::vector<ExampleCase> cases() {
  std::vector<ExampleCase> c;
  for (const char* name : {"word_language_model_transformer", "vision_transformer"})
    for (Backend b : {Backend::compiled, Backend::interp}) c.push_back({name, b});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Recorded, PyTorchExample, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.name + (info.param.backend == Backend::compiled ? "_compiled" : "_interp");
});

}  // namespace
}  // namespace mlc
