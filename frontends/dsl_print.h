// Writes a model file in the model language (`mlc convert model.json -o
// model.mlc`; docs/model-language.md).
//
// Contract: for the DOM of any model file (JSON's or the language's own),
// parse_model_language(print_model_language(root)) gives the same values
// under the same keys, with layers, list elements and statements in the same
// order; only the order of a container's own fields ("inputs", "layers",
// "forward", "trainable") and of a call's arguments may differ. Comments are
// not part of the DOM and are not kept. Layers and optimizers print as calls
// (`Linear(64, 10, bias=False)`, positional where PyTorch's constructor takes
// the sizes positionally), containers as blocks with their inputs in the
// header, forward statements one per line, inputs as `x: f32[batch, 8]`.
#pragma once

#include <string>

#include "frontends/json_doc.h"

namespace mlc {

std::string print_model_language(const Json& root);

}  // namespace mlc
