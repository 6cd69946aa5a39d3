// Targets (runtime/target.h): the registry, what each says of this machine,
// loading a code module once per process while it is held, and executables
// for a target this runtime lacks.
#include "runtime/target.h"

#include <gtest/gtest.h>

#include "runtime/cpu/cpu_target.h"
#include "runtime/executor.h"
#include "tests/runtime/tiny_artifact.h"

namespace mlc::rt {
namespace {

TEST(Target, TheCpuTargetIsRegistered) {
  const Target* cpu = find_target("cpu-x86_64");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu, &cpu_target());
  EXPECT_EQ(cpu->arena_alignment(), 64);
  EXPECT_EQ(find_target("cuda-sm_90"), nullptr);
  // host-gpu in builds with OpenCL (tests/runtime/host_gpu_test.cc).
  EXPECT_EQ(target_names(), find_target("host-gpu") ? "cpu-x86_64, host-gpu, cuda" : "cpu-x86_64, cuda");
}

// What `mlc --version` says of each target mlc knows: the CPU needs no
// probe; host-gpu names its OpenCL device, or that there is none, or that the
// build lacks it; cuda names the driver's CUDA version and its GPUs, or none.
TEST(Target, EveryKnownTargetSaysWhetherItRunsHere) {
  std::vector<std::string> names;
  for (std::string_view n : known_target_names()) names.emplace_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"cpu-x86_64", "host-gpu", "cuda"}));
  EXPECT_EQ(target_availability("cpu-x86_64"), "");
  const std::string host_gpu = target_availability("host-gpu");
  if (!find_target("host-gpu"))
    EXPECT_EQ(host_gpu, "not in this build");
  else
    EXPECT_TRUE(host_gpu == "no OpenCL device" || host_gpu.rfind("OpenCL: ", 0) == 0) << host_gpu;
  const std::string cuda = target_availability("cuda");
  EXPECT_TRUE(cuda == "driver: none" || cuda.rfind("driver: CUDA ", 0) == 0) << cuda;
  EXPECT_EQ(target_availability("cuda-sm_90"), "not in this build");
}

// No code: nothing to load (an executable without kernels).
TEST(Target, NullCodeLoadsToNull) {
  auto loaded = load_code(nullptr);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(*loaded, nullptr);
}

// A module with no objects loads (to an empty table); loading it again while
// the first result is held gives the same loaded code, and after release a
// new load.
TEST(Target, AModuleLoadsOncePerProcessWhileHeld) {
  auto code = std::make_shared<CodeModule>();
  auto first = load_code(code);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_NE(*first, nullptr);
  auto again = load_code(code);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), first->get());
  auto other = load_code(std::make_shared<CodeModule>(*code));
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->get(), first->get()) << "another module (equal bytes, another object) loads on its own";
}

TEST(Target, CodeForATargetThisRuntimeLacksIsRefused) {
  auto code = std::make_shared<CodeModule>();
  code->target = "cuda-sm_90";
  auto loaded = load_code(code);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message, "code for target 'cuda-sm_90', which this runtime lacks (it has " + target_names() + ")");
}

// verify_executable (rule 0) refuses, before anything runs, an executable for
// an unknown target, code for another target and a kernel without an object.
TEST(Target, ExecutablesNameTheirTargetAndItsCode) {
  auto tiny = [] { return std::make_shared<Executable>(*mlc::testing::tiny_artifact("").functions[0].executable); };
  auto e = tiny();
  e->target = "cuda-sm_90";
  auto x = Executor::create(e);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message,
            "function 'eval': target: is 'cuda-sm_90', not a target of this runtime (" + target_names() + ")");

  e = tiny();
  auto code = std::make_shared<CodeModule>(*e->code);
  code->target = "cuda-sm_90";
  e->code = code;
  x = Executor::create(e);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message, "function 'eval': code: is code for target 'cuda-sm_90', the function is for 'cpu-x86_64'");

  e = tiny();
  e->kernels[0].object = 1;
  x = Executor::create(e);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message, "function 'eval': kernels[0].object: names code object 1, the code has 1 object");

  e = tiny();
  e->code = nullptr;
  x = Executor::create(e);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message, "function 'eval': kernels[0].object: names code object 0, the code has 0 objects");
}

}  // namespace
}  // namespace mlc::rt
