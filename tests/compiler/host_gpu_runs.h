// One-function modules @f(%x: TYPE) -> RESULT for the GPU schedule suites
// (gpu_kernel_source_test.cc, gpu_two_phase_test.cc): their kernels lowered
// for the host device, and the function run by the interpreter and on the
// host device (the GPU kernels' OpenCL text through PoCL), which is how the
// suites check every schedule's numbers on the CPU.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/lower.h"
#include "ir/parser.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"
#include "runtime/target.h"
#include "tests/compiler/lowered_kernels.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::testing {

// The module of @f(%x: TYPE {input}) -> (RESULT) whose body is `body` (ops and return, one per line).
inline std::string function_of_x(const std::string& type, const std::string& body, const std::string& result) {
  return "module @m {\n  func @f(%x: " + type + " {input}) -> (" + result + ") {\n" + body + "  }\n}\n";
}

// The kernels of function_of_x lowered for the host device.
inline std::vector<kir::Kernel> host_gpu_kernels_of(const std::string& type, const std::string& body,
                                                    const std::string& result) {
  return kernels_for_target(function_of_x(type, body, result), std::string(rt::kHostGpuTarget));
}

// function_of_x's result on `x` (of `dtype` and `shape`), interpreted and on
// the host device, with the executable that ran on the host device.
struct HostGpuRun {
  rt::Tensor input;
  std::vector<double> want, got;  // the interpreter's result and the host device's, as doubles
  std::shared_ptr<const rt::Executable> executable;
  std::unique_ptr<rt::Executor> executor;  // to run again
};

// Empty, after a test failure, where something does not parse, lower or run;
// the caller skips where the build has no host-gpu target (host_gpu_available).
inline bool host_gpu_available() { return rt::find_target(rt::kHostGpuTarget) != nullptr; }
inline std::optional<HostGpuRun> run_interpreted_and_on_host_gpu(const std::string& type, const std::string& body,
                                                                  const std::string& result, const std::vector<double>& x,
                                                                  DType dtype, const Shape& shape) {
  auto m = parse_module(function_of_x(type, body, result), "host_gpu_schedule.mlir");
  if (!m.ok()) {
    ADD_FAILURE() << m.error().message;
    return std::nullopt;
  }
  const Function& f = *m->find("f");
  HostGpuRun run;
  run.input = rt::testing::make_tensor(dtype, shape, x);
  auto interp = rt::Interpreter::create(f);
  if (!interp.ok()) {
    ADD_FAILURE() << interp.error().message;
    return std::nullopt;
  }
  std::vector<rt::Tensor> inputs;
  inputs.push_back(run.input);
  auto want = interp->run(inputs);
  if (!want.ok()) {
    ADD_FAILURE() << want.error().message;
    return std::nullopt;
  }
  run.want = rt::testing::to_doubles((*want)[0]);
  LowerOptions o;
  o.target = std::string(rt::kHostGpuTarget);
  auto l = lower_function(f, o);
  if (!l.ok()) {
    ADD_FAILURE() << l.error().message;
    return std::nullopt;
  }
  run.executable = l->executable;
  auto exe = rt::Executor::create(l->executable);
  if (!exe.ok()) {
    ADD_FAILURE() << exe.error().message;
    return std::nullopt;
  }
  run.executor = std::make_unique<rt::Executor>(std::move(exe).value());
  rt::Tensor* args[] = {&run.input};
  if (Status s = run.executor->run(args); !s.ok()) {
    ADD_FAILURE() << s.error().message;
    return std::nullopt;
  }
  run.got = rt::testing::to_doubles(run.executor->result(0));
  if (run.got.size() != run.want.size()) {
    ADD_FAILURE() << "the host device gave " << run.got.size() << " elements, the interpreter " << run.want.size();
    return std::nullopt;
  }
  return run;
}

}  // namespace mlc::testing
