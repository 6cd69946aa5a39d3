// GPU schedules (compiler/gpu/gpu_schedule.h) and kernel text
// (compiler/gpu/kernel_source.h): which schedule each kind of kernel gets,
// and that the text of every example's kernels is deterministic and names
// the ops it computes. Running the text is the host device's suite
// (host_gpu_ops_test.cc); compiling it for GPUs, NVRTC's (nvrtc_kernels_test.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "compiler/gpu/gpu_schedule.h"
#include "compiler/gpu/kernel_source.h"
#include "compiler/lower.h"
#include "ir/parser.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"
#include "runtime/target.h"
#include "tests/compiler/example_kernels.h"
#include "tests/compiler/host_gpu_runs.h"

namespace mlc {
namespace {

// The kernels of `body` (the ops of @f(%x: TYPE)) lowered for the host device.
std::vector<kir::Kernel> kernels_of(const std::string& type, const std::string& body, const std::string& result) {
  return testing::host_gpu_kernels_of(type, body, result);
}

TEST(GpuSchedule, ElementwiseKernelsTakeAThreadPerElement) {
  auto ks = kernels_of("f64[1000]", "    %0 = exp(%x) : f64[1000]\n    %1 = add(%0, %x) : f64[1000]\n    return %1\n",
                       "f64[1000]");
  ASSERT_EQ(ks.size(), 1u);
  gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::elementwise);
  EXPECT_EQ(s.vector_width, 1) << "8-byte elements";
  EXPECT_EQ(s.launch.block, gpu::kBlockSize);
  EXPECT_EQ(s.launch.grid, (1000 + gpu::kBlockSize - 1) / gpu::kBlockSize);  // 1000 does not divide the block
  EXPECT_EQ(s.launch.shared_bytes, 0);
}

// Where every buffer is read and written at the element's own index with
// elements of at most 4 bytes, a thread takes 4 neighbouring elements: one
// vector load per input, one vector store per output, then a scalar tail.
TEST(GpuSchedule, ContiguousElementwiseKernelsTakeFourElementsPerThread) {
  auto ks = kernels_of("f32[1003]", "    %0 = exp(%x) : f32[1003]\n    %1 = add(%0, %x) : f32[1003]\n    return %1\n",
                       "f32[1003]");
  ASSERT_EQ(ks.size(), 1u);
  gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::elementwise);
  EXPECT_EQ(s.vector_width, gpu::kVectorWidth);
  EXPECT_EQ(s.launch.grid, 1);  // 250 groups of 4
  std::string fn = gpu::kernel_function(ks[0], s, "k");
  EXPECT_NE(fn.find("for (i64 vec = MLC_BLOCK * 256 + MLC_THREAD; vec < ((i64)250); vec += MLC_BLOCKS * 256)"),
            std::string::npos) << fn;
  EXPECT_NE(fn.find("float4 mlc_v0 = MLC_LOAD4(float4, p0, vec);"), std::string::npos) << fn;
  EXPECT_GT(fn.find("p0["), fn.find("for (i64 lin = ((i64)1000)")) << "only the tail reads scalars";
  EXPECT_NE(fn.find("MLC_STORE4(float4, p1, vec, MLC_VEC4(float4, mlc_r0_0, mlc_r0_1, mlc_r0_2, mlc_r0_3));"),
            std::string::npos) << fn;
  EXPECT_NE(fn.find("for (i64 lin = ((i64)1000) + MLC_BLOCK * 256 + MLC_THREAD; lin < ((i64)1003);"), std::string::npos)
      << fn;
  // Halves and booleans: 8 and 4 bytes a vector.
  ks = kernels_of("bf16[8,33]", "    %0 = tanh(%x) : bf16[8,33]\n    return %0\n", "bf16[8,33]");
  ASSERT_EQ(ks.size(), 1u);
  s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.vector_width, gpu::kVectorWidth);
  fn = gpu::kernel_function(ks[0], s, "k");
  EXPECT_NE(fn.find("ushort4 mlc_v0 = MLC_LOAD4(ushort4, p0, vec);"), std::string::npos) << fn;
  ks = kernels_of("f32[9]", "    %0 = compare(%x, %x) {direction = \"eq\"} : bool[9]\n    return %0\n", "bool[9]");
  ASSERT_EQ(ks.size(), 1u);
  s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.vector_width, gpu::kVectorWidth);
  EXPECT_NE(gpu::kernel_function(ks[0], s, "k").find("MLC_STORE4(uchar4, p1, vec, "), std::string::npos);
  // Not at the element's own index: a transpose, a broadcast.
  for (const auto& [type, body, result] :
       {std::tuple<const char*, const char*, const char*>{"f32[37,53]", "    %0 = transpose(%x) {perm = [1, 0]} : f32[53,37]\n    return %0\n",
                                                           "f32[53,37]"},
        {"f32[8]", "    %0 = broadcast(%x) {dims = [1]} : f32[4,8]\n    %1 = exp(%0) : f32[4,8]\n    return %1\n", "f32[4,8]"}}) {
    ks = kernels_of(type, body, result);
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(gpu::schedule_kernel(ks[0]).vector_width, 1) << body;
  }
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

// Under kTwoPhaseMinTerms terms a whole-tensor sum is one block of one
// launch (gpu_two_phase_test.cc: the larger ones).
TEST(GpuSchedule, ASmallWholeTensorSumIsOneBlock) {
  auto ks = kernels_of("f32[50,7]", "    %0 = reduce_sum(%x) {dims = [0, 1], keepdim = false} : f32[]\n    return %0\n",
                       "f32[]");
  ASSERT_EQ(ks.size(), 1u);
  gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::row);
  EXPECT_EQ(s.launch.grid, 1);
  EXPECT_EQ(s.launch.block, gpu::kBlockSize);  // 350 terms
  EXPECT_EQ(s.launch.shared_bytes, gpu::kBlockSize * 8);  // the f64 partial sums
  EXPECT_FALSE(s.launch.two_phase());
}

// A column sum (a bias gradient): a block per tile of 32 columns, its 8
// parts splitting the rows; 40 columns do not divide the tile.
TEST(GpuSchedule, ColumnSumsTakeABlockPerTileOfColumns) {
  auto ks = kernels_of("f32[500,40]", "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[40]\n    return %0\n",
                       "f32[40]");
  ASSERT_EQ(ks.size(), 1u);
  const gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::columns);
  EXPECT_EQ(gpu::schedule_kind_name(s.kind), "columns");
  EXPECT_EQ(s.launch.block, gpu::kBlockSize);
  EXPECT_EQ(s.rows, 2);  // tiles
  EXPECT_EQ(s.launch.grid, 2);
  EXPECT_EQ(s.launch.shared_bytes, gpu::kBlockSize * 8);  // the f64 partial sums
  const std::string fn = gpu::kernel_function(ks[0], s, "k");
  EXPECT_NE(fn.find("for (i64 rj = part; rj < ((i64)500); rj += 8)"), std::string::npos) << fn;
  EXPECT_NE(fn.find("for (int s = 128; s >= 32; s >>= 1)"), std::string::npos) << fn;
  EXPECT_NE(fn.find("mlc_sf64[lane]"), std::string::npos) << fn;
  EXPECT_EQ(fn.find("MLC_WARP_DOWN"), std::string::npos) << "the tree ends where a tile's lanes begin";
  EXPECT_NE(fn.find("if (part == 0 && col < ((i64)40))"), std::string::npos) << fn;
  // Over the leading two dims of three (a bias gradient of [B, T, C]).
  ks = kernels_of("f32[4,50,10]", "    %0 = reduce_sum(%x) {dims = [0, 1], keepdim = false} : f32[10]\n    return %0\n",
                  "f32[10]");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(gpu::schedule_kernel(ks[0]).kind, gpu::ScheduleKind::columns);
}

// An input read with the last two dims swapped: a block per 32 x 32 tile
// (of every leading index), staged through a padded shared array; sides
// that do not divide the tile; other permutations and short sides stay
// elementwise.
TEST(GpuSchedule, TransposedReadsTakeSharedMemoryTiles) {
  auto ks = kernels_of("f32[37,53]", "    %0 = transpose(%x) {perm = [1, 0]} : f32[53,37]\n    return %0\n", "f32[53,37]");
  ASSERT_EQ(ks.size(), 1u);
  gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::transpose_tiles);
  EXPECT_EQ(gpu::schedule_kind_name(s.kind), "transpose_tiles");
  EXPECT_EQ(s.rows, 2 * 2);  // 53 x 37 in tiles of 32
  EXPECT_EQ(s.launch.grid, 4);
  EXPECT_EQ(s.launch.block, gpu::kBlockSize);
  EXPECT_EQ(s.staged_loads.size(), 1u);
  EXPECT_EQ(s.launch.shared_bytes, 32 * 33 * 4);
  const std::string fn = gpu::kernel_function(ks[0], s, "k");
  EXPECT_NE(fn.find("MLC_SHARED float mlc_tile0[1056];"), std::string::npos) << fn;
  EXPECT_NE(fn.find("mlc_tile0[(ty + k) * 33 + tx] = p0["), std::string::npos) << fn;
  EXPECT_NE(fn.find("= mlc_tile0[tx * 33 + ty + k];"), std::string::npos) << fn;
  // Batched ([B, M, N] to [B, N, M]) with a direct read beside the staged one.
  ks = kernels_of("bf16[3,40,40]",
                  "    %0 = transpose(%x) {perm = [0, 2, 1]} : bf16[3,40,40]\n    %1 = sub(%x, %0) : bf16[3,40,40]\n    return %1\n",
                  "bf16[3,40,40]");
  ASSERT_EQ(ks.size(), 1u);
  s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::transpose_tiles);
  EXPECT_EQ(s.rows, 3 * 2 * 2);
  EXPECT_EQ(s.staged_loads.size(), 1u) << "the direct read is not staged";
  EXPECT_EQ(s.launch.shared_bytes, 32 * 33 * 2);
  for (const auto& [type, body, result] :
       {std::tuple<const char*, const char*, const char*>{"f32[3,5,7]", "    %0 = transpose(%x) {perm = [2, 0, 1]} : f32[7,3,5]\n    return %0\n",
                                                           "f32[7,3,5]"},
        {"f32[8,100]", "    %0 = transpose(%x) {perm = [1, 0]} : f32[100,8]\n    return %0\n", "f32[100,8]"}}) {
    ks = kernels_of(type, body, result);
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(gpu::schedule_kernel(ks[0]).kind, gpu::ScheduleKind::elementwise) << body;
  }
}

// A row's reductions with the row dropped (keepdim = false, argmax): every
// element is a row of its own, a block each.
TEST(GpuSchedule, ReductionsOfDroppedRowsTakeABlockPerElement) {
  auto ks = kernels_of("f32[6,300]", "    %0 = reduce_sum(%x) {dims = [1], keepdim = false} : f32[6]\n    return %0\n",
                       "f32[6]");
  ASSERT_EQ(ks.size(), 1u);
  gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::row);
  EXPECT_TRUE(s.element_rows);
  EXPECT_EQ(s.rows, 6);
  EXPECT_EQ(s.launch.grid, 6);
  EXPECT_EQ(s.launch.block, gpu::kBlockSize);
  ks = kernels_of("f32[6,40]", "    %0 = argmax(%x) {axis = 1} : i64[6]\n    return %0\n", "i64[6]");
  ASSERT_EQ(ks.size(), 1u);
  s = gpu::schedule_kernel(ks[0]);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::row);
  EXPECT_TRUE(s.element_rows);
  EXPECT_EQ(s.launch.block, 64);
  EXPECT_EQ(s.launch.shared_bytes, 64 * (4 + 8));  // f32 values and their indices
}

// Short reductions, and domains that give a GPU enough threads already, keep
// a thread per element.
TEST(GpuSchedule, ShortReductionsAndLargeDomainsKeepAThreadPerElement) {
  auto ks = kernels_of("f32[20,40]", "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[40]\n    return %0\n",
                       "f32[40]");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(gpu::schedule_kernel(ks[0]).kind, gpu::ScheduleKind::elementwise);
  ks = kernels_of("f32[40,70000]", "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[70000]\n    return %0\n",
                  "f32[70000]");
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

// A block tree's last five levels (strides 16 to 1) go through
// MLC_WARP_DOWN: CUDA's prelude shuffles registers (never executed here:
// nvrtc_kernels_test.cc compiles it for sm_80 and sm_90), OpenCL's reads
// the shared array, so the host device runs the same tree. Values and the
// carried indices of every accumulator type: f64 and i64 sums, f32 and f64
// maxima, argmax's i64 index.
TEST(GpuKernelSource, BlockTreesShuffleWithinAWarpInCuda) {
  const std::string cuda(gpu::prelude(gpu::Dialect::cuda)), opencl(gpu::prelude(gpu::Dialect::opencl));
  EXPECT_NE(cuda.find("#define MLC_WARP_DOWN(arr, v, s) __shfl_down_sync(0xffffffffu, (v), (s))"), std::string::npos);
  EXPECT_NE(opencl.find("#define MLC_WARP_DOWN(arr, v, s) (arr)["), std::string::npos);
  EXPECT_EQ(opencl.find("shfl"), std::string::npos);
  EXPECT_EQ(opencl.find("sub_group"), std::string::npos);
  struct Case {
    const char* type;
    const char* op;
    const char* shuffled;  // the shared arrays whose values shuffle
  };
  for (const Case& c : {Case{"f32[4,300]", "reduce_sum", "mlc_sf64"}, Case{"i64[4,300]", "reduce_sum", "mlc_si64"},
                        Case{"f32[4,300]", "reduce_max", "mlc_sf32"}, Case{"f64[4,300]", "reduce_min", "mlc_sf64"},
                        Case{"i32[4,300]", "reduce_max", "mlc_si64"}}) {
    SCOPED_TRACE(std::string(c.type) + " " + c.op);
    const std::string t(c.type);
    const std::string result = t.substr(0, t.find('[')) + "[4,1]";
    auto ks = kernels_of(t, std::string("    %0 = ") + c.op + "(%x) {dims = [1], keepdim = true} : " + result +
                                "\n    return %0\n", result);
    ASSERT_EQ(ks.size(), 1u);
    const gpu::Schedule s = gpu::schedule_kernel(ks[0]);
    ASSERT_EQ(s.kind, gpu::ScheduleKind::row) << kir::print_kernel(ks[0]);
    ASSERT_EQ(s.launch.block, 256);
    const std::string fn = gpu::kernel_function(ks[0], s, "k");
    // Strides 128, 64, 32 in shared memory, then 16 to 1 within the warp.
    EXPECT_NE(fn.find("for (int s = 128; s >= 32; s >>= 1)"), std::string::npos) << fn;
    EXPECT_NE(fn.find("for (int s = 16; s > 0; s >>= 1)"), std::string::npos) << fn;
    EXPECT_NE(fn.find(std::string("MLC_WARP_DOWN(") + c.shuffled + ", "), std::string::npos) << fn;
    EXPECT_EQ(fn.find("MLC_WARP_DOWN(mlc_sidx, ") != std::string::npos, std::string(c.op) != "reduce_sum") << fn;
  }
  // A block of one warp has no shared-memory levels.
  auto ks = kernels_of("f32[4,32]", "    %0 = reduce_max(%x) {dims = [1], keepdim = true} : f32[4,1]\n    return %0\n",
                       "f32[4,1]");
  ASSERT_EQ(ks.size(), 1u);
  const gpu::Schedule s = gpu::schedule_kernel(ks[0]);
  ASSERT_EQ(s.launch.block, 32);
  const std::string fn = gpu::kernel_function(ks[0], s, "k");
  EXPECT_EQ(fn.find("s >= 32"), std::string::npos) << fn;
  EXPECT_NE(fn.find("MLC_WARP_DOWN(mlc_sidx, "), std::string::npos) << fn;
}

// tiny_gpt's embedding gradients (scatter_add of [B*T, 64] rows into the
// tables) take a block per table row, scanning the token indices; the
// host-device oracle suites check their numbers (tests/tools/host_gpu_training_test.cc).
TEST(GpuSchedule, EmbeddingGradientsScatterWholeRows) {
  int scatter_rows = 0, scatters = 0;
  for (const testing::ExampleKernel& k : testing::example_kernels("tiny_gpt", std::string(rt::kHostGpuTarget))) {
    if (!k.kernel.scatters()) continue;
    ++scatters;
    const gpu::Schedule s = gpu::schedule_kernel(k.kernel);
    if (s.kind != gpu::ScheduleKind::scatter_rows) continue;
    ++scatter_rows;
    EXPECT_EQ(s.launch.grid, s.rows);
    EXPECT_EQ(s.rows, k.kernel.domain[0]) << "the table's rows";
    EXPECT_EQ(s.scatter_leading.size() + 1, k.kernel.scatter.domain.size());
    EXPECT_EQ(s.launch.shared_bytes, s.launch.block * 4);
  }
  EXPECT_GT(scatters, 0);
  EXPECT_EQ(scatter_rows, scatters) << "every embedding gradient scatters whole rows";
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
// PyTorch's examples (not in kExampleNames: the gradient of their in_proj_weight's
// thirds, a slice's scatter_add, spills 32 to 44 bytes under ptxas, which
// NvrtcExampleKernels refuses).
INSTANTIATE_TEST_SUITE_P(PyTorchExamples, ExampleSources,
                         ::testing::Values("pytorch/word_language_model_transformer", "pytorch/vision_transformer"));

}  // namespace
}  // namespace mlc

// ---- each schedule run by the host device against the interpreter

namespace mlc {
namespace {

// @f(%x: TYPE) -> RESULT of `body`, on `x`, interpreted and on the host
// device; every element equal (`exact`) or within `rtol` of the interpreter's.
void expect_host_gpu_matches(const std::string& type, const std::string& body, const std::string& result,
                             const std::vector<double>& x, DType dtype, const Shape& shape, bool exact,
                             double rtol = 0) {
  if (!testing::host_gpu_available()) GTEST_SKIP() << "this build has no host-gpu target";
  const std::optional<testing::HostGpuRun> run = testing::run_interpreted_and_on_host_gpu(type, body, result, x, dtype, shape);
  if (!run) return;
  const std::vector<double>& w = run->want;
  const std::vector<double>& g = run->got;
  for (size_t i = 0; i < w.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << "element " << i;
      continue;
    }
    if (exact) EXPECT_EQ(std::memcmp(&w[i], &g[i], sizeof(double)), 0) << "element " << i << ": " << w[i] << " vs " << g[i];
    else EXPECT_LE(std::fabs(w[i] - g[i]), rtol * std::fabs(w[i])) << "element " << i;
  }
}

std::vector<double> ramp(size_t n, double scale = 1) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<double>(i) * 0.37) * scale;
  return v;
}

// Rows of 1000 (with the row dropped: a block per element): four terms per
// thread of a 256-thread block, and a last partial round. Max and argmax exactly, with ties (the first maximal
// element), a NaN (max: the last NaN; argmax: the first) and -0/+0 ties.
TEST(GpuScheduleHostGpu, RowsLongerThanABlockFoldExactly) {
  std::vector<double> x = ramp(3000);
  x[700] = x[900] = 5;               // row 0: a tie, the first wins
  x[1000 + 10] = NAN;                // row 1: NaNs
  x[1000 + 990] = NAN;
  for (size_t i = 2000; i < 3000; ++i) x[i] = (i % 2) ? -0.0 : 0.0;  // row 2: zeros of both signs
  for (const char* op : {"reduce_max", "reduce_min"})
    expect_host_gpu_matches("f32[3,1000]", std::string("    %0 = ") + op + "(%x) {dims = [1], keepdim = false} : f32[3]\n    return %0\n",
                            "f32[3]", x, DType::f32, {3, 1000}, /*exact=*/true);
  expect_host_gpu_matches("f32[3,1000]", "    %0 = argmax(%x) {axis = 1} : i64[3]\n    return %0\n", "i64[3]", x, DType::f32,
                          {3, 1000}, /*exact=*/true);
}

// The tree over 64-bit values and carried indices (f64 and i64 maxima,
// argmax of f64, i64 sums), and blocks of one warp (rows of 32: warp levels
// only) and of two (rows of 40: one shared level): exact.
TEST(GpuScheduleHostGpu, BlockTreesOf64BitValuesFoldExactly) {
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{3, 1000}, {3, 32}, {3, 40}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    const size_t n = static_cast<size_t>(rows * cols);
    std::vector<double> x = ramp(n, 1e3);
    x[static_cast<size_t>(cols) - 1] = x[5] = 2e3;           // row 0: a tie at both ends, the first wins
    x[static_cast<size_t>(cols) + 3] = NAN;                   // row 1: NaNs
    x[static_cast<size_t>(2 * cols) - 2] = NAN;
    const std::string dims = "[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
    const Shape shape = {rows, cols};
    const std::string r = "[" + std::to_string(rows) + ",1]";
    for (const char* op : {"reduce_max", "reduce_min"})
      expect_host_gpu_matches("f64" + dims, std::string("    %0 = ") + op + "(%x) {dims = [1], keepdim = true} : f64" + r +
                                                "\n    return %0\n",
                              "f64" + r, x, DType::f64, shape, /*exact=*/true);
    const std::string r1 = "[" + std::to_string(rows) + "]";
    expect_host_gpu_matches("f64" + dims, "    %0 = argmax(%x) {axis = 1} : i64" + r1 + "\n    return %0\n", "i64" + r1, x,
                            DType::f64, shape, /*exact=*/true);
    std::vector<double> ints(n);
    for (size_t i = 0; i < n; ++i) ints[i] = std::floor(x[i] == x[i] ? x[i] * 1e6 : 7);  // beyond 32 bits' sums
    for (const char* op : {"reduce_sum", "reduce_max"})
      expect_host_gpu_matches("i64" + dims, std::string("    %0 = ") + op + "(%x) {dims = [1], keepdim = true} : i64" + r +
                                                "\n    return %0\n",
                              "i64" + r, ints, DType::i64, shape, /*exact=*/true);
  }
}

// Column reductions (the columns schedule): 45 columns (a tile and a
// partial one), rows not a multiple of the 8 parts; sums in f64 partials
// (the f32 result rounds the double sum once), i64 sums, and max, min and
// argmax exactly, with ties, NaNs and signed zeros.
TEST(GpuScheduleHostGpu, ColumnReductionsFoldExactly) {
  std::vector<double> x = ramp(1003 * 45);
  x[3 * 45 + 2] = x[900 * 45 + 2] = 5;  // column 2: a tie, the first wins
  x[10 * 45 + 7] = NAN;                 // column 7: NaNs
  x[998 * 45 + 7] = NAN;
  for (size_t r = 0; r < 1003; ++r) x[r * 45 + 44] = (r % 2) ? -0.0 : 0.0;  // the last column: zeros of both signs
  const Shape shape = {1003, 45};
  for (const char* op : {"reduce_sum", "reduce_max", "reduce_min"})
    expect_host_gpu_matches("f32[1003,45]", std::string("    %0 = ") + op + "(%x) {dims = [0], keepdim = false} : f32[45]\n    return %0\n",
                            "f32[45]", x, DType::f32, shape, /*exact=*/true);
  expect_host_gpu_matches("f32[1003,45]", "    %0 = argmax(%x) {axis = 0} : i64[45]\n    return %0\n", "i64[45]", x, DType::f32,
                          shape, /*exact=*/true);
  std::vector<double> ints(x.size());
  for (size_t i = 0; i < x.size(); ++i) ints[i] = std::floor(x[i] == x[i] ? x[i] * 1e9 : 7);
  expect_host_gpu_matches("i64[1003,45]", "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : i64[45]\n    return %0\n",
                          "i64[45]", ints, DType::i64, shape, /*exact=*/true);
  // A bias gradient's shape: [B, T, C] summed over B and T, one partial tile.
  expect_host_gpu_matches("f32[3,67,10]", "    %0 = reduce_sum(%x) {dims = [0, 1], keepdim = false} : f32[10]\n    return %0\n",
                          "f32[10]", ramp(3 * 67 * 10, 2), DType::f32, {3, 67, 10}, /*exact=*/true);
}

// Softmax over rows of 1000 (max, then a sum of exponentials: two block
// reductions in one kernel), within PoCL's exp (16 f32 ulp, compiled_test.cc).
TEST(GpuScheduleHostGpu, SoftmaxRowsLongerThanABlock) {
  expect_host_gpu_matches("f32[4,1000]",
                          "    %0 = reduce_max(%x) {dims = [1], keepdim = true} : f32[4,1]\n"
                          "    %1 = sub(%x, %0) : f32[4,1000]\n"
                          "    %2 = exp(%1) : f32[4,1000]\n"
                          "    %3 = reduce_sum(%2) {dims = [1], keepdim = true} : f32[4,1]\n"
                          "    %4 = div(%2, %3) : f32[4,1000]\n"
                          "    return %4\n",
                          "f32[4,1000]", ramp(4000, 4), DType::f32, {4, 1000}, /*exact=*/false, 16 * 0x1p-23);
}

// A whole-tensor sum of 100000 terms: two phases (32 partial blocks), double
// partial sums; the f32 result equals the interpreter's double sum rounded once.
TEST(GpuScheduleHostGpu, AWholeTensorSumRoundsOnce) {
  expect_host_gpu_matches("f32[100000]", "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[]\n    return %0\n",
                          "f32[]", ramp(100000, 3), DType::f32, {100000}, /*exact=*/true);
}

// The vector form (4 elements a thread): f32 with a tail of 3, 3 elements
// (the tail alone), bf16 (8-byte vectors), booleans (4-byte vectors), and
// exp within PoCL's 16 f32 ulp.
TEST(GpuScheduleHostGpu, VectorLoadsAndStoresWithTails) {
  for (int64_t n : {1003, 3}) {
    const std::string t = "f32[" + std::to_string(n) + "]";
    expect_host_gpu_matches(t, "    %0 = exp(%x) : " + t + "\n    %1 = mul(%0, %x) : " + t + "\n    return %1\n", t,
                            ramp(static_cast<size_t>(n), 3), DType::f32, {n}, /*exact=*/false, 16 * 0x1p-23);
    const std::string b = "bool[" + std::to_string(n) + "]";
    std::vector<double> x = ramp(static_cast<size_t>(n));
    x[1] = NAN;
    expect_host_gpu_matches(t, "    %0 = compare(%x, %x) {direction = \"eq\"} : " + b + "\n    return %0\n", b, x, DType::f32, {n},
                            /*exact=*/true);
  }
  expect_host_gpu_matches("bf16[8,33]", "    %0 = neg(%x) : bf16[8,33]\n    %1 = mul(%0, %x) : bf16[8,33]\n    return %1\n",
                          "bf16[8,33]", ramp(264, 5), DType::bf16, {8, 33}, /*exact=*/true);
}

// One element: a grid of one block with one live thread; and a sum over none.
TEST(GpuScheduleHostGpu, OneElementAndEmptyReductions) {
  expect_host_gpu_matches("f32[1]", "    %0 = tanh(%x) : f32[1]\n    return %0\n", "f32[1]", {0.5}, DType::f32, {1},
                          /*exact=*/false, 16 * 0x1p-23);
  expect_host_gpu_matches("f32[1,1]", "    %0 = reduce_sum(%x) {dims = [1], keepdim = false} : f32[1]\n    return %0\n",
                          "f32[1]", {2.5}, DType::f32, {1, 1}, /*exact=*/true);
}

// Transposes whose sides divide no block (the 2-D ones through
// shared-memory tiles with partial tiles at both edges; [3,5,7] to [7,3,5]
// elementwise, each thread reading a strided element), a batched transpose
// of i64 (8-byte tiles) beside a direct read, and a transposed bf16 read
// feeding arithmetic: exact.
TEST(GpuScheduleHostGpu, NonContiguousTransposes) {
  expect_host_gpu_matches("i64[2,33,65]",
                          "    %0 = transpose(%x) {perm = [0, 2, 1]} : i64[2,65,33]\n    %1 = reshape(%x) : i64[2,65,33]\n"
                          "    %2 = add(%0, %1) : i64[2,65,33]\n    return %2\n",
                          "i64[2,65,33]", ramp(2 * 33 * 65, 1e6), DType::i64, {2, 33, 65}, /*exact=*/true);
  expect_host_gpu_matches("bf16[40,17]",
                          "    %0 = transpose(%x) {perm = [1, 0]} : bf16[17,40]\n    %1 = mul(%0, %0) : bf16[17,40]\n    return %1\n",
                          "bf16[17,40]", ramp(40 * 17, 3), DType::bf16, {40, 17}, /*exact=*/true);
  expect_host_gpu_matches("f32[37,53]", "    %0 = transpose(%x) {perm = [1, 0]} : f32[53,37]\n    return %0\n",
                          "f32[53,37]", ramp(37 * 53), DType::f32, {37, 53}, /*exact=*/true);
  expect_host_gpu_matches("bf16[3,5,7]", "    %0 = transpose(%x) {perm = [2, 0, 1]} : bf16[7,3,5]\n    return %0\n",
                          "bf16[7,3,5]", ramp(105), DType::bf16, {3, 5, 7}, /*exact=*/true);
}

}  // namespace
}  // namespace mlc
