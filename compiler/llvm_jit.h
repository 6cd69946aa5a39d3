// Native code for loop kernels (compiler/kernel_ir.h): LLVM IR built with
// IRBuilder, optimized at O3 for the host CPU (vectorized with its widest
// profitable vectors, glibc's libmvec for exp, log, sin, cos), and compiled
// in memory by ORC's LLJIT. The only translation unit that includes LLVM.
//
// Each kernel becomes `int name(std::byte* const* buffers, int64_t begin,
// int64_t end)` (rt::CompiledKernelFn): it computes the domain rows
// [begin, end) and returns 0.
//
// Numerics: the scalar definitions of ir/scalar_math.h, without fast-math,
// except that float sums (accumulated in double, as the reference kernels do)
// may be reassociated for vectorization, and vectorized exp/log/sin/cos/pow are
// libmvec's (within 4 ulp, glibc's stated bound) instead of libm's.
#pragma once

#include <memory>
#include <vector>

#include "compiler/kernel_ir.h"
#include "runtime/executable.h"

namespace mlc {

struct JitResult {
  std::vector<rt::CompiledKernelFn> fns;  // one per kernel, in order
  std::shared_ptr<const void> owner;      // the JIT session owning the code
  double ir_ms = 0, optimize_ms = 0, codegen_ms = 0;
};

Expected<JitResult> jit_compile(const std::vector<kir::Kernel>& kernels);

// The optimized LLVM IR of the kernels (for dumps and tests).
Expected<std::string> kernels_llvm_ir(const std::vector<kir::Kernel>& kernels);

}  // namespace mlc
