// NVRTC, NVIDIA's runtime compiler of CUDA C++, turning kernel text
// (compiler/gpu/kernel_source.h, Dialect::cuda) into cubins for one real
// architecture ("sm_90"), with ptxas's report of each kernel's registers,
// shared memory, stack and spills (compiler/gpu/resource_usage.h). No GPU is
// needed; nothing here touches the CUDA driver (libcuda).
//
// The library is opened at run time (runtime/shared_library.h), never
// linked, so mlc builds and runs without the CUDA toolkit: then
// nvrtc_available() is false and every other function returns the Error
// "NVRTC not found (install the CUDA toolkit or set CUDA_HOME): tried
// libnvrtc.so.13, libnvrtc.so.12, ..." listing every file tried and why each
// that exists was refused. Where it is looked for, in order:
//  1. $MLC_NVRTC, a path to the library; if set, nothing else is tried (and
//     the Error is "NVRTC not found (MLC_NVRTC=PATH): tried PATH (why)");
//  2. libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so through the dynamic
//     loader's search path (LD_LIBRARY_PATH, ld.so.cache);
//  3. the same names in $CUDA_HOME/lib64, then $CUDA_PATH/lib64, then the
//     toolkit's standard prefix /usr/local/cuda/lib64.
// The first that loads and exports every entry point used here wins, once
// per process (thread-safe); it is never unloaded. Its builtins library
// (libnvrtc-builtins.so.MAJOR.MINOR) is loaded from the same directory, so
// that NVRTC finds it where that directory is not on the loader's path.
//
// Contracts:
//  - compile_cubin compiles with nvrtc_options(arch) exactly: the real
//    architecture (so that NVRTC makes a cubin, not only PTX), line info,
//    C++17, no FMA contraction and IEEE division, square root and denormals
//    (the kernels keep ir/scalar_math.h's roundings), and ptxas's verbose
//    report. The options are recorded in the cubin, so caches key on them,
//    and on nvrtc_build(), which names the library's build.
//  - A source that does not compile is an Error "kernel NAME: NVRTC: " and
//    the log's first lines ("NAME.cu(3): error: expected a \";\"": the
//    program is named NAME.cu, so line numbers are the text's).
//  - An architecture NVRTC does not compile for is an Error that lists those
//    it does: "NVRTC 13.0 does not support sm_20 (it supports sm_75, ...)".
//  - A successful result is a cubin for `arch` that defines `name`
//    (rt::check_cubin, runtime/cuda/cubin.h) with that kernel's usage.
//  - The program is named kCubinSourceDirectory/NAME.cu, a label no file
//    has, so that the cubin's line table holds no working directory and no
//    file's mtime: the same source gives the same cubin in any directory.
//  - Thread-safe: NVRTC compiles distinct programs concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/gpu/resource_usage.h"
#include "ir/expected.h"

namespace mlc::gpu {

inline constexpr std::string_view kCubinSourceDirectory = "/mlc-kernel-source";

bool nvrtc_available();

// "NVRTC 13.0".
Expected<std::string> nvrtc_version();

// "NVRTC 13.0 for compiling: found", or "NVRTC for compiling: not found"
// (the reason is nvrtc_version()'s Error): for `mlc --version`.
std::string nvrtc_availability();

// The version and the build: "NVRTC 13.0 (libnvrtc.so.13, 109338064 bytes)".
// Patch releases keep the version, and the library's size tells them apart;
// for cache keys.
Expected<std::string> nvrtc_build();

// The real architectures NVRTC compiles for, oldest first: "sm_75", ...
Expected<std::vector<std::string>> nvrtc_supported_archs();

// Whether NVRTC is here and compiles for `arch` ("sm_90"): an Error saying
// which archs it supports ("NVRTC 13.0 does not support sm_20 (it supports
// sm_75, ...)") or that NVRTC is absent.
Status check_nvrtc_arch(const std::string& arch);

// The options compile_cubin passes for `arch`, in order:
// --gpu-architecture=ARCH -lineinfo --std=c++17 --fmad=false --prec-div=true
// --prec-sqrt=true --ftz=false --ptxas-options=-v
std::vector<std::string> nvrtc_options(const std::string& arch);

struct CubinResult {
  std::string cubin;
  std::string log;  // NVRTC's whole log: warnings and ptxas's report
  ResourceUsage usage;
};

// Compiles `source` (self-contained CUDA C: no #include) defining the
// kernel `name` (extern "C" __global__) for `arch` ("sm_90").
Expected<CubinResult> compile_cubin(const std::string& source, const std::string& name, const std::string& arch);

}  // namespace mlc::gpu
