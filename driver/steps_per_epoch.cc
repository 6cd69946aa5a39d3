#include "driver/steps_per_epoch.h"

#include "runtime/dataset.h"
#include "runtime/safetensors.h"

namespace mlc {

Expected<int64_t> data_steps_per_epoch(const ModelConfig& config) {
  const TrainConfig& tc = config.train;
  if (config.data.file.empty() || tc.batch_size < 1)
    return make_error(config.path + ": error: no data file or batch size to count an epoch's steps");
  MLC_TRY(rt::SafetensorsFile data, rt::read_safetensors(config.data.file));
  MLC_TRY(rt::Split split, rt::Split::load(data, config.data.train, config.inputs, "train"));
  const int64_t n = split.num_examples(), batch = tc.batch_size;
  return tc.drop_last ? n / batch : (n + batch - 1) / batch;
}

}  // namespace mlc
