// train.accumulate K: an optimizer step over K whole batches, PyTorch's
//
//   for epoch in range(epochs):
//       opt.zero_grad()
//       for i, (x, y) in enumerate(loader):        # batches of batch_size
//           (criterion(model(x), y) / K).backward()
//           if (i + 1) % K == 0:
//               opt.step(); sched.step(); opt.zero_grad()
//
// It is gradient accumulation's step schedule (driver/step_schedule.h) over
// a step batch of K * batch_size rows split into K micro-batches of
// batch_size: the same rows, order and arithmetic as the loop above. An
// epoch has floor(batches / K) optimizer steps (schedules and "steps" count
// these); its last batches % K batches fill no step and are not run: the
// loop's zero_grad at the epoch's start discards their gradients, and their
// forward passes change nothing a model without forward buffers keeps (a
// model with BatchNorm's running statistics is refused when an epoch has
// such batches, since PyTorch's forward would update them).
#pragma once

#include <cstdint>
#include <string>

#include "driver/train.h"

namespace mlc {

// Makes `s` (its batch, steps per epoch and grad_accumulation_steps already
// set from train.batch_size) take K = train.accumulate batches per step: an
// Error naming the model or data file where the settings conflict
// (--grad-accum or train.grad_accumulation_steps > 1, a mesh, dynamic loss
// scaling, fewer than K batches per epoch, a partial last batch inside a
// step, BatchNorm-like buffers with batches left over). K = 1 changes nothing.
Status apply_accumulate(const ModelConfig& config, int64_t n, const TrainOptions& o, const std::string& mesh,
                        const std::string& data_path, TrainSetup& s);

}  // namespace mlc
