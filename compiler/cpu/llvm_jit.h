// Native code for loop kernels (compiler/kernel_ir.h): LLVM IR built with
// IRBuilder, optimized at O3 for the host CPU (vectorized with its widest
// profitable vectors, glibc's libmvec for exp, log, sin, cos, pow, tanh and
// erf: glibc 2.35 or later, where libmvec has tanh and erf), and compiled
// to object code, one kernel per module on several threads. With
// runtime/cpu/native_code.cc, the only translation units that include LLVM.
//
// Each distinct kernel becomes a relocatable object (runtime/cpu/native_code.h)
// defining `int mlc_kernel_<hash>(std::byte* const* buffers, int64_t begin,
// int64_t end)` (rt::CompiledKernelFn), which computes the domain rows
// [begin, end) and returns 0, or kir::kIndexOutOfRange where a checked index
// is out of range (kir::kernel_symbol names it). Each object
// carries its kernel IR as text (rt::ObjectFile::source,
// compiler/kernel_ir_json.h). The runtime links the objects; an artifact
// stores them.
//
// Determinism: an object's bytes depend only on its kernel IR (kir::signature),
// its name, the target (CPU and feature string) and the code generator
// (code_generator below: the LLVM version and the emitter's); never on the
// thread count, the order of work or the machine that compiles. The kernel
// cache relies on it, and so does `mlc run --verify-code`, which compiles an
// artifact's kernel IR again and compares the bytes (driver/verify_code.h).
//
// Numerics: the scalar definitions of ir/scalar_math.h, without fast-math,
// except that float sums (accumulated in double, as the reference kernels do)
// may be reassociated for vectorization where a sum's own loop is vectorized
// (sums vectorized across a row's elements, cpu::ReduceStrategy::across_row,
// keep the reference order), and vectorized exp/log/sin/cos/pow/tanh/erf are
// libmvec's (within 4 ulp, glibc's stated bound; its AVX-512 variants too)
// instead of libm's (a row's elements in whole vectors get the vector
// function, the rest of the row libm's, whatever the thread split: threads
// split rows). exp is 0 below -104 (f32) / -746 (f64), where it rounds to 0
// anyway.
// Float max/min reductions are vectorized as llvm.maximum/minimum, and folded
// again in order where that gave a zero or a NaN: the bits of the in-order fold.
//
// Loops: a kernel's innermost domain loop and a reduction's innermost loop
// are kept from the full unroller so that the loop vectorizer sees them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/kernel_cache.h"
#include "compiler/kernel_ir.h"
#include "runtime/cpu/native_code.h"

namespace mlc {

// A CPU to compile for: LLVM's CPU name and feature string ("+avx2,+fma,...").
struct CodeTarget {
  std::string cpu, features;
};

struct CompileOptions {
  const KernelCache* cache = nullptr;  // objects to reuse and to add to
  int threads = 0;                     // code generation threads; 0: one per core (at most 8)
  std::optional<CodeTarget> target;    // default: this host's CPU and features
};

struct CompiledKernels {
  rt::CodeModule code;         // one object per distinct kernel (equal signatures share one)
  std::vector<int> object_of;  // per kernel: its object in code.objects
  int cache_hits = 0, compiled = 0;
  double ir_ms = 0, optimize_ms = 0, codegen_ms = 0;  // summed over threads
  double wall_ms = 0;
};

// Objects for `kernels`, from the cache where it has them, else generated on
// `threads` threads. The objects do not depend on the thread count. Each
// distinct kernel's object is named kir::kernel_symbol(k), with a '_'
// appended for each earlier distinct kernel of the call whose name it would
// repeat (a 64-bit hash collision).
Expected<CompiledKernels> compile_kernels(const std::vector<kir::Kernel>& kernels, const CompileOptions& options = {});

// The object of each kernel under its own name (k.name), generated now (no
// cache), for options.target: the bytes compile_kernels gives a kernel of
// that name. For verifying objects against their kernel IR; the kernels must
// pass kir::verify_kernel (compiler/kernel_ir_verify.h) first.
Expected<std::vector<std::string>> compile_named_kernels(const std::vector<kir::Kernel>& kernels,
                                                         const CompileOptions& options = {});

// What generates the objects: "LLVM 19.1.7, mlc-llvm-emitter 13" (rt::CodeModule::generator).
std::string code_generator();

// The optimized LLVM IR of the kernels (for dumps and tests).
Expected<std::string> kernels_llvm_ir(const std::vector<kir::Kernel>& kernels);

}  // namespace mlc
