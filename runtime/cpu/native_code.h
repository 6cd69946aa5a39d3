// The CPU target's code (runtime/cpu/cpu_target.h): relocatable objects
// compiled for one CPU, linked into this process at run time (never compiled
// here) by LLVM ORC's JIT linker. The compiler produces them
// (compiler/cpu/llvm_jit.h); an artifact stores them.
//
// Contracts:
//  - CodeModule and ObjectFile are declared in runtime/executable.h. Every
//    object defines the one function named by its `symbol`
//    (rt::CompiledKernelFn); its other references resolve against this
//    process (libm, glibc's libmvec).
//  - Before linking, link_native_code reads each object's symbol table and
//    refuses (an Error naming the object) one that is not ELF, does not
//    define its own symbol as a function ("does not define its symbol"),
//    defines any other global symbol, or refers to anything but the kernel
//    imports of runtime/kernel_imports.h ("refers to 'system', which kernels
//    never call"). Symbols resolve among the objects and, for kernel imports
//    only, in this process: never to another function of it. This limits what
//    an object can name, not what its code does: an object is native code,
//    and `mlc run --verify-code` (driver/verify_code.h) is what checks that.
//  - `arch` and `features` (LLVM's names, "+avx2,+fma,-avx512f,...") are the
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

// A compiled loop kernel's entry point: runs rows [begin, end) of its
// iteration space (the outer dims of its outputs) over `buffers`: its inputs,
// then its outputs (runtime/executable.h KernelInfo). Returns 0, or 1 where
// an index it reads through a check (KernelInfo::index_checks) is out of
// range: it then stops, its outputs unspecified.
using CompiledKernelFn = int (*)(std::byte* const* buffers, int64_t begin, int64_t end);

struct LinkedCode {
  std::vector<CompiledKernelFn> fns;  // per object, in order
  std::shared_ptr<const void> owner;  // keeps the code mapped
};

Expected<LinkedCode> link_native_code(const CodeModule& code);

// The check link_native_code makes of each object before linking it (above):
// ELF, defining its own symbol as a function and no other global, referring
// only to kernel imports. The compiler also makes it of a kernel cache hit
// (compiler/kernel_cache.h): an entry that fails it (another kernel's
// object) is a miss.
Status check_kernel_object(const ObjectFile& o);

// The host CPU, as the compiler targets it (name, feature string).
std::string host_cpu();
std::string host_features();

// Features of `features` ("+a,+b,-c") that this CPU lacks, comma-separated;
// empty when it has them all.
std::string missing_host_features(const std::string& features);

}  // namespace mlc::rt
