#include "driver/accumulate.h"

#include <algorithm>

namespace mlc {

Status apply_accumulate(const ModelConfig& config, int64_t n, const TrainOptions& o, const std::string& mesh,
                        const std::string& data_path, TrainSetup& s) {
  const TrainConfig& tc = config.train;
  const int64_t k = tc.accumulate, batch = tc.batch_size;
  if (k == 1) return {};
  const std::string what = "train.accumulate " + std::to_string(k);
  if (o.grad_accumulation_steps && *o.grad_accumulation_steps > 1)
    return make_error(config.path + ": error: --grad-accum " + std::to_string(*o.grad_accumulation_steps) + " with " +
                      what + ": give one of them (accumulate takes K whole batches per step, --grad-accum splits "
                      "each batch into micro-batches)");
  if (!mesh.empty())
    return make_error(config.path + ": error: " + what + " with --mesh " + mesh +
                      ": gradient accumulation is not supported on a mesh yet; train on one device");
  if (tc.mixed_precision.loss_scale.enabled)
    return make_error(config.path + ": error: " + what + " with dynamic loss scaling (train.mixed_precision with "
                      "f16) is not supported");
  const int64_t batches = tc.drop_last ? n / batch : (n + batch - 1) / batch;
  if (batches < k)
    return make_error(data_path + ": error: the training split has " + std::to_string(n) + " examples, " +
                      std::to_string(batches) + " batches of " + std::to_string(batch) + ": fewer than the " +
                      std::to_string(k) + " batches of one optimizer step of " + what);
  const int64_t left = batches % k;
  if (!tc.drop_last && n % batch && left == 0)
    return make_error(data_path + ": error: the training split has " + std::to_string(n) +
                      " examples: the last batch of every epoch (" + std::to_string(n % batch) +
                      " examples) is partial and would be one of an optimizer step's " + std::to_string(k) +
                      " batches of " + what + "; set \"drop_last\": true in \"train\"");
  if (left > 0 && std::any_of(config.params.begin(), config.params.end(), [](const ParamInfo& p) { return p.buffer; }))
    return make_error(config.path + ": error: " + what + ": each epoch's last " + std::to_string(left) +
                      " batches fill no optimizer step and are not run, but the model has forward buffers "
                      "(BatchNorm's running statistics) that PyTorch's forward would update on them; use a "
                      "training split whose batches per epoch (" + std::to_string(batches) + ") divide by " +
                      std::to_string(k));
  s.batch = batch * k;
  s.grad_accumulation_steps = k;
  s.steps_per_epoch = batches / k;
  return {};
}

}  // namespace mlc
