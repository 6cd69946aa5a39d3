#include "compiler/gpu/cuda_compile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "compiler/gpu/kernel_source.h"
#include "compiler/gpu/nvrtc.h"
#include "runtime/cuda/cubin.h"

namespace mlc::gpu {
namespace {

using Clock = std::chrono::steady_clock;

// A cache entry: kEntryMagic, the usage's five fields as little-endian
// int64 (registers, shared, spill stores, spill loads, stack), the cubin.
constexpr std::string_view kEntryMagic = "mlc cubin 1\n";
constexpr size_t kUsageFields = 5;

void put_i64(std::string& s, int64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(static_cast<uint64_t>(v) >> (8 * i)));
}

int64_t get_i64(std::string_view s) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[static_cast<size_t>(i)]);
  return static_cast<int64_t>(v);
}

std::string encode_entry(const CudaKernelCubin& k) {
  std::string s(kEntryMagic);
  for (int64_t v : {int64_t{k.usage.registers}, k.usage.shared_bytes, k.usage.spill_store_bytes,
                    k.usage.spill_load_bytes, k.usage.stack_bytes})
    put_i64(s, v);
  return s + k.cubin;
}

// The kernel an entry holds, or nullopt where it is not one for `symbol` on
// `arch`.
std::optional<CudaKernelCubin> decode_entry(std::string_view entry, const std::string& symbol,
                                            const std::string& arch) {
  if (entry.substr(0, kEntryMagic.size()) != kEntryMagic || entry.size() < kEntryMagic.size() + 8 * kUsageFields)
    return std::nullopt;
  entry.remove_prefix(kEntryMagic.size());
  int64_t f[kUsageFields];
  for (size_t i = 0; i < kUsageFields; ++i) {
    f[i] = get_i64(entry.substr(8 * i));
    if (f[i] < 0 || f[i] > (i == 0 ? int64_t{1} << 16 : int64_t{1} << 40)) return std::nullopt;
  }
  entry.remove_prefix(8 * kUsageFields);
  if (!rt::check_cubin(entry, symbol, arch).ok()) return std::nullopt;
  return CudaKernelCubin{symbol, std::string(entry), ResourceUsage{static_cast<int>(f[0]), f[1], f[2], f[3], f[4]}};
}

}  // namespace

Expected<std::string> cuda_cache_key(const CudaSource& source, const std::string& arch) {
  MLC_TRY(std::string build, nvrtc_build());
  std::string key("cuda\0", 5);
  for (const std::string& o : nvrtc_options(arch)) key += o + '\0';
  return key + arch + '\0' + build + '\0' + std::string(kSourceEmitterVersion) + '\0' +
         std::string(kCubinSourceDirectory) + '\0' + source.symbol + '\0' +
         source.text;
}

Expected<CudaCompiled> compile_cuda_kernels(const std::vector<CudaSource>& sources, const std::string& arch,
                                            const KernelCache* cache, int threads) {
  const auto t_start = Clock::now();
  CudaCompiled out;
  out.arch = arch;
  if (sources.empty()) return out;

  // The distinct sources, by symbol.
  std::vector<const CudaSource*> distinct;
  std::vector<size_t> distinct_of;  // per source
  std::map<std::string_view, size_t> by_symbol;
  for (const CudaSource& s : sources) {
    auto [it, added] = by_symbol.emplace(s.symbol, distinct.size());
    if (added) {
      distinct.push_back(&s);
    } else if (distinct[it->second]->text != s.text) {
      return make_error("kernel " + s.symbol + ": two different CUDA sources define it");
    }
    distinct_of.push_back(it->second);
  }

  std::vector<std::string> keys(distinct.size());
  std::vector<std::optional<CudaKernelCubin>> done(distinct.size());
  std::vector<size_t> misses;
  for (size_t i = 0; i < distinct.size(); ++i) {
    MLC_TRY(keys[i], cuda_cache_key(*distinct[i], arch));
    if (cache)
      if (std::optional<std::string> hit = cache->get(keys[i]))
        if ((done[i] = decode_entry(*hit, distinct[i]->symbol, arch))) {
          ++out.cache_hits;
          continue;
        }
    misses.push_back(i);
  }

  // Compile the misses, each on whichever thread takes it next.
  std::vector<std::optional<Error>> errors(distinct.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t j; (j = next++) < misses.size();) {
      const size_t i = misses[j];
      auto r = compile_cubin(distinct[i]->text, distinct[i]->symbol, arch);
      if (!r) {
        errors[i] = r.take_error();
        continue;
      }
      done[i] = CudaKernelCubin{distinct[i]->symbol, std::move(r->cubin), r->usage};
    }
  };
  if (threads <= 0) threads = static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
  threads = std::max(1, std::min(threads, static_cast<int>(misses.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (size_t i = 0; i < distinct.size(); ++i)
    if (errors[i]) return std::move(*errors[i]);

  if (cache)
    for (size_t i : misses) cache->put(keys[i], encode_entry(*done[i]));
  out.compiled = static_cast<int>(misses.size());
  for (size_t i : distinct_of) out.kernels.push_back(*done[i]);
  out.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
  return out;
}

}  // namespace mlc::gpu
