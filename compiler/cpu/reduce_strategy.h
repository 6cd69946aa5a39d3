// How the CPU's code (compiler/cpu/llvm_jit.h) evaluates each reduction of a
// loop kernel (compiler/kernel_ir.h) over the elements of a domain row, the
// row being what one thread computes (compiler/cpu/row_split.h). GPU
// targets have schedules of their own (compiler/gpu/gpu_schedule.h).
//
// Contracts:
//  - A reduction that takes the same value across the row (it depends on no
//    variable that changes within the row) is per_row, wherever it is; the
//    other strategies are for top-level reductions (that no other
//    reduction's operand contains), the rest are per_element.
//  - Every strategy folds each element's terms in the same order (row-major
//    over the reduction's variables), so they differ in speed, not in
//    results.
//  - The strategies are a function of the kernel alone (they are part of the
//    code an object's bytes depend on: kir::signature determines them).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/kernel_ir.h"

namespace mlc::cpu {

enum class ReduceStrategy : uint8_t {
  per_element,  // its own loop nest for every element of the row
  per_row,      // the same value across the row: once per row, before the row's
                // elements (in expression order: one per_row reduction may read another)
  across_row,   // the reduction's loops outside, the row's elements inside, one
                // accumulator per element: for operands whose loads are unit-stride
                // along the row but strided along the reduction (column sums)
  interleaved,  // the reduction's loops but its innermost outside, then the row's
                // elements, then the innermost loop, one accumulator per element:
                // for long float sums over short rows whose loads are unit-stride
                // along the reduction (a bias gradient's sum over the batch), so
                // that the elements' chains of dependent adds overlap
};

// Per expression: the strategy of each reduction (per_element for every
// other expression).
std::vector<ReduceStrategy> reduce_strategies(const kir::Kernel& k);

}  // namespace mlc::cpu
