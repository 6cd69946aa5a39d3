// What the local and the MPI communicators share: the ordered reduction that
// makes sums bit-identical on every rank, argument checks, and the wording of
// their errors. Not part of the communicator interface.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/comm/communicator.h"

namespace mlc::rt::comm {

// out[i] = parts[0][i] op parts[1][i] op ... op parts[n-1][i], folded left to
// right (group-rank order), for i in [0, count). The result depends only on
// the parts, never on who computes it or when:
//  - f32, f64: in their own type (IEEE, round to nearest even per addition);
//  - bf16, f16: accumulated in float left to right, rounded to the type once
//    at the end (runtime/half.h);
//  - i32, i64: sums wrap modulo 2^32 / 2^64 (two's complement);
//  - max: the larger value; NaN if any part is NaN (floats); of +0 and -0 the
//    earlier part's.
// Parts and out need no alignment; out must not overlap a part.
void reduce_in_rank_order(std::span<const std::byte* const> parts, std::byte* out, int64_t count, DType dtype,
                          ReduceOp op);

// An Error (without the "rank r: tag: " prefix) unless `dtype` can be reduced
// (every dtype but bool) and count >= 0.
Status check_reduction(DType dtype, int64_t count);
// An Error unless bytes >= 0.
Status check_bytes(int64_t bytes);
// An Error unless 0 <= r < size.
Status check_rank(int r, int size, std::string_view what);

// "500 ms", "30 s".
std::string format_duration(std::chrono::milliseconds d);
// "rank 1", "ranks 1, 3".
std::string format_ranks(const std::vector<int>& ranks);
// "rank R: TAG: WHAT": every error a communicator returns.
Error rank_error(int rank, std::string_view tag, std::string_view what);
// "timed out after 500 ms waiting for rank 1".
std::string timeout_message(std::chrono::milliseconds timeout, const std::vector<int>& missing);
const char* reduce_op_name(ReduceOp op);

}  // namespace mlc::rt::comm
