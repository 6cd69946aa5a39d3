#include "passes/lr_schedule.h"

#include <cmath>

namespace mlc {

namespace {

Value* f64(Builder& b, double v) { return b.scalar(v, DType::f64); }
Value* i64(Builder& b, int64_t v) { return b.scalar(static_cast<double>(v), DType::i64); }
Value* as_f64(Builder& b, Value* s) { return b.cast(s, DType::f64); }

// The factor of a multiplicative schedule at s (i64[]), f64.
Value* factor_at(Builder& b, const ScheduleConfig& sc, Value* s) {
  if (sc.type == "linear_warmup" || sc.type == "linear") {
    const bool warmup = sc.type == "linear_warmup";
    const double total = static_cast<double>(warmup ? sc.warmup_steps : sc.total_iters);
    const double end = warmup ? 1.0 : sc.end_factor;
    Value* progress = b.div(b.create(OpCode::Min, {as_f64(b, s), f64(b, total)}), f64(b, total));
    return b.add(f64(b, sc.start_factor), b.mul(f64(b, end - sc.start_factor), progress));
  }
  if (sc.type == "step")
    return b.binary(OpCode::Pow, f64(b, sc.gamma), as_f64(b, b.div(s, i64(b, sc.step_size))));
  if (sc.type == "exponential") return b.binary(OpCode::Pow, f64(b, sc.gamma), as_f64(b, s));
  if (sc.type == "multistep") {
    // bisect_right(milestones, s): the milestones at or before s.
    Value* passed = f64(b, 0);
    for (int64_t m : sc.milestones)
      passed = b.add(passed, b.select(b.compare(s, i64(b, m), "ge"), f64(b, 1), f64(b, 0)));
    return b.binary(OpCode::Pow, f64(b, sc.gamma), passed);
  }
  if (sc.type == "chained") {
    Value* product = f64(b, 1);
    for (const ScheduleConfig& child : sc.schedules) product = b.mul(product, factor_at(b, child, s));
    return product;
  }
  return f64(b, 1);  // constant
}

// CosineAnnealingLR with linear warmup (ir/model_config.h "cosine").
Value* cosine_at(Builder& b, const ScheduleConfig& sc, double lr, Value* s_i64) {
  Value* s = as_f64(b, s_i64);
  const double w = static_cast<double>(sc.warmup_steps);
  const double span = static_cast<double>(sc.total_steps - sc.warmup_steps);
  Value* s_after = b.create(OpCode::Min, {b.sub(s, f64(b, w)), f64(b, span)});
  Value* cosine = b.unary(OpCode::Cos, b.mul(f64(b, M_PI), b.div(s_after, f64(b, span))));
  Value* decayed = b.add(f64(b, sc.min_lr), b.mul(f64(b, lr - sc.min_lr), b.div(b.add(f64(b, 1), cosine), f64(b, 2))));
  if (sc.warmup_steps == 0) return decayed;
  Value* warm = b.mul(f64(b, lr), b.div(b.add(s, f64(b, 1)), f64(b, w)));
  return b.select(b.compare(s, f64(b, w), "lt"), warm, decayed);
}

// CosineAnnealingWarmRestarts stepped without an epoch argument: T_cur counts
// the steps since the last restart, T_i the current cycle's length.
Value* warm_restarts_at(Builder& b, const ScheduleConfig& sc, double lr, Value* s) {
  Value* t_cur;
  Value* t_i;
  if (sc.T_mult == 1) {
    t_cur = as_f64(b, b.sub(s, b.mul(b.div(s, i64(b, sc.T_0)), i64(b, sc.T_0))));
    t_i = f64(b, static_cast<double>(sc.T_0));
  } else {
    // Cycle k starts at T_0 (T_mult^k - 1) / (T_mult - 1); the cycles
    // starting before 2^40 steps, the latest one s has reached.
    t_cur = as_f64(b, s);
    t_i = f64(b, static_cast<double>(sc.T_0));
    // Lengths in f64 (torch's T_i * T_mult is a Python int; exact here up to 2^53).
    double start = 0, length = static_cast<double>(sc.T_0);
    while (true) {
      start += length;
      length *= static_cast<double>(sc.T_mult);
      if (start > static_cast<double>(int64_t{1} << 40)) break;
      Value* at = i64(b, static_cast<int64_t>(start));
      Value* reached = b.compare(s, at, "ge");
      t_cur = b.select(reached, as_f64(b, b.sub(s, at)), t_cur);
      t_i = b.select(reached, f64(b, length), t_i);
    }
  }
  Value* cosine = b.unary(OpCode::Cos, b.div(b.mul(f64(b, M_PI), t_cur), t_i));
  return b.add(f64(b, sc.eta_min), b.div(b.mul(f64(b, lr - sc.eta_min), b.add(f64(b, 1), cosine)), f64(b, 2)));
}

// OneCycleLR's phases: the lr and momentum each phase anneals between.
struct Phase {
  double end_step, start_lr, end_lr, start_momentum, end_momentum;
};

std::vector<Phase> one_cycle_phases(const ScheduleConfig& sc) {
  const double initial = sc.max_lr / sc.div_factor, min_lr = initial / sc.final_div_factor;
  const double t = static_cast<double>(sc.total_steps);
  const double lo = sc.base_momentum, hi = sc.max_momentum;
  if (sc.three_phase)
    return {{sc.pct_start * t - 1, initial, sc.max_lr, hi, lo},
            {2 * sc.pct_start * t - 2, sc.max_lr, initial, lo, hi},
            {t - 1, initial, min_lr, hi, hi}};
  return {{sc.pct_start * t - 1, initial, sc.max_lr, hi, lo}, {t - 1, sc.max_lr, min_lr, lo, hi}};
}

// torch's _annealing_cos / _annealing_linear from `start` to `end` at pct.
Value* anneal(Builder& b, const ScheduleConfig& sc, double start, double end, Value* pct) {
  if (sc.anneal_strategy == "linear") return b.add(b.mul(f64(b, end - start), pct), f64(b, start));
  Value* cos_out = b.add(b.unary(OpCode::Cos, b.mul(f64(b, M_PI), pct)), f64(b, 1));
  return b.add(f64(b, end), b.mul(f64(b, (start - end) / 2.0), cos_out));
}

// The phase s is in (the first whose end_step >= s, else the last), annealed;
// `momentum` picks the momentum's values instead of the lr's.
Value* one_cycle_at(Builder& b, const ScheduleConfig& sc, Value* s_i64, bool momentum) {
  const std::vector<Phase> phases = one_cycle_phases(sc);
  Value* s = as_f64(b, s_i64);
  Value* value = nullptr;
  for (size_t i = phases.size(); i-- > 0;) {
    const Phase& p = phases[i];
    const double start_step = i == 0 ? 0.0 : phases[i - 1].end_step;
    Value* pct = b.div(b.sub(s, f64(b, start_step)), f64(b, p.end_step - start_step));
    Value* v = momentum ? anneal(b, sc, p.start_momentum, p.end_momentum, pct)
                        : anneal(b, sc, p.start_lr, p.end_lr, pct);
    value = value ? b.select(b.compare(s, f64(b, p.end_step), "le"), v, value) : v;
  }
  return value;
}

Value* lr_at(Builder& b, const ScheduleConfig& sc, double lr, Value* s) {
  if (sc.type == "cosine") return cosine_at(b, sc, lr, s);
  if (sc.type == "cosine_warm_restarts") return warm_restarts_at(b, sc, lr, s);
  if (sc.type == "onecycle") return one_cycle_at(b, sc, s, false);
  if (sc.type == "sequential") {
    // SequentialLR restarts schedules[i] at its milestone: its s counts from there.
    Value* value = lr_at(b, sc.schedules[0], lr, s);
    for (size_t i = 0; i < sc.milestones.size(); ++i) {
      Value* m = i64(b, sc.milestones[i]);
      value = b.select(b.compare(s, m, "ge"), lr_at(b, sc.schedules[i + 1], lr, b.sub(s, m)), value);
    }
    return value;
  }
  if (sc.type == "constant") return f64(b, lr);
  return b.mul(f64(b, lr), factor_at(b, sc, s));
}

}  // namespace

Expected<ScheduledValues> scheduled_values(Builder& b, const OptimizerConfig& config, double base_lr, Value* step) {
  const ScheduleConfig& sc = config.schedule;
  Value* s = b.sub(step, i64(b, 1));
  if (sc.interval == "epoch") {
    if (config.steps_per_epoch <= 0)
      return make_error((sc.loc.known() ? sc.loc.str() + ": " : std::string()) +
                        "error: schedule: \"interval\": \"epoch\" needs the number of steps per epoch, which "
                        "comes from the training data: it is known when training (mlc run), not here");
    s = b.div(s, i64(b, config.steps_per_epoch));
  }
  ScheduledValues v;
  v.lr = lr_at(b, sc, base_lr, s);
  if (sc.type == "onecycle" && sc.cycle_momentum) v.momentum = one_cycle_at(b, sc, s, true);
  return v;
}

}  // namespace mlc
