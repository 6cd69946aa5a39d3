// What `mlc run` says when a training step's loss is not finite: the run stops
// there, naming the step and where the first non-finite value came from, the
// way torch.autograd.detect_anomaly points at the op that made a NaN.
//
// Contract: explain_non_finite_loss returns one message, e.g.
//   "step 58 (epoch 2): the loss is nan; the first non-finite value of the
//    forward pass is the result of exp at model.json:12:9 (layer 'attn')"
// Where it looks, in order: the batch (an input holding NaN or Inf is named),
// the parameters the step started from (the ones holding non-finite values are
// named: an earlier update made them), then the forward pass @loss run by the
// reference interpreter on that batch and those parameters, op by op, to the
// first op whose result holds a NaN or an Inf (its op name after
// decomposition, location and layer). Without the model's IR (an artifact, a
// mesh) it says so instead of guessing.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/model_config.h"
#include "runtime/parameters.h"
#include "runtime/tensor.h"

namespace mlc {

// Whether a tensor of a float dtype holds a NaN or an Inf (other dtypes: false).
bool has_non_finite(const rt::Tensor& t);

// `forward`: the model's @loss for this batch, or nullptr when there is none.
// `inputs` in config.inputs order; `step_counter` the step argument the train
// step got (Dropout's masks derive from it: the replay draws the same ones);
// `params_before` by state_dict name.
std::string explain_non_finite_loss(const ModelConfig& config, const Function* forward,
                                    int64_t step, int64_t epoch, double loss,
                                    const std::vector<rt::Tensor>& inputs, const rt::Tensor* step_counter,
                                    const std::vector<rt::NamedTensor>& params_before);

}  // namespace mlc
