// Every kernel of every example (f32 and bf16 compute, one device) compiles
// with NVRTC for sm_80 (A100) and sm_90 (H100, H200) with no register spill
// and no more shared memory than the arch allows (ptxas's report,
// compiler/gpu/resource_usage.h). Skips where NVRTC is absent (the CUDA
// toolkit is not installed), saying so.
#include <gtest/gtest.h>

#include <cstdio>

#include "compiler/gpu/gpu_compile.h"
#include "compiler/gpu/nvrtc.h"
#include "tests/compiler/example_kernels.h"

namespace mlc {
namespace {

class NvrtcExampleKernels : public ::testing::TestWithParam<const char*> {};

TEST_P(NvrtcExampleKernels, CompileForSm80AndSm90WithoutSpills) {
  if (!gpu::nvrtc_available()) GTEST_SKIP() << gpu::nvrtc_version().error().message;
  std::vector<kir::Kernel> kernels;
  for (testing::ExampleKernel& k : testing::example_kernels(GetParam(), std::string(rt::kCudaTarget)))
    kernels.push_back(std::move(k.kernel));
  ASSERT_FALSE(kernels.empty());
  static const std::optional<KernelCache> cache = KernelCache::from_environment();
  for (const char* arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    gpu::GpuCompileOptions o;
    o.target = std::string(rt::kCudaTarget);
    o.arch = arch;
    o.cache = cache ? &*cache : nullptr;
    auto compiled = gpu::compile_gpu_kernels(kernels, o);
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    ASSERT_EQ(compiled->usage.size(), compiled->code.objects.size());
    EXPECT_EQ(compiled->code.arch, arch);
    int max_registers = 0;
    for (size_t i = 0; i < compiled->usage.size(); ++i) {
      const rt::ObjectFile& obj = compiled->code.objects[i];
      Status ok = gpu::check_resource_usage(obj.symbol, compiled->usage[i], arch);
      EXPECT_TRUE(ok) << ok.error().message;
      max_registers = std::max(max_registers, compiled->usage[i].registers);
    }
    std::printf("%s %s: %zu kernels, %zu distinct, %d compiled, %d from the cache, %.0f ms; at most %d registers\n",
                GetParam(), arch, kernels.size(), compiled->code.objects.size(), compiled->compiled,
                compiled->cache_hits, compiled->wall_ms, max_registers);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, NvrtcExampleKernels, ::testing::ValuesIn(testing::kExampleNames));

}  // namespace
}  // namespace mlc
