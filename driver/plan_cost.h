// The plan search's cost model (docs/architecture.md, Plan search): what one
// call of a lowered function costs on this host, from its instructions.
//
//   time = gemm FLOPs / the host's GEMM rate
//        + bytes its other instructions read and write / the host's memory rate
//        + instructions x a fixed cost per instruction
//        + its collectives' estimated time (the sharding pass's ledger:
//          passes/sharding.h, kCollectiveLatencyUs per collective plus its
//          bytes at kLinkBytesPerUs).
//
// GEMM FLOPs are 2·batch·m·n·k of each gemm instruction (what op_cost counts
// for the dots they run); the other instructions (loop kernels, copies,
// reference kernels) are taken as memory-bound: the bytes of every buffer
// they read or write.
//
// Host rates are measured once per host, CPU and thread count (MLC_THREADS)
// and kept in the kernel cache (compiler/kernel_cache.h; MLC_CACHE_DIR=off:
// measured every time):
//  - GEMM: the runtime's f32 GEMM (runtime/cpu/cpu_gemm.h, on its thread
//    pool) on 512 x 512 x 512, best of 3 rounds of at least 0.1 s;
//  - memory: c = a + b over 3 x 32 MiB of floats split over the thread pool,
//    best of 3;
//  - per instruction: one thread-pool region (the split every kernel makes)
//    plus kInstructionBaseUs, the executor's own fixed cost per instruction
//    (binding its buffers and calling the kernel), a constant: the smallest
//    kernels of tiny_gpt's compiled step take about that in `mlc run
//    --profile` on one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/lower.h"
#include "ir/expected.h"

namespace mlc {

inline constexpr double kInstructionBaseUs = 0.5;

struct HostRates {
  double gemm_gflops = 0;     // f32
  double memory_gbps = 0;     // bytes read + written per second, / 1e9
  double instruction_us = 0;  // fixed cost of one executed instruction
  int threads = 1;
  std::string source;  // "measured", "cached", "--gflops" (the GEMM rate given)
};

// The rates for this host at the runtime's thread count: cached, else
// measured (about a second) and cached. `gflops`: use this GEMM rate instead
// of the measured one.
HostRates host_rates(std::optional<double> gflops = std::nullopt);

// What one call of a function costs, in the units of the model above.
struct CallCost {
  double gemm_flops = 0, other_flops = 0, kernel_bytes = 0, instructions = 0, collective_us = 0;
  template <class F>
  void each(F f) {
    f(gemm_flops), f(other_flops), f(kernel_bytes), f(instructions), f(collective_us);
  }
};

// `f` lowered as `lowered`; `collective_us`: its ledger's estimated time.
CallCost call_cost(const Function& f, const LoweredFunction& lowered, double collective_us = 0);

// The time of one call, in microseconds, by the model's terms.
struct CallTime {
  double gemm = 0, memory = 0, overhead = 0, collectives = 0;
  double compute() const { return gemm + memory + overhead; }
};
CallTime call_time(const CallCost& c, const HostRates& rates);

// `f` lowered for the CPU without compiling kernels (its memory plan and instructions).
Expected<LoweredFunction> lower_for_plan(const Function& f);

}  // namespace mlc
