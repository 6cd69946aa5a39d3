// A fake NVIDIA driver and cuBLASLt over host memory, for testing the "cuda"
// target's executor (runtime/cuda/cuda_executor.h) on machines without a GPU:
// the same entry-point tables (rt::cuda::CudaDriver, rt::cuda::CublasLt) with
// functions that act on the host at once.
//
//  - Device memory is host memory: a CUdeviceptr is a host address.
//  - Kernels are host functions registered by symbol (FakeCuda::kernels); a
//    launch calls one with the grid, the block and the argument values (the
//    device addresses) read at launch time, as the driver copies them.
//  - Streams are queues, as on a GPU: an operation runs later, in order,
//    when the fake makes progress (cuStreamSynchronize, cuEventQuery,
//    cuStreamDestroy), all streams' queues in turn, newest stream first (so
//    that a missing dependency between two streams shows as a wrong value).
//    An operation may wait (cuStreamWaitEvent until its event's record has
//    run; an NCCL collective until its peers arrive, fake_nccl.h): its
//    queue stops there until it can finish. Host-to-device copies read the
//    host memory when called (pageable memory); device-to-host copies write
//    it when they run. The null stream runs an operation at once.
//  - Between cuStreamBeginCapture and cuStreamEndCapture (per thread, as
//    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) operations are recorded instead,
//    on the capturing stream and on every stream that joined the capture by
//    waiting for an event recorded in it; an operation on another stream
//    invalidates the capture (CUDA_ERROR_STREAM_CAPTURE_ISOLATION), and so
//    does a joined stream whose last work no other member waited for
//    (CUDA_ERROR_STREAM_CAPTURE_UNJOINED at the end). A graph launch queues
//    the recorded operations, in the order they were recorded, on its
//    stream; events recorded with CU_EVENT_RECORD_EXTERNAL are recorded
//    again by every launch, other event records in a capture only order the
//    streams. Copies between host and device are refused during a capture
//    (the executor must not capture them: their host memory differs from run
//    to run).
//  - cublasLtMatmul evaluates the column-major GEMM definition
//    (column_major_gemm) on the descriptors it was given, then the epilogue
//    the descriptor names (column_major_epilogue: bias, ReLU, GELU with its
//    aux, DGELU, BGRADB, in cuBLASLt's column-major terms); every call's
//    epilogue attributes are recorded (FakeCuda::epilogues).
//  - Every stream operation advances a clock by 1 us, which events record.
//  - One lock serializes the fake: ranks on threads may share it.
// Counters say what ran; FakeCuda::reset() restores every setting.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
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
// A matmul descriptor's epilogue attributes (CUBLASLT_MATMUL_DESC_EPILOGUE,
// BIAS_POINTER, BIAS_DATA_TYPE, EPILOGUE_AUX_POINTER, EPILOGUE_AUX_LD).
struct LtEpilogueAttrs {
  uint32_t epilogue = cu::kEpilogueDefault;
  void* bias = nullptr;
  int32_t bias_type = -1;  // unset: the result's type
  void* aux = nullptr;
  int64_t aux_ld = 0;
};

// cuBLASLt's epilogue over D (column-major, L.m x L.n, ld L.c.ld, batch 1)
// after the product (`load_d`: before its rounding to D's type), in double,
// each element rounded once as `store_d` stores it: BIAS adds bias[i] to row i, GELU is the tanh
// approximation cuBLASLt documents, *_AUX stores the GELU input at
// aux[i + j * aux_ld], DGELU multiplies by GELU's derivative at the aux
// (DGELU_BGRAD also stores bias[i] = the sum of D's row i), BGRADB stores
// bias[j] = sum over l of op(B)(l, j). `load_d`/`store_d`
// address D's elements, `load_b` B's, `load`/`store` a typed vector.
template <class LoadB, class LoadD, class StoreD, class Load, class Store>
void column_major_epilogue(const cu::LtGemmLayout& L, const LtEpilogueAttrs& ep, LoadB load_b, LoadD load_d,
                           StoreD store_d, Load load, Store store) {
  const uint32_t e = ep.epilogue;
  if (e == cu::kEpilogueDefault) return;
  if (e == cu::kEpilogueBgradb) {
    for (int64_t j = 0; j < L.n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < L.k; ++l) s += load_b(L.trans_b == cu::kOpN ? l + j * L.b.ld : j + l * L.b.ld);
      store(ep.bias, j, s);
    }
  }
  const double c = std::sqrt(2.0 / 3.14159265358979323846);
  auto gelu_t = [&](double x) { return std::tanh(c * (x + 0.044715 * x * x * x)); };
  const bool bias = e == cu::kEpilogueBias || e == cu::kEpilogueReluBias || e == cu::kEpilogueGeluBias ||
                    e == cu::kEpilogueGeluAuxBias;
  const bool gelu = e == cu::kEpilogueGelu || e == cu::kEpilogueGeluBias || e == cu::kEpilogueGeluAux ||
                    e == cu::kEpilogueGeluAuxBias;
  const bool aux_out = e == cu::kEpilogueGeluAux || e == cu::kEpilogueGeluAuxBias;
  const bool dgelu = e == cu::kEpilogueDgelu || e == cu::kEpilogueDgeluBgrad;
  std::vector<double> row_sums(static_cast<size_t>(L.m), 0.0);
  for (int64_t j = 0; j < L.n; ++j)
    for (int64_t i = 0; i < L.m; ++i) {
      const int64_t ed = i + j * L.c.ld, ea = i + j * ep.aux_ld;
      double x = load_d(ed);
      if (bias) x += load(ep.bias, i);
      if (aux_out) store(ep.aux, ea, x);
      if (e == cu::kEpilogueRelu || e == cu::kEpilogueReluBias) x = std::max(x, 0.0);
      if (gelu) x = 0.5 * x * (1 + gelu_t(x));
      if (dgelu) {
        const double a = load(ep.aux, ea), t = gelu_t(a);
        x *= 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * c * (1 + 3 * 0.044715 * a * a);
      }
      row_sums[static_cast<size_t>(i)] += x;
      store_d(ed, x);
    }
  if (e == cu::kEpilogueDgeluBgrad)
    for (int64_t i = 0; i < L.m; ++i) store(ep.bias, i, row_sums[static_cast<size_t>(i)]);
}

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

  // How long cuStreamSynchronize and cuStreamDestroy wait for a stream that
  // cannot finish before failing with CUDA_ERROR_UNKNOWN (a test's bug, not a hang).
  std::chrono::milliseconds stuck_after{20000};

  // State and counters.
  int captures = 0, graph_launches = 0, kernel_runs = 0, matmuls = 0, allocations = 0, copies_2d = 0, module_loads = 0;
  std::vector<LtEpilogueAttrs> epilogues;  // each cublasLtMatmul call's, in call order
  double clock_ms = 0;

  void reset() { *this = FakeCuda(); }
};

inline FakeCuda& fake_cuda() {
  static FakeCuda f;
  return f;
}

namespace fake_detail {

using cu::CUresult;
constexpr CUresult kInvalidValue = 1;           // CUDA_ERROR_INVALID_VALUE
constexpr CUresult kNotReady = 600;             // CUDA_ERROR_NOT_READY
constexpr CUresult kCaptureUnsupported = 900;   // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
constexpr CUresult kCaptureInvalidated = 901;   // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
constexpr CUresult kCaptureUnjoined = 904;      // CUDA_ERROR_STREAM_CAPTURE_UNJOINED
constexpr CUresult kCaptureIsolation = 905;     // CUDA_ERROR_STREAM_CAPTURE_ISOLATION
constexpr CUresult kUnknown = 999;              // CUDA_ERROR_UNKNOWN: a stream the fake could not finish

// The fake device's lock: every entry point holds it, and so does progress
// while it runs operations.
inline std::recursive_mutex& device_mutex() {
  static std::recursive_mutex m;
  return m;
}
inline std::unique_lock<std::recursive_mutex> device_lock() { return std::unique_lock(device_mutex()); }

// A queued operation: true once done; false while it waits (tried again).
using StreamOp = std::function<bool()>;
struct Stream {
  std::deque<StreamOp> ops;
};
// The live streams, in creation order.
inline std::vector<Stream*>& streams() {
  static std::vector<Stream*> s;
  return s;
}
inline Stream* stream_of(cu::CUstream s) { return reinterpret_cast<Stream*>(s); }

struct Event {
  int64_t recorded = 0, completed = 0;  // records made, and run
  double time_ms = 0;
};
inline Event* event_of(cu::CUevent e) { return reinterpret_cast<Event*>(e); }

// What a capture records: an operation, or (op empty) an external record of
// `record`, made again by every launch.
struct CapturedOp {
  StreamOp op;
  Event* record = nullptr;
};
struct Graph {
  std::vector<CapturedOp> ops;
};

// This thread's capture, if any.
struct Capture {
  Stream* origin = nullptr;
  std::vector<CapturedOp> ops;
  int64_t tick = 0;                                     // counts captured actions
  std::map<Stream*, int64_t> members;                   // joined streams: tick of their last action
  std::map<Stream*, int64_t> joined;                    // stream: tick up to which another member waited for it
  std::map<Event*, std::pair<Stream*, int64_t>> events;  // recorded in the capture: stream, tick
  CUresult failed = 0;
};
inline std::optional<Capture>& capture() {
  thread_local std::optional<Capture> c;
  return c;
}

// Runs every queued operation that can run, until none can.
inline void progress() {
  for (bool any = true; any;) {
    any = false;
    const std::vector<Stream*> all = streams();
    for (auto it = all.rbegin(); it != all.rend(); ++it)
      while (!(*it)->ops.empty() && (*it)->ops.front()()) {
        (*it)->ops.pop_front();
        any = true;
      }
  }
}

// Queues `op` on `stream` (records it while this thread captures; runs it
// at once on the null stream).
inline CUresult enqueue_op(cu::CUstream stream, StreamOp op) {
  auto lock = device_lock();
  if (auto& cap = capture()) {
    Stream* s = stream_of(stream);
    if (!cap->members.count(s)) return cap->failed = kCaptureIsolation;
    cap->ops.push_back({std::move(op), nullptr});
    cap->members[s] = ++cap->tick;
    return 0;
  }
  if (!stream) {
    while (!op()) progress();
    return 0;
  }
  stream_of(stream)->ops.push_back(std::move(op));
  return 0;
}

// An operation that cannot wait, timed: it advances the clock by 1 us.
inline CUresult enqueue(cu::CUstream stream, std::function<void()> op) {
  return enqueue_op(stream, [op = std::move(op)] {
    op();
    fake_cuda().clock_ms += 0.001;
    return true;
  });
}

// Makes progress until `done` or fake_cuda().stuck_after has passed.
inline CUresult progress_until(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + fake_cuda().stuck_after;
  for (;;) {
    {
      auto lock = device_lock();
      progress();
      if (done()) return 0;
    }
    if (std::chrono::steady_clock::now() > deadline) return kUnknown;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

inline CUresult record_event(cu::CUevent e, cu::CUstream stream, unsigned flags) {
  auto lock = device_lock();
  Event* ev = event_of(e);
  if (auto& cap = capture()) {
    Stream* s = stream_of(stream);
    if (!cap->members.count(s)) return cap->failed = kCaptureIsolation;
    cap->events[ev] = {s, ++cap->tick};
    if (flags & cu::kEventRecordExternal) cap->ops.push_back({{}, ev});
    return 0;
  }
  const int64_t generation = ++ev->recorded;
  // An event takes no time of its own.
  return enqueue_op(stream, [ev, generation] {
    ev->completed = std::max(ev->completed, generation);
    ev->time_ms = fake_cuda().clock_ms;
    return true;
  });
}

struct MatmulDesc {
  int32_t compute = 0, scale = 0, trans_a = cu::kOpN, trans_b = cu::kOpN;
  LtEpilogueAttrs epilogue;
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

// The entry points of the collectives' stream ordering and strided copies
// over the same streams and events.
inline void add_fake_collective_entries(cu::CudaDriver& d) {
  using namespace fake_detail;
  d.cuStreamWaitEvent = [](cu::CUstream stream, cu::CUevent e, unsigned flags) -> CUresult {
    auto lock = device_lock();
    if (flags != cu::kEventWaitDefault) return kInvalidValue;
    Event* ev = event_of(e);
    if (auto& cap = capture()) {
      Stream* s = stream_of(stream);
      const auto recorded = cap->events.find(ev);
      if (recorded == cap->events.end()) return cap->failed = kCaptureIsolation;
      cap->members[s] = std::max(cap->members[s], ++cap->tick);  // joins the capture
      Stream* from = recorded->second.first;
      if (from != s) cap->joined[from] = std::max(cap->joined[from], recorded->second.second);
      return 0;
    }
    const int64_t target = ev->recorded;
    return enqueue_op(stream, [ev, target] { return ev->completed >= target; });
  };
  d.cuEventQuery = [](cu::CUevent e) -> CUresult {
    auto lock = device_lock();
    progress();
    return event_of(e)->completed >= event_of(e)->recorded ? 0 : kNotReady;
  };
  d.cuEventRecordWithFlags = [](cu::CUevent e, cu::CUstream stream, unsigned flags) -> CUresult {
    return record_event(e, stream, flags);
  };
  d.cuMemcpy2DAsync = [](const cu::CudaMemcpy2D* c, cu::CUstream stream) -> CUresult {
    const cu::CudaMemcpy2D copy = *c;
    if (copy.srcMemoryType != cu::kMemoryTypeDevice || copy.dstMemoryType != cu::kMemoryTypeDevice ||
        copy.srcPitch < copy.WidthInBytes || copy.dstPitch < copy.WidthInBytes || copy.srcXInBytes || copy.srcY ||
        copy.dstXInBytes || copy.dstY)
      return kInvalidValue;
    return enqueue(stream, [copy] {
      ++fake_cuda().copies_2d;
      for (size_t r = 0; r < copy.Height; ++r)
        std::memcpy(static_cast<std::byte*>(host(copy.dstDevice)) + r * copy.dstPitch,
                    static_cast<const std::byte*>(host(copy.srcDevice)) + r * copy.srcPitch, copy.WidthInBytes);
    });
  };
}

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
      if (r == kNotReady) return *s = "CUDA_ERROR_NOT_READY", 0;
      if (r == kCaptureUnsupported) return *s = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 0;
      if (r == kCaptureInvalidated) return *s = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", 0;
      if (r == kCaptureUnjoined) return *s = "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", 0;
      if (r == kCaptureIsolation) return *s = "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", 0;
      if (r == kUnknown) return *s = "CUDA_ERROR_UNKNOWN", 0;
      return kInvalidValue;
    };
    d.cuGetErrorString = [](CUresult r, const char** s) -> CUresult {
      if (r == kInvalidValue) return *s = "invalid argument", 0;
      if (r == kNotReady) return *s = "device not ready", 0;
      if (r == kCaptureUnsupported) return *s = "operation not permitted when stream is capturing", 0;
      if (r == kCaptureInvalidated) return *s = "operation failed due to a previous error during capture", 0;
      if (r == kCaptureUnjoined) return *s = "capture was not joined to the origin stream", 0;
      if (r == kCaptureIsolation) return *s = "operation would make the legacy stream depend on a capturing blocking stream", 0;
      if (r == kUnknown) return *s = "the fake driver's stream could not finish", 0;
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
                          cu::CUstream stream, void** params, void**) -> CUresult {
      auto lock = device_lock();
      const auto* k = reinterpret_cast<const FakeKernelEntry*>(f);
      for (auto& [symbol, entry] : fake_cuda().kernels)
        if (&entry == k && symbol == fake_cuda().fail_launch) return kInvalidValue;
      std::vector<CUdeviceptr> args;
      for (int i = 0; i < k->params; ++i) args.push_back(*static_cast<CUdeviceptr*>(params[i]));
      return enqueue(stream, [k, gx, bx, args] {
        ++fake_cuda().kernel_runs;
        k->run(gx, bx, args);
      });
    };
    d.cuMemAlloc = [](CUdeviceptr* p, size_t n) -> CUresult {
      auto lock = device_lock();
      if (n == 0) return kInvalidValue;
      ++fake_cuda().allocations;
      *p = reinterpret_cast<uintptr_t>(std::aligned_alloc(256, (n + 255) / 256 * 256));
      return 0;
    };
    d.cuMemFree = [](CUdeviceptr p) -> CUresult {
      auto lock = device_lock();
      --fake_cuda().allocations;
      std::free(host(p));
      return 0;
    };
    d.cuMemcpyHtoDAsync = [](CUdeviceptr to, const void* from, size_t n, cu::CUstream stream) -> CUresult {
      auto lock = device_lock();
      if (capture()) return kCaptureUnsupported;
      // Pageable memory: read now, written to the device in stream order.
      auto staged = std::make_shared<std::vector<std::byte>>(static_cast<const std::byte*>(from),
                                                             static_cast<const std::byte*>(from) + n);
      return enqueue(stream, [to, staged] { std::memcpy(host(to), staged->data(), staged->size()); });
    };
    d.cuMemcpyDtoHAsync = [](void* to, CUdeviceptr from, size_t n, cu::CUstream stream) -> CUresult {
      auto lock = device_lock();
      if (capture()) return kCaptureUnsupported;
      return enqueue(stream, [=] { std::memcpy(to, host(from), n); });
    };
    d.cuMemcpyDtoDAsync = [](CUdeviceptr to, CUdeviceptr from, size_t n, cu::CUstream stream) -> CUresult {
      return enqueue(stream, [=] { std::memcpy(host(to), host(from), n); });
    };
    d.cuMemsetD8Async = [](CUdeviceptr to, unsigned char v, size_t n, cu::CUstream stream) -> CUresult {
      return enqueue(stream, [=] { std::memset(host(to), v, n); });
    };
    d.cuMemsetD32Async = [](CUdeviceptr to, unsigned v, size_t n, cu::CUstream stream) -> CUresult {
      return enqueue(stream, [=] {
        for (size_t i = 0; i < n; ++i) static_cast<uint32_t*>(host(to))[i] = v;
      });
    };
    d.cuMemHostAlloc = [](void** p, size_t n, unsigned) -> CUresult {
      auto lock = device_lock();
      ++fake_cuda().allocations;
      *p = std::aligned_alloc(64, (n + 63) / 64 * 64);
      return 0;
    };
    d.cuMemFreeHost = [](void* p) -> CUresult {
      auto lock = device_lock();
      --fake_cuda().allocations;
      std::free(p);
      return 0;
    };
    d.cuStreamCreate = [](cu::CUstream* s, unsigned) -> CUresult {
      auto lock = device_lock();
      ++fake_cuda().allocations;
      streams().push_back(new Stream);
      *s = reinterpret_cast<cu::CUstream>(streams().back());
      return 0;
    };
    d.cuStreamDestroy = [](cu::CUstream s) -> CUresult {
      // Queued work finishes first, as on a GPU.
      const CUresult r = progress_until([s] { return stream_of(s)->ops.empty(); });
      auto lock = device_lock();
      --fake_cuda().allocations;
      streams().erase(std::find(streams().begin(), streams().end(), stream_of(s)));
      delete stream_of(s);
      return r;
    };
    d.cuStreamSynchronize = [](cu::CUstream s) -> CUresult {
      if (capture()) return kCaptureUnsupported;
      return progress_until([s] { return stream_of(s)->ops.empty(); });
    };
    d.cuEventCreate = [](cu::CUevent* e, unsigned) -> CUresult {
      auto lock = device_lock();
      ++fake_cuda().allocations;
      *e = reinterpret_cast<cu::CUevent>(new Event);
      return 0;
    };
    d.cuEventDestroy = [](cu::CUevent e) -> CUresult {
      auto lock = device_lock();
      --fake_cuda().allocations;
      delete event_of(e);
      return 0;
    };
    d.cuEventRecord = [](cu::CUevent e, cu::CUstream stream) -> CUresult { return record_event(e, stream, 0); };
    d.cuEventElapsedTime = [](float* ms, cu::CUevent a, cu::CUevent b) -> CUresult {
      auto lock = device_lock();
      *ms = static_cast<float>(event_of(b)->time_ms - event_of(a)->time_ms);
      return 0;
    };
    d.cuStreamBeginCapture = [](cu::CUstream s, int mode) -> CUresult {
      auto lock = device_lock();
      if (mode != cu::kCaptureModeThreadLocal || capture()) return kInvalidValue;
      if (fake_cuda().fail_capture) return kCaptureUnsupported;
      capture().emplace();
      capture()->origin = stream_of(s);
      capture()->members[stream_of(s)] = 0;
      return 0;
    };
    d.cuStreamEndCapture = [](cu::CUstream s, cu::CUgraph* g) -> CUresult {
      auto lock = device_lock();
      auto& cap = capture();
      if (!cap || cap->origin != stream_of(s)) return kInvalidValue;
      Capture ended = std::move(*cap);
      cap.reset();
      *g = nullptr;
      if (ended.failed) return kCaptureInvalidated;
      for (const auto& [member, last] : ended.members)
        if (member != ended.origin && last > ended.joined[member]) return kCaptureUnjoined;
      ++fake_cuda().captures;
      ++fake_cuda().allocations;
      *g = reinterpret_cast<cu::CUgraph>(new Graph{std::move(ended.ops)});
      return 0;
    };
    d.cuGraphInstantiateWithFlags = [](cu::CUgraphExec* e, cu::CUgraph g, unsigned long long) -> CUresult {
      auto lock = device_lock();
      ++fake_cuda().allocations;
      *e = reinterpret_cast<cu::CUgraphExec>(new Graph(*reinterpret_cast<Graph*>(g)));
      return 0;
    };
    d.cuGraphLaunch = [](cu::CUgraphExec e, cu::CUstream stream) -> CUresult {
      auto lock = device_lock();
      ++fake_cuda().graph_launches;
      for (const CapturedOp& op : reinterpret_cast<Graph*>(e)->ops) {
        if (op.op) {
          enqueue_op(stream, op.op);  // a fresh copy: its state starts anew
          continue;
        }
        Event* ev = op.record;
        const int64_t generation = ++ev->recorded;
        enqueue_op(stream, [ev, generation] {
          ev->completed = std::max(ev->completed, generation);
          ev->time_ms = fake_cuda().clock_ms;
          return true;
        });
      }
      return 0;
    };
    d.cuGraphExecDestroy = [](cu::CUgraphExec e) -> CUresult {
      auto lock = device_lock();
      --fake_cuda().allocations;
      delete reinterpret_cast<Graph*>(e);
      return 0;
    };
    d.cuGraphDestroy = [](cu::CUgraph g) -> CUresult {
      auto lock = device_lock();
      --fake_cuda().allocations;
      delete reinterpret_cast<Graph*>(g);
      return 0;
    };
    add_fake_collective_entries(d);
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
      auto lock = device_lock();
      ++fake_cuda().allocations;
      *h = reinterpret_cast<cu::cublasLtHandle_t>(new int);
      return 0;
    };
    lt.cublasLtDestroy = [](cu::cublasLtHandle_t h) -> cublasStatus_t {
      auto lock = device_lock();
      --fake_cuda().allocations;
      delete reinterpret_cast<int*>(h);
      return 0;
    };
    lt.cublasLtGetStatusName = [](cublasStatus_t) -> const char* { return "CUBLAS_STATUS_INVALID_VALUE"; };
    lt.cublasLtGetStatusString = [](cublasStatus_t) -> const char* { return "invalid value"; };
    lt.cublasLtMatmulDescCreate = [](cu::cublasLtMatmulDesc_t* d, int32_t compute, int32_t scale) -> cublasStatus_t {
      auto lock = device_lock();
      ++fake_cuda().allocations;
      *d = reinterpret_cast<cu::cublasLtMatmulDesc_t>(new MatmulDesc{compute, scale});
      return 0;
    };
    lt.cublasLtMatmulDescDestroy = [](cu::cublasLtMatmulDesc_t d) -> cublasStatus_t {
      auto lock = device_lock();
      --fake_cuda().allocations;
      delete reinterpret_cast<MatmulDesc*>(d);
      return 0;
    };
    lt.cublasLtMatmulDescSetAttribute = [](cu::cublasLtMatmulDesc_t d, int attribute, const void* v,
                                           size_t n) -> cublasStatus_t {
      auto* m = reinterpret_cast<MatmulDesc*>(d);
      LtEpilogueAttrs& ep = m->epilogue;
      // Each attribute with its size (cublasLtMatmulDescAttributes_t), else CUBLAS_STATUS_INVALID_VALUE.
      auto take = [&](void* to, size_t bytes) -> cublasStatus_t { return n == bytes ? (std::memcpy(to, v, n), 0) : 7; };
      if (attribute == cu::kMatmulDescTransA) return take(&m->trans_a, 4);
      if (attribute == cu::kMatmulDescTransB) return take(&m->trans_b, 4);
      if (attribute == cu::kMatmulDescEpilogue) return take(&ep.epilogue, 4);
      if (attribute == cu::kMatmulDescBiasPointer) return take(&ep.bias, 8);
      if (attribute == cu::kMatmulDescBiasDataType) return take(&ep.bias_type, 4);
      if (attribute == cu::kMatmulDescEpilogueAuxPointer) return take(&ep.aux, 8);
      if (attribute == cu::kMatmulDescEpilogueAuxLd) return take(&ep.aux_ld, 8);
      return 7;
    };
    lt.cublasLtMatrixLayoutCreate = [](cu::cublasLtMatrixLayout_t* l, int32_t type, uint64_t rows, uint64_t cols,
                                       int64_t ld) -> cublasStatus_t {
      auto lock = device_lock();
      ++fake_cuda().allocations;
      auto* x = new Layout{type, {}};
      x->m.rows = static_cast<int64_t>(rows), x->m.cols = static_cast<int64_t>(cols), x->m.ld = ld;
      *l = reinterpret_cast<cu::cublasLtMatrixLayout_t>(x);
      return 0;
    };
    lt.cublasLtMatrixLayoutDestroy = [](cu::cublasLtMatrixLayout_t l) -> cublasStatus_t {
      auto lock = device_lock();
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
      auto lock = device_lock();
      ++fake_cuda().allocations;
      *p = reinterpret_cast<cu::cublasLtMatmulPreference_t>(new int);
      return 0;
    };
    lt.cublasLtMatmulPreferenceDestroy = [](cu::cublasLtMatmulPreference_t p) -> cublasStatus_t {
      auto lock = device_lock();
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
                           cu::CUstream stream) -> cublasStatus_t {
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
      const LtEpilogueAttrs ep = m->epilogue;
      fake_cuda().epilogues.push_back(ep);
      if (ep.epilogue != cu::kEpilogueDefault && L.batch != 1) return 15;  // CUBLAS_STATUS_NOT_SUPPORTED (here)
      return enqueue(stream, [=] {
        ++fake_cuda().matmuls;
        auto load_a = [&](int64_t e) { return load(ta, a, e); };
        auto load_b = [&](int64_t e) { return load(tb, b, e); };
        auto load_c = [&](int64_t e) { return load(tc, c, e); };
        auto store_d = [&](int64_t e, double v) { store(tc, d, e, v); };
        if (ep.epilogue == cu::kEpilogueDefault) return column_major_gemm(L, al_v, be_v, load_a, load_b, load_c, store_d);
        // The epilogue takes the product before its rounding to D's type.
        std::vector<double> product(static_cast<size_t>(L.c.ld * L.n));
        column_major_gemm(L, al_v, be_v, load_a, load_b, load_c,
                          [&](int64_t e, double v) { product[static_cast<size_t>(e)] = v; });
        const int32_t tv = ep.bias_type >= 0 ? ep.bias_type : tc;
        column_major_epilogue(
            L, ep, load_b, [&](int64_t e) { return product[static_cast<size_t>(e)]; }, store_d,
            [&](const void* p, int64_t e) { return load(p == ep.aux ? tc : tv, p, e); },
            [&](void* p, int64_t e, double v) { store(p == ep.aux ? tc : tv, p, e, v); });
      });
    };
    lt.cublasLtGetVersion = []() -> size_t { return 0; };
    return lt;
  }();
  return lt;
}

}  // namespace mlc::testing
