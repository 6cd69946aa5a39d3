// The model file's "train.mixed_precision" policy (docs/model-format.md):
//
//   "mixed_precision": "bf16"       autocast in bf16 (torch.autocast("cpu", bfloat16))
//   "mixed_precision": "f16"        autocast in f16 with dynamic loss scaling
//   "mixed_precision": "f32"        off (the default)
//   "mixed_precision": {"param": "f32", "compute": "bf16", "reduce": "f32",
//                       "loss_scale": "dynamic" | "none" | {GradScaler's fields}}
//
// Every mistake is an error at the offending key or value.
#pragma once

#include "frontends/json_doc.h"
#include "ir/model_config.h"

namespace mlc {

Expected<MixedPrecisionConfig> parse_mixed_precision(const JsonDoc& doc, const Node& node);

}  // namespace mlc
