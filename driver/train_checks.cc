#include "driver/train.h"

namespace mlc {

Status check_global_batch(const ModelConfig& config, int64_t data_ranks, const std::string& mesh) {
  const int64_t batch = config.train.batch_size;
  const std::string w = std::to_string(data_ranks);
  if (data_ranks > 0 && batch % data_ranks)
    return make_error(config.path + ": error: train.batch_size is the global batch, split over the " + w +
                      " data-parallel ranks of mesh " + mesh + ": it must divide by " + w + ", got " +
                      std::to_string(batch));
  return {};
}

Status check_data_ranks(const ModelConfig& config, int64_t n, int64_t data_ranks, const std::string& mesh,
                        const std::string& data_path) {
  const int64_t batch = config.train.batch_size;
  const std::string w = std::to_string(data_ranks);
  MLC_CHECK_OK(check_global_batch(config, data_ranks, mesh));
  // A last partial batch must split evenly: it has n % batch examples, and
  // n % batch % W == n % W. Else DistributedSampler would pad it with repeats,
  // which one device does not train on.
  if (!config.train.drop_last && n % data_ranks)
    return make_error(data_path + ": error: the training split has " + std::to_string(n) +
                      " examples, which do not divide by the " + w + " data-parallel ranks of mesh " + mesh +
                      ": the last partial batch of every epoch (" + std::to_string(n % batch) +
                      " examples) cannot split evenly; set \"drop_last\": true in \"train\", or use a training "
                      "split whose size divides by " + w);
  return {};
}

Status check_grad_accumulation(const ModelConfig& config, int64_t n, int64_t k, bool from_flag,
                               const std::string& mesh, const std::string& data_path) {
  const int64_t batch = config.train.batch_size;
  const std::string what = from_flag ? "--grad-accum " + std::to_string(k)
                                     : "train.grad_accumulation_steps " + std::to_string(k);
  if (k < 1) return make_error(config.path + ": error: " + what + ": must be >= 1");
  if (batch % k)
    return make_error(config.path + ": error: " + what + " must divide train.batch_size " + std::to_string(batch) +
                      " (each step takes " + std::to_string(k) + " micro-batches of equal size)");
  if (k == 1) return {};
  if (!mesh.empty())
    return make_error(config.path + ": error: " + what + " with --mesh " + mesh +
                      ": gradient accumulation is not supported on a mesh yet; train on one device, or set it to 1");
  if (config.train.mixed_precision.loss_scale.enabled)
    return make_error(config.path + ": error: " + what + " with dynamic loss scaling (train.mixed_precision with "
                      "f16) is not supported; set it to 1");
  if (!config.train.drop_last && n % batch % k)
    return make_error(data_path + ": error: the training split has " + std::to_string(n) +
                      " examples: the last partial batch of every epoch (" + std::to_string(n % batch) +
                      " examples) does not split into the " + std::to_string(k) + " micro-batches of " + what +
                      "; set \"drop_last\": true in \"train\", or use a training split whose last batch does");
  return {};
}

Status check_phases(const ModelConfig& config, const TrainOptions& o, const std::string& mesh) {
  if (config.train.phases.empty()) return {};
  auto refuse = [&](const std::string& what) {
    return make_error(config.path + ": error: " + what + " is not supported with train.phases");
  };
  if (!mesh.empty()) return refuse("--mesh " + mesh + " (training in phases runs on one device)");
  if (o.grad_accumulation_steps && *o.grad_accumulation_steps > 1) return refuse("--grad-accum");
  if (!o.dump_grads_path.empty()) return refuse("--dump-grads");
  if (o.grad_stats_every && *o.grad_stats_every > 0) return refuse("--grad-stats-every");
  return {};
}

}  // namespace mlc
