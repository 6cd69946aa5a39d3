// Pipeline stages as programs (docs/architecture.md, Parallelism): the
// model's @loss at one micro-batch, cut into stages (ir/pipeline_stages.h
// pipeline_op_stages), becomes one module per stage (MPMD: each rank runs its
// own stages' programs):
//
//   @forward(<args>..., pipe.in.K {input}...) -> (<sent>...)
//       stages but the last: the stage's ops, returning what it sends on;
//   @loss_grad(<args>..., pipe.in.K {input}..., pipe.out.K.grad {input}...)
//       -> (loss, d<param>..., d pipe.in.K...)
//       the stage's forward again and its backward (passes/autodiff.h), with
//       the gradients of its {param} arguments, then of its float received
//       activations (what it sends back);
//   @loss_grad_input, @loss_grad_weight: @loss_grad split in two for
//       zero-bubble schedules (ir/pipeline_schedule.h I and W): (loss,
//       d pipe.in.K...) and (loss, d<param>...), each recomputing the forward;
//   @eval_forward(<args>..., pipe.in.K {input}...) -> (<sent>...) and, on
//       the last stage, @eval(...) -> @eval's results: @eval cut the same way
//       (its own crossings), for evaluation through the pipeline;
//   @accumulate_grads, @apply_update: the optimizer's update functions
//       (passes/optimizer.h) of the stage's parameters, and with global-norm
//       clipping @grad_norms.
//
// <args> are the arguments of @loss that the stage's ops read, in @loss's
// order. The values crossing cut k (between stages k and k+1) are those an
// op of stage <= k produces and an op of a stage > k reads, in the program
// order of their producers; stage s receives the values crossing cut s-1 as
// pipe.in.0, pipe.in.1, ... and sends those crossing cut s, so stage s's
// result K is stage s+1's pipe.in.K, and a value read two stages on is
// received and sent along by the stage between. Ops without operands
// (constants, iota) are copied into every stage that reads them instead.
//
// Seeding: the last stage's loss is the model's. Another stage's backward
// starts from the gradients of its float sent values, received from the next
// stage as pipe.out.K.grad: its @loss_grad differentiates
//   loss = sum_K sum(sent_K * pipe.out.K.grad),
// whose gradient with respect to sent_K is pipe.out.K.grad exactly (the
// product's derivative times the sum's adjoint 1); that loss value means
// nothing. Integer values cross without a gradient.
//
// Recomputation: @loss_grad recomputes the stage's forward from what it
// received, so between a micro-batch's F and B a stage keeps only its
// received activations (activation checkpointing at stage boundaries), not
// the forward's intermediates.
//
// A parameter read by several stages (tied weights: an embedding and the
// head) is an argument of each; each computes its part of the gradient, and
// the step sums the parts before the stages' identical updates
// (driver/pipeline_step_schedule.h), as Megatron-LM does for its embedding
// group. Global-norm clipping takes the model's norm (passes/optimizer.h
// SplitUpdate: each tensor counted once, by the first stage reading it).
//
// Refused, with the reason: forward buffer updates (BatchNorm's running
// statistics), dynamic loss scaling.
#pragma once

#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"
#include "ir/model_config.h"

namespace mlc {

// Argument names of the stage programs.
std::string pipeline_received_name(size_t k);  // "pipe.in.K"
std::string pipeline_seed_name(size_t k);      // "pipe.out.K.grad"

struct PipelineStageProgram {
  Module module;
  std::vector<TensorType> received;  // pipe.in.K
  std::vector<TensorType> sent;      // @forward's results (none for the last stage)
  std::vector<std::string> shared_params;  // its parameters other stages read too
  // The float received / sent values: those whose gradients go back.
  static bool has_gradient(const TensorType& t);
};

// Stage `stage` of `built`'s @loss and @eval (the module model.build gives
// for one micro-batch) cut before `layers[cuts[k]]` (ir/pipeline_stages.h).
Expected<PipelineStageProgram> build_pipeline_stage(const Module& built, const std::vector<TopLayer>& layers,
                                                    const std::vector<size_t>& cuts, int stage,
                                                    const OptimizerConfig& optimizer);

}  // namespace mlc
