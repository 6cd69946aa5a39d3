// optimizer_rules: torch 1.13's single-tensor update rules, op for op, for one
// parameter (passes/optimizer.h builds the functions around them).
//
// Scalars follow torch's arithmetic: Python floats are f64, a Python float
// used with an f32 tensor is rounded to f32 first; tensor state is f32. In an
// f64 model (model.double()) the tensors are f64, and what is f32 here is f64.
#pragma once

#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/model_config.h"

namespace mlc {

// One parameter's update: its value, gradient and state slots.
struct Slot {
  Value* param;
  Value* grad;
  Value* grad_source_param = nullptr;  // the parameter argument (param is replaced by its update)
  std::vector<Value*> state;      // state arguments, in state_specs order
  std::vector<Value*> new_state;  // results, same order
  const OptimizerConfig* group = nullptr;  // the settings of its parameter group
};

// Scalars of the update, built once per step. `step` counts the train steps
// (the schedule's clock); `opt_step` the updates the optimizer took (its own
// `state["step"]`), which lags behind when loss scaling skips steps.
class Scalars {
 public:
  // `tensors`: the parameters' dtype (f32, or f64 for an f64 model).
  Scalars(Builder& b, Value* step, Value* opt_step, DType tensors = DType::f32)
      : b_(b), step_(step), opt_step_(opt_step), tensors_(tensors) {}
  Value* f64(double v) { return b_.scalar(v, DType::f64); }
  // Python float `v` used with a tensor of the parameters' dtype (f32 unless
  // the model is f64): rounded to it; and a scalar cast to that dtype.
  Value* tensor(double v) { return b_.scalar(v, tensors_); }
  Value* to_tensor(Value* v) { return b_.cast(v, tensors_); }
  Value* t() { return b_.cast(opt_step_, DType::f64); }  // 1-based optimizer step, f64
  Value* s() { return b_.sub(t(), f64(1)); }              // 0-based optimizer step, f64
  Value* step() { return step_; }
  Builder& b() { return b_; }
  // OneCycleLR's cycled momentum / beta1 (f64), or nullptr.
  Value* momentum = nullptr;

 private:
  Builder& b_;
  Value* step_;
  Value* opt_step_;
  DType tensors_;
};

// An optimizer state tensor, named as in `optimizer.state_dict()`: the
// parameter's shape, or a scalar (NAdam's mu_product), and its initial value.
struct StateSpec {
  std::string name;
  bool scalar = false;
  double initial = 0;
};

// State per optimizer, in the order of torch's state (without "step").
std::vector<StateSpec> state_specs(const OptimizerConfig& c);

// Sets p.param and p.new_state to the update of p by its group's optimizer,
// with the learning rate `lr` (f64[]) and `neg_lr` = -lr in the parameters' dtype, built once per group.
void update_parameter(Scalars& k, Slot& p, Value* lr, Value* neg_lr);

}  // namespace mlc
