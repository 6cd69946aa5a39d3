// The "cuda" target (runtime/cuda/) on machines without a GPU: the registry,
// what load() says without a driver, the checks made before the driver is
// touched (targets; cubins' ELF arch and symbol table, runtime/cuda/cubin.h,
// on synthetic cubins, tests/runtime/synthetic_cubin.h, and on nvcc's), the
// driver and cuBLASLt loaders' errors (cuBLASLt's GEMM mapping:
// cublaslt_gemm_test.cc), and the executor end to end on a fake driver
// and cuBLASLt over host memory (tests/runtime/fake_cuda.h): uploads,
// kernels, gemms, copies, downloads, graph capture and replay, profiling,
// index errors and the refusals (collectives: cuda_collectives_test.cc).
// cuda_gpu_test.cc runs on a GPU.
#include "runtime/cuda/cuda_target.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/cuda/cubin.h"
#include "runtime/cuda/cublaslt_gemm.h"
#include "runtime/cuda/cuda_code.h"
#include "runtime/cuda/cuda_device_tensors.h"
#include "runtime/cuda/cuda_executor.h"
#include "runtime/executor.h"
#include "runtime/gemm_epilogue.h"
#include "runtime/shared_library.h"
#include "runtime/verify_executable.h"
#include "tests/runtime/cuda_test_executables.h"
#include "tests/test_dirs.h"
#include "tests/runtime/fake_cuda.h"
#include "tests/runtime/kernel_test_util.h"
#include "tests/runtime/synthetic_cubin.h"

namespace mlc::rt {
namespace {

using namespace mlc::testing;

constexpr const char* kNoDriver =
    "cuda: no NVIDIA driver: libcuda.so.1 not found (this machine has no GPU, or its driver is not installed)";

TEST(CudaTarget, IsRegistered) {
  const Target* t = find_target("cuda");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t, &cuda_target());
  EXPECT_EQ(t->name(), "cuda");
  EXPECT_EQ(t->arena_alignment(), 256);
}

// What `mlc run t.mlcx` says for a cuda artifact on a machine without a GPU:
// the target loads the code, and the driver is missing.
TEST(CudaTarget, LoadWithoutADriverSaysSo) {
  if (cuda::cuda_driver().ok()) GTEST_SKIP() << "this machine has an NVIDIA driver";
  EXPECT_EQ(cuda::cuda_driver().error().message, kNoDriver);
  auto loaded = cuda_target().load(*cuda_module(synthetic_cubin(90), {"add_one"}));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message, kNoDriver);
  // The same through the handle callers hold: verified, then loaded.
  auto exe = cuda_step_executable(synthetic_cubin(90));
  ASSERT_TRUE(verify_executable(*exe).ok()) << verify_executable(*exe).error().message;
  auto x = Executor::create(exe);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message, kNoDriver);
  // An executable without kernels still needs the GPU.
  exe->code = nullptr;
  exe->kernels.clear();
  exe->instructions = {cuda_instruction(InstrKind::copy, {0}, 2, "copy", 1)};
  exe->results = {{2, -1}};
  ASSERT_TRUE(verify_executable(*exe).ok()) << verify_executable(*exe).error().message;
  x = Executor::create(exe);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message, kNoDriver);
}

TEST(CudaTarget, RefusesCodeItCannotRunBeforeTheDriver) {
  auto code = cuda_module(synthetic_cubin(90, {"k"}), {"k"});
  code->target = "host-gpu";
  auto loaded = cuda_target().load(*code);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message, "cuda: code for target 'host-gpu', not 'cuda'");

  code = cuda_module(synthetic_cubin(90, {"k"}), {"k"}, "opencl-c");
  EXPECT_EQ(cuda_target().load(*code).error().message,
            "cuda: the code's arch is 'opencl-c', not a GPU architecture (sm_90, ...)");
  code = cuda_module("not an object file", {"fusion_2"});
  EXPECT_EQ(cuda_target().load(*code).error().message, "cuda: kernel object 0 ('fusion_2'): not a cubin: no ELF header");
  code = cuda_module(synthetic_cubin(80, {"k"}), {"k"}, "sm_90");
  EXPECT_EQ(cuda_target().load(*code).error().message, "cuda: kernel object 0 ('k'): a cubin for sm_80, not sm_90");
  // A cubin that does not define its object's kernel (runtime/cuda/cubin.h
  // reads the symbol table).
  code = cuda_module(synthetic_cubin(90, {"k"}), {"k", "fusion_1"});
  EXPECT_EQ(cuda_target().load(*code).error().message,
            "cuda: kernel object 1 ('fusion_1'): the cubin does not define kernel 'fusion_1'");
  EXPECT_TRUE(cuda::check_cuda_module(*cuda_module(synthetic_cubin(90, {"k"}), {"k"}, "sm_90a")).ok());
  // Arch-specific code only in a module for the "a" arch.
  code = cuda_module(synthetic_cubin(90, {"k"}, 8, /*arch_specific=*/true), {"k"}, "sm_90");
  EXPECT_EQ(cuda::check_cuda_module(*code).error().message, "cuda: kernel object 0 ('k'): a cubin for sm_90a, not sm_90");
  code->arch = "sm_90a";
  EXPECT_TRUE(cuda::check_cuda_module(*code).ok());
}

// runtime/cuda/cubin.h on synthetic cubins (tests/runtime/synthetic_cubin.h):
// both ELF ABI versions' arch fields, and each way bytes are not a cubin.
TEST(Cubin, ReadsTheArchOfEitherAbi) {
  EXPECT_EQ(*cubin_arch(synthetic_cubin(90)), "sm_90");
  EXPECT_EQ(*cubin_arch(synthetic_cubin(80)), "sm_80");
  EXPECT_EQ(*cubin_arch(synthetic_cubin(100)), "sm_100");
  EXPECT_EQ(*cubin_arch(synthetic_cubin(86, {"k"}, 7)), "sm_86");
  EXPECT_EQ(*cubin_arch(synthetic_cubin(90, {"k"}, 7, true)), "sm_90a");
  EXPECT_EQ(*cubin_arch(synthetic_cubin(90, {"k"}, 8, true)), "sm_90a");
  EXPECT_EQ(cubin_arch("\x7f" "ELF").error().message, "not a cubin: no ELF header");
  std::string s = synthetic_cubin(90);
  s[4] = 1;
  EXPECT_EQ(cubin_arch(s).error().message, "not a cubin: not a 64-bit little-endian ELF");
  s = synthetic_cubin(90);
  s[18] = 62;
  EXPECT_EQ(cubin_arch(s).error().message, "not a cubin: ELF machine 62, not CUDA (190)");
  EXPECT_EQ(cubin_arch(synthetic_cubin(90, {"k"}, 9)).error().message,
            "not a cubin: unknown CUDA ELF ABI version 9 (known: 7, 8)");
  EXPECT_EQ(cubin_arch(synthetic_cubin(0)).error().message, "not a cubin: no SM version in its ELF flags");

  EXPECT_EQ(sm_version("sm_90"), 90);
  EXPECT_EQ(sm_version("sm_90a"), 90);
  EXPECT_EQ(sm_version("sm_100f"), 100);
  for (const char* bad : {"compute_90", "sm_", "sm_9x", "90"}) EXPECT_EQ(sm_version(bad), std::nullopt) << bad;
}

// check_cubin reads the symbol table: the kernel must be a defined function.
TEST(Cubin, ChecksTheKernelIsDefined) {
  const std::string cubin = synthetic_cubin(90, {"add_one", "gather"});
  EXPECT_TRUE(check_cubin(cubin, "gather", "sm_90").ok());
  EXPECT_TRUE(check_cubin(cubin, "add_one", "sm_90a").ok());
  EXPECT_EQ(check_cubin(cubin, "gathe", "sm_90").error().message, "the cubin does not define kernel 'gathe'");
  EXPECT_EQ(check_cubin(cubin, "gather", "sm_80").error().message, "a cubin for sm_90, not sm_80");
  EXPECT_EQ(check_cubin(cubin, "gather", "compute_90").error().message,
            "not a CUDA architecture: 'compute_90' (expected sm_XX, e.g. sm_90)");
  EXPECT_EQ(check_cubin(synthetic_cubin(90, {}), "k", "sm_90").error().message,
            "the cubin does not define kernel 'k'");
  // Every truncation is refused (the section headers come last), none read
  // outside the bytes.
  for (size_t size = 0; size < cubin.size(); ++size)
    EXPECT_FALSE(check_cubin(cubin.substr(0, size), "gather", "sm_90").ok()) << size;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The stored real cubin (tests/data/cuda/kernels.cu by nvcc for sm_90):
// its arch and every kernel it defines.
TEST(Cubin, ReadsTheStoredNvccCubin) {
  const std::string cubin = read_bytes(std::filesystem::path(MLC_SOURCE_DIR) / "tests/data/cuda/kernels_sm_90.cubin");
  ASSERT_FALSE(cubin.empty());
  EXPECT_EQ(*cubin_arch(cubin), "sm_90");
  for (const std::string& symbol : test_kernel_symbols()) EXPECT_TRUE(check_cubin(cubin, symbol, "sm_90").ok()) << symbol;
  EXPECT_EQ(check_cubin(cubin, "mlc_thread", "sm_90").error().message,
            "the cubin does not define kernel 'mlc_thread'");  // a __device__ function, inlined away
  EXPECT_EQ(check_cubin(cubin, "add_one", "sm_80").error().message, "a cubin for sm_90, not sm_80");
}

// Real cubins from nvcc (where it is on PATH): their ELF flags give the arch
// they were compiled for, and a module that says otherwise is refused.
TEST(Cubin, ReadsNvccCubins) {
  if (std::system("command -v nvcc > /dev/null 2>&1") != 0) GTEST_SKIP() << "nvcc is not on PATH";
  namespace fs = std::filesystem;
  const fs::path dir = test_binary_dir() / "cuda_target_test";
  fs::create_directories(dir);
  const fs::path source = test_source_dir() / "tests/data/cuda/kernels.cu";
  for (int sm : {80, 90}) {
    const std::string arch = "sm_" + std::to_string(sm);
    const fs::path cubin = dir / ("kernels_" + arch + ".cubin");
    const std::string command = "nvcc -cubin -arch=" + arch + " -o " + cubin.string() + " " + source.string();
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const std::string bytes = read_bytes(cubin);
    auto got = cubin_arch(bytes);
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_EQ(*got, arch);
    EXPECT_TRUE(check_cubin(bytes, "gather", arch).ok());
    auto code = cuda_module(bytes, {"gather"}, sm == 90 ? "sm_80" : "sm_90");
    EXPECT_EQ(cuda::check_cuda_module(*code).error().message,
              "cuda: kernel object 0 ('gather'): a cubin for " + arch + ", not " + code->arch);
  }
}

TEST(CudaDriver, LoaderErrors) {
  auto none = cuda::load_cuda_driver("libmlc-no-such-driver.so.1");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "cuda: no NVIDIA driver: libmlc-no-such-driver.so.1 not found (this machine has no GPU, or its driver is "
            "not installed)");
  // A library that is no driver.
  auto libm = cuda::load_cuda_driver("libm.so.6");
  ASSERT_FALSE(libm.ok());
  EXPECT_EQ(libm.error().message, "cuda: the NVIDIA driver's libm.so.6 lacks cuDriverGetVersion");

  EXPECT_TRUE(cuda::check_driver_version(12000).ok());
  EXPECT_TRUE(cuda::check_driver_version(13000).ok());
  EXPECT_EQ(cuda::check_driver_version(11080).error().message,
            "cuda: the NVIDIA driver supports CUDA 11.8 (11080); mlc needs CUDA 12.0 (12000) or newer: update the "
            "driver");
  EXPECT_EQ(cuda::cuda_version_name(12040), "12.4");

  const cuda::CudaDriver& cu = fake_driver();
  EXPECT_EQ(cu.error_text("cuLaunchKernel", 1), "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_EQ(cu.error_text("cuLaunchKernel", 12345), "cuLaunchKernel failed: CUDA error 12345");
  EXPECT_TRUE(cu.check(0, "x").ok());
}

// cuBLASLt is looked for through the loader, then in the toolkit's
// directories; the Error lists every file tried.
TEST(CublasLt, LoaderErrors) {
  const std::string_view absent[] = {"libmlc-no-such-cublasLt.so.13"};
  auto none = cuda::load_cublaslt(absent);
  ASSERT_FALSE(none.ok());
  std::string tried = "tried libmlc-no-such-cublasLt.so.13";
  for (const std::string& dir : cuda_toolkit_lib_dirs()) tried += ", " + dir + "/libmlc-no-such-cublasLt.so.13";
  EXPECT_EQ(none.error().message,
            "cuda: cuBLASLt not found (install the CUDA toolkit's cuBLAS, or add its lib64 to LD_LIBRARY_PATH): " +
                tried);
  const std::string_view libm[] = {"libm.so.6"};
  auto not_cublas = cuda::load_cublaslt(libm);
  ASSERT_FALSE(not_cublas.ok());
  EXPECT_EQ(not_cublas.error().message, "cuda: libm.so.6 lacks cublasLtCreate");
}

TEST(CudaDriver, DeviceOrdinals) {
  EXPECT_EQ(*cuda::parse_device_ordinal(nullptr), 0);
  EXPECT_EQ(*cuda::parse_device_ordinal(""), 0);
  EXPECT_EQ(*cuda::parse_device_ordinal("3"), 3);
  EXPECT_EQ(cuda::parse_device_ordinal("gpu1").error().message,
            "MLC_CUDA_DEVICE is 'gpu1': expected a GPU ordinal (0, 1, ...)");
  EXPECT_EQ(cuda::parse_device_ordinal("-1").error().message,
            "MLC_CUDA_DEVICE is '-1': expected a GPU ordinal (0, 1, ...)");
  EXPECT_EQ(cuda::missing_device_error(3, 1), "cuda:3: this machine has 1 GPU");
  EXPECT_EQ(cuda::missing_device_error(2, 2), "cuda:2: this machine has 2 GPUs");
  EXPECT_EQ(cuda::missing_device_error(0, 0), "cuda:0: this machine has no GPU");

  fake_cuda().reset();
  EXPECT_EQ(cuda::open_cuda_device(fake_driver(), 3).error().message, "cuda:3: this machine has 1 GPU");
  auto d = cuda::open_cuda_device(fake_driver(), 0);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->name, "NVIDIA H200");
  EXPECT_EQ(d->arch(), "sm_90");
  EXPECT_EQ(d->label(), "GPU 0 (NVIDIA H200)");
  EXPECT_EQ(d->total_bytes, int64_t{141} << 30);
}

TEST(CudaDriver, KernelsForAnotherGpuAreRefused) {
  fake_cuda().reset();
  const cuda::CudaDevice d = *cuda::open_cuda_device(fake_driver(), 0);
  auto code = cuda_module(synthetic_cubin(80, {"k"}), {"k"}, "sm_80");
  const std::string want =
      "cuda: the artifact's kernels are cubins for sm_80; this GPU (NVIDIA H200) is sm_90: recompile with --target "
      "cuda:sm_90";
  EXPECT_EQ(cuda::check_device_arch(*code, d).error().message, want);
  EXPECT_EQ(cuda::load_cuda_code(*code, d).error().message, want);
  EXPECT_TRUE(cuda::check_device_arch(*cuda_module(synthetic_cubin(90, {"k"}), {"k"}, "sm_90a"), d).ok());
  EXPECT_EQ(fake_cuda().module_loads, 0);
  // A symbol the cubin does not define: refused before the driver sees it.
  auto undefined = cuda::load_cuda_code(*cuda_module(synthetic_cubin(90), {"nope"}), d);
  ASSERT_FALSE(undefined.ok());
  EXPECT_EQ(undefined.error().message, "cuda: kernel object 0 ('nope'): the cubin does not define kernel 'nope'");
  EXPECT_EQ(fake_cuda().module_loads, 0);
  // A symbol the cubin defines and the driver does not find: the driver's
  // error, naming the object.
  auto missing = cuda::load_cuda_code(*cuda_module(synthetic_cubin(90, {"nope"}), {"nope"}), d);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "cuda: kernel object 0 ('nope') on GPU 0 (NVIDIA H200): cuModuleGetFunction failed: CUDA error 500");
  EXPECT_EQ(fake_cuda().module_loads, 1);
}

TEST(CudaExecutor, MemorySizes) {
  EXPECT_EQ(cuda::memory_size_name(512), "512 bytes");
  EXPECT_EQ(cuda::memory_size_name(1536), "1.5 KiB");
  EXPECT_EQ(cuda::memory_size_name(int64_t{32} << 20), "32.0 MiB");
  EXPECT_EQ(cuda::memory_size_name(int64_t{124} * (int64_t{1} << 30) / 10), "12.4 GiB");
}

// The fake driver's device and the kernels of tests/data/cuda/kernels.cu as
// host functions.
struct FakeGpu {
  cuda::CudaDevice device;
  FakeGpu() {
    fake_cuda().reset();
    device = *cuda::open_cuda_device(fake_driver(), 0);
    auto& k = fake_cuda().kernels;
    using Args = std::vector<cuda::CUdeviceptr>;
    auto f32 = [](cuda::CUdeviceptr p) { return reinterpret_cast<float*>(static_cast<uintptr_t>(p)); };
    auto i32 = [](cuda::CUdeviceptr p) { return reinterpret_cast<int*>(static_cast<uintptr_t>(p)); };
    k["add_one"] = {[=](unsigned, unsigned, const Args& a) {
                      for (int i = 0; i < 6; ++i) f32(a[1])[i] = f32(a[0])[i] + 1;
                    },
                    3};
    k["halve"] = {[=](unsigned, unsigned, const Args& a) {
                    for (int i = 0; i < 6; ++i) f32(a[1])[i] = f32(a[0])[i] * 0.5f;
                  },
                  3};
    k["copy_idx"] = {[=](unsigned, unsigned, const Args& a) {
                       for (int i = 0; i < 3; ++i) i32(a[1])[i] = i32(a[0])[i];
                     },
                     3};
    k["gather"] = {[=](unsigned, unsigned, const Args& a) {
                     for (int i = 0; i < 3; ++i) {
                       int j = i32(a[1])[i];
                       if (j < 0 || j >= 4) *i32(a[3]) = 1, j = 0;
                       f32(a[2])[i] = f32(a[0])[j];
                     }
                   },
                   4};
    k["zero_idx"] = {[=](unsigned, unsigned, const Args& a) {
                       for (int i = 0; i < 3; ++i) i32(a[1])[i] = 0;
                     },
                     3};
    // cuda_two_phase_executable's kernel: x, the sum, the scratch, the
    // status word, the phase (an i64); each launch's grid and phase kept.
    k["sum_two_phase"] = {[=, this](unsigned grid, unsigned, const Args& a) {
                            auto* scratch = reinterpret_cast<double*>(static_cast<uintptr_t>(a[2]));
                            const auto phase = static_cast<int64_t>(a[4]);
                            two_phase_launches.emplace_back(grid, phase);
                            if (phase == 0) {
                              for (unsigned g = 0; g < grid; ++g) {
                                scratch[g] = 0;
                                for (unsigned i = g; i < 1000; i += grid) scratch[g] += f32(a[0])[i];
                              }
                              return;
                            }
                            *f32(a[1]) = static_cast<float>(scratch[0] + scratch[1] + scratch[2] + scratch[3]);
                          },
                          5};
    k["increment"] = {[=](unsigned, unsigned, const Args& a) { *f32(a[1]) = *f32(a[0]) + 1; }, 3};
  }
  std::vector<std::pair<unsigned, int64_t>> two_phase_launches;  // (grid, phase) of sum_two_phase's launches
  Expected<std::unique_ptr<cuda::CudaExecutor>> executor(std::shared_ptr<const Executable> e, bool graph = true) {
    MLC_CHECK_OK(verify_executable(*e));
    MLC_TRY(std::shared_ptr<const cuda::CudaCode> code, cuda::load_cuda_code(*e->code, device));
    cuda::CudaExecutorOptions options;
    options.graph = graph;
    options.cublaslt = &fake_cublaslt();
    return cuda::CudaExecutor::create(std::move(e), std::move(code), device, options);
  }
};

std::vector<float> values(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.num_elements()}; }

// The executor passes the epilogue's operand and result slots to cuBLASLt:
// each epilogue's executable gives on the fake GPU what it gives on the CPU,
// f32 and bf16 (the fake's epilogue in double, the CPU's in f32, each rounded
// once to bf16: a unit in bf16's last place apart at most).
TEST(CudaExecutor, RunsGemmEpiloguesAsTheCpuDoes) {
  FakeGpu gpu;
  for (DType t : {DType::f32, DType::bf16})
  for (size_t e = 1; e < kGemmEpilogues; ++e) {  // every epilogue but none
    const auto ep = static_cast<GemmEpilogue>(e);
    const std::string what = std::string(gemm_epilogue_name(ep)) + " " + std::string(dtype_name(t));
    auto exe = cuda_epilogue_executable(GemmParams{t, {1, 4, 6, 3, ep == GemmEpilogue::bgradb, true, false}, 1, 0, ep});
    ASSERT_TRUE(verify_executable(*exe).ok()) << what << ": " << verify_executable(*exe).error().message;
    auto on_cpu = std::make_shared<Executable>(*exe);
    on_cpu->target = std::string(kCpuTarget);
    on_cpu->arena_bytes = 0;  // the CPU's arena ends at its last slot, rounded up to 64
    for (const Slot& sl : on_cpu->slots)
      if (sl.arg < 0) on_cpu->arena_bytes = std::max(on_cpu->arena_bytes, (sl.offset + sl.type.num_bytes() + 63) / 64 * 64);
    std::vector<Tensor> args;
    for (const ArgSpec& a : exe->args) {
      const TensorType& type = exe->slots[static_cast<size_t>(a.slot)].type;
      std::vector<double> x(static_cast<size_t>(type.num_elements()));
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>((i * 5 + static_cast<size_t>(a.slot)) % 9) * 0.25 - 1;
      args.push_back(testing::make_tensor(type.dtype, type.shape, x));
    }
    std::vector<Tensor*> ptrs;
    for (Tensor& t : args) ptrs.push_back(&t);
    auto cpu = Executor::create(on_cpu);
    ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.error().message;
    ASSERT_TRUE(cpu->run(ptrs).ok()) << what;
    cuda::CudaExecutorOptions options;
    options.cublaslt = &fake_cublaslt();
    auto x = cuda::CudaExecutor::create(exe, nullptr, gpu.device, options);
    ASSERT_TRUE(x.ok()) << what << ": " << x.error().message;
    ASSERT_TRUE((*x)->run(ptrs).ok()) << what;
    EXPECT_EQ(fake_cuda().epilogues.back().epilogue, cuda::lt_epilogue(ep)) << what;
    const double ulp = t == DType::bf16 ? 1.0 / 128 : 1e-5;
    for (size_t r = 0; r < exe->results.size(); ++r) {
      const std::vector<double> want = testing::to_doubles(cpu->result(r)), got = testing::to_doubles((*x)->result(r));
      ASSERT_EQ(got.size(), want.size()) << what;
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], ulp * (1 + std::fabs(want[i]))) << what << " result " << r << " element " << i;
    }
  }
}

// Three runs with new arguments each: the first eager, the second captures a
// graph and replays it, the third replays it; every result right each time.
TEST(CudaExecutor, RunsTheStepAndReplaysItsGraph) {
  FakeGpu gpu;
  {
    auto x = gpu.executor(cuda_step_executable(synthetic_cubin(90)));
    ASSERT_TRUE(x.ok()) << x.error().message;
    Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
    for (int run = 0; run < 3; ++run) {
      for (int i = 0; i < 6; ++i) xs.data<float>()[i] = static_cast<float>(i + run), w.data<float>()[i] = static_cast<float>(2 * i - run);
      const std::vector<float> w_before = values(w), x_before = values(xs);
      Tensor* args[] = {&xs, &w};
      ASSERT_TRUE((*x)->run(args).ok());
      EXPECT_EQ(values((*x)->result(0)), cuda_step_expected_y(x_before, w_before)) << "run " << run;
      std::vector<float> halved = w_before;
      for (float& v : halved) v *= 0.5f;
      EXPECT_EQ(values(w), halved) << "run " << run;
      EXPECT_EQ((*x)->result(1).bytes(), w.bytes()) << "the updated argument's result is the caller's tensor";
      EXPECT_EQ(values(xs), x_before) << "an input is only read";
      EXPECT_EQ(fake_cuda().captures, run >= 1 ? 1 : 0);
      EXPECT_EQ(fake_cuda().graph_launches, run);
      EXPECT_EQ((*x)->replays_graph(), run >= 1);
    }
    EXPECT_EQ(fake_cuda().kernel_runs, 6);
    EXPECT_EQ(fake_cuda().matmuls, 6);
  }
  EXPECT_EQ(fake_cuda().allocations, 0) << "everything the executor made is freed";
}

// A two-phase kernel: two launches in order (phase 0 on its grid, phase 1
// on combine_grid), the scratch region's address in both, eager and in the
// captured graph, and the kernel after it sees the result.
TEST(CudaExecutor, LaunchesATwoPhaseKernelTwice) {
  FakeGpu gpu;
  auto x = gpu.executor(cuda_two_phase_executable(synthetic_cubin(90, {"sum_two_phase", "increment"})));
  ASSERT_TRUE(x.ok()) << x.error().message;
  Tensor xs(DType::f32, {1000});
  for (int run = 0; run < 3; ++run) {
    for (int i = 0; i < 1000; ++i) xs.data<float>()[i] = static_cast<float>(i % 7 + run);
    Tensor* args[] = {&xs};
    ASSERT_TRUE((*x)->run(args).ok());
    double want = 0;
    for (int i = 0; i < 1000; ++i) want += i % 7 + run;
    EXPECT_EQ(values((*x)->result(0)), std::vector<float>{static_cast<float>(want)}) << "run " << run;
    EXPECT_EQ(values((*x)->result(1)), std::vector<float>{static_cast<float>(want) + 1}) << "run " << run;
  }
  EXPECT_EQ(fake_cuda().graph_launches, 2) << "the second and third runs replay the graph";
  const std::vector<std::pair<unsigned, int64_t>> each_run = {{4, 0}, {1, 1}};
  ASSERT_EQ(gpu.two_phase_launches.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(gpu.two_phase_launches[i], each_run[i % 2]) << "launch " << i;
}

// Kept tensors (runtime/device_tensors.h): w lives on the GPU. Runs read the
// device copy, uploaded once, and update it without writing the host's
// tensor back; to_host downloads it; a host write is uploaded by the next
// run; a second executor shares the copy; binding the copy captures a new
// graph; the argument buffer no longer holds w.
TEST(CudaExecutor, KeptTensorsStayOnTheGpu) {
  FakeGpu gpu;
  {
    std::unique_ptr<DeviceTensors> kept = cuda::cuda_device_tensors(gpu.device);
    auto x = gpu.executor(cuda_step_executable(synthetic_cubin(90)));
    auto other = gpu.executor(cuda_step_executable(synthetic_cubin(90)));
    ASSERT_TRUE(x.ok() && other.ok());
    ASSERT_TRUE((*x)->run_on_device_tensors(kept.get()));
    ASSERT_TRUE((*other)->run_on_device_tensors(kept.get()));
    Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
    for (int i = 0; i < 6; ++i) xs.data<float>()[i] = static_cast<float>(i), w.data<float>()[i] = static_cast<float>(8 * i + 8);
    const std::vector<float> w0 = values(w), x0 = values(xs);
    ASSERT_TRUE(kept->keep(w).ok());
    Tensor* args[] = {&xs, &w};
    std::vector<float> device_w = w0;
    for (int run = 0; run < 3; ++run) {
      ASSERT_TRUE((*x)->run(args).ok());
      EXPECT_EQ(values((*x)->result(0)), cuda_step_expected_y(x0, device_w)) << "run " << run;
      for (float& v : device_w) v *= 0.5f;
      EXPECT_EQ(values(w), w0) << "the host's tensor is not written back (run " << run << ")";
    }
    EXPECT_EQ(fake_cuda().captures, 1) << "captured once, after the binding";
    // The other executor reads the same copy, and updates it.
    ASSERT_TRUE((*other)->run(args).ok());
    EXPECT_EQ(values((*other)->result(0)), cuda_step_expected_y(x0, device_w));
    for (float& v : device_w) v *= 0.5f;
    ASSERT_TRUE(kept->to_host(w).ok());
    EXPECT_EQ(values(w), device_w);
    // The host writes it: the next run starts from the host's values.
    for (int i = 0; i < 6; ++i) w.data<float>()[i] = 2;
    kept->host_wrote(w);
    ASSERT_TRUE((*x)->run(args).ok());
    EXPECT_EQ(values((*x)->result(0)), cuda_step_expected_y(x0, std::vector<float>(6, 2)));
    ASSERT_TRUE(kept->to_host(w).ok());
    EXPECT_EQ(values(w), std::vector<float>(6, 1));
    // A tensor not kept is an argument as before: uploaded and written back.
    Tensor w2(w);
    Tensor* args2[] = {&xs, &w2};
    ASSERT_TRUE((*x)->run(args2).ok());
    EXPECT_EQ(values(w2), std::vector<float>(6, 0.5f));
    EXPECT_EQ(values((*x)->result(0)), cuda_step_expected_y(x0, std::vector<float>(6, 1)));
  }
  EXPECT_EQ(fake_cuda().allocations, 0) << "everything the executors and the kept tensors made is freed";
}

TEST(CudaExecutor, WithoutGraphsEveryRunLaunchesEachInstruction) {
  FakeGpu gpu;
  auto x = gpu.executor(cuda_step_executable(synthetic_cubin(90)), /*graph=*/false);
  ASSERT_TRUE(x.ok()) << x.error().message;
  Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
  Tensor* args[] = {&xs, &w};
  for (int run = 0; run < 3; ++run) ASSERT_TRUE((*x)->run(args).ok());
  EXPECT_EQ(fake_cuda().captures, 0);
  EXPECT_EQ(fake_cuda().graph_launches, 0);
  EXPECT_EQ(fake_cuda().kernel_runs, 6);
}

// A capture the driver refuses: the runs go on eagerly, right.
TEST(CudaExecutor, WithoutACaptureRunsGoOnEagerly) {
  FakeGpu gpu;
  fake_cuda().fail_capture = true;
  auto x = gpu.executor(cuda_step_executable(synthetic_cubin(90)));
  ASSERT_TRUE(x.ok()) << x.error().message;
  Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
  Tensor* args[] = {&xs, &w};
  for (int run = 0; run < 3; ++run) {
    for (int i = 0; i < 6; ++i) xs.data<float>()[i] = static_cast<float>(i * run), w.data<float>()[i] = 1;
    const std::vector<float> x_before = values(xs), w_before = values(w);
    ASSERT_TRUE((*x)->run(args).ok());
    EXPECT_EQ(values((*x)->result(0)), cuda_step_expected_y(x_before, w_before)) << "run " << run;
  }
  EXPECT_FALSE((*x)->replays_graph());
  EXPECT_EQ(fake_cuda().graph_launches, 0);
  EXPECT_EQ(fake_cuda().kernel_runs, 6);
}

// What cuda_gpu_test.cc runs passes the verifier, so that a GPU's few
// minutes are not spent on a malformed test.
TEST(CudaExecutor, TheGpuTestsExecutablesVerify) {
  EXPECT_TRUE(verify_executable(*cuda_step_executable("", "sm_80")).ok());
  EXPECT_TRUE(verify_executable(*cuda_gather_executable("")).ok());
  EXPECT_TRUE(verify_executable(*cuda_two_phase_executable("")).ok());
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16})
    for (int bits = 0; bits < 8; ++bits)
      for (int update = 0; update < (is_half(t) ? 1 : 3); ++update) {
        const blas::DotShape d{3, 17, 9, 64, (bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
        Status s = verify_executable(*cuda_gemm_executable(GemmParams{t, d, update ? 0.5 : 1, update ? 2.0 : 0},
                                                           update == 2));
        EXPECT_TRUE(s.ok()) << s.error().message;
      }
}

TEST(CudaExecutor, ProfilesEveryInstructionWithoutAGraph) {
  FakeGpu gpu;
  auto x = gpu.executor(cuda_step_executable(synthetic_cubin(90)));
  ASSERT_TRUE(x.ok()) << x.error().message;
  EXPECT_EQ((*x)->profile(), nullptr);
  (*x)->enable_profiling();
  Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
  Tensor* args[] = {&xs, &w};
  for (int run = 0; run < 2; ++run) ASSERT_TRUE((*x)->run(args).ok());
  const ExecutionProfile& p = *(*x)->profile();
  EXPECT_EQ(p.runs, 2);
  EXPECT_EQ(p.calls, std::vector<int64_t>(5, 2));
  int64_t sum = 0;
  for (int64_t ns : p.ns) {
    EXPECT_GT(ns, 0);
    sum += ns;
  }
  EXPECT_EQ(sum, p.run_ns);
  EXPECT_EQ(fake_cuda().captures, 0) << "profiled runs launch instruction by instruction";
}

// The first kernel that reported an index out of range, with the CPU's
// message: found by running the list again up to the kernel (its indices
// were overwritten by a later kernel since). The caller's tensors are left
// as they were, and the next run is right.
// Three runs of a gather, the second with index 7 of 4: the CPU's message.
// With `halves`, each run is start, then the caller refilling its tensors
// (the next batch, gathered meanwhile), then finish: the run is unchanged,
// and the index error names the started run's index, read again from the
// staging buffer.
void expect_gather_runs(bool halves) {
  FakeGpu gpu;
  auto x = gpu.executor(cuda_gather_executable(synthetic_cubin(90)));
  ASSERT_TRUE(x.ok()) << x.error().message;
  Tensor idx(DType::i32, {3}), table(DType::f32, {4});
  for (int i = 0; i < 4; ++i) table.data<float>()[i] = static_cast<float>(10 * (i + 1));
  Tensor* args[] = {&idx, &table};
  for (int run = 0; run < 3; ++run) {
    idx.data<int>()[0] = 1, idx.data<int>()[1] = run == 1 ? 7 : 3, idx.data<int>()[2] = 2;
    Status s;
    if (halves) {
      ASSERT_TRUE((*x)->start(args).ok());
      idx.data<int>()[0] = idx.data<int>()[1] = idx.data<int>()[2] = 0;
      s = (*x)->finish();
    } else {
      s = (*x)->run(args);
    }
    if (run == 1) {
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.error().message, "m.json:3:5: error: gather: index 7 out of range [0, 4) along axis 0");
      continue;
    }
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(values((*x)->result(0)), (std::vector<float>{20, 40, 30}));
  }
  EXPECT_EQ(fake_cuda().captures, 1);
  EXPECT_TRUE((*x)->finish().ok()) << "a finish with no run started does nothing";
}

TEST(CudaExecutor, IndexOutOfRangeIsTheCpusMessage) { expect_gather_runs(false); }

TEST(CudaExecutor, StartTakesTheArgumentsBytes) { expect_gather_runs(true); }

TEST(CudaExecutor, RefusesWhatItCannotRun) {
  FakeGpu gpu;
  const std::string cubin = synthetic_cubin(90);
  auto e = cuda_step_executable(cubin);
  auto code = *cuda::load_cuda_code(*e->code, gpu.device);
  cuda::CudaExecutorOptions options;
  options.cublaslt = &fake_cublaslt();
  e->instructions[3].kind = InstrKind::reference;
  e->instructions[3].name = "exp";
  auto x = cuda::CudaExecutor::create(e, code, gpu.device, options);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message,
            "m.json:4:1: error: function 'step': exp: a reference kernel, which the cuda target does not run (a "
            "compiled step has none)");

  // A kernel without a launch: the verifier's, before any executor (Executor::create runs it first).
  e = cuda_step_executable(cubin);
  e->kernels[1].launch = {};
  Status verified = verify_executable(*e);
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.error().message, "function 'step': kernels[1].launch.block: is 0, expected 1 to 1024");
  EXPECT_EQ(fake_cuda().allocations, 0) << "refused before allocating";
}

TEST(CudaExecutor, RefusesMoreMemoryThanTheGpuHasFree) {
  FakeGpu gpu;
  fake_cuda().free_bytes = 1000;
  auto x = gpu.executor(cuda_step_executable(synthetic_cubin(90)));
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message,
            "function 'step': needs 32.0 MiB of GPU memory (arena 1.2 KiB, arguments 768 bytes, GEMM workspace 32.0 "
            "MiB), 1000 bytes free on GPU 0 (NVIDIA H200)");
  EXPECT_EQ(fake_cuda().allocations, 0);
}

TEST(CudaExecutor, ALaunchErrorNamesTheKernelAndItsOps) {
  FakeGpu gpu;
  fake_cuda().fail_launch = "add_one";
  auto x = gpu.executor(cuda_step_executable(synthetic_cubin(90)));
  ASSERT_TRUE(x.ok()) << x.error().message;
  Tensor xs(DType::f32, {2, 3}), w(DType::f32, {3, 2});
  Tensor* args[] = {&xs, &w};
  Status s = (*x)->run(args);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "m.json:1:1: error: function 'step': kernel add_one (%1 add (m.json:1:1)) on GPU 0 (NVIDIA H200): "
            "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
}

}  // namespace
}  // namespace mlc::rt
