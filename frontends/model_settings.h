// The non-model sections of a model file: "inputs", "loss", "data", "train".
// Each parser validates its section (docs/model-format.md) and reports errors at
// the offending key or value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontends/json_doc.h"
#include "ir/model_config.h"

namespace mlc {

// Every input's shape has at most one "batch" dim (stored as -1) and, with
// batch = 1, at most 2^40 elements.
Expected<std::vector<InputInfo>> parse_inputs(const JsonDoc& doc, const Node& node);

struct LossSpec {
  std::string type;       // "cross_entropy" | "mse"
  std::string targets;    // an input name
  std::string reduction;  // "mean" | "sum"
  Loc loc;
};
Expected<LossSpec> parse_loss(const JsonDoc& doc, const Node& node,
                              const std::vector<InputInfo>& inputs);

// `model_path`: the model file as given; data.file is resolved relative to its
// directory. Every input must be mapped in each split; "eval" defaults to "train".
Expected<DataConfig> parse_data(const JsonDoc& doc, const Node& node,
                                const std::vector<InputInfo>& inputs,
                                const std::string& model_path);

// One mapping string: `name` or `name[a:b, :, c:]` (Python slices without steps
// or integer indices). Errors point at the column inside the JSON string.
Expected<InputMapping> parse_tensor_spec(const JsonDoc& doc, const Node& node);

Expected<TrainConfig> parse_train(const JsonDoc& doc, const Node& node);

}  // namespace mlc
