// Tensors kept in a device's memory between runs: a training run's
// parameters and optimizer state, which on a GPU stay on the GPU for the whole
// run, as in PyTorch and llm.c, instead of crossing the bus every step. One
// DeviceTensors per device (per rank), shared by every executor of that
// device (the train step's functions, @eval, @loss_grad), so each kept host
// tensor has exactly one device copy, which they all read and update.
//
// The protocol (the caller's, usually the training driver's):
//  - keep(t) gives host tensor t a device copy (allocated now; filled from
//    the host's bytes before its first use). The tensor must not move or be
//    destroyed while kept.
//  - An executor given this object (rt::Executor::set_device_tensors) runs
//    every argument whose tensor is kept on its device copy: uploaded only
//    where the host's bytes are newer, and an argument its results update is
//    then newer on the device, not written back.
//  - The host's bytes of a kept tensor are stale after such an update until
//    to_host(t) (or to_host_all()) downloads the device copy. A caller that
//    reads a kept tensor on the host (a checkpoint, saved parameters, a
//    gather, a diagnostic) calls to_host first.
//  - A caller that writes a kept tensor on the host (a replay from the start
//    state, loaded weights) calls host_wrote(t) afterwards: the next run
//    uploads it.
//  - Arguments that are not kept (data batches, the step counter, per-step
//    buffers) are uploaded every run and, where updated, written back, as
//    without this object.
// Not thread-safe: one per device and thread, as executors are.
//
// Implementations: the cuda target's (device memory; runtime/cuda/
// cuda_device_tensors.h) and host_shadow_tensors(), which keeps a second copy
// in host memory: the host-gpu target runs on it, and tests give it to CPU
// executors, so that a driver that forgets a to_host or host_wrote computes
// wrong numbers on the CPU too, where the oracle tests see them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/expected.h"
#include "runtime/tensor.h"

namespace mlc::rt {

class DeviceTensors {
 public:
  // A kept tensor's device copy.
  struct Copy {
    Tensor* host = nullptr;
    uint64_t address = 0;  // in the device's address space
    int64_t bytes = 0;
    bool host_newer = true;     // the next use uploads it
    bool device_newer = false;  // to_host downloads it
  };

  virtual ~DeviceTensors() = default;
  DeviceTensors(const DeviceTensors&) = delete;
  DeviceTensors& operator=(const DeviceTensors&) = delete;

  // The target whose executors run on these copies natively ("cuda"), or
  // empty for host memory (host_shadow_tensors): rt::Executor runs any
  // target's executor on host copies itself.
  const std::string& target() const { return target_; }

  // Gives `t` a device copy (a no-op for a tensor already kept).
  Status keep(Tensor& t);
  // The copy of `t`, or null where `t` is not kept.
  Copy* find(const Tensor* t);
  bool empty() const { return copies_.empty(); }

  // Makes the host's bytes of `t` current (a no-op for a tensor not kept).
  Status to_host(const Tensor& t);
  Status to_host_all();
  // The host's bytes of `t` changed: the device copy is replaced before its next use.
  void host_wrote(const Tensor& t);

  // The bytes kept on the device.
  int64_t bytes() const;

 protected:
  explicit DeviceTensors(std::string target) : target_(std::move(target)) {}
  virtual Expected<uint64_t> allocate(const Tensor& t) = 0;
  virtual void release(uint64_t address) = 0;
  virtual Status download(const Copy& c) = 0;
  // Frees every copy; an implementation's destructor calls it.
  void release_all();

 private:
  std::string target_;
  std::unordered_map<const Tensor*, Copy> copies_;
  std::vector<const Tensor*> order_;  // keep() order, for to_host_all
};

// Copies in host memory (64-byte aligned), downloaded by memcpy.
std::unique_ptr<DeviceTensors> host_shadow_tensors();

}  // namespace mlc::rt
