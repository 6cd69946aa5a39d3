// The "cuda" target's executor (runtime/device_executor.h): one GPU, one
// stream, device memory allocated once when it is made.
//
// Memory: the arena is one cuMemAlloc of exactly Executable::arena_bytes
// rounded up to kGpuArenaAlignment (zeroed, constants uploaded once); one
// more allocation holds a buffer per argument (256-byte aligned; their types
// are known) and a status word per instruction; a 32 MiB cuBLASLt workspace
// where the executable has gemms. Before allocating, the total is checked
// against cuMemGetInfo's free memory: "function 'f': needs 12.4 GiB of GPU
// memory (arena ..., arguments ..., GEMM workspace ...), 8.1 GiB free on GPU
// 0 (NVIDIA H200)". Results outside argument buffers are downloaded into
// pinned host memory the executor owns, allocated once.
//
// A run: every argument uploaded from the caller's host tensor (copied into
// a pinned staging buffer, from which the upload is asynchronous), then the
// instruction list on the stream, then, once the stream is done and no kernel
// reported an index out of range, every updated argument downloaded into the
// caller's tensor and every other arena result into the executor's host
// buffers. result(k) is a host view: the caller's tensor for a result in an
// argument's buffer (as on the CPU), else the executor's copy.
//
// Kept tensors (run_on_device_tensors; runtime/device_tensors.h): an
// argument whose tensor the DeviceTensors keep runs on its device copy, which
// is uploaded only where the host's bytes are newer and is not downloaded
// when updated (the copy is then newer). The first run with such arguments
// (and any run whose kept arguments are other tensors) binds their copies'
// addresses: a new, smaller argument buffer for the others, the launches and
// cuBLASLt's algorithms prepared again, and a new graph captured.
//
// Instructions: kernel: cuLaunchKernel with KernelInfo::launch's grid and
// block, its buffers' device addresses (operands, result, more results) and
// then its own status word (compiler/gpu/kernel_source.h); gemm: cuBLASLt
// (runtime/cuda/cublaslt_gemm.h; an update copies x into the result first
// unless it is x's buffer); copy: cuMemcpyDtoDAsync; collective: NCCL on a
// stream of its own, ordered with the compute stream by events
// (runtime/cuda/cuda_collectives.h: the NCCL communicators are made from the
// World given by set_world at the first run; a run with collectives is
// waited for by polling, with the World's timeout). Reference instructions
// are refused when the executor is made, naming the op (a compiled step runs
// no reference kernel). Every device address is fixed at creation (or at
// the binding of kept tensors, above), so nothing is bound per run and run
// allocates nothing.
//
// CUDA graph: the second run captures the instruction list (the status
// words' reset included; not the uploads and downloads) into a graph and
// launches it; every later run replays it. The first runs eagerly, so that
// cuBLASLt and the driver load what they load lazily outside a capture.
// ExecutorOptions::graph false (`mlc run --no-graph`) launches instruction by instruction
// on every run, and so do all runs after a capture that fails (a launch's
// own error then shows when the list runs eagerly). Profiling (enable_profiling) runs eagerly with an event
// between every two instructions; the instructions' times are differences of
// the events' times, so they add up to run_ns exactly.
//
// Errors: a launch's names the kernel, its origin (ops and model-file
// locations) and the driver's error; a kernel's index out of range is the
// CPU's message (runtime/index_check.h) for the first kernel that reported
// one, found by running the list again up to that kernel and reading its
// indices (where collectives come before it, which cannot run again alone,
// the message names the check without the index); a fault found when
// waiting for the stream names the GPU and, as a graph hides which kernel it
// was, says how to find it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cuda/cublaslt.h"
#include "runtime/cuda/cublaslt_gemm.h"
#include "runtime/cuda/cuda_code.h"
#include "runtime/cuda/cuda_collectives.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/device_executor.h"
#include "runtime/device_tensors.h"
#include "runtime/executable.h"

namespace mlc::rt::cuda {

inline constexpr size_t kGemmWorkspaceBytes = size_t{32} << 20;

struct CudaExecutorOptions {
  bool graph = true;        // rt::ExecutorOptions::graph
  bool allow_tf32 = false;  // rt::ExecutorOptions::allow_tf32
  // The executable's gemms' library; needed only where it has gemms.
  const CublasLt* cublaslt = nullptr;
  // NCCL, loaded at the first run with collective instructions.
  NcclLoader nccl_loader = [] { return nccl(); };
};

// "12.4 GiB", "32.0 MiB", "512 bytes".
std::string memory_size_name(int64_t bytes);

class CudaExecutor final : public DeviceExecutor {
 public:
  // `exe` is verified; `code` is its code loaded on `device` (null without
  // kernels).
  static Expected<std::unique_ptr<CudaExecutor>> create(std::shared_ptr<const Executable> exe,
                                                        std::shared_ptr<const CudaCode> code, const CudaDevice& device,
                                                        CudaExecutorOptions options);
  ~CudaExecutor() override;

  Status run(std::span<Tensor* const> args) override;
  // start: everything up to the launch (the uploads through the staging
  // buffer, the graph or the list, the status words' download), returning
  // while the GPU runs; the caller's input tensors may then be refilled.
  // finish: waits, checks, downloads. run = start + finish.
  Status start(std::span<Tensor* const> args) override;
  Status finish() override;
  void set_world(World* world) override { world_ = world; }
  // Takes the cuda target's DeviceTensors (runtime/cuda/cuda_device_tensors.h).
  bool run_on_device_tensors(DeviceTensors* tensors) override;
  const Tensor& result(size_t k) const override { return results_[k]; }
  void enable_profiling() override;
  const ExecutionProfile* profile() const override { return profile_.get(); }

  // Whether the runs replay a captured CUDA graph (for tests).
  bool replays_graph() const { return graph_exec_ != nullptr; }

 private:
  struct KernelLaunch {
    CUfunction function = nullptr;
    unsigned grid = 0, block = 0;
    std::vector<CUdeviceptr> values;  // the kernel's arguments (two phases: the scratch before the status word)
    std::vector<void*> params;        // &values[i], as cuLaunchKernel takes them (two phases: then &phase[0])
    // A two-phase kernel's second launch (GpuLaunch::combine_grid; 0: none),
    // its arguments those of the first but the phase (&phase[1]).
    unsigned combine_grid = 0;
    std::vector<void*> combine_params;
    int64_t phase[2] = {0, 1};  // the kernel's i64 phase argument
  };

  CudaExecutor(const CudaDevice& device) : dev_(device), cu_(*device.cu) {}
  // arg_offset_ for the arguments not on device copies, and status_offset_;
  // returns the bytes of their buffer (io_).
  int64_t layout_arguments();
  Status allocate_device(CUdeviceptr& p, int64_t bytes, const char* what);
  Status allocate(int64_t& io_bytes);
  // The pinned staging buffer of the arguments not kept (status_offset_ bytes).
  Status allocate_staging();
  void set_slot_addresses();
  // Whether the addresses bound are those of `args`' device copies.
  bool bound_to(std::span<Tensor* const> args);
  // Points the kept arguments at their copies (a new io_ for the others).
  Status bind(std::span<Tensor* const> args);
  Status prepare_instructions();
  Status prepare_results();
  // Enqueues the status words' reset and instructions [0, end).
  Status enqueue_list(size_t end);
  Status enqueue(size_t i);
  Status enqueue_profiled();
  Status capture_graph();
  Status upload(std::span<Tensor* const> args);
  // The arguments not kept again, from the staging buffer (the last start's).
  Status upload_staged();
  Status synchronize(std::string_view after);
  Error index_error(size_t instruction);
  Status add_profile();
  Error at(size_t instruction, const std::string& message) const;

  const CudaDevice& dev_;
  const CudaDriver& cu_;
  std::shared_ptr<const Executable> exe_;
  std::shared_ptr<const CudaCode> code_;
  CudaExecutorOptions options_;
  World* world_ = nullptr;

  CUstream stream_ = nullptr;
  CUdeviceptr arena_ = 0, io_ = 0, workspace_ = 0;
  std::byte* host_ = nullptr;  // pinned: arena results, then the status words
  std::byte* staging_ = nullptr;  // pinned: the uploads of the arguments not kept, at their io_ offsets
  cublasLtHandle_t lt_handle_ = nullptr;
  std::vector<int64_t> arg_offset_;  // per argument: its buffer's offset in io_ (-1: on its device copy)
  int64_t status_offset_ = 0;
  DeviceTensors* tensors_ = nullptr;               // not owned
  std::vector<DeviceTensors::Copy*> copy_;         // per argument: its device copy, or null
  CUdeviceptr status_ = 0;           // io_'s status words, one int per instruction
  int* status_host_ = nullptr;
  std::vector<CUdeviceptr> slot_addr_;  // per slot
  std::vector<KernelLaunch> launch_;    // per instruction (kernels); sized once per prepare_instructions, as params point into it
  std::vector<std::unique_ptr<CublasLtGemm>> gemm_;  // per instruction (gemms)
  std::vector<int> updated_args_;
  struct Download {
    CUdeviceptr from = 0;
    std::byte* to = nullptr;
    size_t bytes = 0;
    int slot = -1;
  };
  std::vector<Download> downloads_;      // arena results
  std::vector<Tensor> results_;          // host views
  std::vector<int> result_arg_;          // per result: its argument where it is in one, else -1
  CUgraphExec graph_exec_ = nullptr;
  bool capturing_ = false;
  std::unique_ptr<CudaCollectives> collectives_;  // null without collective instructions
  int64_t runs_ = 0;
  bool started_ = false;             // between start and finish
  std::vector<Tensor*> pending_;     // the started run's arguments
  std::unique_ptr<ExecutionProfile> profile_;
  std::vector<CUevent> events_;  // profiling: before instruction i, and after the last
};

}  // namespace mlc::rt::cuda
