// The losses of model files, by torch.nn.functional's names, shared by the
// "loss" section (frontends/model_file.cc) and the functional forms of a
// forward (F.cross_entropy(...), frontends/forward_builtins.cc). Each emits
// the loss ops of ir/ops.def; weights that scale the per-element losses
// (binary cross entropy's `weight`) and cross entropy's label smoothing are
// emitted around them, as PyTorch 1.13 computes them.
//
// Contracts:
//  - emit_loss checks what the ops' inference cannot word for the user
//    (targets' dtype, the class dim, a weight's shape) and reports it at `at`
//    as "<what>: expected ..., found ..."; the ops check the rest.
//  - Reductions: "mean", "sum", "none" (kl_div also "batchmean").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/builder.h"

namespace mlc {

// The loss names, in the docs' order (docs/model-format.md, "Losses").
const std::vector<std::string>& loss_names();
// Whether `name` takes class indices as targets (cross_entropy, nll_loss).
bool is_class_index_loss(std::string_view name);
// The number of tensors a loss takes: 3 for cosine_embedding_loss, else 2.
int loss_arity(std::string_view name);

struct LossArgs {
  std::string reduction = "mean";
  Value* weight = nullptr;      // cross_entropy, nll_loss: [C]; binary_cross_entropy(_with_logits): broadcast to the input
  Value* pos_weight = nullptr;  // binary_cross_entropy_with_logits: broadcast to the input
  // Cross entropy and nll_loss: positions whose target is ignore_index count for
  // nothing. The loss section sets it only when given (its targets are checked to
  // be classes otherwise); the functional form always (PyTorch's default -100).
  std::optional<int64_t> ignore_index;
  double label_smoothing = 0;  // cross_entropy, in [0, 1]
  double beta = 1;             // smooth_l1_loss
  double delta = 1;            // huber_loss
  double margin = 0;           // cosine_embedding_loss
  bool log_target = false;     // kl_div
  // Classes along dim 1 of an input [N, C, d1, ...] as torch.nn.functional
  // takes them (the functional form); else along the last dim (the loss section).
  bool class_dim_1 = false;
};

// `tensors`: input and target (cosine_embedding_loss: input1, input2, target).
// `what` names the loss in messages ("loss", "cross_entropy").
Expected<Value*> emit_loss(Builder& b, std::string_view name, const std::vector<Value*>& tensors,
                           const LossArgs& args, const std::string& what, const Loc& at);

}  // namespace mlc
