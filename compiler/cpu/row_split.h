// How the CPU splits a loop kernel (compiler/kernel_ir.h) over threads: its
// code (compiler/cpu/llvm_jit.h) computes a range [begin, end) of the
// domain's rows, and the CPU executor gives each thread whole rows
// (runtime/cpu/native_launcher.h kernel_threads), as many threads as the
// rows' total cost pays for. Both numbers are the kernel's CPU launch data
// (rt::KernelInfo::cpu), which every target's artifact records.
//
// Contracts:
//  - kernel_rows: the rows of the parallel outer loop, the product of the
//    domain's dims but the last (1 for a rank 0 or 1 domain). A scatter's
//    every thread visits all of scatter.domain (kir::Kernel::Scatter).
//  - kernel_row_cost: scalar evaluations per row, for choosing how many
//    threads run the kernel: the row's elements times (1 + the trip count of
//    every reduction + every load outside reductions of an input that
//    another such load also reads, the taps of an unrolled window), plus a
//    scatter's elements spread over the rows. It estimates; the code does not
//    depend on it.
#pragma once

#include <cstdint>

#include "compiler/kernel_ir.h"

namespace mlc::cpu {

int64_t kernel_rows(const kir::Kernel& k);

int64_t kernel_row_cost(const kir::Kernel& k);

}  // namespace mlc::cpu
