#include "passes/optimizer_rules.h"

namespace mlc {

namespace {

bool decays(const OptimizerConfig& c, const Value* param) {
  return c.weight_decay != 0 && (c.decay == "all" || param->type.rank() >= 2);
}

// self + alpha * other (torch's add with alpha; alpha == 1 adds directly).
Value* add_scaled(Builder& b, Value* self, Value* other, Value* alpha) {
  return b.add(self, b.mul(other, alpha));
}

// The gradient as the rules start from it: negated with `maximize`, plus
// weight_decay * param where the group decays this parameter (L2, not AdamW's).
Value* effective_grad(Scalars& k, const OptimizerConfig& c, const Slot& p, bool l2_decay = true) {
  Builder& b = k.b();
  Value* g = c.maximize ? b.unary(OpCode::Neg, p.grad) : p.grad;
  if (l2_decay && decays(c, p.param)) g = add_scaled(b, g, p.param, k.tensor(c.weight_decay));
  return g;
}

// x * value * y, as torch's addcmul evaluates value * x * y.
Value* mul3(Builder& b, Value* x, Value* value, Value* y) { return b.mul(b.mul(x, value), y); }

// An exponential moving average: avg * beta + x * (1 - beta) (mul_ then add_ with alpha).
Value* ema(Scalars& k, Value* avg, double beta, Value* x) {
  return k.b().add(k.b().mul(avg, k.tensor(beta)), k.b().mul(x, k.tensor(1 - beta)));
}

// avg * beta + x * x * (1 - beta) (mul_ then addcmul_).
Value* ema_sq(Scalars& k, Value* avg, double beta, Value* x) {
  return k.b().add(k.b().mul(avg, k.tensor(beta)), mul3(k.b(), x, k.tensor(1 - beta), x));
}

void update_sgd(Scalars& k, const OptimizerConfig& c, Slot& p, Value* neg_lr) {
  Builder& b = k.b();
  Value* d_p = effective_grad(k, c, p);
  if (c.momentum != 0) {
    Value* momentum = k.momentum ? k.to_tensor(k.momentum) : k.tensor(c.momentum);
    Value* buf = p.state[0];
    Value* damped = c.dampening == 0 ? d_p : b.mul(d_p, k.tensor(1 - c.dampening));
    Value* next = b.add(b.mul(buf, momentum), damped);
    // The first step clones d_p (no dampening).
    if (c.dampening != 0) next = b.select(b.compare(k.t(), k.f64(1), "eq"), d_p, next);
    p.new_state = {next};
    d_p = c.nesterov ? add_scaled(b, d_p, next, momentum) : next;
  }
  p.param = add_scaled(b, p.param, d_p, neg_lr);
}

// Adam, AdamW (`decoupled`), with amsgrad's running maximum of exp_avg_sq.
void update_adam(Scalars& k, const OptimizerConfig& c, Slot& p, Value* lr, bool decoupled) {
  Builder& b = k.b();
  Value* param = p.param;
  Value* g = effective_grad(k, c, p, !decoupled);
  if (decoupled && decays(c, param))
    param = b.mul(param, k.to_tensor(b.sub(k.f64(1), b.mul(lr, k.f64(c.weight_decay)))));
  Value* beta1 = k.momentum ? k.momentum : k.f64(c.beta1);
  Value* m = k.momentum ? b.add(b.mul(p.state[0], k.to_tensor(beta1)), b.mul(g, k.to_tensor(b.sub(k.f64(1), beta1))))
                        : ema(k, p.state[0], c.beta1, g);
  Value* v = ema_sq(k, p.state[1], c.beta2, g);
  Value* bc1 = b.sub(k.f64(1), b.binary(OpCode::Pow, beta1, k.t()));
  Value* bc2 = b.sub(k.f64(1), b.binary(OpCode::Pow, k.f64(c.beta2), k.t()));
  Value* neg_step_size = k.to_tensor(b.unary(OpCode::Neg, b.div(lr, bc1)));
  Value* second = v;
  p.new_state = {m, v};
  if (c.amsgrad) {
    second = b.create(OpCode::Max, {p.state[2], v});
    p.new_state.push_back(second);
  }
  Value* denom = b.add(b.div(b.unary(OpCode::Sqrt, second), k.to_tensor(b.unary(OpCode::Sqrt, bc2))), k.tensor(c.eps));
  p.param = b.add(param, b.div(b.mul(m, neg_step_size), denom));
}

void update_rmsprop(Scalars& k, const OptimizerConfig& c, Slot& p, Value* neg_lr) {
  // State order: square_avg, [momentum_buffer], [grad_avg] (see state_specs).
  Builder& b = k.b();
  Value* g = effective_grad(k, c, p);
  Value* old_buf = c.momentum > 0 ? p.state[1] : nullptr;
  Value* old_grad_avg = c.centered ? p.state.back() : nullptr;
  Value* sq = ema_sq(k, p.state[0], c.alpha, g);
  Value* grad_avg = nullptr;
  Value* avg;
  if (c.centered) {
    grad_avg = ema(k, old_grad_avg, c.alpha, g);
    avg = b.unary(OpCode::Sqrt, b.add(sq, mul3(b, grad_avg, k.tensor(-1), grad_avg)));
  } else {
    avg = b.unary(OpCode::Sqrt, sq);
  }
  avg = b.add(avg, k.tensor(c.eps));
  p.new_state = {sq};
  if (old_buf) {
    Value* buf = b.add(b.mul(old_buf, k.tensor(c.momentum)), b.div(g, avg));
    p.new_state.push_back(buf);
    p.param = add_scaled(b, p.param, buf, neg_lr);
  } else {
    p.param = b.add(p.param, b.div(b.mul(g, neg_lr), avg));
  }
  if (grad_avg) p.new_state.push_back(grad_avg);
}

void update_adagrad(Scalars& k, const OptimizerConfig& c, Slot& p, Value* lr) {
  Builder& b = k.b();
  Value* g = effective_grad(k, c, p);
  Value* clr = b.div(lr, b.add(k.f64(1), b.mul(k.s(), k.f64(c.lr_decay))));
  Value* sum = b.add(p.state[0], b.mul(g, g));
  Value* std = b.add(b.unary(OpCode::Sqrt, sum), k.tensor(c.eps));
  p.param = b.add(p.param, b.div(b.mul(g, k.to_tensor(b.unary(OpCode::Neg, clr))), std));
  p.new_state = {sum};
}

void update_adadelta(Scalars& k, const OptimizerConfig& c, Slot& p, Value* neg_lr) {
  Builder& b = k.b();
  Value* g = effective_grad(k, c, p);
  Value* square_avg = ema_sq(k, p.state[0], c.rho, g);
  Value* std = b.unary(OpCode::Sqrt, b.add(square_avg, k.tensor(c.eps)));
  Value* delta = b.mul(b.div(b.unary(OpCode::Sqrt, b.add(p.state[1], k.tensor(c.eps))), std), g);
  Value* acc_delta = ema_sq(k, p.state[1], c.rho, delta);
  p.param = add_scaled(b, p.param, delta, neg_lr);
  p.new_state = {square_avg, acc_delta};
}

void update_adamax(Scalars& k, const OptimizerConfig& c, Slot& p, Value* lr) {
  Builder& b = k.b();
  Value* g = effective_grad(k, c, p);
  Value* m = ema(k, p.state[0], c.beta1, g);
  Value* inf = b.create(OpCode::Max, {b.mul(p.state[1], k.tensor(c.beta2)),
                                      b.add(b.unary(OpCode::Abs, g), k.tensor(c.eps))});
  Value* clr = b.div(lr, b.sub(k.f64(1), b.binary(OpCode::Pow, k.f64(c.beta1), k.t())));
  p.param = b.add(p.param, b.div(b.mul(m, k.to_tensor(b.unary(OpCode::Neg, clr))), inf));
  p.new_state = {m, inf};
}

// NAdam: mu_product is an f32 scalar tensor; its products are f32, read back
// as Python floats (.item()) into the f64 step sizes.
void update_nadam(Scalars& k, const OptimizerConfig& c, Slot& p, Value* lr) {
  Builder& b = k.b();
  Value* g = effective_grad(k, c, p);
  Value* t = k.t();
  auto mu_at = [&](Value* step) {
    Value* decay = b.binary(OpCode::Pow, k.f64(0.96), b.mul(step, k.f64(c.momentum_decay)));
    return b.mul(k.f64(c.beta1), b.sub(k.f64(1), b.mul(k.f64(0.5), decay)));
  };
  Value* mu = mu_at(t);
  Value* mu_next = mu_at(b.add(t, k.f64(1)));
  Value* mu_product = b.mul(p.state[2], k.to_tensor(mu));
  // torch 1.13 multiplies by mu again here.
  Value* mu_product_next = b.mul(b.mul(mu_product, k.to_tensor(mu)), k.to_tensor(mu_next));
  Value* m = ema(k, p.state[0], c.beta1, g);
  Value* v = ema_sq(k, p.state[1], c.beta2, g);
  Value* bc2 = b.sub(k.f64(1), b.binary(OpCode::Pow, k.f64(c.beta2), t));
  Value* denom = b.add(b.unary(OpCode::Sqrt, b.div(v, k.to_tensor(bc2))), k.tensor(c.eps));
  Value* neg_lr = b.unary(OpCode::Neg, lr);
  Value* value1 = b.div(b.mul(neg_lr, b.sub(k.f64(1), mu)), b.sub(k.f64(1), b.cast(mu_product, DType::f64)));
  Value* value2 = b.div(b.mul(neg_lr, mu_next), b.sub(k.f64(1), b.cast(mu_product_next, DType::f64)));
  Value* param = b.add(p.param, b.div(b.mul(g, k.to_tensor(value1)), denom));
  p.param = b.add(param, b.div(b.mul(m, k.to_tensor(value2)), denom));
  p.new_state = {m, v, mu_product};
}

// RAdam: the rectified step where the SMA length rho_t > 5, else the
// bias-corrected momentum alone (both computed, one selected per step).
void update_radam(Scalars& k, const OptimizerConfig& c, Slot& p, Value* lr) {
  Builder& b = k.b();
  Value* g = effective_grad(k, c, p);
  Value* t = k.t();
  Value* m = ema(k, p.state[0], c.beta1, g);
  Value* v = ema_sq(k, p.state[1], c.beta2, g);
  Value* bc1 = b.sub(k.f64(1), b.binary(OpCode::Pow, k.f64(c.beta1), t));
  Value* beta2_t = b.binary(OpCode::Pow, k.f64(c.beta2), t);
  Value* bc2 = b.sub(k.f64(1), beta2_t);
  Value* corrected = b.div(m, k.to_tensor(bc1));
  const double rho_inf = 2 / (1 - c.beta2) - 1;
  Value* rho_t = b.sub(k.f64(rho_inf), b.div(b.mul(b.mul(k.f64(2), t), beta2_t), bc2));
  Value* rect_sq = b.div(b.mul(b.mul(b.sub(rho_t, k.f64(4)), b.sub(rho_t, k.f64(2))), k.f64(rho_inf)),
                         b.mul(k.f64((rho_inf - 4) * (rho_inf - 2)), rho_t));
  Value* rectified = b.select(b.compare(rho_t, k.f64(5), "gt"), rect_sq, k.f64(1));
  Value* rect = b.unary(OpCode::Sqrt, rectified);
  // float / tensor is tensor.reciprocal() * float in torch.
  Value* adaptive_lr = b.mul(b.div(k.tensor(1), b.add(b.unary(OpCode::Sqrt, v), k.tensor(c.eps))),
                             k.to_tensor(b.unary(OpCode::Sqrt, bc2)));
  Value* scaled = b.mul(corrected, k.to_tensor(lr));
  Value* rect_step = b.mul(b.mul(scaled, adaptive_lr), k.to_tensor(rect));
  Value* step = b.select(b.compare(rho_t, k.f64(5), "gt"), rect_step, scaled);
  p.param = add_scaled(b, p.param, step, k.tensor(-1));
  p.new_state = {m, v};
}

}  // namespace

std::vector<StateSpec> state_specs(const OptimizerConfig& c) {
  if (c.type == "sgd") return c.momentum != 0 ? std::vector<StateSpec>{{"momentum_buffer"}} : std::vector<StateSpec>{};
  if (c.type == "adam" || c.type == "adamw") {
    std::vector<StateSpec> specs = {{"exp_avg"}, {"exp_avg_sq"}};
    if (c.amsgrad) specs.push_back({"max_exp_avg_sq"});
    return specs;
  }
  if (c.type == "rmsprop") {
    std::vector<StateSpec> specs = {{"square_avg"}};
    if (c.momentum > 0) specs.push_back({"momentum_buffer"});
    if (c.centered) specs.push_back({"grad_avg"});
    return specs;
  }
  if (c.type == "adadelta") return {{"square_avg"}, {"acc_delta"}};
  if (c.type == "adamax") return {{"exp_avg"}, {"exp_inf"}};
  if (c.type == "nadam") return {{"exp_avg"}, {"exp_avg_sq"}, {"mu_product", true, 1.0}};
  if (c.type == "radam") return {{"exp_avg"}, {"exp_avg_sq"}};
  return {{"sum", false, c.initial_accumulator_value}};  // adagrad
}

void update_parameter(Scalars& k, Slot& p, Value* lr, Value* neg_lr) {
  const OptimizerConfig& c = *p.group;
  const std::string& t = c.type;
  if (t == "sgd") update_sgd(k, c, p, neg_lr);
  else if (t == "adam" || t == "adamw") update_adam(k, c, p, lr, t == "adamw");
  else if (t == "rmsprop") update_rmsprop(k, c, p, neg_lr);
  else if (t == "adadelta") update_adadelta(k, c, p, neg_lr);
  else if (t == "adamax") update_adamax(k, c, p, lr);
  else if (t == "nadam") update_nadam(k, c, p, lr);
  else if (t == "radam") update_radam(k, c, p, lr);
  else update_adagrad(k, c, p, lr);
}

}  // namespace mlc
