// The "cuda" target's code objects: the CUDA C text of its kernels
// (compiler/gpu/kernel_source.h) compiled by NVRTC (compiler/gpu/nvrtc.h) to
// cubins for one architecture, from a kernel cache where it has them, else
// on several threads.
//
// Contracts:
//  - One result per source, in order. Sources that repeat another (same
//    symbol and text) are compiled once and share its result; two different
//    texts under one symbol are an Error (a code module loads by symbol).
//  - Every cubin is the one compile_cubin(text, symbol, arch) gives: the
//    cache and the thread count never change a result's bytes or usage.
//  - A cache entry is keyed by cuda_cache_key: the text, the symbol, the
//    architecture, NVRTC's build (nvrtc_build), its options (nvrtc_options)
//    and kSourceEmitterVersion. It holds the kernel's ResourceUsage and then
//    its cubin; an entry that does not parse, or whose cubin is not one for
//    `arch` defining the symbol (rt::check_cubin), is a miss, and the
//    compile's put replaces it. A cache never fails a compile.
//  - The first failing source (in order) is the Error: "kernel NAME: ...".
//    Without NVRTC, any source is an Error saying so (the cache key needs
//    NVRTC's build).
#pragma once

#include <string>
#include <vector>

#include "compiler/gpu/resource_usage.h"
#include "compiler/kernel_cache.h"
#include "ir/expected.h"

namespace mlc::gpu {

struct CudaSource {
  std::string symbol;  // the extern "C" __global__ kernel the text defines
  std::string text;    // self-contained CUDA C
};

struct CudaKernelCubin {
  std::string symbol;
  std::string cubin;
  ResourceUsage usage;
};

struct CudaCompiled {
  std::string arch;
  std::vector<CudaKernelCubin> kernels;  // per source, in order
  int cache_hits = 0;  // distinct sources read from the cache
  int compiled = 0;    // distinct sources NVRTC compiled
  double wall_ms = 0;
};

// The cache key of `source` compiled for `arch`.
Expected<std::string> cuda_cache_key(const CudaSource& source, const std::string& arch);

// Cubins for `sources`, on `threads` threads (0: one per core, at most 8).
// `cache` may be null.
Expected<CudaCompiled> compile_cuda_kernels(const std::vector<CudaSource>& sources, const std::string& arch,
                                            const KernelCache* cache, int threads = 0);

}  // namespace mlc::gpu
