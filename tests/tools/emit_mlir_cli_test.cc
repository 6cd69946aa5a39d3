// `mlc ir --emit mlir` end to end: what it prints after the whole pipeline or
// after a pass, and its usage errors. (tests/compiler/emit_mlir_test.cc checks
// the MLIR of every op with mlir-opt-19; tests/mlir/verify_mlir.sh each example.)
#include <gtest/gtest.h>

#include <string>

#include "tests/tools/run_mlc.h"

namespace {

using mlc::testing::RunResult;
using mlc::testing::run_mlc;

using mlc::testing::count;

TEST(EmitMlir, WholePipelineByDefault) {
  RunResult r = run_mlc("ir examples/digits_mlp.json --emit mlir");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("#map0 = affine_map<", 0), 0u) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("\nmodule @digits_mlp {\n"), std::string::npos);
  EXPECT_EQ(count(r.out, "\n  func.func @"), 5u);
  for (const char* f : {"@loss(", "@eval(", "@loss_grad(", "@train_step(", "@optimizer_init("})
    EXPECT_NE(r.out.find(std::string("  func.func ") + f), std::string::npos) << f;
  EXPECT_NE(r.out.find("%fc1.weight: tensor<128x64xf32> {mlc.arg = \"param\"}"), std::string::npos);
  EXPECT_NE(r.out.find("tensor<128x64xf32> {mlc.updates = \"fc1.weight\"}"), std::string::npos);
  EXPECT_NE(r.out.find("linalg.matmul_transpose_b ins(%0, %fc1.weight : tensor<32x64xf32>, tensor<128x64xf32>)"),
            std::string::npos);
  EXPECT_NE(r.out.find(" loc(\"examples/digits_mlp.json\":11:14)\n"), std::string::npos);
}

TEST(EmitMlir, AfterAPassAndTimings) {
  RunResult r = run_mlc("ir examples/digits_cnn.json --emit=mlir --after autodiff --timings");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count(r.out, "\n  func.func @"), 3u);  // @loss, @eval, @loss_grad: no optimizer yet
  EXPECT_NE(r.out.find("  func.func @loss_grad("), std::string::npos);
  EXPECT_EQ(r.out.find("@train_step"), std::string::npos);
  EXPECT_NE(r.out.find("linalg.conv_2d_nchw_fchw"), std::string::npos);
  EXPECT_NE(r.err.find("pass times (ms):\n  autodiff"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("optimizer"), std::string::npos) << r.err;
}

TEST(EmitMlir, DefaultIrOutputIsUnchanged) {
  RunResult r = run_mlc("ir examples/digits_mlp.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("module @digits_mlp {\n  func @loss(", 0), 0u) << r.out.substr(0, 200);
  EXPECT_EQ(r.out.find("func.func"), std::string::npos);
}

// `mlc ARGS` exits with `status`, prints nothing on stdout and `err` on stderr.
void expect_failure(const std::string& args, int status, const std::string& err) {
  RunResult r = run_mlc(args);
  EXPECT_EQ(r.status, status) << args;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(r.err, err) << args;
}

TEST(EmitMlir, UsageErrors) {
  const std::string ir = "ir examples/digits_mlp.json ";
  expect_failure(ir + "--emit llvm", 2, "mlc: error: --emit takes 'mlir', got 'llvm'\n");
  expect_failure(ir + "--emit=", 2, "mlc: error: --emit takes 'mlir', got ''\n");
  expect_failure(ir + "--emit mlir --after all", 2,
                 "mlc: error: --emit mlir prints one module, so it takes --after PASS, not --after all\n");
  expect_failure(ir + "--emit", 2, "mlc: error: option --emit needs a value\n");
  expect_failure(ir + "--emit mlir --after nope", 1,
                 "error: no pass 'nope' in the pipeline (autocast, autodiff, optimizer, decompose, canonicalize, sharding)\n");
}

}  // namespace
