// GPU schedules (compiler/gpu/gpu_schedule.h) and kernel text
// (compiler/gpu/kernel_source.h): which schedule each kind of kernel gets,
// and that the text of every example's kernels is deterministic and names
// the ops it computes. Running the text is the host device's suite
// (host_gpu_ops_test.cc); compiling it for GPUs, NVRTC's (nvrtc_kernels_test.cc).
#include <gtest/gtest.h>

#include "compiler/gpu/gpu_schedule.h"
#include "compiler/gpu/kernel_source.h"
#include "compiler/lower.h"
#include "ir/parser.h"
#include "tests/compiler/example_kernels.h"

namespace mlc {
namespace {

// The kernels of `body` (the ops of @f(%x: TYPE)) lowered for the host device.
std::vector<kir::Kernel> kernels_of(const std::string& type, const std::string& body, const std::string& result) {
  const std::string text = "module @m {\n  func @f(%x: " + type + " {input}) -> (" + result + ") {\n" + body + "  }\n}\n";
  auto m = parse_module(text, "gpu_kernel_source_test.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  if (!m.ok()) return {};
  LowerOptions o;
  o.compile_kernels = false;
  o.target = std::string(rt::kHostGpuTarget);
  auto l = lower_function(*m->find("f"), o);
  EXPECT_TRUE(l.ok()) << l.error().message;
  return l.ok() ? l->kernels : std::vector<kir::Kernel>{};
}

TEST(GpuSchedule, ElementwiseKernelsTakeAThreadPerElement) {
  auto ks = kernels_of("f32[1000]", "    %0 = exp(%x) : f32[1000]\n    %1 = add(%0, %x) : f32[1000]\n    return %1\n",
                       "f32[1000]");
  ASSERT_EQ(ks.size(), 1u);
  gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::elementwise);
  EXPECT_EQ(s.launch.block, gpu::kBlockSize);
  EXPECT_EQ(s.launch.grid, (1000 + gpu::kBlockSize - 1) / gpu::kBlockSize);  // 1000 does not divide the block
  EXPECT_EQ(s.launch.shared_bytes, 0);
}

TEST(GpuSchedule, RowReductionsTakeABlockPerRow) {
  // softmax's max and sum over rows of 300: longer than a block.
  auto ks = kernels_of("f32[6,300]",
                       "    %0 = reduce_max(%x) {dims = [1], keepdim = true} : f32[6,1]\n"
                       "    %1 = sub(%x, %0) : f32[6,300]\n"
                       "    %2 = exp(%1) : f32[6,300]\n"
                       "    %3 = reduce_sum(%2) {dims = [1], keepdim = true} : f32[6,1]\n"
                       "    %4 = div(%2, %3) : f32[6,300]\n"
                       "    return %4\n",
                       "f32[6,300]");
  ASSERT_FALSE(ks.empty());
  bool row = false;
  for (const kir::Kernel& k : ks) {
    gpu::Schedule s = gpu::schedule_kernel(k);
    if (s.kind != gpu::ScheduleKind::row) continue;
    row = true;
    EXPECT_EQ(s.launch.block, gpu::kBlockSize);
    EXPECT_EQ(s.launch.grid, 6);
    EXPECT_GT(s.launch.shared_bytes, 0);
    EXPECT_NE(gpu::kernel_function(k, s, "k").find("MLC_BARRIER()"), std::string::npos);
  }
  EXPECT_TRUE(row);
}

TEST(GpuSchedule, AWholeTensorSumIsOneBlock) {
  auto ks = kernels_of("f32[50,7]", "    %0 = reduce_sum(%x) {dims = [0, 1], keepdim = false} : f32[]\n    return %0\n",
                       "f32[]");
  ASSERT_EQ(ks.size(), 1u);
  gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::row);
  EXPECT_EQ(s.launch.grid, 1);
  EXPECT_EQ(s.launch.block, gpu::kBlockSize);  // 350 terms
  EXPECT_EQ(s.launch.shared_bytes, gpu::kBlockSize * 8);  // the f64 partial sums
}

TEST(GpuSchedule, ColumnSumsTakeAThreadPerColumn) {
  auto ks = kernels_of("f32[500,40]", "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[40]\n    return %0\n",
                       "f32[40]");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(gpu::schedule_kernel(ks[0]).kind, gpu::ScheduleKind::elementwise);
}

TEST(GpuKernelSource, TheTwoDialectsDifferOnlyInThePrelude) {
  auto ks = kernels_of("bf16[8,33]", "    %0 = tanh(%x) : bf16[8,33]\n    return %0\n", "bf16[8,33]");
  ASSERT_EQ(ks.size(), 1u);
  const gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  const std::string fn = gpu::kernel_function(ks[0], s, "mlc_kernel_test");
  const std::string cuda = gpu::kernel_source(ks[0], s, "mlc_kernel_test", gpu::Dialect::cuda);
  const std::string opencl = gpu::kernel_source(ks[0], s, "mlc_kernel_test", gpu::Dialect::opencl);
  EXPECT_EQ(cuda, std::string(gpu::prelude(gpu::Dialect::cuda)) + "\n" + fn);
  EXPECT_EQ(opencl, std::string(gpu::prelude(gpu::Dialect::opencl)) + "\n" + fn);
  EXPECT_NE(fn.find("MLC_KERNEL(256) mlc_kernel_test(MLC_PARAM(u16, p0), MLC_PARAM(u16, p1), MLC_STATUS_PARAM)"),
            std::string::npos)
      << fn;
  // bf16 computes in float and rounds once per op.
  EXPECT_NE(fn.find("mlc_bf16_to_f32(") , std::string::npos);
  EXPECT_NE(fn.find("mlc_f32_to_bf16("), std::string::npos);
  EXPECT_NE(fn.find("/* " + ks[0].name + ": " + ks[0].origin + " */"), std::string::npos) << "the origin names the ops";
  EXPECT_NE(ks[0].origin.find("tanh"), std::string::npos);
}

class ExampleSources : public ::testing::TestWithParam<const char*> {};

TEST_P(ExampleSources, AreDeterministicAndNameTheirOps) {
  const auto first = testing::example_kernels(GetParam(), std::string(rt::kHostGpuTarget));
  const auto second = testing::example_kernels(GetParam(), std::string(rt::kHostGpuTarget));
  ASSERT_EQ(first.size(), second.size());
  ASSERT_FALSE(first.empty());
  for (size_t i = 0; i < first.size(); ++i) {
    SCOPED_TRACE(first[i].where + " " + first[i].kernel.name);
    const gpu::Schedule s = gpu::schedule_kernel(first[i].kernel);
    const std::string a = gpu::kernel_function(first[i].kernel, s, "k");
    EXPECT_EQ(a, gpu::kernel_function(second[i].kernel, gpu::schedule_kernel(second[i].kernel), "k"));
    EXPECT_NE(a.find(first[i].kernel.origin), std::string::npos);
    EXPECT_GE(s.launch.grid, 1);
    EXPECT_LE(s.launch.grid, gpu::kMaxGrid);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleSources, ::testing::ValuesIn(testing::kExampleNames));

}  // namespace
}  // namespace mlc
