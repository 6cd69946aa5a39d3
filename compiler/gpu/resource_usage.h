// What ptxas reports of a compiled kernel's resources, and the checks on it.
// NVRTC passes `--ptxas-options=-v` to ptxas, which writes into the program
// log, per entry function (NVRTC 13.0, verified):
//
//   ptxas info    : Compiling entry function 'k' for 'sm_90'
//   ptxas info    : Function properties for k
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 16 registers, used 1 barriers, 1024 bytes smem
//
// ("N bytes smem" is absent where the kernel has no static shared memory;
// older ptxas print the stack line without "ptxas" in front.)
//
// Contracts:
//  - parse_ptxas_info reads the block of the entry function named `kernel`
//    only (a log may hold several), and fails with an Error naming the kernel
//    where the log has no such block or no "Used N registers" line: a kernel
//    whose usage is unknown is never reported as spill-free.
//  - check_resource_usage fails on any register spill (bytes spilled or
//    reloaded) and on static shared memory above max_shared_bytes_per_block,
//    naming the kernel, the arch and the numbers. A stack frame alone (a local
//    array indexed at run time) is not a spill and passes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/expected.h"

namespace mlc::gpu {

struct ResourceUsage {
  int registers = 0;              // per thread
  int64_t shared_bytes = 0;       // static shared memory per block
  int64_t spill_store_bytes = 0;  // per thread
  int64_t spill_load_bytes = 0;   // per thread
  int64_t stack_bytes = 0;        // stack frame per thread (spills and local arrays)
  bool operator==(const ResourceUsage&) const = default;
};

// "16 registers, 1024 bytes smem, 0 bytes stack, 0/0 bytes spilled/reloaded".
std::string to_string(const ResourceUsage& u);

// The usage ptxas reported for entry function `kernel` in an NVRTC log.
Expected<ResourceUsage> parse_ptxas_info(std::string_view log, std::string_view kernel);

// The static shared memory one block may declare (`__shared__` arrays), in
// bytes: 48 KiB on every architecture NVRTC compiles for (sm_75 to sm_121);
// ptxas refuses a kernel above it. More needs dynamic shared memory and an
// opt-in at launch (cudaFuncAttributeMaxDynamicSharedMemorySize: up to 227
// KiB on sm_90), which mlc's kernels do not use. The 1 KiB that sm_80 and
// later reserve per block for the system is not counted here (ptxas does not
// report it either).
int64_t max_shared_bytes_per_block(const std::string& arch);

// OK, or an Error: "kernel k: ptxas spills registers on sm_90 (132 bytes
// stored, 132 bytes loaded per thread; 32 registers)", or "kernel k: 50000
// bytes of static shared memory on sm_90, more than a block's 49152".
Status check_resource_usage(const std::string& kernel, const ResourceUsage& u, const std::string& arch);

}  // namespace mlc::gpu
