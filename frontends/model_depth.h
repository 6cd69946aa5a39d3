// A model file at another depth: the same file with each top-level repeat
// ("layers": {"h": {"repeat": 12, "block": ...}}) holding `copies` copies of
// its block, for costing a deep model from shallow ones (driver/plan_search.h:
// the plan search costs a repeat's block once and multiplies).
//
// Contracts:
//  - `text` and `path` are a model file's (JSON or the model language), as
//    ModelFile::load reads it; the result is that model with every repeat of
//    the top-level model (the model itself, or a member of its "layers")
//    set to `copies` >= 1, and the "parallel" section without "mesh", "zero"
//    and "pipeline" (whose cuts may name copies it no longer has). Nested
//    repeats (inside a block) are kept.
//  - Its path, in its messages, is "<path> (at depth <copies>)".
//  - Errors are ModelFile::parse's (the text must be a valid model file).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "frontends/model_file.h"

namespace mlc {

// How many copies the top-level repeats of `text` hold; 0 when it has none,
// -1 when they differ.
Expected<int64_t> model_repeat_copies(std::string_view text, const std::string& path);

Expected<ModelFile> model_at_depth(std::string_view text, const std::string& path, int64_t copies);

}  // namespace mlc
