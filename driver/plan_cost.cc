#include "driver/plan_cost.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "compiler/kernel_cache.h"
#include "ir/op_table.h"
#include "runtime/cpu/cpu_gemm.h"
#include "runtime/cpu/native_code.h"
#include "runtime/thread_pool.h"

namespace mlc {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Best of 3 rounds of at least 0.1 s each: seconds per call of `fn`.
template <class F>
double best_time(F&& fn) {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    int64_t calls = 0;
    const Clock::time_point t0 = Clock::now();
    double elapsed = 0;
    do {
      fn();
      ++calls;
      elapsed = seconds_since(t0);
    } while (elapsed < 0.1);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

double measure_gemm_gflops(int threads) {
  constexpr int64_t n = 512;
  rt::GemmParams p;
  p.dtype = DType::f32;
  p.shape = {1, n, n, n, false, false, false};
  auto kernel = rt::make_cpu_gemm(p, threads);
  if (!kernel) return 0;
  std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n, 0.0f);
  auto part = [&](int t) {
    (*kernel)->run(t, reinterpret_cast<const std::byte*>(a.data()), reinterpret_cast<const std::byte*>(b.data()),
                   reinterpret_cast<std::byte*>(c.data()));
  };
  const double s = best_time([&] { rt::thread_pool().parallel((*kernel)->parts(), part); });
  return 2.0 * n * n * n / s / 1e9;
}

double measure_memory_gbps(int threads) {
  constexpr int64_t n = int64_t{8} << 20;  // 32 MiB of floats per array
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0.0f);
  auto part = [&](int t) {
    int64_t begin = 0, end = 0;
    rt::split_range(n, threads, t, begin, end);
    for (int64_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
  };
  const double s = best_time([&] { rt::thread_pool().parallel(threads, part); });
  return 3.0 * n * sizeof(float) / s / 1e9;
}

double measure_dispatch_us(int threads) {
  std::vector<float> touched(static_cast<size_t>(threads) * 16, 0.0f);
  auto part = [&](int t) { touched[static_cast<size_t>(t) * 16] += 1.0f; };
  const double s = best_time([&] {
    for (int k = 0; k < 1000; ++k) rt::thread_pool().parallel(threads, part);
  });
  return s / 1000 * 1e6;
}

}  // namespace

HostRates host_rates(std::optional<double> gflops) {
  HostRates r;
  r.threads = rt::num_threads();
  static const std::optional<KernelCache> cache = KernelCache::from_environment();
  const std::string key = "mlc plan host rates 1;" + rt::host_cpu() + ";" + rt::host_features() +
                          ";threads=" + std::to_string(r.threads);
  double dispatch_us = -1;
  if (cache)
    if (std::optional<std::string> text = cache->get(key))
      if (std::sscanf(text->c_str(), "%lf %lf %lf", &r.gemm_gflops, &r.memory_gbps, &dispatch_us) == 3 &&
          r.gemm_gflops > 0 && r.memory_gbps > 0 && dispatch_us >= 0)
        r.source = "cached";
  if (r.source.empty()) {
    r.gemm_gflops = gflops ? 0 : measure_gemm_gflops(r.threads);  // given: not measured, nor kept
    r.memory_gbps = measure_memory_gbps(r.threads);
    dispatch_us = measure_dispatch_us(r.threads);
    r.source = "measured";
    char text[128];
    std::snprintf(text, sizeof text, "%.6g %.6g %.6g\n", r.gemm_gflops, r.memory_gbps, dispatch_us);
    if (cache && r.gemm_gflops > 0) cache->put(key, text);
  }
  r.instruction_us = dispatch_us + kInstructionBaseUs;
  if (gflops) {
    r.gemm_gflops = *gflops;
    r.source = "--gflops";
  }
  return r;
}

CallCost call_cost(const Function& f, const LoweredFunction& lowered, double collective_us) {
  CallCost c;
  double flops = 0;
  for (const auto& op : f.ops) flops += static_cast<double>(op_cost(*op).flops);
  const rt::Executable& exe = *lowered.executable;
  auto slot_bytes = [&](int slot) { return slot >= 0 ? static_cast<double>(exe.slots[slot].type.num_bytes()) : 0.0; };
  for (const rt::Instruction& ins : exe.instructions) {
    c.instructions += 1;
    if (ins.kind == rt::InstrKind::gemm) {
      const rt::blas::DotShape& d = ins.gemm.shape;
      c.gemm_flops += 2.0 * static_cast<double>(d.batch) * static_cast<double>(d.m) * static_cast<double>(d.n) *
                      static_cast<double>(d.k);
      continue;
    }
    if (ins.kind == rt::InstrKind::collective) continue;  // timed by the ledger
    for (int s : ins.operands) c.kernel_bytes += slot_bytes(s);
    c.kernel_bytes += slot_bytes(ins.result);
    for (int s : ins.more_results) c.kernel_bytes += slot_bytes(s);
  }
  c.other_flops = std::max(0.0, flops - c.gemm_flops);
  c.collective_us = collective_us;
  return c;
}

CallTime call_time(const CallCost& c, const HostRates& rates) {
  return {c.gemm_flops / (rates.gemm_gflops * 1e3), c.kernel_bytes / (rates.memory_gbps * 1e3),
          c.instructions * rates.instruction_us, c.collective_us};
}

Expected<LoweredFunction> lower_for_plan(const Function& f) {
  LowerOptions options;
  options.compile_kernels = false;
  return lower_function(f, options);
}

}  // namespace mlc
