// The "cuda" target on a GPU (ctest -L gpu; every test skips without an
// NVIDIA driver): the executor against the CPU for kernels, gemms of every
// dtype, transpose, batch and b_shared combination, updates and copies, with
// a CUDA graph, without one and profiled; index errors; what is refused.
// The kernels are tests/data/cuda/kernels.cu, compiled by nvcc for this GPU
// where nvcc is on PATH, else the stored sm_90 cubin on an sm_90 GPU
// (tests/test_dirs.h: where the tree is).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/cuda/cuda_code.h"
#include "runtime/cuda/cuda_executor.h"
#include "runtime/cuda/cuda_target.h"
#include "runtime/executor.h"
#include "runtime/target.h"
#include "runtime/half.h"
#include "tests/runtime/cuda_test_executables.h"
#include "tests/test_dirs.h"

namespace mlc::rt {
namespace {

using namespace mlc::testing;
namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    auto driver = cuda::cuda_driver();
    if (!driver.ok()) GTEST_SKIP() << driver.error().message;
    auto ordinal = cuda::cuda_device_ordinal();
    ASSERT_TRUE(ordinal.ok()) << ordinal.error().message;
    auto device = cuda::cuda_device(*ordinal);
    ASSERT_TRUE(device.ok()) << device.error().message;
    device_ = *device;
    arch_ = device_->arch();
    const fs::path source = test_source_dir() / "tests/data/cuda/kernels.cu";
    if (std::system("command -v nvcc > /dev/null 2>&1") == 0) {
      const fs::path dir = test_binary_dir() / "cuda_gpu_test";
      fs::create_directories(dir);
      const fs::path cubin = dir / ("kernels_" + arch_ + ".cubin");
      const std::string command = "nvcc -cubin -arch=" + arch_ + " -o " + cubin.string() + " " + source.string();
      ASSERT_EQ(std::system(command.c_str()), 0) << command;
      cubin_ = read_bytes(cubin);
    } else if (arch_ == "sm_90") {
      cubin_ = read_bytes(test_source_dir() / "tests/data/cuda/kernels_sm_90.cubin");
    } else {
      GTEST_SKIP() << "no nvcc on PATH to compile the test kernels for " << arch_;
    }
  }

  const cuda::CudaDevice* device_ = nullptr;
  std::string arch_;
  std::string cubin_;
};

std::vector<float> values(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.num_elements()}; }

// The step through the handle callers hold (verified; the target loads the
// cubins and makes the executor with cuBLASLt), four runs with new arguments
// (the first eager, then a captured graph), then without graphs, then
// profiled.
TEST_F(CudaGpu, StepMatchesTheCpu) {
  for (int mode = 0; mode < 3; ++mode) {
    ExecutorOptions options;
    options.graph = mode != 1;
    auto x = Executor::create(cuda_step_executable(cubin_, arch_), options);
    ASSERT_TRUE(x.ok()) << x.error().message;
    if (mode == 2) x->enable_profiling();
    Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
    for (int run = 0; run < 4; ++run) {
      for (int i = 0; i < 6; ++i)
        xs.data<float>()[i] = static_cast<float>(i - run), w.data<float>()[i] = static_cast<float>(3 * i + run);
      const std::vector<float> x_before = values(xs), w_before = values(w);
      Tensor* args[] = {&xs, &w};
      Status s = x->run(args);
      ASSERT_TRUE(s.ok()) << s.error().message;
      EXPECT_EQ(values(x->result(0)), cuda_step_expected_y(x_before, w_before)) << "mode " << mode << " run " << run;
      std::vector<float> halved = w_before;
      for (float& v : halved) v *= 0.5f;
      EXPECT_EQ(values(w), halved) << "mode " << mode << " run " << run;
      EXPECT_EQ(values(xs), x_before);
    }
    if (mode == 2) {
      const ExecutionProfile& p = *x->profile();
      EXPECT_EQ(p.runs, 4);
      EXPECT_EQ(p.calls, std::vector<int64_t>(5, 4));
      int64_t sum = 0;
      for (int64_t ns : p.ns) sum += ns;
      EXPECT_EQ(sum, p.run_ns);
      EXPECT_GT(p.run_ns, 0);
    }
  }
}

// Kept tensors (runtime/device_tensors.h) on the GPU: w's copy is uploaded
// once, updated in place by every run (the host's tensor untouched), read
// back by to_host; a host write reaches the next run through host_wrote; the
// step starts, the host refills its input, and it finishes unchanged.
TEST_F(CudaGpu, KeptTensorsStayOnTheGpu) {
  auto kept = find_target(kCudaTarget)->make_device_tensors();
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  auto x = Executor::create(cuda_step_executable(cubin_, arch_));
  ASSERT_TRUE(x.ok()) << x.error().message;
  ASSERT_TRUE(x->set_device_tensors(kept->get()).ok());
  Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
  for (int i = 0; i < 6; ++i) xs.data<float>()[i] = static_cast<float>(i), w.data<float>()[i] = static_cast<float>(8 * i + 8);
  const std::vector<float> w0 = values(w), x0 = values(xs);
  ASSERT_TRUE((*kept)->keep(w).ok());
  Tensor* args[] = {&xs, &w};
  std::vector<float> device_w = w0;
  for (int run = 0; run < 4; ++run) {
    ASSERT_TRUE(x->start(args).ok());
    for (int i = 0; i < 6; ++i) xs.data<float>()[i] = -1;  // the next batch, gathered meanwhile
    ASSERT_TRUE(x->finish().ok());
    EXPECT_EQ(values(x->result(0)), cuda_step_expected_y(x0, device_w)) << "run " << run;
    for (float& v : device_w) v *= 0.5f;
    EXPECT_EQ(values(w), w0) << "run " << run;
    for (int i = 0; i < 6; ++i) xs.data<float>()[i] = static_cast<float>(i);
  }
  ASSERT_TRUE((*kept)->to_host(w).ok());
  EXPECT_EQ(values(w), device_w);
  for (int i = 0; i < 6; ++i) w.data<float>()[i] = 2;
  (*kept)->host_wrote(w);
  ASSERT_TRUE(x->run(args).ok());
  EXPECT_EQ(values(x->result(0)), cuda_step_expected_y(x0, std::vector<float>(6, 2)));
}

// Deterministic values in [-1, 1).
double unit(uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<double>(state >> 11) / static_cast<double>(uint64_t{1} << 52) - 1;
}

void put(Tensor& t, size_t i, double v) {
  switch (t.dtype()) {
    case DType::f32: t.data<float>()[i] = static_cast<float>(v); return;
    case DType::f64: t.data<double>()[i] = v; return;
    case DType::bf16: t.data<uint16_t>()[i] = bf16::from_double(v).bits; return;
    case DType::f16: t.data<uint16_t>()[i] = f16::from_double(v).bits; return;
    default: std::abort();
  }
}
double get(const Tensor& t, size_t i) {
  switch (t.dtype()) {
    case DType::f32: return t.data<float>()[i];
    case DType::f64: return t.data<double>()[i];
    case DType::bf16: return bf16::from_bits(t.data<uint16_t>()[i]).to_float();
    case DType::f16: return f16::from_bits(t.data<uint16_t>()[i]).to_float();
    default: std::abort();
  }
}

// Every dtype, transpose, batch and b_shared combination, plain and as
// updates (through a copy, and in place), against a double reference on the
// same (rounded) inputs. f32 within 1e-5 of the terms' magnitude: TF32
// (10-bit mantissas) would be off by about 1e-3.
TEST_F(CudaGpu, GemmsMatchTheCpu) {
  struct Dims {
    int64_t batch, m, n, k;
  };
  uint64_t state = 1;
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16})
    for (Dims dims : {Dims{1, 64, 48, 32}, Dims{3, 17, 9, 64}, Dims{2, 1, 1, 5}, Dims{4, 8, 16, 128}})
      for (int bits = 0; bits < 8; ++bits)
        for (int update = 0; update < (is_half(t) ? 1 : 3); ++update) {
          const blas::DotShape d{dims.batch, dims.m, dims.n, dims.k, (bits & 1) != 0, (bits & 2) != 0,
                                 (bits & 4) != 0};
          const GemmParams g{t, d, update ? 0.5 : 1, update ? 2.0 : 0};
          const std::string what = std::string(dtype_name(t)) + " batch " + std::to_string(d.batch) + " m " +
                                   std::to_string(d.m) + " n " + std::to_string(d.n) + " k " + std::to_string(d.k) +
                                   " bits " + std::to_string(bits) + " update " + std::to_string(update);
          auto exe = cuda_gemm_executable(g, update == 2);
          auto x = Executor::create(exe);
          ASSERT_TRUE(x.ok()) << what << ": " << x.error().message;
          Tensor a(exe->slots[0].type), b(exe->slots[1].type), c(TensorType{t, {d.batch, d.m, d.n}});
          for (Tensor* v : {&a, &b, &c})
            for (size_t i = 0; i < static_cast<size_t>(v->num_elements()); ++i) put(*v, i, unit(state));
          std::vector<double> A(static_cast<size_t>(a.num_elements())), B(static_cast<size_t>(b.num_elements())),
              C(static_cast<size_t>(c.num_elements())), want(C.size()), magnitude(C.size());
          for (size_t i = 0; i < A.size(); ++i) A[i] = get(a, i);
          for (size_t i = 0; i < B.size(); ++i) B[i] = get(b, i);
          for (size_t i = 0; i < C.size(); ++i) C[i] = get(c, i);
          blas::dot(d, A.data(), B.data(), want.data());
          std::vector<double> absA(A.size()), absB(B.size());
          for (size_t i = 0; i < A.size(); ++i) absA[i] = std::fabs(A[i]);
          for (size_t i = 0; i < B.size(); ++i) absB[i] = std::fabs(B[i]);
          blas::dot(d, absA.data(), absB.data(), magnitude.data());
          for (size_t i = 0; i < want.size(); ++i) {
            want[i] = g.alpha * want[i] + g.beta * C[i];
            magnitude[i] = std::fabs(g.alpha) * magnitude[i] + std::fabs(g.beta * C[i]);
          }
          std::vector<Tensor*> args = {&a, &b};
          if (g.updates()) args.push_back(&c);
          Status s = x->run(args);
          ASSERT_TRUE(s.ok()) << what << ": " << s.error().message;
          const Tensor& got = x->result(0);
          const double rel = t == DType::f64 ? 1e-13 : 1e-5;
          const double rounding = t == DType::bf16 ? 0x1p-8 : t == DType::f16 ? 0x1p-11 : 0;
          for (size_t i = 0; i < want.size(); ++i)
            ASSERT_NEAR(get(got, i), want[i], rel * magnitude[i] + rounding * std::fabs(want[i]) + 1e-30)
                << what << " element " << i;
        }
}

TEST_F(CudaGpu, IndexOutOfRangeIsTheCpusMessage) {
  auto exe = cuda_gather_executable(cubin_);
  auto code = std::make_shared<CodeModule>(*exe->code);
  code->arch = arch_;  // the module's arch must be this GPU's
  exe->code = code;
  auto x = Executor::create(exe);
  ASSERT_TRUE(x.ok()) << x.error().message;
  Tensor idx(DType::i32, {3}), table(DType::f32, {4});
  for (int i = 0; i < 4; ++i) table.data<float>()[i] = static_cast<float>(10 * (i + 1));
  Tensor* args[] = {&idx, &table};
  for (int run = 0; run < 4; ++run) {
    idx.data<int>()[0] = 1, idx.data<int>()[1] = run == 2 ? -2 : 3, idx.data<int>()[2] = 2;
    Status s = x->run(args);
    if (run == 2) {
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.error().message, "m.json:3:5: error: gather: index -2 out of range [0, 4) along axis 0");
      continue;
    }
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(values(x->result(0)), (std::vector<float>{20, 40, 30})) << "run " << run;
  }
}

TEST_F(CudaGpu, KernelsForAnotherArchAreRefused) {
  const std::string other = arch_ == "sm_80" ? "sm_90" : "sm_80";
  auto code = cuda_module(cubin_, {"gather"}, arch_);
  code->arch = other;
  // The module's cubin must say `other` too, or check_cuda_module refuses it
  // first: patch its ELF flags (ABI 8: bits 8-15).
  std::string& bytes = code->objects[0].bytes;
  ASSERT_EQ(bytes[8], 8) << "a cubin of CUDA ELF ABI version 8";
  bytes[49] = static_cast<char>(other == "sm_80" ? 80 : 90);
  auto loaded = cuda_target().load(*code);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message, "cuda: the artifact's kernels are cubins for " + other + "; this GPU (" +
                                        device_->name + ") is " + arch_ + ": recompile with --target cuda:" + arch_);
}

TEST_F(CudaGpu, ArenaLargerThanFreeMemoryIsRefused) {
  auto exe = cuda_step_executable(cubin_, arch_);
  exe->arena_bytes = device_->total_bytes + (int64_t{1} << 30);
  auto code = cuda::load_cuda_code(*exe->code, *device_);
  ASSERT_TRUE(code.ok()) << code.error().message;
  cuda::CudaExecutorOptions options;
  options.cublaslt = *cuda::cublaslt();
  auto x = cuda::CudaExecutor::create(exe, *code, *device_, options);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message.rfind("function 'step': needs ", 0), 0u) << x.error().message;
  EXPECT_NE(x.error().message.find(" free on " + device_->label()), std::string::npos) << x.error().message;
}

// A block larger than the kernel's __launch_bounds__ (256): the driver
// refuses the launch, and the message names the kernel and its ops.
TEST_F(CudaGpu, ALaunchErrorNamesTheKernel) {
  auto exe = cuda_step_executable(cubin_, arch_);
  exe->kernels[0].launch.block = 512;
  auto x = Executor::create(exe);
  ASSERT_TRUE(x.ok()) << x.error().message;
  Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
  Tensor* args[] = {&xs, &w};
  Status s = x->run(args);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.rfind("m.json:1:1: error: function 'step': kernel add_one (%1 add (m.json:1:1)) on " +
                                        device_->label() + ": cuLaunchKernel failed: CUDA_ERROR_",
                                    0),
            0u)
      << s.error().message;
}

}  // namespace
}  // namespace mlc::rt
