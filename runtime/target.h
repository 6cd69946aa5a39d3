// Targets: what the runtime can run executables on. Each target loads the
// code objects the compiler emitted for it (runtime/executable.h CodeModule)
// and makes executors (runtime/device_executor.h) for its executables; the
// rest of the runtime (verification, artifacts, the training driver) is the
// same for every target. Today's targets: "cpu-x86_64" (runtime/cpu/),
// "cuda" (runtime/cuda/: NVIDIA GPUs, the driver opened at run time) and, in
// builds with OpenCL, "host-gpu" (runtime/host_gpu/).
//
// Contracts:
//  - find_target(name) is the target of that name, or null.
//  - arena_alignment() is what the target's arena slots' offsets are
//    multiples of (compiler/memory_plan.h plans so; runtime/
//    verify_executable.h checks it).
//  - load(code) refuses code this machine cannot run (an Error naming why:
//    missing CPU features, a malformed object) and otherwise returns the
//    loaded code, which stays loaded as long as it is held.
//  - load_code(code) loads a module once per process: every later call for
//    the same module (the same CodeModule object) while the first result is
//    still held returns it, so the ranks of one process and the functions of
//    one artifact share one copy. Thread-safe. Null code loads to null.
//  - availability() says whether this machine can run the target's code,
//    from cheap probes only (a library opened, a device asked its name; no
//    code loaded or compiled), as a short phrase for `mlc --version`:
//    "OpenCL: <device name>", "no OpenCL device", "driver: CUDA 13.0 with 1
//    GPU", "driver: none"; empty where there is nothing to say (the CPU).
//    target_availability(name) is that of a target this build has, and "not
//    in this build" for one of known_target_names() it lacks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ir/expected.h"
#include "runtime/device_executor.h"
#include "runtime/device_tensors.h"
#include "runtime/executable.h"

namespace mlc::rt {

// A target's loaded code; what it holds is the target's.
class LoadedCode {
 public:
  virtual ~LoadedCode() = default;
};

class Target {
 public:
  virtual ~Target() = default;
  virtual std::string_view name() const = 0;
  virtual int64_t arena_alignment() const = 0;
  virtual Expected<std::shared_ptr<const LoadedCode>> load(const CodeModule& code) const = 0;
  // `code` is load()'s result for exe->code (null when it has none).
  virtual Expected<std::unique_ptr<DeviceExecutor>> create_executor(std::shared_ptr<const Executable> exe,
                                                                    std::shared_ptr<const LoadedCode> code,
                                                                    const ExecutorOptions& options) const = 0;
  // Where a run keeps its parameters and optimizer state between steps
  // (runtime/device_tensors.h): null where they stay in the caller's host
  // tensors (the CPU).
  virtual Expected<std::unique_ptr<DeviceTensors>> make_device_tensors() const {
    return std::unique_ptr<DeviceTensors>();
  }
  virtual std::string availability() const = 0;
};

const Target* find_target(std::string_view name);
// The targets' names, ", "-separated, for messages.
std::string target_names();
// Every target mlc has code for, whether or not this build has it:
// cpu-x86_64, host-gpu, cuda.
std::span<const std::string_view> known_target_names();
std::string target_availability(std::string_view name);

Expected<std::shared_ptr<const LoadedCode>> load_code(const std::shared_ptr<const CodeModule>& code);

}  // namespace mlc::rt
