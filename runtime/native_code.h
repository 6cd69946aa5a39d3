// Native code of an executable's kernels: relocatable objects compiled for
// one CPU, linked into this process at run time (never compiled here) by
// LLVM ORC's JIT linker. The compiler produces it (compiler/llvm_jit.h); an
// artifact stores it.
//
// Contracts:
//  - NativeCode and ObjectFile are declared in runtime/executable.h. Every
//    object defines the one function named by its `symbol`
//    (rt::CompiledKernelFn); its other references resolve against this
//    process (libm, glibc's libmvec).
//  - `cpu` and `features` (LLVM's names, "+avx2,+fma,-avx512f,...") are the
//    target the objects were compiled for. link_native_code refuses, with an
//    Error naming them, features this CPU lacks: running such code would
//    crash with an illegal instruction.
//  - link_native_code links every object and resolves every symbol or fails
//    with an Error naming the object; it never crashes on malformed bytes
//    that LLVM's object reader rejects.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "runtime/executable.h"

namespace mlc::rt {

struct LinkedCode {
  std::vector<CompiledKernelFn> fns;  // per object, in order
  std::shared_ptr<const void> owner;  // keeps the code mapped
};

Expected<LinkedCode> link_native_code(const NativeCode& code);

// Whether `bytes` is an object file that itself defines the function
// `symbol` (not merely refers to it). A cached object that does not is
// another kernel's (compiler/kernel_cache.h): a miss.
bool object_defines_function(const std::string& bytes, const std::string& symbol);

// Links exe.native and points every kernel at its object's function (each
// kernel's `object` must be in range: an Error otherwise); exe.code then owns
// the code.
Status link_kernels(Executable& exe);

// The host CPU, as the compiler targets it (name, feature string).
std::string host_cpu();
std::string host_features();

// Features of `features` ("+a,+b,-c") that this CPU lacks, comma-separated;
// empty when it has them all.
std::string missing_host_features(const std::string& features);

}  // namespace mlc::rt
