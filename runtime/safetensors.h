// Reading and writing safetensors files (format version 0, as written by the
// Hugging Face `safetensors` library).
//
// Layout: 8 bytes N (u64 little-endian), then an N-byte UTF-8 JSON header
// (possibly right-padded with spaces), then the data section. The header maps
// each tensor name to {"dtype": "F32", "shape": [..], "data_offsets": [b, e]}
// (byte offsets relative to the data section, end exclusive; data is
// little-endian, row-major) and may hold "__metadata__": {string: string}.
//
// Reading contract:
//  * The whole input is validated before any tensor data is touched or any
//    buffer is sized from it: header length (at most 100 MB and inside the
//    file), UTF-8, JSON syntax, no duplicate keys, exact field sets, dtype,
//    shape (non-negative, at most kMaxElements elements), offsets (inside the
//    data section, size == elements * itemsize, no overlaps), __metadata__
//    (string -> string), and BOOL bytes (0 or 1).
//  * Every failure is an Error whose message starts with "<path>: ".
//  * Dtypes that mlc has no DType for (U8, I8, I16, U16, U32, U64, C64, F8_*,
//    F4, F6_*) are validated like the others and kept as entries with
//    supported == false and no data; only asking for such a tensor with
//    SafetensorsFile::get fails. Unknown dtype strings make the file invalid.
//  * Gaps between tensors and bytes after the last tensor are tolerated
//    (oracle/st.py pads between tensors for alignment; the Hugging Face
//    reader rejects gaps, so mlc's writer never produces them).
//
// Writing contract:
//  * Compact JSON header: the tensors in data order, then "__metadata__"
//    (omitted when empty); padded with spaces so that 8 + N is a multiple of 8.
//    For all-ASCII names and metadata this is byte-identical to what
//    oracle/st.py writes whenever that needs no alignment gaps.
//  * Tensors are stored back to back with no gaps, each starting at a multiple
//    of its element size. They are in the given order when that order allows
//    this (always when all tensors have one dtype, or when element sizes do not
//    increase along it); otherwise the order is stably sorted by descending
//    element size, as the reference writer does. Gaps are avoided because the
//    reference reader (Hugging Face safetensors) rejects files that have them.
//  * The file is written atomically: to "<path>.tmp.<pid>", fsync'ed, renamed
//    over `path`, then the directory is fsync'ed. On failure before the rename
//    the temporary file is removed and `path` is untouched. If only the final
//    directory sync fails, `path` has been replaced and an error is returned.
//
// The host must be little-endian (checked at compile time).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "ir/expected.h"
#include "ir/types.h"
#include "runtime/tensor.h"

namespace mlc::rt {

struct SafetensorsEntry {
  std::string name;
  std::string file_dtype;  // as spelled in the file: "F32", "U8", ...
  Shape shape;
  bool supported = false;  // file_dtype maps to an mlc DType
  Tensor tensor;           // the data; empty (default) when !supported
};

struct SafetensorsFile {
  std::string path;
  std::vector<SafetensorsEntry> entries;  // sorted by data offset (file order)
  std::vector<std::pair<std::string, std::string>> metadata;  // __metadata__, header order
  std::unordered_map<std::string, size_t> index;  // name -> position in entries

  // The entry called `name`, or nullptr (hashed: `index` must list `entries`,
  // as parse_safetensors makes it).
  const SafetensorsEntry* find(std::string_view name) const;
  // The tensor called `name`; an Error if there is none or its dtype is unsupported.
  Expected<const Tensor*> get(std::string_view name) const;
};

// Reads and validates a whole file.
Expected<SafetensorsFile> read_safetensors(const std::string& path);
// Parses and validates a file held in memory; `path` is only used in messages.
Expected<SafetensorsFile> parse_safetensors(std::string_view bytes, const std::string& path);

// Writes `tensors` (each non-null and non-empty, names unique and not
// "__metadata__") and `metadata` (keys unique) to `path`; see the contract above.
Status write_safetensors(const std::string& path,
                         const std::vector<std::pair<std::string, const Tensor*>>& tensors,
                         const std::vector<std::pair<std::string, std::string>>& metadata = {});

// The safetensors spelling of a dtype: "F32", "F64", "BF16", "F16", "I32", "I64", "BOOL".
std::string_view safetensors_dtype_name(DType t);

}  // namespace mlc::rt
