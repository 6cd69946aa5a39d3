// The training-loop settings of docs/model-format.md `train`: accumulate
// (K batches per optimizer step), schedule "plateau" (ReduceLROnPlateau) and
// optimizer "lbfgs": both forms give the same settings with PyTorch's
// defaults, the model language prints and reads them back, and mistakes are
// reported at the field.
#include <gtest/gtest.h>

#include "frontends/dsl_parse.h"
#include "frontends/dsl_print.h"
#include "frontends/model_file.h"

namespace mlc {
namespace {

constexpr const char* kHead = R"(name = m
inputs:
    x: f32[batch, 2]
    y: f32[batch, 1]
model = Linear(2, 1)
loss = mse(targets=y)
train:
    batch_size = 8; steps = 2
)";

constexpr const char* kJsonHead = R"({"name": "m",
 "inputs": {"x": {"dtype": "f32", "shape": ["batch", 2]}, "y": {"dtype": "f32", "shape": ["batch", 1]}},
 "model": {"type": "Linear", "in_features": 2, "out_features": 1},
 "loss": {"type": "mse", "targets": "y"},
 "train": {"batch_size": 8, "steps": 2, )";

TrainConfig both(const std::string& mlc, const std::string& json) {
  auto dsl = ModelFile::parse(std::string(kHead) + mlc, "m.mlc");
  EXPECT_TRUE(dsl.ok()) << dsl.error().message;
  auto js = ModelFile::parse(std::string(kJsonHead) + json + "}}", "m.json");
  EXPECT_TRUE(js.ok()) << js.error().message;
  auto doc = parse_model_language(std::string(kHead) + mlc, "m.mlc");
  EXPECT_TRUE(doc.ok());
  const std::string printed = print_model_language(*doc->root().json);
  auto again = ModelFile::parse(printed, "printed.mlc");
  EXPECT_TRUE(again.ok()) << again.error().message << "\n" << printed;
  if (!dsl.ok() || !js.ok() || !again.ok()) return {};
  const TrainConfig a = dsl->config().train, b = js->config().train, c = again->config().train;
  EXPECT_EQ(a.accumulate, b.accumulate);
  EXPECT_EQ(a.accumulate, c.accumulate);
  for (const TrainConfig* t : {&b, &c}) {
    const ScheduleConfig &s = a.optimizer.schedule, &u = t->optimizer.schedule;
    EXPECT_EQ(std::tie(s.type, s.mode, s.threshold_mode, s.metric, s.factor, s.threshold, s.plateau_eps, s.patience,
                       s.cooldown, s.min_lr),
              std::tie(u.type, u.mode, u.threshold_mode, u.metric, u.factor, u.threshold, u.plateau_eps, u.patience,
                       u.cooldown, u.min_lr));
    const OptimizerConfig &o = a.optimizer, &p = t->optimizer;
    EXPECT_EQ(std::tie(o.type, o.lr, o.max_iter, o.max_eval, o.history_size, o.tolerance_grad, o.tolerance_change,
                       o.line_search_fn),
              std::tie(p.type, p.lr, p.max_iter, p.max_eval, p.history_size, p.tolerance_grad, p.tolerance_change,
                       p.line_search_fn));
  }
  return a;
}

TEST(TrainLoopSettings, AccumulateInBothForms) {
  TrainConfig t = both("    accumulate = 3\n    optimizer = sgd(lr=0.1)\n",
                       R"("accumulate": 3, "optimizer": {"type": "sgd", "lr": 0.1})");
  EXPECT_EQ(t.accumulate, 3);
  EXPECT_EQ(t.grad_accumulation_steps, 1);
}

TEST(TrainLoopSettings, PlateauInBothFormsWithTorchDefaults) {
  TrainConfig t = both("    optimizer = sgd(lr=0.1)\n    schedule = plateau(mode=\"max\", metric=\"accuracy\", "
                       "factor=0.5, threshold_mode=\"abs\", cooldown=2, min_lr=0.001, eps=1e-9)\n",
                       R"("optimizer": {"type": "sgd", "lr": 0.1}, "schedule": {"type": "plateau", "mode": "max",
                           "metric": "accuracy", "factor": 0.5, "threshold_mode": "abs", "cooldown": 2,
                           "min_lr": 0.001, "eps": 1e-9})");
  const ScheduleConfig& s = t.optimizer.schedule;
  EXPECT_EQ(s.type, "plateau");
  EXPECT_EQ(s.mode, "max");
  EXPECT_EQ(s.factor, 0.5);
  EXPECT_EQ(s.patience, 10);  // torch's defaults
  EXPECT_EQ(s.threshold, 1e-4);
  EXPECT_EQ(s.plateau_eps, 1e-9);
  TrainConfig d = both("    optimizer = sgd(lr=0.1)\n    schedule = plateau()\n",
                       R"("optimizer": {"type": "sgd", "lr": 0.1}, "schedule": {"type": "plateau"})");
  EXPECT_EQ(d.optimizer.schedule.mode, "min");
  EXPECT_EQ(d.optimizer.schedule.factor, 0.1);
  EXPECT_EQ(d.optimizer.schedule.threshold_mode, "rel");
  EXPECT_EQ(d.optimizer.schedule.metric, "loss");
  EXPECT_EQ(d.optimizer.schedule.plateau_eps, 1e-8);
}

TEST(TrainLoopSettings, LbfgsInBothFormsWithTorchDefaults) {
  TrainConfig t = both("    optimizer = lbfgs()\n", R"("optimizer": {"type": "lbfgs"})");
  const OptimizerConfig& o = t.optimizer;
  EXPECT_EQ(o.lr, 1.0);
  EXPECT_EQ(o.max_iter, 20);
  EXPECT_EQ(o.max_eval, 25);  // max_iter * 5 // 4
  EXPECT_EQ(o.history_size, 100);
  EXPECT_EQ(o.tolerance_grad, 1e-7);
  EXPECT_EQ(o.tolerance_change, 1e-9);
  EXPECT_EQ(o.line_search_fn, "");
  TrainConfig u = both("    optimizer = lbfgs(lr=0.5, max_iter=4, history_size=7, line_search_fn=None)\n",
                       R"("optimizer": {"type": "lbfgs", "lr": 0.5, "max_iter": 4, "history_size": 7,
                           "line_search_fn": null})");
  EXPECT_EQ(u.optimizer.max_eval, 5);
  EXPECT_EQ(u.optimizer.history_size, 7);
}

std::string error_of(const std::string& train) {
  auto m = ModelFile::parse(std::string(kHead) + train, "m.mlc");
  return m.ok() ? "(no error)" : m.error().message;
}

TEST(TrainLoopSettings, MistakesAreReportedAtTheField) {
  EXPECT_EQ(error_of("    grad_accumulation_steps = 2; accumulate = 2\n    optimizer = sgd(lr=0.1)\n"),
            "m.mlc:9:34: error: give either 'accumulate' (K batches of batch_size per optimizer step) or "
            "'grad_accumulation_steps' (each batch split into micro-batches), not both");
  EXPECT_EQ(error_of("    optimizer = sgd(lr=0.1)\n    schedule = chained(schedules=[plateau()])\n"),
            "m.mlc:10:35: error: plateau steps on an evaluation metric and must be the whole schedule, not one of "
            "its 'schedules'");
  EXPECT_EQ(error_of("    optimizer = sgd(lr=0.1)\n    schedule = plateau(factor=1)\n"),
            "m.mlc:10:31: error: 'factor': must be < 1 (ReduceLROnPlateau multiplies the lr by it)");
  EXPECT_EQ(error_of("    optimizer = sgd(lr=0.1)\n    schedule = plateau(interval=\"epoch\")\n"),
            "m.mlc:10:24: error: unknown field 'interval' in 'schedule' (expected one of: mode, factor, patience, "
            "threshold, threshold_mode, cooldown, min_lr, eps, metric, type)");
  EXPECT_EQ(error_of("    optimizer = lbfgs(weight_decay=0.1)\n"),
            "m.mlc:9:23: error: torch.optim.LBFGS has no weight decay; add it to the loss instead");
  EXPECT_EQ(error_of("    optimizer = lbfgs(param_groups=[{params: \"*\"}])\n"),
            "m.mlc:9:23: error: torch.optim.LBFGS doesn't support per-parameter options (parameter groups)");
  EXPECT_EQ(error_of("    optimizer = lbfgs(line_search_fn=\"wolfe\")\n"),
            "m.mlc:9:38: error: 'line_search_fn': must be one of \"strong_wolfe\", found 'wolfe'");
}

}  // namespace
}  // namespace mlc
