// Cubins: the ELF images of SASS that the "cuda" target loads
// (runtime/executable.h CodeModule; the compiler makes them with NVRTC,
// compiler/gpu/nvrtc.h). This file reads what the runtime must check before
// handing one to the driver: that it is a CUDA ELF, for which architecture,
// and that it defines the kernel it is loaded for. It parses the bytes itself
// (no CUDA library), so it runs on machines without a GPU or toolkit. Its
// callers: the "cuda" target, for every object before the driver sees it
// (runtime/cuda/cuda_code.h check_cuda_module), and NVRTC's results and the
// kernel cache's entries (compiler/gpu/). tests/fuzz/fuzz_cubin.cc fuzzes it.
//
// Architecture names are NVIDIA's: "sm_<major><minor>" ("sm_90"), optionally
// suffixed "a" (arch-specific features, "sm_90a") or "f" (family-specific).
//
// How a cubin records its architecture (ELF e_machine EM_CUDA = 190; the SM
// number is major * 10 + minor, sm_90 -> 0x5a), by EI_ABIVERSION:
//  - 7 (older toolkits): the SM number in e_flags bits 0-7, the
//    arch-specific ("a") marker is bit 11 (0x800);
//  - 8 (Blackwell-era toolkits; NVRTC 13 writes every arch so): the SM
//    number in bits 8-15, the "a" marker is bit 3 (0x8). NVRTC 13.0 writes
//    sm_80 as e_flags 0x09005004 and sm_90 as 0x09005a04; nvcc 13.0 writes
//    0x06005004 and 0x06005a04.
// The "a" marker is set only where the code uses arch-specific instructions:
// a cubin compiled for sm_90a without them reads back as "sm_90" (and runs
// on every sm_90 device). The "f" suffix leaves no mark.
//
// Contracts:
//  - Every function takes arbitrary bytes and never reads outside them: a
//    truncated or corrupt image is an Error, never a crash.
//  - Errors say what is wrong ("not a cubin: ...", "a cubin for sm_80, not
//    sm_90"); callers prefix the kernel or file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/expected.h"

namespace mlc::rt {

// The SM number of an architecture name: "sm_90" and "sm_90a" -> 90.
// nullopt for anything else ("compute_90", "sm_", "90", "sm_9x").
std::optional<int> sm_version(std::string_view arch);

// The architecture `cubin` was compiled for: "sm_90", or "sm_90a" where it
// uses arch-specific features. An Error where the bytes are not a 64-bit
// little-endian CUDA ELF of a known ABI version.
Expected<std::string> cubin_arch(std::string_view cubin);

// Whether `cubin` may be loaded as kernel `symbol` compiled for `arch`: a
// CUDA ELF whose SM number is arch's (an arch-specific cubin, "sm_90a",
// only for an "a" arch), and whose symbol table defines `symbol` as a
// function. Errors: "not a cubin: ...", "a cubin for sm_80, not sm_90",
// "the cubin does not define kernel 'k'".
Status check_cubin(std::string_view cubin, std::string_view symbol, std::string_view arch);

}  // namespace mlc::rt
