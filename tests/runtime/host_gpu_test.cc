// The host-gpu target (runtime/host_gpu/host_gpu_target.h): executables built
// by hand whose kernels are OpenCL C text in the GPU kernels' convention
// (compiler/gpu/kernel_source.h), run on PoCL. Each kernel's result is checked
// exactly (its values are sums that round nowhere). Skipped where the build
// has no OpenCL or the machine no OpenCL device.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/executor.h"
#include "runtime/target.h"

#ifdef MLC_HAVE_OPENCL
#include "runtime/host_gpu/host_gpu_target.h"
#endif

namespace mlc::rt {
namespace {

#ifndef MLC_HAVE_OPENCL

TEST(HostGpu, IsLeftOutOfBuildsWithoutOpenCl) { EXPECT_EQ(find_target(kHostGpuTarget), nullptr); }

#else

// The lines of compiler/gpu/gpu_prelude.cc's OpenCL prelude that these
// kernels use, verbatim (runtime tests do not link the compiler).
constexpr std::string_view kPrelude = R"(/* mlc GPU kernel prelude: OpenCL C 1.2 (test subset) */
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef long i64;
#define MLC_KERNEL(block) __kernel __attribute__((reqd_work_group_size(block, 1, 1))) void
#define MLC_PARAM(T, p) __global T* p##_base, long p##_off
#define MLC_BIND(T, p) __global T* restrict p = (__global T*)((__global char*)p##_base + p##_off)
#define MLC_STATUS_PARAM __global int* mlc_status
#define MLC_SHARED __local
#define MLC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define MLC_THREAD ((i64)get_local_id(0))
#define MLC_BLOCK ((i64)get_group_id(0))
#define MLC_BLOCKS ((i64)get_num_groups(0))
)";

// Why host-gpu code cannot run here, or "" where it can.
std::string unavailable() {
  const Target* t = find_target(kHostGpuTarget);
  if (!t) return "the build has no host-gpu target";
  CodeModule empty;
  empty.target = std::string(kHostGpuTarget);
  empty.arch = std::string(kOpenClArch);
  auto loaded = t->load(empty);
  return loaded.ok() ? "" : loaded.error().message;
}

#define SKIP_WITHOUT_OPENCL()                                  \
  do {                                                         \
    if (std::string why = unavailable(); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

// An executable for host-gpu, built slot by slot.
struct Builder {
  std::shared_ptr<Executable> e = std::make_shared<Executable>();
  std::shared_ptr<CodeModule> code = std::make_shared<CodeModule>();

  explicit Builder(std::string function) {
    e->function = std::move(function);
    e->target = std::string(kHostGpuTarget);
    code->target = std::string(kHostGpuTarget);
    code->arch = std::string(kOpenClArch);
    e->code = code;
  }
  int slot(Slot s) {
    e->slots.push_back(std::move(s));
    return static_cast<int>(e->slots.size()) - 1;
  }
  int arg(std::string name, TensorType t, ArgKind kind = ArgKind::input) {
    const int s = slot({std::move(t), static_cast<int>(e->args.size()), 0});
    e->args.push_back({std::move(name), kind, s});
    return s;
  }
  // A slot of argument `a`'s buffer at byte `offset`.
  int view(int a, TensorType t, int64_t offset) { return slot({std::move(t), a, offset}); }
  int arena(TensorType t) {
    const int64_t offset = e->arena_bytes;
    e->arena_bytes += (t.num_bytes() + kGpuArenaAlignment - 1) / kGpuArenaAlignment * kGpuArenaAlignment;
    return slot({std::move(t), -1, offset});
  }
  // A kernel of `body` (after the prelude) named `symbol`, run by an
  // instruction over `operands` into `result`.
  KernelInfo& kernel(const std::string& symbol, const std::string& body, std::vector<int> operands, int result,
                     GpuLaunch launch) {
    code->objects.push_back({symbol, std::string(kPrelude) + body, ""});
    KernelInfo k;
    k.name = symbol;
    k.object = static_cast<int>(code->objects.size()) - 1;
    for (int s : operands) k.types.push_back(e->slots[s].type);
    k.types.push_back(e->slots[result].type);
    const Shape& shape = k.types.back().shape;
    for (size_t d = 0; d + 1 < shape.size(); ++d) k.cpu.rows *= shape[d];
    k.launch = launch;
    Instruction ins;
    ins.kind = InstrKind::kernel;
    ins.name = symbol;
    ins.operands = std::move(operands);
    ins.result = result;
    ins.kernel = static_cast<int>(e->kernels.size());
    e->kernels.push_back(std::move(k));
    e->instructions.push_back(std::move(ins));
    return e->kernels.back();
  }
  void gemm(int a, int b, int result, int64_t m, int64_t n, int64_t k) {
    Instruction ins;
    ins.kind = InstrKind::gemm;
    ins.name = "dot";
    ins.operands = {a, b};
    ins.result = result;
    ins.gemm.shape.m = m;
    ins.gemm.shape.n = n;
    ins.gemm.shape.k = k;
    e->instructions.push_back(std::move(ins));
  }
  void result(int slot) { e->results.push_back({slot, -1}); }
};

Tensor filled(TensorType t, float (*f)(int64_t)) {
  Tensor x(std::move(t));
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] = f(i);
  return x;
}

TEST(HostGpu, IsATargetWithGpuArenaAlignment) {
  SKIP_WITHOUT_OPENCL();
  const Target* t = find_target("host-gpu");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t, &host_gpu_target());
  EXPECT_EQ(t->arena_alignment(), 256);
}

// An elementwise kernel over a constant in the arena, an argument and a view
// of another argument at byte offset 400, in a grid-stride loop of 2 blocks
// over 600 elements. Runs again with the same tensors without wrapping them
// again, and with other tensors.
TEST(HostGpu, AnElementwiseKernelReadsTheArenaAndArgumentsAtOffsets) {
  SKIP_WITHOUT_OPENCL();
  const TensorType t{DType::f32, {2, 300}};
  Builder b("axpy");
  const int x = b.arg("x", t);
  b.arg("packed", {DType::f32, {700}});
  const int v = b.view(1, t, 400);
  const int c = b.arena(t);
  const int out = b.arena(t);
  ConstantData constant{c, {}};
  constant.bytes.resize(static_cast<size_t>(t.num_bytes()));
  for (int64_t i = 0; i < 600; ++i) {
    const float value = static_cast<float>(i % 10) * 1000.0f;
    std::memcpy(constant.bytes.data() + i * 4, &value, 4);
  }
  b.e->constants = {constant};
  b.kernel("mlc_test_axpy", R"(
MLC_KERNEL(256) mlc_test_axpy(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_PARAM(float, p2), MLC_PARAM(float, p3),
                              MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1); MLC_BIND(float, p2); MLC_BIND(float, p3);
  for (i64 e = MLC_BLOCK * 256 + MLC_THREAD; e < 600; e += MLC_BLOCKS * 256) p3[e] = p0[e] * 2.0f + p1[e] + p2[e];
}
)",
           {x, v, c}, out, {2, 256, 0});
  b.result(out);
  auto exe = Executor::create(b.e);
  ASSERT_TRUE(exe.ok()) << exe.error().message;

  // Two sets of tensors, alive together (so at distinct addresses).
  std::vector<Tensor> xs, packed;
  for (float scale : {1.0f, -1.0f}) {
    xs.push_back(filled(t, [](int64_t i) { return static_cast<float>(i) * 0.25f; }));
    for (float& f : xs.back().span<float>()) f *= scale;
    packed.push_back(filled({DType::f32, {700}}, [](int64_t i) { return static_cast<float>(i) * 0.5f; }));
  }
  for (size_t set = 0; set < 2; ++set) {
    Tensor* args[] = {&xs[set], &packed[set]};
    const HostGpuBufferCounts before = host_gpu_argument_buffers();
    for (int run = 0; run < 3; ++run) {
      Status st = exe->run(args);
      ASSERT_TRUE(st.ok()) << st.error().message;
      const float* r = exe->result(0).data<float>();
      for (int64_t i = 0; i < 600; ++i)
        ASSERT_EQ(r[i], xs[set].data<float>()[i] * 2.0f + static_cast<float>(i + 100) * 0.5f +
                            static_cast<float>(i % 10) * 1000.0f)
            << "set " << set << ", element " << i;
    }
    EXPECT_EQ(host_gpu_argument_buffers().created - before.created, 2) << "one per tensor, in the first run only";
  }
}

// One block per row (2 blocks over 3 rows) folds 1000 elements: each thread
// its terms, then the block's 256 partial sums by a binary tree in local
// memory, with barriers between the levels.
TEST(HostGpu, ABlockFoldsARowByATreeInLocalMemory) {
  SKIP_WITHOUT_OPENCL();
  Builder b("row_sum");
  const int x = b.arg("x", {DType::f32, {3, 1000}});
  const int out = b.arena({DType::f32, {3}});
  b.kernel("mlc_test_row_sum", R"(
MLC_KERNEL(256) mlc_test_row_sum(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1);
  MLC_SHARED double partial[256];
  for (i64 row = MLC_BLOCK; row < 3; row += MLC_BLOCKS) {
    double acc = 0.0;
    for (i64 j = MLC_THREAD; j < 1000; j += 256) acc += (double)p0[row * 1000 + j];
    partial[MLC_THREAD] = acc;
    MLC_BARRIER();
    for (int s = 128; s > 0; s >>= 1) {
      if (MLC_THREAD < s) partial[MLC_THREAD] += partial[MLC_THREAD + s];
      MLC_BARRIER();
    }
    if (MLC_THREAD == 0) p1[row] = (float)partial[0];
    MLC_BARRIER();
  }
}
)",
           {x}, out, {2, 256, 256 * 8});
  b.result(out);
  auto exe = Executor::create(b.e);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  Tensor xs = filled({DType::f32, {3, 1000}}, [](int64_t i) { return static_cast<float>(i % 13) - 6.0f + (i / 1000) * 0.5f; });
  Tensor* args[] = {&xs};
  Status st = exe->run(args);
  ASSERT_TRUE(st.ok()) << st.error().message;
  for (int row = 0; row < 3; ++row) {
    double want = 0;
    for (int j = 0; j < 1000; ++j) want += xs.data<float>()[row * 1000 + j];
    EXPECT_EQ(exe->result(0).data<float>()[row], static_cast<float>(want)) << "row " << row;
  }
}

// A two-phase kernel (runtime/executable.h GpuLaunch): phase 0 on 4 blocks
// writes each block's partial sum into the scratch region (after the
// arena's slots), then phase 1 on 1 block combines the 4 in order; an
// elementwise kernel after it reads the sum. Run twice: the same bits.
TEST(HostGpu, ATwoPhaseKernelLaunchesTwiceOverTheScratch) {
  SKIP_WITHOUT_OPENCL();
  Builder b("two_phase_sum");
  const int x = b.arg("x", {DType::f32, {1000}});
  const int sum = b.arena({DType::f32, {}});
  const int plus = b.arena({DType::f32, {}});
  b.kernel("mlc_test_two_phase_sum", R"(
MLC_KERNEL(256) mlc_test_two_phase_sum(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_PARAM(ulong, mlc_scratch),
                                       MLC_STATUS_PARAM, i64 mlc_phase) {
  MLC_BIND(float, p0); MLC_BIND(float, p1); MLC_BIND(ulong, mlc_scratch);
  MLC_SHARED double partial[256];
  double acc = 0.0;
  if (mlc_phase == 0) {
    for (i64 j = MLC_BLOCK * 256 + MLC_THREAD; j < 1000; j += 4 * 256) acc += (double)p0[j];
  } else if (MLC_THREAD < 4) {
    acc = as_double(mlc_scratch[MLC_THREAD]);
  }
  partial[MLC_THREAD] = acc;
  MLC_BARRIER();
  for (int s = 128; s > 0; s >>= 1) {
    if (MLC_THREAD < s) partial[MLC_THREAD] += partial[MLC_THREAD + s];
    MLC_BARRIER();
  }
  if (MLC_THREAD == 0 && mlc_phase == 0) mlc_scratch[MLC_BLOCK] = as_ulong(partial[0]);
  if (MLC_THREAD == 0 && mlc_phase == 1) p1[0] = (float)partial[0];
}
)",
           {x}, sum, {4, 256, 256 * 8, 4 * 8, 1});
  b.kernel("mlc_test_plus_one_scalar", R"(
MLC_KERNEL(256) mlc_test_plus_one_scalar(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1);
  if (MLC_BLOCK == 0 && MLC_THREAD == 0) p1[0] = p0[0] + 1.0f;
}
)",
           {sum}, plus, {1, 256, 0});
  b.e->scratch_offset = b.e->arena_bytes;
  b.e->scratch_bytes = 4 * 8;
  b.e->arena_bytes += kGpuArenaAlignment;
  b.result(sum);
  b.result(plus);
  auto exe = Executor::create(b.e);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  Tensor xs = filled({DType::f32, {1000}}, [](int64_t i) { return static_cast<float>(i % 13) * 0.25f - 1.0f; });
  double partials[4] = {0, 0, 0, 0};
  for (int j = 0; j < 1000; ++j) partials[(j / 256) % 4] += xs.data<float>()[j];
  const float want = static_cast<float>(((partials[0] + partials[2]) + (partials[1] + partials[3])));
  for (int run = 0; run < 2; ++run) {
    Tensor* args[] = {&xs};
    Status st = exe->run(args);
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_EQ(exe->result(0).data<float>()[0], want) << "run " << run;
    EXPECT_EQ(exe->result(1).data<float>()[0], want + 1.0f) << "run " << run;
  }
  // The same code launched as one phase: refused for its arguments.
  b.e->kernels[0].launch = {4, 256, 256 * 8};
  b.e->scratch_bytes = 0;
  b.e->scratch_offset = 0;
  b.e->arena_bytes -= kGpuArenaAlignment;
  auto one_phase = Executor::create(b.e);
  ASSERT_FALSE(one_phase.ok());
  EXPECT_EQ(one_phase.error().message,
            "host-gpu: function 'two_phase_sum': kernel 'mlc_test_two_phase_sum' (mlc_test_two_phase_sum): takes 8 "
            "arguments, expected 5 (a buffer and an offset for each of its 2 buffers, then the status word)");
}

// A gather whose kernel sets the status word where an index is out of range:
// the run fails with the reference kernel's message at the op's location, and
// runs again once the indices are in range.
TEST(HostGpu, TheStatusWordReportsAnIndexOutOfRange) {
  SKIP_WITHOUT_OPENCL();
  Builder b("gather");
  const int idx = b.arg("idx", {DType::i32, {4}});
  const int table = b.arg("table", {DType::f32, {5}}, ArgKind::param);
  const int out = b.arena({DType::f32, {4}});
  KernelInfo& k = b.kernel("mlc_test_gather", R"(
MLC_KERNEL(256) mlc_test_gather(MLC_PARAM(int, p0), MLC_PARAM(float, p1), MLC_PARAM(float, p2), MLC_STATUS_PARAM) {
  MLC_BIND(int, p0); MLC_BIND(float, p1); MLC_BIND(float, p2);
  for (i64 e = MLC_BLOCK * 256 + MLC_THREAD; e < 4; e += MLC_BLOCKS * 256) {
    i64 i = (i64)p0[e];
    if (i < 0 || i >= 5) { *mlc_status = 1; i = 0; }
    p2[e] = p1[i];
  }
}
)",
                           {idx, table}, out, {1, 256, 0});
  k.index_checks = {{0, 5, 0, "gather", {"model.json", 7, 3}}};
  b.result(out);
  auto exe = Executor::create(b.e);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  Tensor indices(DType::i32, {4});
  Tensor values = filled({DType::f32, {5}}, [](int64_t i) { return static_cast<float>(i) + 0.5f; });
  const int32_t bad[] = {1, 4, 9, 0};
  std::memcpy(indices.bytes(), bad, sizeof bad);
  Tensor* args[] = {&indices, &values};
  Status st = exe->run(args);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "model.json:7:3: error: gather: index 9 out of range [0, 5) along axis 0");

  indices.data<int32_t>()[2] = 2;
  st = exe->run(args);
  ASSERT_TRUE(st.ok()) << st.error().message;
  const float want[] = {1.5f, 4.5f, 2.5f, 0.5f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(exe->result(0).data<float>()[i], want[i]) << "element " << i;
}

// Kernel, GEMM on the host, kernel: each reads what the one before wrote in
// the same host memory.
TEST(HostGpu, HostGemmsAndKernelsSeeEachOthersResults) {
  SKIP_WITHOUT_OPENCL();
  Builder b("mlp");
  const int a = b.arg("a", {DType::f32, {4, 3}});
  const int w = b.arg("w", {DType::f32, {3, 2}}, ArgKind::param);
  const int a2 = b.arena({DType::f32, {4, 3}});
  const int prod = b.arena({DType::f32, {4, 2}});
  const int out = b.arena({DType::f32, {4, 2}});
  b.kernel("mlc_test_twice", R"(
MLC_KERNEL(256) mlc_test_twice(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1);
  for (i64 e = MLC_BLOCK * 256 + MLC_THREAD; e < 12; e += MLC_BLOCKS * 256) p1[e] = p0[e] * 2.0f;
}
)",
           {a}, a2, {1, 256, 0});
  b.gemm(a2, w, prod, 4, 2, 3);
  b.kernel("mlc_test_plus_one", R"(
MLC_KERNEL(256) mlc_test_plus_one(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1);
  for (i64 e = MLC_BLOCK * 256 + MLC_THREAD; e < 8; e += MLC_BLOCKS * 256) p1[e] = p0[e] + 1.0f;
}
)",
           {prod}, out, {1, 256, 0});
  b.result(out);
  auto exe = Executor::create(b.e);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  Tensor as = filled({DType::f32, {4, 3}}, [](int64_t i) { return static_cast<float>(i) - 5.0f; });
  Tensor ws = filled({DType::f32, {3, 2}}, [](int64_t i) { return static_cast<float>(i % 3) + 1.0f; });
  Tensor* args[] = {&as, &ws};
  for (int run = 0; run < 2; ++run) {
    Status st = exe->run(args);
    ASSERT_TRUE(st.ok()) << st.error().message;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j) {
        float want = 0;
        for (int k = 0; k < 3; ++k) want += 2.0f * as.data<float>()[i * 3 + k] * ws.data<float>()[k * 2 + j];
        EXPECT_EQ(exe->result(0).data<float>()[i * 2 + j], want + 1.0f) << "(" << i << ", " << j << ")";
      }
    as.data<float>()[0] = 7.0f;  // the next run reads the new value
  }
}

// Binding tensor after tensor keeps the bound ones and a bounded number of
// others wrapped, releasing the rest.
TEST(HostGpu, TheArgumentBufferCacheIsBounded) {
  SKIP_WITHOUT_OPENCL();
  Builder b("copy");
  const TensorType t{DType::f32, {8}};
  const int x = b.arg("x", t);
  const int out = b.arena(t);
  b.kernel("mlc_test_copy", R"(
MLC_KERNEL(256) mlc_test_copy(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1);
  for (i64 e = MLC_BLOCK * 256 + MLC_THREAD; e < 8; e += MLC_BLOCKS * 256) p1[e] = p0[e];
}
)",
           {x}, out, {1, 256, 0});
  b.result(out);
  const HostGpuBufferCounts before = host_gpu_argument_buffers();
  {
    auto exe = Executor::create(b.e);
    ASSERT_TRUE(exe.ok()) << exe.error().message;
    std::vector<Tensor> inputs;
    for (int i = 0; i < 100; ++i) inputs.push_back(filled(t, [](int64_t j) { return static_cast<float>(j); }));
    for (int i = 0; i < 100; ++i) {
      inputs[i].data<float>()[0] = static_cast<float>(i);
      Tensor* args[] = {&inputs[i]};
      Status st = exe->run(args);
      ASSERT_TRUE(st.ok()) << st.error().message;
      ASSERT_EQ(exe->result(0).data<float>()[0], static_cast<float>(i));
    }
    const HostGpuBufferCounts after = host_gpu_argument_buffers();
    EXPECT_EQ(after.created - before.created, 100);
    EXPECT_EQ(after.held - before.held, static_cast<int64_t>(1 + kHostGpuSpareArgumentBuffers));
  }
  EXPECT_EQ(host_gpu_argument_buffers().held, before.held) << "released with the executor";
}

TEST(HostGpu, ABuildErrorNamesTheKernelsSymbol) {
  SKIP_WITHOUT_OPENCL();
  Builder b("broken");
  const int x = b.arg("x", {DType::f32, {4}});
  const int out = b.arena({DType::f32, {4}});
  b.kernel("mlc_test_broken", R"(
MLC_KERNEL(256) mlc_test_broken(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1);
  p1[0] = p0[0] + undeclared_thing;
}
)",
           {x}, out, {1, 256, 0});
  b.result(out);
  auto exe = Executor::create(b.e);
  ASSERT_FALSE(exe.ok());
  const std::string& m = exe.error().message;
  EXPECT_EQ(m.rfind("host-gpu: kernel mlc_test_broken: OpenCL build failed: ", 0), 0u) << m;
  EXPECT_NE(m.find("undeclared_thing"), std::string::npos) << m;
}

// What the code requires of its launch, checked before anything runs.
TEST(HostGpu, TheLaunchMustMatchTheCode) {
  SKIP_WITHOUT_OPENCL();
  auto make = [](GpuLaunch launch, bool extra_buffer) {
    Builder b("launch");
    const int x = b.arg("x", {DType::f32, {4}});
    const int y = b.arg("y", {DType::f32, {4}});
    const int out = b.arena({DType::f32, {4}});
    std::vector<int> operands = {x};
    if (extra_buffer) operands.push_back(y);
    b.kernel("mlc_test_launch", R"(
MLC_KERNEL(256) mlc_test_launch(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_STATUS_PARAM) {
  MLC_BIND(float, p0); MLC_BIND(float, p1);
  if (MLC_BLOCK * 256 + MLC_THREAD < 4) p1[MLC_THREAD] = p0[MLC_THREAD];
}
)",
             operands, out, launch);
    b.result(out);
    auto exe = Executor::create(b.e);
    return exe.ok() ? std::string("<created>") : exe.error().message;
  };
  EXPECT_EQ(make({1, 256, 0}, false), "<created>");
  EXPECT_EQ(make({1, 128, 0}, false),
            "host-gpu: function 'launch': kernel 'mlc_test_launch' (mlc_test_launch): its code requires blocks of "
            "256x1x1 threads, its launch has blocks of 128");
  // An empty grid is the verifier's (runtime/verify_executable.h), before the code is looked at.
  EXPECT_EQ(make({0, 256, 0}, false), "function 'launch': kernels[0].launch.grid: is 0, expected 1 to 2147483647");
  EXPECT_EQ(make({1, 256, 0}, true),
            "host-gpu: function 'launch': kernel 'mlc_test_launch' (mlc_test_launch): takes 5 arguments, expected 7 "
            "(a buffer and an offset for each of its 3 buffers, then the status word)");
}

TEST(HostGpu, CodeForAnotherTargetOrArchIsRefused) {
  SKIP_WITHOUT_OPENCL();
  CodeModule cpu;
  cpu.arch = "x86-64";
  auto loaded = host_gpu_target().load(cpu);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message,
            "host-gpu: code for target 'cpu-x86_64' and arch 'x86-64', expected target 'host-gpu' and arch 'opencl-c'");

  CodeModule cuda;
  cuda.target = "host-gpu";
  cuda.arch = "sm_90";
  loaded = host_gpu_target().load(cuda);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message,
            "host-gpu: code for target 'host-gpu' and arch 'sm_90', expected target 'host-gpu' and arch 'opencl-c'");
}

#endif  // MLC_HAVE_OPENCL

}  // namespace
}  // namespace mlc::rt
