// The "cpu-x86_64" target (runtime/target.h): kernel objects linked into this
// process (runtime/cpu/native_code.h), an arena of host memory aligned to 64
// bytes (a cache line, and an AVX-512 vector), executors that run kernels on
// the process's thread pool (runtime/cpu/cpu_executor.h, runtime/cpu/native_launcher.h).
#pragma once

#include "runtime/target.h"

namespace mlc::rt {

inline constexpr int64_t kCpuArenaAlignment = 64;

const Target& cpu_target();

}  // namespace mlc::rt
