// PyTorch's examples (examples/pytorch/) against PyTorch 1.13 step for step:
// tests/oracle/pytorch_mnist.py and pytorch_vae.py train the same models from
// the same initial weights with the dropout masks and randn_like noise mlc
// draws (tests/oracle/mlc_random.py), so the runs are the same computation.
// Every loss within 1e-5 relative and the final parameters within 1e-4
// (training_test.cc's tolerances), on the compiled backend and the interpreter.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

class PyTorchRandomExample : public ::testing::TestWithParam<std::tuple<std::string, Backend>> {};

TEST_P(PyTorchRandomExample, TrainsAsPyTorchStepForStep) {
  const auto& [name, backend] = GetParam();
  const std::string ref = "tests/data/oracle/pytorch_" + name;
  ModelFile model = oracle::load_model("examples/pytorch/" + name + ".json");
  TrainOptions o;
  o.backend = backend;
  o.init_path = ref + "/init.safetensors";
  const std::string dir =
      oracle::temp_dir("pytorch_" + name + (backend == Backend::interp ? "_interp" : "_compiled"));
  oracle::expect_training_matches(model, o, dir, ref + "/losses.json", ref + "/final.safetensors", 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Examples, PyTorchRandomExample,
                         ::testing::Combine(::testing::Values("mnist", "vae"),
                                            ::testing::Values(Backend::compiled, Backend::interp)),
                         [](const auto& info) {
                           return std::get<0>(info.param) +
                                  (std::get<1>(info.param) == Backend::interp ? "_interp" : "_compiled");
                         });

}  // namespace
}  // namespace mlc
