// The non-model sections of a model file: "inputs", "loss", "data", "train".
// Each parser validates its section (docs/model-format.md) and reports errors at
// the offending key or value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontends/json_doc.h"
#include "ir/model_config.h"

namespace mlc {

// Every input's shape has at most one "batch" dim (stored as -1) and, with
// batch = 1, at most 2^40 elements.
Expected<std::vector<InputInfo>> parse_inputs(const JsonDoc& doc, const Node& node);

// The "loss" section (docs/model-format.md, "Losses"): a loss of the model's
// output and an input, by torch.nn.functional's name, or "output": the model's
// output is the loss (a forward that computes it, e.g. a VAE's BCE + KL).
struct LossSpec {
  std::string type;       // a loss_names() entry, "mse" (mse_loss), or "output"
  std::string targets;    // an input name ("" for "output")
  std::string reduction;  // "mean" | "sum" (kl_div: also "batchmean")
  // Constant tensors as numbers: cross_entropy/nll_loss class weights [C];
  // binary_cross_entropy(_with_logits) weight and pos_weight, along the last dim.
  std::vector<double> weight, pos_weight;
  Loc weight_loc, pos_weight_loc;
  std::optional<int64_t> ignore_index;
  double label_smoothing = 0, beta = 1, delta = 1;
  bool log_target = false;
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
