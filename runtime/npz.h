// numpy's .npz format (numpy.savez, numpy.savez_compressed): a zip archive
// of .npy files (runtime/npy.h), each member an array named after it
// ("x.npy" is the array "x"). Read without Python; zlib inflates deflated
// members.
//
// Reading contract (parse_npz):
//  - The archive is read from its central directory (the end-of-central-
//    directory record, found within the last 65,557 bytes): every member's
//    name, method, sizes, CRC-32 and local header offset; the local header
//    only gives where the data starts. Zip64 fields in a central entry's
//    extra field are read (numpy writes Zip64 local headers); archives past
//    4 GiB (a Zip64 end record) are errors.
//  - Methods: 0 (stored) and 8 (deflated); encrypted members, other methods,
//    and members whose name does not end in ".npy" are errors; directory
//    entries (names ending in '/') are skipped. Each member's data is
//    inflated (at most its declared size: more is an error, as is less) and
//    must match its CRC-32, then is parsed by parse_npy.
//  - Members become tensors in archive order, named by the member's name
//    less ".npy"; a name twice is an error.
//  - Every error starts with "<path>: error: " (for a member's .npy data,
//    "<path>(<member>): error: ") and names the byte offset, what was
//    expected and what was found:
//        "a.npz: error: byte 412: expected a central directory entry (PK\1\2), found 'PK\x03\x04'"
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "runtime/parameters.h"

namespace mlc::rt {

// Parses a whole .npz file held in memory; `path` is only used in messages.
Expected<std::vector<NamedTensor>> parse_npz(std::string_view bytes, const std::string& path);

}  // namespace mlc::rt
