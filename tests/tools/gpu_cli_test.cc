// The GPU targets from the command line: `mlc compile --target cuda:sm_XX`
// writes cubins without a GPU and `mlc run` of that artifact without one is a
// clear error; `--emit-source` writes kernels nvcc compiles as they are;
// `mlc ir --after lower --target host-gpu` prints launches, and for cuda the
// gemms' epilogues; bad --device and --target values are usage errors that
// say what is accepted.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/gpu/nvrtc.h"
#include "runtime/artifact.h"
#include "runtime/cuda/cubin.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using testing::run_mlc;

TEST(GpuCli, ACudaArtifactHoldsCubinsForItsArchAndNeedsAGpuToRun) {
  if (!gpu::nvrtc_available()) GTEST_SKIP() << gpu::nvrtc_version().error().message;
  const std::string dir = testing::scratch_dir("gpu_cli").string(), out = dir + "/t.mlcx";
  auto r = run_mlc("compile --target cuda:sm_90 examples/tiny_gpt.json -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("target cuda sm_90"), std::string::npos) << r.out;
  auto a = rt::read_artifact(out);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_FALSE(a->functions.empty());
  const rt::CodeModule& code = *a->functions[0].executable->code;
  EXPECT_EQ(code.target, "cuda");
  EXPECT_EQ(code.arch, "sm_90");
  ASSERT_FALSE(code.objects.empty());
  for (const rt::ObjectFile& o : code.objects) {
    auto arch = rt::cubin_arch(o.bytes);
    ASSERT_TRUE(arch.ok()) << o.symbol << ": " << arch.error().message;
    EXPECT_EQ(*arch, "sm_90") << o.symbol;
    EXPECT_TRUE(rt::check_cubin(o.bytes, o.symbol, "sm_90").ok()) << o.symbol;
  }
  for (const rt::CompiledFunction& f : a->functions)
    for (const rt::KernelInfo& k : f.executable->kernels) EXPECT_GE(k.launch.block, 1) << k.name;
  r = run_mlc("run " + out + " --steps 1");
  if (r.status == 0) GTEST_SKIP() << "this machine has a GPU: the artifact ran";
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(out + ": error: cuda: "), std::string::npos) << r.err;
}

TEST(GpuCli, EmittedSourcesCompileWithNvccAsTheyAre) {
  const std::string dir = testing::scratch_dir("gpu_cli_src").string() + "/src";
  std::filesystem::remove_all(dir);
  auto r = run_mlc("compile --target host-gpu examples/digits_mlp.json --emit-source " + dir + " -o " + dir + ".mlcx");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("kernel sources (CUDA C) to " + dir), std::string::npos) << r.out;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path().string());
  ASSERT_FALSE(files.empty());
  std::string nvcc;
  for (std::string candidate : {std::string("nvcc"), std::string("/usr/local/cuda/bin/nvcc")})
    if (std::system(("command -v " + candidate + " >/dev/null 2>&1").c_str()) == 0) nvcc = candidate;
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (the CUDA toolkit is not installed)";
  const std::string cmd = nvcc + " -cubin -arch=sm_80 -o " + dir + "/k.cubin " + files[0] + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(GpuCli, LoweringForTheHostDevicePrintsLaunches) {
  auto r = run_mlc("ir examples/digits_mlp.json --after lower --target host-gpu");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("      launch {schedule elementwise, grid "), std::string::npos);
  EXPECT_NE(r.out.find("      launch {schedule row, grid "), std::string::npos) << "cross-entropy's rows";
  r = run_mlc("ir examples/digits_mlp.json --target host-gpu");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--target applies to --after lower"), std::string::npos) << r.err;
}

// gpt2_tied's clipped grad norms (sqrt(sum(g * g)) over a parameter of at
// least kTwoPhaseMinTerms elements) run in two phases: the launch says so,
// with its scratch, and the step's scratch region follows its slots.
TEST(GpuCli, LoweringForCudaPrintsTwoPhaseLaunches) {
  auto r = run_mlc("ir examples/gpt2_tied.json --after lower --target cuda:sm_90");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("      launch {schedule row, grid 2, block 256, shared 2048 B, two phases: scratch 16 B, then grid 1}"),
            std::string::npos);
  EXPECT_NE(r.out.find("lowered @train_step: "), std::string::npos);
  const std::string step = r.out.substr(r.out.find("lowered @train_step: "));
  EXPECT_NE(step.substr(0, step.find('\n')).find(", scratch 16 bytes at "), std::string::npos) << step.substr(0, 200);
}

// digits_mlp's GEMMs take cuBLASLt's epilogues when lowered for cuda (fc1's
// bias and ReLU, fc2's bias, each weight gradient with its bias gradient),
// and none when lowered for the CPU.
TEST(GpuCli, LoweringForCudaPrintsTheGemmEpilogues) {
  auto r = run_mlc("ir examples/digits_mlp.json --after lower --target cuda:sm_90");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* e : {"epilogue bias_relu](%x, %fc1.weight, %fc1.bias)", "epilogue bias](", "epilogue bgradb]("})
    EXPECT_NE(r.out.find(e), std::string::npos) << e << " in " << r.out;
  r = run_mlc("ir examples/digits_mlp.json --after lower --target cpu");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("epilogue"), std::string::npos) << r.out;
}

// An MLP with two tanh GELUs (tests/data/gemm_epilogues), in f32 and under
// bf16 autocast: in its train step each GELU is its linear's bias_gelu_aux
// forward and dgelu_bgrad backward (the gradient's GEMM with the GELU's
// backward and the bias gradient), the last linear's weight gradient a
// bgradb.
TEST(GpuCli, LoweringForCudaFormsTheGeluBackward) {
  for (const std::string model : {"mlp_gelu_tanh", "mlp_gelu_tanh_bf16"}) {
    auto r = run_mlc("ir tests/data/gemm_epilogues/" + model + ".mlc --after lower --target cuda:sm_90");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string all = r.out.substr(r.out.find("lowered @train_step"));
    const std::string step = all.substr(0, all.find("lowered @", 1));
    auto count = [&](const std::string& what) {
      size_t n = 0;
      for (size_t at = step.find(what); at != std::string::npos; at = step.find(what, at + 1)) ++n;
      return n;
    };
    EXPECT_EQ(count("epilogue bias_gelu_aux]"), 2u) << model << ": " << step;
    EXPECT_EQ(count("epilogue dgelu_bgrad]"), 2u) << model << ": " << step;
    EXPECT_EQ(count("epilogue bgradb]"), 1u) << model << ": " << step;
    EXPECT_EQ(count("epilogue bias]"), 1u) << model << ": " << step;
  }
}

TEST(GpuCli, BadDevicesAndTargetsSayWhatIsAccepted) {
  auto r = run_mlc("run examples/digits_mlp.json --device gpu");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--device gpu: expected cpu, host-gpu, cuda or cuda:N (the GPU's number)"), std::string::npos)
      << r.err;
  r = run_mlc("run examples/digits_mlp.json --device cuda:sm_90");
  EXPECT_EQ(r.status, 2);
  r = run_mlc("compile examples/digits_mlp.json --target cuda:90");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--target cuda:90: expected cpu, host-gpu, cuda or cuda:sm_XX"), std::string::npos) << r.err;
  r = run_mlc("compile examples/digits_mlp.json --target cuda -o /dev/null");
  if (r.status != 0) {  // no GPU here to take the arch from
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("error: --target cuda takes this machine's GPU's architecture: cuda: "), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("name one to compile without a GPU: --target cuda:sm_90"), std::string::npos) << r.err;
    r = run_mlc("run examples/digits_mlp.json --device cuda");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("error: --device cuda:0: cuda: "), std::string::npos) << r.err;
  }
  if (gpu::nvrtc_available()) {
    r = run_mlc("compile examples/digits_mlp.json --target cuda:sm_20");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("error: --target cuda:sm_20: NVRTC "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" does not support sm_20 (it supports sm_"), std::string::npos) << r.err;
  }
  r = run_mlc("compile examples/digits_mlp.json --emit-source x");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--emit-source writes GPU kernels"), std::string::npos) << r.err;
  r = run_mlc("run examples/digits_mlp.json --device host-gpu --backend interp");
  EXPECT_EQ(r.status, 2);
  r = run_mlc("run examples/digits_mlp.json --no-gemm-epilogues");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--no-gemm-epilogues applies to model files on --device cuda or host-gpu"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace mlc
