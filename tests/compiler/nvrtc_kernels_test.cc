// Every kernel of every example (f32 and bf16 compute, one device) compiles
// with NVRTC for sm_80 (A100) and sm_90 (H100, H200) with no register spill
// and no more shared memory than the arch allows (ptxas's report,
// compiler/gpu/resource_usage.h). Skips where NVRTC is absent (the CUDA
// toolkit is not installed), saying so. So do kernels of the schedules'
// forms the examples may not reach (block reductions of every accumulator
// type).
#include <gtest/gtest.h>

#include <cstdio>

#include "compiler/gpu/gpu_compile.h"
#include "compiler/gpu/gpu_schedule.h"
#include "compiler/gpu/nvrtc.h"
#include "tests/compiler/example_kernels.h"
#include "tests/compiler/lowered_kernels.h"

namespace mlc {
namespace {

// `kernels` compile for sm_80 and sm_90 with no spill, within the arch's
// shared memory; prints the most registers a kernel uses per arch.
void expect_compile_without_spills(const std::vector<kir::Kernel>& kernels, const char* what) {
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
    std::printf("%s %s: %zu kernels, %zu distinct, %d compiled, %d from the cache, %.0f ms; at most %d registers\n", what,
                arch, kernels.size(), compiled->code.objects.size(), compiled->compiled, compiled->cache_hits,
                compiled->wall_ms, max_registers);
  }
}

// Block reductions of every accumulator type the examples may lack (f64 and
// i64 values, argmax's carried index, blocks of one and two warps), in the
// row and columns schedules: the row trees' warp levels shuffle 32- and
// 64-bit registers (compiler/gpu/kernel_source_reductions.cc), which only a CUDA
// compile checks; the elementwise vector form of 2-, 4- and 1-byte
// elements (ushort4, int4, uchar4 and their make_ functions); and transpose
// tiles of 2-, 4- and 8-byte elements.
TEST(NvrtcKernels, BlockReductionsOfEveryAccumulatorType) {
  if (!gpu::nvrtc_available()) GTEST_SKIP() << gpu::nvrtc_version().error().message;
  const std::vector<kir::Kernel> kernels = testing::kernels_for_target(R"(module @m {
  func @f(%a: f64[4,300] {input}, %b: i64[4,300] {input}, %c: f32[4,40] {input}, %d: bf16[4,32] {input}, %e: i32[4,300] {input},
          %g: f32[300,45] {input}, %h: bf16[300,45] {input}, %k: f64[300,45] {input}, %l: i64[300,45] {input})
      -> (f64[4,1], f64[4,1], i64[4], i64[4,1], i64[4,1], i64[4], f32[4,1], i64[4], bf16[4,1], i32[4,1], f32[45], i64[45],
          bf16[45], f64[45], i64[45], i64[45], bf16[4,32], bool[300,45], i32[4,300], f32[45,300], bf16[45,300], f64[45,300],
          i64[45,300]) {
    %0 = reduce_max(%a) {dims = [1], keepdim = true} : f64[4,1]
    %1 = reduce_sum(%a) {dims = [1], keepdim = true} : f64[4,1]
    %2 = argmax(%a) {axis = 1} : i64[4]
    %3 = reduce_sum(%b) {dims = [1], keepdim = true} : i64[4,1]
    %4 = reduce_min(%b) {dims = [1], keepdim = true} : i64[4,1]
    %5 = argmax(%c) {axis = 1} : i64[4]
    %6 = reduce_max(%c) {dims = [1], keepdim = true} : f32[4,1]
    %7 = argmax(%d) {axis = 1} : i64[4]
    %8 = reduce_max(%d) {dims = [1], keepdim = true} : bf16[4,1]
    %9 = reduce_max(%e) {dims = [1], keepdim = true} : i32[4,1]
    %10 = reduce_sum(%g) {dims = [0], keepdim = false} : f32[45]
    %11 = argmax(%g) {axis = 0} : i64[45]
    %12 = reduce_max(%h) {dims = [0], keepdim = false} : bf16[45]
    %13 = reduce_min(%k) {dims = [0], keepdim = false} : f64[45]
    %14 = reduce_sum(%l) {dims = [0], keepdim = false} : i64[45]
    %15 = argmax(%k) {axis = 0} : i64[45]
    %16 = tanh(%d) : bf16[4,32]
    %17 = compare(%g, %g) {direction = "lt"} : bool[300,45]
    %18 = add(%e, %e) : i32[4,300]
    %19 = transpose(%g) {perm = [1, 0]} : f32[45,300]
    %20 = transpose(%h) {perm = [1, 0]} : bf16[45,300]
    %21 = transpose(%k) {perm = [1, 0]} : f64[45,300]
    %22 = transpose(%l) {perm = [1, 0]} : i64[45,300]
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22
  }
})",
                                                                      std::string(rt::kCudaTarget));
  ASSERT_FALSE(kernels.empty());
  int columns = 0, vectors = 0, tiles = 0;
  for (const kir::Kernel& k : kernels) {
    columns += gpu::schedule_kernel(k).kind == gpu::ScheduleKind::columns;
    vectors += gpu::schedule_kernel(k).vector_width > 1;
    tiles += gpu::schedule_kernel(k).kind == gpu::ScheduleKind::transpose_tiles;
  }
  EXPECT_EQ(columns, 6);
  EXPECT_EQ(vectors, 3);
  EXPECT_EQ(tiles, 4);
  expect_compile_without_spills(kernels, "block reductions");
}

// Two-phase whole-tensor reductions (gpu_schedule.h's row in two phases)
// of every accumulator type: f64 and i64 sums (the scratch words'
// MLC_F64_BITS and i64 bits), f32 and bf16 maxima (MLC_F32_BITS), f64 and
// i32 minima, argmax's carried index, a sum and a max sharing the scratch,
// x / sum(x) (elements on several combining blocks) and a grad norm
// sqrt(sum(x * x)) of bf16; gpt2_tied's clipped grad norms compile as an
// example below.
TEST(NvrtcKernels, TwoPhaseReductionsOfEveryAccumulatorType) {
  if (!gpu::nvrtc_available()) GTEST_SKIP() << gpu::nvrtc_version().error().message;
  const std::vector<kir::Kernel> kernels = testing::kernels_for_target(R"(module @m {
  func @f(%a: f64[65537] {input}, %b: i64[65537] {input}, %c: f32[65537] {input}, %d: bf16[65537] {input},
          %e: i32[65537] {input}) -> (f64[], i64[], f32[], bf16[], f64[], i32[], i64[], i64[], f32[], f32[65537], bf16[]) {
    %0 = reduce_sum(%a) {dims = [0], keepdim = false} : f64[]
    %1 = reduce_sum(%b) {dims = [0], keepdim = false} : i64[]
    %2 = reduce_max(%c) {dims = [0], keepdim = false} : f32[]
    %3 = reduce_max(%d) {dims = [0], keepdim = false} : bf16[]
    %4 = reduce_min(%a) {dims = [0], keepdim = false} : f64[]
    %5 = reduce_min(%e) {dims = [0], keepdim = false} : i32[]
    %6 = argmax(%c) {axis = 0} : i64[]
    %7 = argmax(%d) {axis = 0} : i64[]
    %8 = reduce_sum(%c) {dims = [0], keepdim = false} : f32[]
    %9 = reduce_max(%c) {dims = [0], keepdim = false} : f32[]
    %10 = add(%8, %9) : f32[]
    %11 = reduce_sum(%c) {dims = [0], keepdim = false} : f32[]
    %12 = broadcast(%11) {dims = []} : f32[65537]
    %13 = div(%c, %12) : f32[65537]
    %14 = mul(%d, %d) : bf16[65537]
    %15 = reduce_sum(%14) {dims = [0], keepdim = false} : bf16[]
    %16 = sqrt(%15) : bf16[]
    return %0, %1, %2, %3, %4, %5, %6, %7, %10, %13, %16
  }
})",
                                                                      std::string(rt::kCudaTarget));
  ASSERT_EQ(kernels.size(), 11u);
  int two_phase = 0;
  for (const kir::Kernel& k : kernels) two_phase += gpu::schedule_kernel(k).launch.two_phase();
  EXPECT_EQ(two_phase, 11) << "every kernel folds 65537 terms";
  expect_compile_without_spills(kernels, "two-phase reductions");
}

class NvrtcExampleKernels : public ::testing::TestWithParam<const char*> {};

TEST_P(NvrtcExampleKernels, CompileForSm80AndSm90WithoutSpills) {
  if (!gpu::nvrtc_available()) GTEST_SKIP() << gpu::nvrtc_version().error().message;
  std::vector<kir::Kernel> kernels;
  for (testing::ExampleKernel& k : testing::example_kernels(GetParam(), std::string(rt::kCudaTarget)))
    kernels.push_back(std::move(k.kernel));
  ASSERT_FALSE(kernels.empty());
  expect_compile_without_spills(kernels, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Examples, NvrtcExampleKernels, ::testing::ValuesIn(testing::kExampleNames));

}  // namespace
}  // namespace mlc
