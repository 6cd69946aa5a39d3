// numpy's .npy format (numpy.lib.format, versions 1.0, 2.0 and 3.0), read
// and written without Python: what `mlc data import` reads (docs/data.md).
//
// Layout: the magic "\x93NUMPY", the major and minor version bytes, the
// header's length (u16 little-endian in 1.0, u32 in 2.0 and 3.0), the header
// (a Python dict literal, latin-1, UTF-8 in 3.0, padded with spaces and ended
// by a newline):
//     {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// then the data: prod(shape) elements.
//
// Reading contract (parse_npy):
//  - descr: '<f2', '<f4', '<f8' (f16, f32, f64), '<i4' (i32), '<i8' (i64),
//    '|b1' (bool; every byte 0 or 1), and the narrower or unsigned integers
//    '|i1', '<i2', '|u1', '<u2', '<u4', widened to i64 (mlc has no dtype of
//    their own; i64 is what class targets are). '=' reads as '<' (the host is
//    little-endian). Big-endian data ('>f4'), '<u8' (no lossless mlc dtype),
//    and every other descr (complex, strings, records, objects) are errors
//    naming the descr and what to do.
//  - fortran_order True: the data is read in column-major order and the
//    tensor is row-major, as every mlc tensor.
//  - The header is the dict above and nothing else: the three keys once
//    each, in any order, a trailing comma allowed; shape a tuple of at most
//    kMaxRank non-negative ints whose product is at most kMaxElements. The
//    data is exactly prod(shape) * itemsize bytes.
//  - Every error starts with "<path>: error: " and names the byte offset,
//    what was expected and what was found:
//        "a.npy: error: byte 6: expected format version 1.0, 2.0 or 3.0, found 4.0"
//        "a.npy: error: byte 58: data: expected 48 bytes (shape (3, 4) of '<f4'), found 40"
#pragma once

#include <string>
#include <string_view>

#include "ir/expected.h"
#include "runtime/tensor.h"

namespace mlc::rt {

// Parses a whole .npy file held in memory; `path` is only used in messages.
Expected<Tensor> parse_npy(std::string_view bytes, const std::string& path);

// A .npy file (version 1.0, C order) of `t`, which parse_npy reads back
// bit for bit. bf16 has no numpy dtype: an error.
Expected<std::string> format_npy(const Tensor& t);

}  // namespace mlc::rt
