// NVRTC (compiler/gpu/nvrtc.h) compiles CUDA C to cubins without a GPU:
// their architecture reads back (runtime/cuda/cubin.h), ptxas's resource
// report is parsed (registers, shared memory, stack, spills) and its checks
// catch spills; bad sources and architectures are Errors naming the kernel,
// the line or what is supported; compile_cuda_kernels (compiler/gpu/
// cuda_compile.h) hits its cache with identical bytes the second time and
// treats damaged or foreign entries as misses. Without NVRTC the tests that
// compile are skipped; the parsers are tested on text and bytes regardless.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/gpu/cuda_compile.h"
#include "compiler/gpu/nvrtc.h"
#include "compiler/kernel_cache.h"
#include "runtime/cuda/cubin.h"
#include "tests/compiler/test_temp_dir.h"

namespace mlc::gpu {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT_NVRTC()                                                                      \
  do {                                                                                            \
    if (!nvrtc_available()) GTEST_SKIP() << "no NVRTC here: " << nvrtc_version().error().message; \
  } while (0)

// out = a + b elementwise, and each block's sum of out into sums (a fixed
// tree in shared memory). Launched with 256 threads per block.
constexpr char kAddReduce[] = R"(extern "C" __global__ void add_reduce(const float* a, const float* b, float* out,
                                                float* sums, int n) {
  __shared__ float partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i] + b[i] : 0.0f;
  if (i < n) out[i] = v;
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
)";
constexpr int64_t kAddReduceShared = 256 * 4;

constexpr char kScale[] = R"(extern "C" __global__ void scale(float* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = x[i] * 0.5f + 1.0f;
}
)";

// 24 values live at once under a 32-register cap (__launch_bounds__(1024, 2)):
// ptxas must spill.
constexpr char kSpills[] = R"(#define N 24
extern "C" __global__ void __launch_bounds__(1024, 2) spills(const float* x, float* y) {
  float v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = x[threadIdx.x + i * 1024];
  float s = 0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
#pragma unroll
    for (int i = 0; i < N; ++i) s += v[i] * v[(i + j) % N];
  }
  y[threadIdx.x] = s;
}
)";

// A local array indexed at run time lives on the stack (not a spill).
constexpr char kLocalArray[] = R"(extern "C" __global__ void local_array(const int* idx, float* out) {
  float local[512];
  for (int i = 0; i < 512; ++i) local[i] = idx[i] * 1.5f;
  out[threadIdx.x] = local[idx[threadIdx.x] & 511];
}
)";

struct TempDir : mlc::testing::TestTempDir {
  TempDir() : TestTempDir("mlc_nvrtc_test") {}
};

TEST(NvrtcTest, AbsentNvrtcIsAClearError) {
  if (nvrtc_available()) {
    auto v = nvrtc_version();
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->rfind("NVRTC ", 0), 0u) << *v;
    return;
  }
  auto v = nvrtc_version();
  ASSERT_FALSE(v.ok());
  // "NVRTC not found (install the CUDA toolkit or set CUDA_HOME): tried
  // libnvrtc.so.13, ..." or "NVRTC not found (MLC_NVRTC=PATH): tried PATH (why)".
  EXPECT_EQ(v.error().message.rfind("NVRTC not found (", 0), 0u) << v.error().message;
  EXPECT_NE(v.error().message.find("): tried "), std::string::npos) << v.error().message;
  auto c = compile_cubin(kScale, "scale", "sm_90");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, v.error().message);
}

TEST(NvrtcTest, CompilesForSm80AndSm90) {
  SKIP_WITHOUT_NVRTC();
  auto archs = nvrtc_supported_archs();
  ASSERT_TRUE(archs.ok());
  for (const std::string arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    ASSERT_NE(std::find(archs->begin(), archs->end(), arch), archs->end());
    auto r = compile_cubin(kAddReduce, "add_reduce", arch);
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto read_back = rt::cubin_arch(r->cubin);
    ASSERT_TRUE(read_back.ok()) << read_back.error().message;
    EXPECT_EQ(*read_back, arch);
    EXPECT_TRUE(rt::check_cubin(r->cubin, "add_reduce", arch).ok());
    EXPECT_GT(r->usage.registers, 0);
    EXPECT_EQ(r->usage.shared_bytes, kAddReduceShared) << r->log;
    EXPECT_EQ(r->usage.spill_store_bytes, 0);
    EXPECT_EQ(r->usage.spill_load_bytes, 0);
    EXPECT_EQ(r->usage.stack_bytes, 0);
    EXPECT_TRUE(check_resource_usage("add_reduce", r->usage, arch).ok());
    EXPECT_NE(r->log.find("ptxas"), std::string::npos) << "no ptxas report in the log: " << r->log;
  }
}

// The cubin's line table names no working directory: the same source gives
// the same bytes wherever it is compiled (artifacts and caches compare equal
// across checkouts).
TEST(NvrtcTest, TheCubinDoesNotDependOnTheWorkingDirectory) {
  SKIP_WITHOUT_NVRTC();
  const std::filesystem::path before = std::filesystem::current_path();
  std::vector<std::string> cubins;
  for (const char* sub : {"a", "b/c"}) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("mlc_nvrtc_cwd_" + std::to_string(getpid())) / sub;
    std::filesystem::create_directories(dir);
    std::filesystem::current_path(dir);
    std::ofstream(dir / "scale.cu") << "a file of the kernel's name, which must not be read\n";
    auto r = compile_cubin(kScale, "scale", "sm_90");
    std::filesystem::current_path(before);
    ASSERT_TRUE(r.ok()) << r.error().message;
    cubins.push_back(r->cubin);
    EXPECT_EQ(r->cubin.find(dir.string()), std::string::npos);
  }
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("mlc_nvrtc_cwd_" + std::to_string(getpid())));
  EXPECT_TRUE(cubins[0] == cubins[1]);
}

TEST(NvrtcTest, CubinOfAnotherArchOrKernelIsRefused) {
  SKIP_WITHOUT_NVRTC();
  auto r = compile_cubin(kScale, "scale", "sm_80");
  ASSERT_TRUE(r.ok()) << r.error().message;
  Status other_arch = rt::check_cubin(r->cubin, "scale", "sm_90");
  ASSERT_FALSE(other_arch.ok());
  EXPECT_EQ(other_arch.error().message, "a cubin for sm_80, not sm_90");
  Status other_kernel = rt::check_cubin(r->cubin, "add_reduce", "sm_80");
  ASSERT_FALSE(other_kernel.ok());
  EXPECT_EQ(other_kernel.error().message, "the cubin does not define kernel 'add_reduce'");
  for (size_t size : {size_t{0}, size_t{63}, size_t{64}, r->cubin.size() / 2})
    EXPECT_FALSE(rt::check_cubin(r->cubin.substr(0, size), "scale", "sm_80").ok()) << size;
}

TEST(NvrtcTest, SyntaxErrorNamesKernelAndLine) {
  SKIP_WITHOUT_NVRTC();
  const std::string source = "extern \"C\" __global__ void broken(float* x) {\n  x[0] = 1\n  x[1] = 2;\n}\n";
  auto r = compile_cubin(source, "broken", "sm_90");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("kernel broken: NVRTC: broken.cu(3): error: expected a \";\"", 0), 0u)
      << r.error().message;
}

TEST(NvrtcTest, SourceWithoutTheKernelIsAnError) {
  SKIP_WITHOUT_NVRTC();
  auto r = compile_cubin(kScale, "scale2", "sm_90");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("kernel scale2: the ptxas log has no entry function 'scale2'", 0), 0u)
      << r.error().message;
}

TEST(NvrtcTest, UnsupportedArchListsSupportedOnes) {
  SKIP_WITHOUT_NVRTC();
  auto r = compile_cubin(kScale, "scale", "sm_20");
  ASSERT_FALSE(r.ok());
  const std::string want = *nvrtc_version() + " does not support sm_20 (it supports sm_";
  EXPECT_EQ(r.error().message.rfind(want, 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find("sm_90"), std::string::npos) << r.error().message;
  auto virtual_arch = compile_cubin(kScale, "scale", "compute_90");
  ASSERT_FALSE(virtual_arch.ok());
  EXPECT_EQ(virtual_arch.error().message, "not a CUDA architecture: 'compute_90' (expected sm_XX, e.g. sm_90)");
}

TEST(NvrtcTest, SpillsAndStackAreReported) {
  SKIP_WITHOUT_NVRTC();
  auto spilled = compile_cubin(kSpills, "spills", "sm_90");
  ASSERT_TRUE(spilled.ok()) << spilled.error().message;
  EXPECT_GT(spilled->usage.spill_store_bytes, 0) << spilled->log;
  EXPECT_GT(spilled->usage.spill_load_bytes, 0) << spilled->log;
  Status check = check_resource_usage("spills", spilled->usage, "sm_90");
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.error().message.rfind("kernel spills: ptxas spills registers on sm_90 (", 0), 0u)
      << check.error().message;

  auto local = compile_cubin(kLocalArray, "local_array", "sm_90");
  ASSERT_TRUE(local.ok()) << local.error().message;
  EXPECT_GE(local->usage.stack_bytes, 512 * 4) << local->log;
  EXPECT_TRUE(check_resource_usage("local_array", local->usage, "sm_90").ok());
}

TEST(NvrtcTest, TooMuchSharedMemoryIsAnError) {
  SKIP_WITHOUT_NVRTC();
  const int64_t floats = max_shared_bytes_per_block("sm_90") / 4 + 1;
  const std::string source = "extern \"C\" __global__ void big(float* x) {\n  __shared__ float t[" +
                             std::to_string(floats) +
                             "];\n  t[threadIdx.x] = x[threadIdx.x];\n  __syncthreads();\n"
                             "  x[threadIdx.x] = t[threadIdx.x ^ 1];\n}\n";
  auto r = compile_cubin(source, "big", "sm_90");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("kernel big: NVRTC: ptxas error", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find("too much shared data"), std::string::npos) << r.error().message;
}

TEST(NvrtcTest, ParsesPtxasReportOfOneEntry) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
      "ptxas info    : Function properties for k2\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 0 barriers, 8 bytes cumulative stack size\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for helper\n"
      "    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Function properties for k\n"
      "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 1 barriers, 2048 bytes smem, 388 bytes cmem[0]\n";
  auto k = parse_ptxas_info(log, "k");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(*k, (ResourceUsage{12, 2048, 0, 0, 16}));
  auto k2 = parse_ptxas_info(log, "k2");
  ASSERT_TRUE(k2.ok()) << k2.error().message;
  EXPECT_EQ(*k2, (ResourceUsage{40, 0, 4, 8, 8}));
  EXPECT_EQ(to_string(*k2), "40 registers, 0 bytes smem, 8 bytes stack, 4/8 bytes spilled/reloaded");
  Status spill = check_resource_usage("k2", *k2, "sm_90");
  ASSERT_FALSE(spill.ok());
  EXPECT_EQ(spill.error().message,
            "kernel k2: ptxas spills registers on sm_90 (4 bytes stored, 8 bytes loaded per thread; 40 registers)");
  Status shared = check_resource_usage("k", ResourceUsage{12, 50000, 0, 0, 0}, "sm_90");
  ASSERT_FALSE(shared.ok());
  EXPECT_EQ(shared.error().message, "kernel k: 50000 bytes of static shared memory on sm_90, more than a block's 49152");

  auto missing = parse_ptxas_info(log, "k3");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind("kernel k3: the ptxas log has no entry function 'k3'", 0), 0u);
  auto no_registers = parse_ptxas_info("ptxas info    : Compiling entry function 'k' for 'sm_90'\n", "k");
  ASSERT_FALSE(no_registers.ok());
  EXPECT_EQ(no_registers.error().message.rfind("kernel k: cannot read ptxas's resource usage", 0), 0u);
}

// A 64-byte ELF64 header: CUDA ABI version `abi`, e_machine, e_flags.
std::string elf_header(int abi, uint16_t machine, uint32_t flags) {
  std::string h(64, '\0');
  h[0] = '\x7f', h[1] = 'E', h[2] = 'L', h[3] = 'F', h[4] = 2, h[5] = 1, h[6] = 1, h[8] = static_cast<char>(abi);
  h[18] = static_cast<char>(machine & 0xff), h[19] = static_cast<char>(machine >> 8);
  for (int i = 0; i < 4; ++i) h[48 + static_cast<size_t>(i)] = static_cast<char>(flags >> (8 * i));
  return h;
}

TEST(NvrtcTest, CubinArchReadsBothElfLayouts) {
  EXPECT_EQ(*rt::cubin_arch(elf_header(8, 190, 0x09005a04)), "sm_90");   // NVRTC 13.0, sm_90
  EXPECT_EQ(*rt::cubin_arch(elf_header(8, 190, 0x09005004)), "sm_80");   // NVRTC 13.0, sm_80
  EXPECT_EQ(*rt::cubin_arch(elf_header(8, 190, 0x06006402)), "sm_100");
  EXPECT_EQ(*rt::cubin_arch(elf_header(8, 190, 0x06005a0c)), "sm_90a");
  EXPECT_EQ(*rt::cubin_arch(elf_header(7, 190, 0x005a055a)), "sm_90");
  EXPECT_EQ(*rt::cubin_arch(elf_header(7, 190, 0x005a0d5a)), "sm_90a");
  auto x86 = rt::cubin_arch(elf_header(8, 62, 0));
  ASSERT_FALSE(x86.ok());
  EXPECT_EQ(x86.error().message, "not a cubin: ELF machine 62, not CUDA (190)");
  auto abi = rt::cubin_arch(elf_header(9, 190, 0x5a00));
  ASSERT_FALSE(abi.ok());
  EXPECT_EQ(abi.error().message, "not a cubin: unknown CUDA ELF ABI version 9 (known: 7, 8)");
  EXPECT_FALSE(rt::cubin_arch("\x7f" "ELF").ok());
  EXPECT_FALSE(rt::cubin_arch("").ok());

  EXPECT_EQ(rt::sm_version("sm_90"), 90);
  EXPECT_EQ(rt::sm_version("sm_90a"), 90);
  EXPECT_EQ(rt::sm_version("sm_121"), 121);
  for (const char* bad : {"compute_90", "sm_", "90", "sm_9x", "sm_90ab", "sm_1000"})
    EXPECT_EQ(rt::sm_version(bad), std::nullopt) << bad;
}

TEST(NvrtcTest, SecondCompileHitsTheCacheWithIdenticalBytes) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir;
  auto cache = KernelCache::open(dir.path.string());
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  const std::vector<CudaSource> sources = {{"add_reduce", kAddReduce}, {"scale", kScale}, {"add_reduce", kAddReduce}};
  auto first = compile_cuda_kernels(sources, "sm_90", &*cache, 2);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->compiled, 2);
  EXPECT_EQ(first->cache_hits, 0);
  ASSERT_EQ(first->kernels.size(), 3u);
  EXPECT_EQ(first->kernels[0].symbol, "add_reduce");
  EXPECT_EQ(first->kernels[1].symbol, "scale");
  EXPECT_EQ(first->kernels[2].cubin, first->kernels[0].cubin);
  EXPECT_EQ(first->kernels[0].usage.shared_bytes, kAddReduceShared);
  // The bytes compile_cubin gives.
  auto alone = compile_cubin(kScale, "scale", "sm_90");
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(first->kernels[1].cubin, alone->cubin);
  EXPECT_EQ(first->kernels[1].usage, alone->usage);

  auto second = compile_cuda_kernels(sources, "sm_90", &*cache);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->compiled, 0);
  EXPECT_EQ(second->cache_hits, 2);
  ASSERT_EQ(second->kernels.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(second->kernels[i].cubin, first->kernels[i].cubin) << i;
    EXPECT_EQ(second->kernels[i].usage, first->kernels[i].usage) << i;
  }

  // Another architecture is another key.
  auto sm80 = compile_cuda_kernels(sources, "sm_80", &*cache);
  ASSERT_TRUE(sm80.ok()) << sm80.error().message;
  EXPECT_EQ(sm80->compiled, 2);
  EXPECT_EQ(*rt::cubin_arch(sm80->kernels[0].cubin), "sm_80");
}

TEST(NvrtcTest, DamagedOrForeignCacheEntriesAreMisses) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir;
  auto cache = KernelCache::open(dir.path.string());
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  const std::vector<CudaSource> sources = {{"scale", kScale}};
  auto fresh = compile_cuda_kernels(sources, "sm_90", &*cache);
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  auto key = cuda_cache_key(sources[0], "sm_90");
  ASSERT_TRUE(key.ok());
  auto sm80 = compile_cubin(kScale, "scale", "sm_80");
  ASSERT_TRUE(sm80.ok());

  auto expect_miss_then_repair = [&](const std::string& what) {
    SCOPED_TRACE(what);
    auto again = compile_cuda_kernels(sources, "sm_90", &*cache);
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->cache_hits, 0);
    EXPECT_EQ(again->compiled, 1);
    EXPECT_EQ(again->kernels[0].cubin, fresh->kernels[0].cubin);
    EXPECT_EQ(again->kernels[0].usage, fresh->kernels[0].usage);
    auto repaired = compile_cuda_kernels(sources, "sm_90", &*cache);
    ASSERT_TRUE(repaired.ok());
    EXPECT_EQ(repaired->cache_hits, 1);
  };

  {  // Bytes flipped in the file: the cache's checksum fails.
    std::fstream f(cache->path(*key), std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good());
    f.seekp(-16, std::ios::end);
    f.write("garbage!garbage!", 16);
  }
  expect_miss_then_repair("corrupt file");
  // Whole entries (the cache's checksum holds) that are not this kernel's cubin.
  auto entry = [](int64_t registers, const std::string& cubin) {
    std::string s = "mlc cubin 1\n";
    for (int64_t v : {registers, int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}})
      for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
    return s + cubin;
  };
  cache->put(*key, entry(16, fresh->kernels[0].cubin));  // well formed: a hit
  auto hit = compile_cuda_kernels(sources, "sm_90", &*cache);
  ASSERT_TRUE(hit.ok());
  EXPECT_EQ(hit->cache_hits, 1);
  EXPECT_EQ(hit->kernels[0].usage.registers, 16);
  cache->put(*key, entry(16, "not an ELF file at all"));
  expect_miss_then_repair("not a cubin");
  cache->put(*key, entry(16, sm80->cubin));
  expect_miss_then_repair("a cubin for sm_80");
  cache->put(*key, entry(16, fresh->kernels[0].cubin.substr(0, 100)));
  expect_miss_then_repair("a truncated cubin");
  cache->put(*key, entry(-1, fresh->kernels[0].cubin));
  expect_miss_then_repair("negative registers");
  cache->put(*key, fresh->kernels[0].cubin);
  expect_miss_then_repair("no usage in front");
}

TEST(NvrtcTest, TwoTextsUnderOneSymbolAreAnError) {
  SKIP_WITHOUT_NVRTC();
  auto r = compile_cuda_kernels({{"scale", kScale}, {"scale", std::string(kScale) + "\n"}}, "sm_90", nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "kernel scale: two different CUDA sources define it");
}

TEST(NvrtcTest, CompileErrorOfOneSourceFailsTheModule) {
  SKIP_WITHOUT_NVRTC();
  auto r = compile_cuda_kernels({{"scale", kScale}, {"broken", "extern \"C\" __global__ void broken( {}\n"}}, "sm_90",
                                nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("kernel broken: NVRTC: broken.cu(1): error", 0), 0u) << r.error().message;
}

}  // namespace
}  // namespace mlc::gpu
