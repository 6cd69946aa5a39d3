// The training data's steps per epoch without training (`mlc ir`): what a
// schedule stepping per epoch (OptimizerConfig::steps_per_epoch) needs.
#pragma once

#include <cstdint>

#include "ir/expected.h"
#include "ir/model_config.h"

namespace mlc {

// The model file's training split in batches of train.batch_size (drop_last
// as the run does); an error names the data file when it cannot be read.
Expected<int64_t> data_steps_per_epoch(const ModelConfig& config);

}  // namespace mlc
