// Verifying an executable (runtime/executable.h) before it runs: what it
// means, not only that its indices are in range. The artifact reader
// (runtime/artifact.h) verifies every executable it reads and the executor
// (runtime/executor.h) every executable it is created for, so a freshly
// compiled one (compiler/lower.h) passes the same checks as one from a file.
// An executable that passes runs without touching bytes outside its arena and
// its arguments' buffers (kernels run only rows of their result: `rows`), and
// every instruction reads a value that nothing has overwritten since it was
// written. (Native code is not verified: docs/limits.md says what an artifact
// is and how to run one safely.)
//
// The rules, checked in this order; the first one broken is reported:
//  Target
//   0. The executable's target is one of this runtime's (runtime/target.h);
//      its code, if any, is for that target; every kernel names an object of
//      its code.
//  Slots
//   1. An arena slot (arg < 0) lies inside the arena: 0 <= offset, offset +
//      its bytes <= arena_bytes; its offset is a multiple of the target's
//      arena alignment.
//   2. A slot over an argument's buffer (arg >= 0) names an argument, and its
//      bytes lie inside that argument's buffer (a view: a reshape).
//   2a. The scratch region (two-phase GPU kernels' partial results): offset 0
//      where it has no bytes; else the target is a GPU target, the region
//      lies inside the arena at an offset that is a multiple of the arena
//      alignment, and no arena slot with bytes overlaps it.
//  Arguments, results, constants
//   3. An argument's slot is its buffer: a slot with arg = the argument, offset 0.
//   4. A result's slot exists; a result that updates argument a
//      (updates >= 0) is a's buffer (its slot is args[a].slot's bytes: arg a,
//      offset 0) of a's type.
//   5. A constant fills an arena slot with exactly its bytes; no slot twice.
//  Kernels
//   6. A kernel has buffer types, 1 <= outputs <= their count, rows = the
//      product of its last type's dims but the last, row_cost >= 0 (0: rows
//      of no elements); each index check names an i32 or i64 input and a
//      bound >= 1. Its launch (GpuLaunch) is all zero on the CPU; on a GPU
//      target its block, grid and shared memory are within CUDA's limits, its
//      scratch_bytes at most the scratch region's, and its combine_grid
//      within grid.x's limit where it has two phases (scratch_bytes > 0), else 0.
//  Instructions (operands, result and more_results name slots)
//   7. kernel: `kernel` names one; its operands, result and more_results have
//      exactly the kernel's types, in order (inputs, then outputs).
//   8. gemm: dtype f32 or f64; two operands a, b, and a third, the addend of
//      the result's type, exactly when beta != 0; alpha and beta finite; the
//      shape is the one the slot types give: the result is [B..., m, n] with
//      batch = the product of B (0 where m*n = 0), a is [B..., m, k]
//      ([B..., k, m] with trans_a), b is [k, n] ([n, k] with trans_b) after
//      B... unless it has rank 2, b_shared says whether it has (immaterial
//      where batch <= 1), all of dtype. So a flipped transpose flag, a wrong
//      batch or k is an error, where the library would read past a buffer or
//      compute another product. An epilogue (GemmEpilogue) needs f32, bf16 or f16, alpha
//      1, beta 0, m, n, k >= 1 and one product (batch 1, or batches folded into rows:
//      b_shared, not trans_a; bgradb: batch 1); its operand follows a and b
//      (a bias of n elements, last dim n; dgelu's and dgelu_bgrad's aux of
//      the result's type) and its result is the instruction's one
//      more_result (the aux, of the result's type; bgradb's gradient, m
//      elements; dgelu_bgrad's, n elements); no other gemm has more_results.
//   9. reference: it has its op (the reader checks the op's attributes and
//      re-infers its result type from its operands'); copy: one operand of
//      the result's byte size; collective: a mesh axis, one operand (recv:
//      none) of the result's dtype and rank (the sizes against the axis's
//      devices are checked when it runs, runtime/collective_run.h); only
//      kernels have more_results.
//  Data flow
//  10. An instruction writes an argument's buffer only where a result updates
//      that argument (the others are the caller's, and only read).
//  11. An arena slot is written once: by one instruction, or filled by one
//      constant (when the executor is created) and then never written.
//  12. Every slot an instruction reads holds a value when it runs: an
//      argument's, a constant, an earlier instruction's result, or a view: an
//      arena slot that nothing writes, at the offset and of the byte size of a
//      slot already written (the latest one written, whose value it reads).
//      Every result is such a slot at the end.
//  Liveness (recomputed from the instruction list, as compiler/memory_plan.h
//  plans it)
//  13. A value (a constant or an instruction's arena result) is live from the
//      instruction that writes it (constants: from the start) to the last one
//      that reads it, itself or through a view (results and constants: to the
//      end; constants persist from run to run). Two values whose bytes overlap
//      are never live at the same instruction: an instruction's result does
//      not overlap its operands nor any value read later. The arena sharing
//      the compiler creates is all of this kind: views, and values packed
//      into the same bytes with disjoint lifetimes; in-place updates are
//      writes of argument buffers (rule 10), which no rule here restricts.
//  Arena
//  14. arena_bytes is what the slots and the scratch region need: the end of
//      the highest non-empty arena slot, or of the scratch region where it is
//      higher, rounded up to the target's alignment (0 without either), as
//      the memory planner and the lowering size it, not more.
//
// Time and memory: linear in the slots and instructions' operands, and
// n log n in the arena values (the liveness check sweeps them in time order).
#pragma once

#include <optional>
#include <string>

#include "ir/expected.h"
#include "runtime/executable.h"

namespace mlc::rt {

// A broken rule: the field of the executable (as the artifact's manifest
// names it: "slots[3]", "instructions[2].operands[0]", "arena_bytes") and
// what is wrong with it, expected and found.
struct ExecutableProblem {
  std::string field;
  std::string what;
};

// The first rule `e` breaks, or none.
std::optional<ExecutableProblem> find_executable_problem(const Executable& e);

// find_executable_problem as an Error "function 'NAME': FIELD: WHAT".
Status verify_executable(const Executable& e);

}  // namespace mlc::rt
