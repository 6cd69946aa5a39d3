// Lowering: a function to an executable (runtime/executable.h).
//
// Pipeline: fill attribute defaults and re-check every op (an invalid op is an
// Error located at it), decompose composites, rewrite convolutions as unfold,
// fold and dots (compiler/conv_to_gemm.h), rewrite bf16/f16 scatter_adds as
// f32 ones between casts (compiler/half_accumulation.h), on GPU targets give
// the tanh GELU's backward its own copies of the chain's intermediates
// (compiler/fusion.h recompute_gelu_for_epilogues), fuse (compiler/fusion.h;
// gemm epilogues on GPU targets only), build
// each loop group's kernel (compiler/kernel_ir.h), decide which results are
// written in place into the arguments they update, plan memory
// (compiler/memory_plan.h), then compile the kernels (compiler/cpu/llvm_jit.h; objects
// from options.cache where it has them) and link them (runtime/cpu/native_code.h).
//
// Instructions: a loop group is a kernel; a float dot is a gemm (with the
// ops of its epilogue group, on GPU targets, as its GemmEpilogue); a dense
// constant is arena bytes filled once; a reshape not fused into a consumer is a
// view of its operand's bytes; any other op runs its reference kernel.
//
// In place: a result that updates argument `a` is written straight into a's
// buffer when its instruction is a kernel that reads a only at the element it
// writes (or an instruction that does not read a), and nothing after it reads
// a; otherwise it is computed in the arena and copied into a at the end.
#pragma once

#include <memory>
#include <vector>

#include "compiler/fusion.h"
#include "compiler/kernel_cache.h"
#include "compiler/kernel_ir.h"
#include "compiler/memory_plan.h"
#include "runtime/executable.h"

namespace mlc {

struct LowerOptions {
  bool compile_kernels = true;  // false: build everything but native code (tests, dumps)
  const KernelCache* cache = nullptr;  // compiled kernel objects to reuse and add to
  // What the executable runs on (runtime/executable.h: cpu-x86_64, host-gpu,
  // cuda); `arch` picks cuda's GPU architecture ("sm_90").
  std::string target{rt::kCpuTarget};
  std::string arch;
  // GPU targets: cuBLASLt epilogues where the fusion pass finds them (false:
  // those ops stay loop kernels; `mlc run --no-gemm-epilogues`).
  bool gemm_epilogues = true;
};

struct LoweredFunction {
  std::shared_ptr<rt::Executable> executable;
  MemoryPlan plan;
  std::vector<PlannedBuffer> buffers;
  std::vector<kir::Kernel> kernels;
  int num_groups = 0, num_ops = 0;
  double lower_ms = 0, jit_ir_ms = 0, jit_optimize_ms = 0, jit_codegen_ms = 0;  // CPU ms, all threads
  double compile_wall_ms = 0;
  int distinct_kernels = 0, cache_hits = 0;
};

Expected<LoweredFunction> lower_function(const Function& f, const LowerOptions& options = {});

// The lowered function as text (`mlc ir --after lower`): its slots, then one
// line per instruction (kind, operands, result, origin) with each kernel's
// body in kernel IR (kir::print_kernel).
std::string print_lowered(const LoweredFunction& l);

}  // namespace mlc
