// A model file's "init" section: torch.nn.init functions applied to the
// parameters whose names (or whose layer's path) a glob pattern matches,
// after every default initialization (docs/model-format.md, "init").
//
// Contracts: the section is an object, pattern -> rule, in order; a parameter
// takes the rule of the first pattern that matches it, and every pattern must
// match a parameter (buffers are not parameters). A rule is a function's name
// ("zeros_") or an object {"type": name, arguments...} with torch's argument
// names and defaults. Bounds, deviations and gains are computed here in double
// as torch.nn.init computes them in Python, and stored in
// ParamInfo::explicit_init for the runtime to draw. Errors point at the key or
// value and say what was expected.
#pragma once

#include <vector>

#include "frontends/json_doc.h"
#include "ir/model_config.h"

namespace mlc {

Status parse_init_section(const JsonDoc& doc, const Node& node, std::vector<ParamInfo>& params);

}  // namespace mlc
