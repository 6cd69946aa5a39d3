// Kernel IR (compiler/kernel_ir.h) as JSON: what `mlc compile` stores beside
// each kernel object of an artifact (rt::ObjectFile::source), so that
// `mlc run --verify-code` can check the object against the code its kernel IR
// compiles to (driver/verify_code.h).
//
// The text is one object:
//   {"domain": [4, 10], "root": 7, "more_roots": [], "params": ["f32", "f32"],
//    "num_vars": 2, "elementwise_input": [true], "output_alias": -1,
//    "more_alias": [], "exprs": [{"kind": "var"}, {"kind": "var", "i": 1}, ...]}
// Each expression names its kind (kir::kind_name) and the fields of kir::Expr
// that differ from a default Expr: "dtype" (ir/dtype.h's name), "op" (the op
// table's name), "dir" (eq, ne, lt, le, gt, ge), "a", "b", "c", "i", "f" (a
// number, or for infinities and NaNs its IEEE bits as "0x" and 16 hex digits),
// "var0", "extents". A scatter_add kernel has "scatter": {"domain", "var0",
// "value", "row", "at"} (kir::Kernel::Scatter). The kernel's name and origin
// are not part of it.
//
// Contracts:
//  - kernel_from_json(kernel_to_json(k)) equals k in every field but name,
//    origin and index_checks (which come back empty: the executable carries
//    the checks); in particular kir::signature is the same.
//  - kernel_from_json accepts any bytes: anything but such a text is an Error
//    naming the field ("exprs[12].a: ..."), what was expected and what was
//    found, quoting at most a few dozen bytes of the input. It checks the form
//    of every field: the JSON types, enum names (kind, dtype, op, dir) that
//    exist, operands that are -1 or earlier expressions, root and more_roots
//    among the expressions, list lengths that agree (params: the inputs and
//    one per output; elementwise_input: one per input; more_alias: one per
//    further output), aliases that are -1 or an input, counts within the
//    limits below. What the expressions mean (kinds, dtypes, variables,
//    bounds) is kir::verify_kernel's (compiler/kernel_ir_verify.h).
//  - It never allocates more than a small multiple of the text's size.
#pragma once

#include <string>
#include <string_view>

#include "compiler/kernel_ir.h"
#include "ir/expected.h"

namespace mlc::kir {

// At most this many expressions, domain dims and reduction extents per kernel.
inline constexpr int64_t kMaxJsonExprs = int64_t{1} << 20;
inline constexpr int64_t kMaxJsonRank = 64;

std::string kernel_to_json(const Kernel& k);
Expected<Kernel> kernel_from_json(std::string_view text);

}  // namespace mlc::kir
