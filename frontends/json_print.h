// Writes a model file's DOM as JSON laid out as people write model files (`mlc
// convert model.mlc -o model.json`): small objects and lists on one line
// (`{"type": "Linear", "in_features": 64, "out_features": 10}`), containers and
// sections one member per line, two-space indents. JsonDoc::parse of the text
// gives the same DOM, members in the same order.
#pragma once

#include <string>

#include "frontends/json_doc.h"

namespace mlc {

std::string print_model_json(const Json& root);

}  // namespace mlc
