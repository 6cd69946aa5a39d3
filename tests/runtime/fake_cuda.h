// A fake NVIDIA driver and cuBLASLt over host memory, for testing the "cuda"
// target's executor (runtime/cuda/cuda_executor.h) on machines without a GPU:
// the same entry-point tables (rt::cuda::CudaDriver, rt::cuda::CublasLt) with
// functions that act on the host at once.
//
//  - Device memory is host memory: a CUdeviceptr is a host address.
//  - Kernels are host functions registered by symbol (FakeCuda::kernels); a
//    launch calls one with the grid, the block and the argument values (the
//    device addresses) read at launch time, as the driver copies them.
//  - The stream runs every operation at once. Between cuStreamBeginCapture
//    and cuStreamEndCapture operations are recorded instead, and a graph
//    launch replays them; copies between host and device are refused during a
//    capture (the executor must not capture them: their host memory differs
//    from run to run).
//  - cublasLtMatmul evaluates the column-major GEMM definition
//    (column_major_gemm) on the descriptors it was given.
//  - Every stream operation advances a clock by 1 us, which events record.
// Counters say what ran; FakeCuda::reset() restores every setting.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/cuda/cublaslt.h"
#include "runtime/cuda/cublaslt_gemm.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/half.h"

namespace mlc::testing {

namespace cu = rt::cuda;

// One column-major GEMM of cuBLASLt's definition, on the host:
// D[p](i, j) = alpha * sum_l op(A[p])(i, l) op(B[p])(l, j) + beta * C[p](i, j)
// for each batch p, with X[p] at X + p * stride and X(r, c) at X[r + c * ld];
// op(X)(r, c) is X(r, c), or X(c, r) under kOpT. `load` reads element e of a
// matrix as double, `store` writes one.
template <class LoadA, class LoadB, class LoadC, class Store>
void column_major_gemm(const cu::LtGemmLayout& L, double alpha, double beta, LoadA load_a, LoadB load_b, LoadC load_c,
                       Store store_d) {
  for (int64_t p = 0; p < L.batch; ++p)
    for (int64_t j = 0; j < L.n; ++j)
      for (int64_t i = 0; i < L.m; ++i) {
        double sum = 0;
        for (int64_t l = 0; l < L.k; ++l) {
          const int64_t ea = p * L.a.stride + (L.trans_a == cu::kOpN ? i + l * L.a.ld : l + i * L.a.ld);
          const int64_t eb = p * L.b.stride + (L.trans_b == cu::kOpN ? l + j * L.b.ld : j + l * L.b.ld);
          sum += load_a(ea) * load_b(eb);
        }
        const int64_t ec = p * L.c.stride + i + j * L.c.ld;
        store_d(ec, alpha * sum + (beta != 0 ? beta * load_c(ec) : 0.0));
      }
}

// A kernel on the host: grid, block and its arguments' values (device
// addresses: host pointers here), the status word's last.
using FakeKernel = std::function<void(unsigned grid, unsigned block, const std::vector<cu::CUdeviceptr>& args)>;
struct FakeKernelEntry {
  FakeKernel run;
  int params = 0;  // how many arguments it takes, status word included
};

struct FakeCuda {
  // Settings.
  int version = 13000;
  int devices = 1;
  int major = 9, minor = 0;
  std::string name = "NVIDIA H200";
  size_t free_bytes = size_t{100} << 30, total_bytes = size_t{141} << 30;
  std::map<std::string, FakeKernelEntry> kernels;
  std::string fail_launch;  // a kernel whose launches fail with CUDA_ERROR_INVALID_VALUE
  bool fail_capture = false;  // cuStreamBeginCapture fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED

  // State and counters.
  bool capturing = false;
  std::vector<std::function<void()>> captured;
  int captures = 0, graph_launches = 0, kernel_runs = 0, matmuls = 0, allocations = 0, module_loads = 0;
  double clock_ms = 0;

  void reset() { *this = FakeCuda(); }
};

inline FakeCuda& fake_cuda() {
  static FakeCuda f;
  return f;
}

namespace fake_detail {

using cu::CUresult;
constexpr CUresult kInvalidValue = 1;         // CUDA_ERROR_INVALID_VALUE
constexpr CUresult kCaptureUnsupported = 900;  // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED

// Runs `op` now, or records it while capturing.
inline CUresult enqueue(std::function<void()> op) {
  FakeCuda& f = fake_cuda();
  auto timed = [op = std::move(op)] {
    op();
    fake_cuda().clock_ms += 0.001;
  };
  if (f.capturing)
    f.captured.push_back(std::move(timed));
  else
    timed();
  return 0;
}

struct Graph {
  std::vector<std::function<void()>> ops;
};

struct MatmulDesc {
  int32_t compute = 0, scale = 0, trans_a = cu::kOpN, trans_b = cu::kOpN;
};
struct Layout {
  int32_t type = 0;
  cu::LtMatrix m;
};

inline double load(int32_t type, const void* base, int64_t e) {
  switch (type) {
    case cu::kCudaR32F: return static_cast<const float*>(base)[e];
    case cu::kCudaR64F: return static_cast<const double*>(base)[e];
    case cu::kCudaR16BF: return rt::bf16::from_bits(static_cast<const uint16_t*>(base)[e]).to_float();
    case cu::kCudaR16F: return rt::f16::from_bits(static_cast<const uint16_t*>(base)[e]).to_float();
  }
  std::abort();
}
inline void store(int32_t type, void* base, int64_t e, double v) {
  switch (type) {
    case cu::kCudaR32F: static_cast<float*>(base)[e] = static_cast<float>(v); return;
    case cu::kCudaR64F: static_cast<double*>(base)[e] = v; return;
    case cu::kCudaR16BF: static_cast<uint16_t*>(base)[e] = rt::bf16::from_double(v).bits; return;
    case cu::kCudaR16F: static_cast<uint16_t*>(base)[e] = rt::f16::from_double(v).bits; return;
  }
  std::abort();
}

inline void* host(cu::CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

}  // namespace fake_detail

inline const cu::CudaDriver& fake_driver() {
  using namespace fake_detail;
  using cu::CUdeviceptr;
  static const cu::CudaDriver d = [] {
    cu::CudaDriver d;
    d.version = fake_cuda().version;
    d.cuInit = [](unsigned) -> CUresult { return 0; };
    d.cuDriverGetVersion = [](int* v) -> CUresult { return *v = fake_cuda().version, 0; };
    d.cuGetErrorName = [](CUresult r, const char** s) -> CUresult {
      if (r == kInvalidValue) return *s = "CUDA_ERROR_INVALID_VALUE", 0;
      if (r == kCaptureUnsupported) return *s = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 0;
      return kInvalidValue;
    };
    d.cuGetErrorString = [](CUresult r, const char** s) -> CUresult {
      if (r == kInvalidValue) return *s = "invalid argument", 0;
      if (r == kCaptureUnsupported) return *s = "operation not permitted when stream is capturing", 0;
      return kInvalidValue;
    };
    d.cuDeviceGetCount = [](int* n) -> CUresult { return *n = fake_cuda().devices, 0; };
    d.cuDeviceGet = [](cu::CUdevice* dev, int ordinal) -> CUresult { return *dev = ordinal, 0; };
    d.cuDeviceGetAttribute = [](int* v, int attribute, cu::CUdevice) -> CUresult {
      if (attribute == cu::kAttributeComputeCapabilityMajor) return *v = fake_cuda().major, 0;
      if (attribute == cu::kAttributeComputeCapabilityMinor) return *v = fake_cuda().minor, 0;
      return kInvalidValue;
    };
    d.cuDeviceGetName = [](char* s, int n, cu::CUdevice) -> CUresult {
      std::snprintf(s, static_cast<size_t>(n), "%s", fake_cuda().name.c_str());
      return 0;
    };
    d.cuDeviceTotalMem = [](size_t* b, cu::CUdevice) -> CUresult { return *b = fake_cuda().total_bytes, 0; };
    d.cuDevicePrimaryCtxRetain = [](cu::CUcontext* c, cu::CUdevice) -> CUresult {
      static int context;
      *c = reinterpret_cast<cu::CUcontext>(&context);
      return 0;
    };
    d.cuCtxSetCurrent = [](cu::CUcontext) -> CUresult { return 0; };
    d.cuMemGetInfo = [](size_t* free, size_t* total) -> CUresult {
      *free = fake_cuda().free_bytes, *total = fake_cuda().total_bytes;
      return 0;
    };
    d.cuModuleLoadData = [](cu::CUmodule* m, const void*) -> CUresult {
      ++fake_cuda().module_loads;
      static int module;
      *m = reinterpret_cast<cu::CUmodule>(&module);
      return 0;
    };
    d.cuModuleUnload = [](cu::CUmodule) -> CUresult { return 0; };
    d.cuModuleGetFunction = [](cu::CUfunction* f, cu::CUmodule, const char* name) -> CUresult {
      auto it = fake_cuda().kernels.find(name);
      if (it == fake_cuda().kernels.end()) return 500;  // CUDA_ERROR_NOT_FOUND
      *f = reinterpret_cast<cu::CUfunction>(&it->second);
      return 0;
    };
    d.cuLaunchKernel = [](cu::CUfunction f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned,
                          cu::CUstream, void** params, void**) -> CUresult {
      const auto* k = reinterpret_cast<const FakeKernelEntry*>(f);
      for (auto& [symbol, entry] : fake_cuda().kernels)
        if (&entry == k && symbol == fake_cuda().fail_launch) return kInvalidValue;
      std::vector<CUdeviceptr> args;
      for (int i = 0; i < k->params; ++i) args.push_back(*static_cast<CUdeviceptr*>(params[i]));
      return enqueue([k, gx, bx, args] {
        ++fake_cuda().kernel_runs;
        k->run(gx, bx, args);
      });
    };
    d.cuMemAlloc = [](CUdeviceptr* p, size_t n) -> CUresult {
      if (n == 0) return kInvalidValue;
      ++fake_cuda().allocations;
      *p = reinterpret_cast<uintptr_t>(std::aligned_alloc(256, (n + 255) / 256 * 256));
      return 0;
    };
    d.cuMemFree = [](CUdeviceptr p) -> CUresult {
      --fake_cuda().allocations;
      std::free(host(p));
      return 0;
    };
    d.cuMemcpyHtoDAsync = [](CUdeviceptr to, const void* from, size_t n, cu::CUstream) -> CUresult {
      if (fake_cuda().capturing) return kCaptureUnsupported;
      std::memcpy(host(to), from, n);
      return 0;
    };
    d.cuMemcpyDtoHAsync = [](void* to, CUdeviceptr from, size_t n, cu::CUstream) -> CUresult {
      if (fake_cuda().capturing) return kCaptureUnsupported;
      std::memcpy(to, host(from), n);
      return 0;
    };
    d.cuMemcpyDtoDAsync = [](CUdeviceptr to, CUdeviceptr from, size_t n, cu::CUstream) -> CUresult {
      return enqueue([=] { std::memcpy(host(to), host(from), n); });
    };
    d.cuMemsetD8Async = [](CUdeviceptr to, unsigned char v, size_t n, cu::CUstream) -> CUresult {
      return enqueue([=] { std::memset(host(to), v, n); });
    };
    d.cuMemsetD32Async = [](CUdeviceptr to, unsigned v, size_t n, cu::CUstream) -> CUresult {
      return enqueue([=] {
        for (size_t i = 0; i < n; ++i) static_cast<uint32_t*>(host(to))[i] = v;
      });
    };
    d.cuMemHostAlloc = [](void** p, size_t n, unsigned) -> CUresult {
      ++fake_cuda().allocations;
      *p = std::aligned_alloc(64, (n + 63) / 64 * 64);
      return 0;
    };
    d.cuMemFreeHost = [](void* p) -> CUresult {
      --fake_cuda().allocations;
      std::free(p);
      return 0;
    };
    d.cuStreamCreate = [](cu::CUstream* s, unsigned) -> CUresult {
      ++fake_cuda().allocations;
      *s = reinterpret_cast<cu::CUstream>(new int);
      return 0;
    };
    d.cuStreamDestroy = [](cu::CUstream s) -> CUresult {
      --fake_cuda().allocations;
      delete reinterpret_cast<int*>(s);
      return 0;
    };
    d.cuStreamSynchronize = [](cu::CUstream) -> CUresult { return fake_cuda().capturing ? kCaptureUnsupported : 0; };
    d.cuEventCreate = [](cu::CUevent* e, unsigned) -> CUresult {
      ++fake_cuda().allocations;
      *e = reinterpret_cast<cu::CUevent>(new double(0));
      return 0;
    };
    d.cuEventDestroy = [](cu::CUevent e) -> CUresult {
      --fake_cuda().allocations;
      delete reinterpret_cast<double*>(e);
      return 0;
    };
    d.cuEventRecord = [](cu::CUevent e, cu::CUstream) -> CUresult {
      // An event takes no time of its own.
      auto* t = reinterpret_cast<double*>(e);
      if (fake_cuda().capturing) fake_cuda().captured.push_back([t] { *t = fake_cuda().clock_ms; });
      else *t = fake_cuda().clock_ms;
      return 0;
    };
    d.cuEventElapsedTime = [](float* ms, cu::CUevent a, cu::CUevent b) -> CUresult {
      *ms = static_cast<float>(*reinterpret_cast<double*>(b) - *reinterpret_cast<double*>(a));
      return 0;
    };
    d.cuStreamBeginCapture = [](cu::CUstream, int mode) -> CUresult {
      if (mode != cu::kCaptureModeThreadLocal || fake_cuda().capturing) return kInvalidValue;
      if (fake_cuda().fail_capture) return kCaptureUnsupported;
      fake_cuda().capturing = true;
      fake_cuda().captured.clear();
      return 0;
    };
    d.cuStreamEndCapture = [](cu::CUstream, cu::CUgraph* g) -> CUresult {
      if (!fake_cuda().capturing) return kInvalidValue;
      fake_cuda().capturing = false;
      ++fake_cuda().captures;
      ++fake_cuda().allocations;
      *g = reinterpret_cast<cu::CUgraph>(new Graph{std::move(fake_cuda().captured)});
      return 0;
    };
    d.cuGraphInstantiateWithFlags = [](cu::CUgraphExec* e, cu::CUgraph g, unsigned long long) -> CUresult {
      ++fake_cuda().allocations;
      *e = reinterpret_cast<cu::CUgraphExec>(new Graph(*reinterpret_cast<Graph*>(g)));
      return 0;
    };
    d.cuGraphLaunch = [](cu::CUgraphExec e, cu::CUstream) -> CUresult {
      ++fake_cuda().graph_launches;
      for (auto& op : reinterpret_cast<Graph*>(e)->ops) op();
      return 0;
    };
    d.cuGraphExecDestroy = [](cu::CUgraphExec e) -> CUresult {
      --fake_cuda().allocations;
      delete reinterpret_cast<Graph*>(e);
      return 0;
    };
    d.cuGraphDestroy = [](cu::CUgraph g) -> CUresult {
      --fake_cuda().allocations;
      delete reinterpret_cast<Graph*>(g);
      return 0;
    };
    return d;
  }();
  return d;
}

// cuBLASLt over host memory; its handle is any non-null pointer.
inline const cu::CublasLt& fake_cublaslt() {
  using namespace fake_detail;
  using cu::cublasStatus_t;
  static const cu::CublasLt lt = [] {
    cu::CublasLt lt;
    lt.library = "fake cuBLASLt";
    lt.cublasLtCreate = [](cu::cublasLtHandle_t* h) -> cublasStatus_t {
      ++fake_cuda().allocations;
      *h = reinterpret_cast<cu::cublasLtHandle_t>(new int);
      return 0;
    };
    lt.cublasLtDestroy = [](cu::cublasLtHandle_t h) -> cublasStatus_t {
      --fake_cuda().allocations;
      delete reinterpret_cast<int*>(h);
      return 0;
    };
    lt.cublasLtGetStatusName = [](cublasStatus_t) -> const char* { return "CUBLAS_STATUS_INVALID_VALUE"; };
    lt.cublasLtGetStatusString = [](cublasStatus_t) -> const char* { return "invalid value"; };
    lt.cublasLtMatmulDescCreate = [](cu::cublasLtMatmulDesc_t* d, int32_t compute, int32_t scale) -> cublasStatus_t {
      ++fake_cuda().allocations;
      *d = reinterpret_cast<cu::cublasLtMatmulDesc_t>(new MatmulDesc{compute, scale});
      return 0;
    };
    lt.cublasLtMatmulDescDestroy = [](cu::cublasLtMatmulDesc_t d) -> cublasStatus_t {
      --fake_cuda().allocations;
      delete reinterpret_cast<MatmulDesc*>(d);
      return 0;
    };
    lt.cublasLtMatmulDescSetAttribute = [](cu::cublasLtMatmulDesc_t d, int attribute, const void* v,
                                           size_t n) -> cublasStatus_t {
      auto* m = reinterpret_cast<MatmulDesc*>(d);
      if (n != 4) return 7;
      if (attribute == cu::kMatmulDescTransA) return std::memcpy(&m->trans_a, v, 4), 0;
      if (attribute == cu::kMatmulDescTransB) return std::memcpy(&m->trans_b, v, 4), 0;
      return 7;
    };
    lt.cublasLtMatrixLayoutCreate = [](cu::cublasLtMatrixLayout_t* l, int32_t type, uint64_t rows, uint64_t cols,
                                       int64_t ld) -> cublasStatus_t {
      ++fake_cuda().allocations;
      auto* x = new Layout{type, {}};
      x->m.rows = static_cast<int64_t>(rows), x->m.cols = static_cast<int64_t>(cols), x->m.ld = ld;
      *l = reinterpret_cast<cu::cublasLtMatrixLayout_t>(x);
      return 0;
    };
    lt.cublasLtMatrixLayoutDestroy = [](cu::cublasLtMatrixLayout_t l) -> cublasStatus_t {
      --fake_cuda().allocations;
      delete reinterpret_cast<Layout*>(l);
      return 0;
    };
    lt.cublasLtMatrixLayoutSetAttribute = [](cu::cublasLtMatrixLayout_t l, int attribute, const void* v,
                                             size_t n) -> cublasStatus_t {
      auto* x = reinterpret_cast<Layout*>(l);
      if (attribute == cu::kLayoutBatchCount && n == 4) {
        int32_t b;
        std::memcpy(&b, v, 4);
        x->m.batch = b;
        return 0;
      }
      if (attribute == cu::kLayoutStridedBatchOffset && n == 8) return std::memcpy(&x->m.stride, v, 8), 0;
      return 7;
    };
    lt.cublasLtMatmulPreferenceCreate = [](cu::cublasLtMatmulPreference_t* p) -> cublasStatus_t {
      ++fake_cuda().allocations;
      *p = reinterpret_cast<cu::cublasLtMatmulPreference_t>(new int);
      return 0;
    };
    lt.cublasLtMatmulPreferenceDestroy = [](cu::cublasLtMatmulPreference_t p) -> cublasStatus_t {
      --fake_cuda().allocations;
      delete reinterpret_cast<int*>(p);
      return 0;
    };
    lt.cublasLtMatmulPreferenceSetAttribute = [](cu::cublasLtMatmulPreference_t, int attribute, const void*,
                                                 size_t n) -> cublasStatus_t {
      if (attribute == cu::kPrefMaxWorkspaceBytes) return n == 8 ? 0 : 7;
      if (attribute >= cu::kPrefMinAlignmentA && attribute <= cu::kPrefMinAlignmentD) return n == 4 ? 0 : 7;
      return 7;
    };
    lt.cublasLtMatmulAlgoGetHeuristic = [](cu::cublasLtHandle_t h, cu::cublasLtMatmulDesc_t, cu::cublasLtMatrixLayout_t,
                                           cu::cublasLtMatrixLayout_t, cu::cublasLtMatrixLayout_t,
                                           cu::cublasLtMatrixLayout_t, cu::cublasLtMatmulPreference_t, int requested,
                                           cu::cublasLtMatmulHeuristicResult_t* results, int* returned) -> cublasStatus_t {
      if (!h || requested < 1) return 7;
      results[0] = {};
      *returned = 1;
      return 0;
    };
    lt.cublasLtMatmul = [](cu::cublasLtHandle_t, cu::cublasLtMatmulDesc_t desc, const void* alpha, const void* a,
                           cu::cublasLtMatrixLayout_t al, const void* b, cu::cublasLtMatrixLayout_t bl,
                           const void* beta, const void* c, cu::cublasLtMatrixLayout_t cl, void* d,
                           cu::cublasLtMatrixLayout_t dl, const cu::cublasLtMatmulAlgo_t*, void*, size_t,
                           cu::CUstream) -> cublasStatus_t {
      const auto* m = reinterpret_cast<const MatmulDesc*>(desc);
      const auto *A = reinterpret_cast<const Layout*>(al), *B = reinterpret_cast<const Layout*>(bl),
                 *C = reinterpret_cast<const Layout*>(cl), *D = reinterpret_cast<const Layout*>(dl);
      if (C->m != D->m || c != d) return 7;  // the executor computes in place
      // Alpha and beta are read now, as cuBLASLt reads host scalars when called.
      const bool f64 = m->scale == cu::kCudaR64F;
      const double al_v = f64 ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
      const double be_v = f64 ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
      cu::LtGemmLayout L;
      L.trans_a = m->trans_a, L.trans_b = m->trans_b;
      L.a = A->m, L.b = B->m, L.c = C->m;
      L.m = C->m.rows, L.n = C->m.cols, L.batch = C->m.batch;
      L.k = m->trans_a == cu::kOpN ? A->m.cols : A->m.rows;
      const int32_t ta = A->type, tb = B->type, tc = C->type;
      return enqueue([=] {
        ++fake_cuda().matmuls;
        column_major_gemm(
            L, al_v, be_v, [&](int64_t e) { return load(ta, a, e); }, [&](int64_t e) { return load(tb, b, e); },
            [&](int64_t e) { return load(tc, c, e); }, [&](int64_t e, double v) { store(tc, d, e, v); });
      });
    };
    lt.cublasLtGetVersion = []() -> size_t { return 0; };
    return lt;
  }();
  return lt;
}

}  // namespace mlc::testing
