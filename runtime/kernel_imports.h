// What a kernel object (runtime/executable.h ObjectFile) may be named and may
// call: the names the reader (runtime/artifact_reader.cc) and the linker
// (runtime/cpu/native_code.cc) allow. Code generation (compiler/cpu/llvm_jit.h) never
// produces anything else, so an object outside these names is not one mlc
// compiled.
//
//  - A kernel's symbol is "mlc_kernel_", 16 lowercase hex digits (the hash of
//    its kernel IR) and any number of '_' (appended on a hash collision).
//  - A kernel object refers to nothing but pure math and memory functions of
//    the C library: libm's exp, log, sin, cos, tan, pow, tanh, erf, sqrt, ...
//    (double and float), glibc's libmvec vector variants of them
//    (_ZGV<isa><mask><lanes><v...>_<function>), and memset, memcpy and
//    memmove, which LLVM emits for loops that fill or copy. The list was
//    found by compiling every example's kernels for AVX2 and AVX-512 hosts
//    and listing their undefined symbols (memset, expf, logf, erff, pow, cos,
//    _ZGVeN16v_expf, ...), then widened to every math function LLVM may
//    substitute for an intrinsic (exp2, ldexp, sincos, ...).
#pragma once

#include <string_view>

namespace mlc::rt {

bool is_kernel_symbol(std::string_view name);
bool is_kernel_import(std::string_view name);

}  // namespace mlc::rt
