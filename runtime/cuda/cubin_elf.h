// The architecture a cubin (a CUDA ELF image of SASS, what the "cuda"
// target's code objects are: runtime/executable.h CodeModule) was compiled
// for, read from its ELF header alone, with no CUDA library: the "cuda"
// target checks every object against its module's arch before the driver
// sees it.
//
// How a cubin records it (ELF64, little-endian, e_machine EM_CUDA = 190;
// the SM number is major * 10 + minor, sm_90 -> 90 = 0x5a), by the header's
// EI_ABIVERSION:
//  - 7 (older toolkits): the SM number in e_flags bits 0-7;
//  - 8 (CUDA 13's nvcc and NVRTC write every arch so): bits 8-15; nvcc 13.0
//    writes sm_80 as e_flags 0x06005004 and sm_90 as 0x06005a04.
// An arch-specific ("sm_90a") cubin has the same SM number; the suffix is not
// read (the device check compares SM numbers).
//
// Contract: any bytes in, never a read outside them; an Error ("not a
// cubin: ...") where they are not a 64-bit little-endian CUDA ELF of a known
// ABI version. Callers prefix the object.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/expected.h"

namespace mlc::rt::cuda {

// The SM number of `cubin`'s architecture: 90 for sm_90.
Expected<int> cubin_sm(std::string_view cubin);
// The SM number of an architecture name: "sm_90" and "sm_90a" -> 90;
// nullopt for anything else ("compute_90", "sm_", "90").
std::optional<int> arch_sm(std::string_view arch);
// "sm_90" for 90.
std::string sm_arch_name(int sm);

}  // namespace mlc::rt::cuda
