// The error of a kernel that stopped on an index out of range (a compiled
// gather's, rt::CompiledKernelFn returning 1): the reference kernel's own
// message, found by reading the indices the kernel checks.
#pragma once

#include <cstddef>

#include "ir/expected.h"
#include "runtime/executable.h"

namespace mlc::rt {

// The first index outside its bound, over k.index_checks in order and each
// check's indices (input `input` of `buffers`, of type k.types[input]) in
// row-major order, as "<loc>: error: <op>: index V out of range [0, bound)
// along axis A": what the op's reference kernel reports
// (runtime/kernels/indexing.cc). An internal error if every index is in range.
Error index_out_of_range(const KernelInfo& k, const std::byte* const* buffers);

}  // namespace mlc::rt
