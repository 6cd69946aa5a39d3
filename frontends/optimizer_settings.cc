#include "frontends/optimizer_settings.h"

#include <algorithm>

namespace mlc {

Expected<double> non_negative(const Fields& f, std::string_view key, double dflt) {
  MLC_TRY(double v, f.number(key, dflt));
  if (v < 0) return f.doc().error(*f.get(key), "'" + std::string(key) + "': must be >= 0");
  return v;
}

Expected<double> fraction(const Fields& f, std::string_view key, double dflt) {
  MLC_TRY(double v, f.number(key, dflt));
  if (v < 0 || v >= 1) return f.doc().error(*f.get(key), "'" + std::string(key) + "': must be in [0, 1)");
  return v;
}

namespace {

// A number field in [lo, hi] (`dflt` when absent).
Expected<double> in_range(const Fields& f, std::string_view key, double dflt, double lo, double hi,
                          std::string_view range) {
  MLC_TRY(double v, f.number(key, dflt));
  if (v < lo || v > hi) return f.doc().error(*f.get(key), "'" + std::string(key) + "': must be in " + std::string(range));
  return v;
}

Expected<double> positive_number(const Fields& f, std::string_view key, double dflt) {
  MLC_TRY(double v, f.number(key, dflt));
  if (v <= 0) return f.doc().error(*f.get(key), "'" + std::string(key) + "': must be > 0");
  return v;
}

Status parse_betas(const JsonDoc& doc, const Fields& f, OptimizerConfig& opt) {
  auto betas = f.get("betas");
  if (!betas) return {};
  MLC_CHECK_OK(doc.expect_array(*betas));
  if (betas->json->size() != 2)
    return doc.error(*betas, "'betas': expected two numbers, found " + std::to_string(betas->json->size()));
  double b[2];
  for (size_t i = 0; i < 2; ++i) {
    MLC_TRY(b[i], doc.as_number(betas->element(i)));
    if (b[i] < 0 || b[i] >= 1) return doc.error(betas->element(i), "'betas': each must be in [0, 1)");
  }
  opt.beta1 = b[0];
  opt.beta2 = b[1];
  return {};
}

// PyTorch's defaults of optimizer `type` (SGD has no default lr).
OptimizerConfig torch_defaults(const std::string& type) {
  OptimizerConfig o;
  o.type = type;
  if (type == "adam" || type == "adamw" || type == "radam") o.lr = 1e-3;
  if (type == "adamax" || type == "nadam") o.lr = 2e-3;
  if (type == "rmsprop" || type == "adagrad") o.lr = 1e-2;
  if (type == "adadelta" || type == "lbfgs") o.lr = 1.0;
  if (type == "adamw") o.weight_decay = 0.01;
  if (type == "adagrad") o.eps = 1e-10;
  if (type == "adadelta") o.eps = 1e-6;
  return o;
}

// The fields optimizer `type` takes besides lr, weight_decay and decay.
std::vector<std::string> own_fields(const std::string& t) {
  if (t == "sgd") return {"momentum", "dampening", "nesterov", "maximize"};
  if (t == "adam" || t == "adamw") return {"betas", "eps", "amsgrad", "maximize"};
  if (t == "rmsprop") return {"alpha", "eps", "momentum", "centered", "maximize"};
  if (t == "adagrad") return {"lr_decay", "initial_accumulator_value", "eps", "maximize"};
  if (t == "adadelta") return {"rho", "eps", "maximize"};
  if (t == "adamax") return {"betas", "eps", "maximize"};
  if (t == "nadam") return {"betas", "eps", "momentum_decay"};
  if (t == "lbfgs") return {"max_iter", "max_eval", "tolerance_grad", "tolerance_change", "history_size", "line_search_fn"};
  return {"betas", "eps"};  // radam
}

// torch.optim.LBFGS's settings (its defaults: max_eval = max_iter * 5 / 4).
Status parse_lbfgs(const JsonDoc& doc, const Fields& f, OptimizerConfig& opt) {
  MLC_TRY(opt.max_iter, f.positive("max_iter", 20));
  MLC_TRY(opt.max_eval, f.positive("max_eval", opt.max_iter * 5 / 4));
  MLC_TRY(opt.history_size, f.positive("history_size", 100));
  MLC_TRY(opt.tolerance_grad, non_negative(f, "tolerance_grad", 1e-7));
  MLC_TRY(opt.tolerance_change, non_negative(f, "tolerance_change", 1e-9));
  if (auto fn = f.get("line_search_fn"); fn && !fn->json->is_null()) {
    MLC_TRY(opt.line_search_fn, f.choice("line_search_fn", "", {"strong_wolfe"}));
  }
  if (f.has("weight_decay") || f.has("decay"))
    return doc.key_error(*f.get(f.has("weight_decay") ? "weight_decay" : "decay"),
                         "torch.optim.LBFGS has no weight decay; add it to the loss instead");
  return {};
}

// The settings of `f` over those in `opt` (PyTorch's defaults, or for a
// parameter group the optimizer's): a group takes "params", the optimizer
// "type" and "param_groups".
Status parse_settings(const JsonDoc& doc, const Fields& f, OptimizerConfig& opt, bool group) {
  std::vector<std::string> allowed = own_fields(opt.type);
  auto takes = [&](std::string_view k) { return std::find(allowed.begin(), allowed.end(), k) != allowed.end(); };
  for (const char* k : {"lr", "weight_decay", "decay"}) allowed.push_back(k);
  if (group) {
    allowed.push_back("params");
  } else {
    allowed.push_back("type");
    allowed.push_back("param_groups");
  }
  MLC_CHECK_OK(f.allow(allowed));
  if (!group && opt.type == "sgd" && !f.has("lr")) return f.missing("lr");
  MLC_TRY(opt.lr, non_negative(f, "lr", opt.lr));
  MLC_TRY(opt.weight_decay, non_negative(f, "weight_decay", opt.weight_decay));
  MLC_TRY(opt.decay, f.choice("decay", opt.decay, {"all", "2d"}));
  if (takes("momentum")) {
    MLC_TRY(opt.momentum, non_negative(f, "momentum", opt.momentum));
  }
  if (takes("dampening")) {
    MLC_TRY(opt.dampening, non_negative(f, "dampening", opt.dampening));
  }
  if (takes("nesterov")) {
    MLC_TRY(opt.nesterov, f.boolean("nesterov", opt.nesterov));
  }
  if (takes("maximize")) {
    MLC_TRY(opt.maximize, f.boolean("maximize", opt.maximize));
  }
  if (takes("betas")) MLC_CHECK_OK(parse_betas(doc, f, opt));
  if (takes("eps")) {
    MLC_TRY(opt.eps, non_negative(f, "eps", opt.eps));
  }
  if (takes("amsgrad")) {
    MLC_TRY(opt.amsgrad, f.boolean("amsgrad", opt.amsgrad));
  }
  if (takes("alpha")) {
    MLC_TRY(opt.alpha, fraction(f, "alpha", opt.alpha));
  }
  if (takes("centered")) {
    MLC_TRY(opt.centered, f.boolean("centered", opt.centered));
  }
  if (takes("lr_decay")) {
    MLC_TRY(opt.lr_decay, non_negative(f, "lr_decay", opt.lr_decay));
  }
  if (takes("initial_accumulator_value")) {
    MLC_TRY(opt.initial_accumulator_value, non_negative(f, "initial_accumulator_value", opt.initial_accumulator_value));
  }
  if (takes("rho")) {
    MLC_TRY(opt.rho, in_range(f, "rho", opt.rho, 0, 1, "[0, 1]"));
  }
  if (takes("momentum_decay")) {
    MLC_TRY(opt.momentum_decay, non_negative(f, "momentum_decay", opt.momentum_decay));
  }
  if (takes("max_iter")) MLC_CHECK_OK(parse_lbfgs(doc, f, opt));
  if (opt.nesterov && (opt.momentum <= 0 || opt.dampening != 0))
    return f.has("nesterov") ? doc.error(*f.get("nesterov"), "'nesterov': needs momentum > 0 and dampening 0")
                             : f.doc().error(f.node(), "nesterov needs momentum > 0 and dampening 0");
  return {};
}

// A group's "params": a glob pattern or a non-empty list of them.
Expected<std::vector<std::string>> parse_patterns(const JsonDoc& doc, const Fields& f) {
  if (!f.has("params")) return f.missing("params");
  Node n = *f.get("params");
  std::vector<std::string> patterns;
  if (n.json->is_string()) {
    MLC_TRY(std::string p, doc.as_string(n));
    patterns.push_back(p);
  } else {
    MLC_CHECK_OK(doc.expect_array(n));
    for (size_t i = 0; i < n.json->size(); ++i) {
      MLC_TRY(std::string p, doc.as_string(n.element(i)));
      patterns.push_back(p);
    }
  }
  if (patterns.empty()) return doc.error(n, "'params': expected a name pattern or a non-empty list of them");
  for (size_t i = 0; i < patterns.size(); ++i)
    if (patterns[i].empty()) return doc.error(n, "'params': a pattern must not be empty");
  return patterns;
}

}  // namespace

// PyTorch's defaults per optimizer; fields an optimizer does not take are errors.
Expected<OptimizerConfig> parse_optimizer(const JsonDoc& doc, const Node& node) {
  MLC_TRY(Fields f, Fields::of(doc, node, "'optimizer'"));
  if (!f.has("type")) return f.missing("type");
  MLC_TRY(std::string type, f.choice("type", "", {"sgd", "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax",
                                                  "nadam", "radam", "lbfgs"}));
  OptimizerConfig opt = torch_defaults(type);
  opt.loc = doc.loc(node);
  MLC_CHECK_OK(parse_settings(doc, f, opt, false));
  if (auto groups = f.get("param_groups")) {
    if (type == "lbfgs")
      return doc.key_error(*groups, "torch.optim.LBFGS doesn't support per-parameter options (parameter groups)");
    MLC_CHECK_OK(doc.expect_array(*groups));
    for (size_t i = 0; i < groups->json->size(); ++i) {
      Node g = groups->element(i);
      MLC_TRY(Fields gf, Fields::of(doc, g, "param_groups[" + std::to_string(i) + "]"));
      OptimizerConfig group = opt;
      group.param_groups.clear();
      group.loc = doc.loc(g);
      MLC_TRY(group.params, parse_patterns(doc, gf));
      MLC_CHECK_OK(parse_settings(doc, gf, group, true));
      opt.param_groups.push_back(std::move(group));
    }
  }
  return opt;
}

namespace {

// A list of integers, each >= `min`, strictly increasing.
Expected<std::vector<int64_t>> increasing_integers(const JsonDoc& doc, const Node& n, std::string_view key,
                                                   int64_t min) {
  MLC_CHECK_OK(doc.expect_array(n));
  std::vector<int64_t> values;
  for (size_t i = 0; i < n.json->size(); ++i) {
    MLC_TRY(int64_t v, doc.as_int(n.element(i)));
    if (v < min || (!values.empty() && v <= values.back()))
      return doc.error(n.element(i), "'" + std::string(key) + "': expected increasing integers >= " +
                                         std::to_string(min) + ", found " + std::to_string(v));
    values.push_back(v);
  }
  return values;
}

std::vector<std::string> schedule_fields(const std::string& t) {
  if (t == "linear_warmup") return {"warmup_steps", "start_factor"};
  if (t == "linear") return {"start_factor", "end_factor", "total_iters"};
  if (t == "cosine") return {"total_steps", "warmup_steps", "min_lr"};
  if (t == "step") return {"step_size", "gamma"};
  if (t == "exponential") return {"gamma"};
  if (t == "multistep") return {"milestones", "gamma"};
  if (t == "onecycle")
    return {"max_lr", "total_steps", "pct_start", "anneal_strategy", "div_factor", "final_div_factor",
            "three_phase", "cycle_momentum", "base_momentum", "max_momentum"};
  if (t == "cosine_warm_restarts") return {"T_0", "T_mult", "eta_min"};
  if (t == "sequential") return {"schedules", "milestones"};
  if (t == "chained") return {"schedules"};
  if (t == "plateau")
    return {"mode", "factor", "patience", "threshold", "threshold_mode", "cooldown", "min_lr", "eps", "metric"};
  return {};  // constant
}

Expected<ScheduleConfig> parse_one_schedule(const JsonDoc& doc, const Node& node, bool top);

Status parse_children(const JsonDoc& doc, const Fields& f, ScheduleConfig& s) {
  if (!f.has("schedules")) return f.missing("schedules");
  Node list = *f.get("schedules");
  MLC_CHECK_OK(doc.expect_array(list));
  if (list.json->size() == 0) return doc.error(list, "'schedules': expected at least one schedule");
  for (size_t i = 0; i < list.json->size(); ++i) {
    MLC_TRY(ScheduleConfig child, parse_one_schedule(doc, list.element(i), false));
    if (child.type == "onecycle")
      return doc.error(list.element(i), "'schedules': onecycle sets the lr itself and must be the whole schedule");
    if (s.type == "chained" && !child.multiplicative())
      return doc.error(list.element(i), "'schedules': chained composes schedules that scale the lr by a factor "
                                        "(constant, linear_warmup, linear, step, exponential, multistep, chained), "
                                        "found '" + child.type + "'");
    s.schedules.push_back(std::move(child));
  }
  if (s.type == "sequential") {
    if (!f.has("milestones")) return f.missing("milestones");
    MLC_TRY(s.milestones, increasing_integers(doc, *f.get("milestones"), "milestones", 1));
    if (s.milestones.size() + 1 != s.schedules.size())
      return doc.error(*f.get("milestones"), "'milestones': expected " + std::to_string(s.schedules.size() - 1) +
                                                 " (one fewer than the schedules), found " +
                                                 std::to_string(s.milestones.size()));
  }
  return {};
}

Status parse_one_cycle(const JsonDoc& doc, const Fields& f, ScheduleConfig& s) {
  if (!f.has("max_lr")) return f.missing("max_lr");
  MLC_TRY(s.max_lr, positive_number(f, "max_lr", 0));
  MLC_TRY(s.total_steps, f.positive("total_steps"));
  MLC_TRY(s.pct_start, in_range(f, "pct_start", 0.3, 0, 1, "[0, 1]"));
  MLC_TRY(s.anneal_strategy, f.choice("anneal_strategy", "cos", {"cos", "linear"}));
  MLC_TRY(s.div_factor, positive_number(f, "div_factor", 25));
  MLC_TRY(s.final_div_factor, positive_number(f, "final_div_factor", 1e4));
  MLC_TRY(s.three_phase, f.boolean("three_phase", false));
  MLC_TRY(s.cycle_momentum, f.boolean("cycle_momentum", true));
  MLC_TRY(s.base_momentum, non_negative(f, "base_momentum", 0.85));
  MLC_TRY(s.max_momentum, non_negative(f, "max_momentum", 0.95));
  (void)doc;
  return {};
}

// ReduceLROnPlateau's arguments, with torch's defaults and checks.
Status parse_plateau(const JsonDoc& doc, const Fields& f, ScheduleConfig& s) {
  MLC_TRY(s.mode, f.choice("mode", "min", {"min", "max"}));
  MLC_TRY(s.factor, non_negative(f, "factor", 0.1));
  if (s.factor >= 1) return doc.error(*f.get("factor"), "'factor': must be < 1 (ReduceLROnPlateau multiplies the lr by it)");
  MLC_TRY(s.patience, f.integer("patience", 10));
  if (s.patience < 0) return doc.error(*f.get("patience"), "'patience': must be >= 0");
  MLC_TRY(s.threshold, non_negative(f, "threshold", 1e-4));
  MLC_TRY(s.threshold_mode, f.choice("threshold_mode", "rel", {"rel", "abs"}));
  MLC_TRY(s.cooldown, f.integer("cooldown", 0));
  if (s.cooldown < 0) return doc.error(*f.get("cooldown"), "'cooldown': must be >= 0");
  MLC_TRY(s.min_lr, non_negative(f, "min_lr", 0));
  MLC_TRY(s.plateau_eps, non_negative(f, "eps", 1e-8));
  MLC_TRY(s.metric, f.choice("metric", "loss", {"loss", "accuracy"}));
  return {};
}

Expected<ScheduleConfig> parse_one_schedule(const JsonDoc& doc, const Node& node, bool top) {
  MLC_TRY(Fields f, Fields::of(doc, node, "'schedule'"));
  ScheduleConfig s;
  s.loc = doc.loc(node);
  if (!f.has("type")) return f.missing("type");
  MLC_TRY(s.type, f.choice("type", "", {"constant", "linear_warmup", "linear", "cosine", "step", "exponential",
                                        "multistep", "onecycle", "cosine_warm_restarts", "sequential", "chained",
                                        "plateau"}));
  if (!top && s.type == "plateau")
    return doc.error(*f.get("type"), "plateau steps on an evaluation metric and must be the whole schedule, not one "
                                     "of its 'schedules'");
  if (!top && f.has("interval"))
    return doc.key_error(*f.get("interval"), "'interval' applies to the whole schedule: give it on the outer "
                                             "schedule, not on one of its 'schedules'");
  std::vector<std::string> allowed = schedule_fields(s.type);
  allowed.push_back("type");
  if (top && s.type != "plateau") allowed.push_back("interval");
  MLC_CHECK_OK(f.allow(allowed));
  MLC_TRY(s.interval, f.choice("interval", "step", {"step", "epoch"}));
  const std::string& t = s.type;
  if (t == "linear_warmup") {
    MLC_TRY(s.warmup_steps, f.positive("warmup_steps"));
    MLC_TRY(s.start_factor, f.number("start_factor", 1.0 / 3.0));
    if (s.start_factor <= 0 || s.start_factor > 1)
      return doc.error(*f.get("start_factor"), "'start_factor': must be in (0, 1]");
  } else if (t == "linear") {
    MLC_TRY(s.start_factor, f.number("start_factor", 1.0 / 3.0));
    if (s.start_factor <= 0 || s.start_factor > 1)
      return doc.error(*f.get("start_factor"), "'start_factor': must be in (0, 1]");
    MLC_TRY(s.end_factor, in_range(f, "end_factor", 1.0, 0, 1, "[0, 1]"));
    MLC_TRY(s.total_iters, f.positive("total_iters", 5));
  } else if (t == "step") {
    MLC_TRY(s.step_size, f.positive("step_size"));
    MLC_TRY(s.gamma, non_negative(f, "gamma", 0.1));
  } else if (t == "exponential") {
    if (!f.has("gamma")) return f.missing("gamma");
    MLC_TRY(s.gamma, non_negative(f, "gamma", 0));
  } else if (t == "multistep") {
    if (!f.has("milestones")) return f.missing("milestones");
    MLC_TRY(s.milestones, increasing_integers(doc, *f.get("milestones"), "milestones", 0));
    MLC_TRY(s.gamma, non_negative(f, "gamma", 0.1));
  } else if (t == "cosine") {
    MLC_TRY(s.total_steps, f.positive("total_steps"));
    MLC_TRY(s.warmup_steps, f.integer("warmup_steps", 0));
    if (s.warmup_steps < 0 || s.warmup_steps >= s.total_steps)
      return doc.error(*f.get("warmup_steps"), "'warmup_steps': must be in [0, total_steps)");
    MLC_TRY(s.min_lr, non_negative(f, "min_lr", 0));
  } else if (t == "onecycle") {
    MLC_CHECK_OK(parse_one_cycle(doc, f, s));
  } else if (t == "cosine_warm_restarts") {
    MLC_TRY(s.T_0, f.positive("T_0"));
    MLC_TRY(s.T_mult, f.positive("T_mult", 1));
    MLC_TRY(s.eta_min, non_negative(f, "eta_min", 0));
  } else if (t == "sequential" || t == "chained") {
    MLC_CHECK_OK(parse_children(doc, f, s));
  } else if (t == "plateau") {
    MLC_CHECK_OK(parse_plateau(doc, f, s));
  }
  return s;
}

}  // namespace

Status parse_schedule(const JsonDoc& doc, const Node& node, OptimizerConfig& opt) {
  MLC_TRY(opt.schedule, parse_one_schedule(doc, node, true));
  const ScheduleConfig& s = opt.schedule;
  if (s.type != "onecycle" || !s.cycle_momentum) return {};
  // OneCycleLR cycles SGD's momentum or Adam's beta1; mlc does these.
  const std::string& t = opt.type;
  if (t != "sgd" && t != "adam" && t != "adamw")
    return doc.error(node, "onecycle with cycle_momentum cycles the momentum of sgd or the beta1 of adam and "
                           "adamw; optimizer '" + t + "' is not supported with it: set \"cycle_momentum\": false");
  // The momentum torch's OneCycleLR sets at construction (SGD then keeps a momentum buffer).
  auto start = [&](OptimizerConfig& o) {
    if (t == "sgd") o.momentum = s.max_momentum;
    else o.beta1 = s.max_momentum;
  };
  start(opt);
  for (OptimizerConfig& g : opt.param_groups) start(g);
  return {};
}

}  // namespace mlc
