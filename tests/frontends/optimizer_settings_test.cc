// train.optimizer and train.schedule (frontends/optimizer_settings.h): both
// forms of a model file give the same settings, PyTorch's defaults fill what
// is not given, parameter groups inherit the optimizer's settings, and the
// model language prints and reads them back unchanged.
#include <gtest/gtest.h>

#include "frontends/dsl_parse.h"
#include "frontends/dsl_print.h"
#include "frontends/model_file.h"

namespace mlc {
namespace {

constexpr const char* kHead = R"(name = m
inputs:
    x: f32[batch, 4]
    y: i64[batch]
model = Linear(4, 3)
loss = cross_entropy(targets=y)
train:
    batch_size = 8; steps = 2
)";

constexpr const char* kTrain = R"(    optimizer = adamw(lr=0.01, weight_decay=0.1, amsgrad=True,
                      param_groups=[{params: "*.bias", weight_decay: 0}, {params: ["fc.*", "x?"], lr: 0.02}])
    schedule = sequential(milestones=[3], interval="epoch",
                          schedules=[linear(start_factor=0.25, total_iters=3), exponential(gamma=0.9)])
)";

constexpr const char* kJson = R"({"name": "m",
 "inputs": {"x": {"dtype": "f32", "shape": ["batch", 4]}, "y": {"dtype": "i64", "shape": ["batch"]}},
 "model": {"type": "Linear", "in_features": 4, "out_features": 3},
 "loss": {"type": "cross_entropy", "targets": "y"},
 "train": {"batch_size": 8, "steps": 2,
  "optimizer": {"type": "adamw", "lr": 0.01, "weight_decay": 0.1, "amsgrad": true,
                "param_groups": [{"params": "*.bias", "weight_decay": 0}, {"params": ["fc.*", "x?"], "lr": 0.02}]},
  "schedule": {"type": "sequential", "milestones": [3], "interval": "epoch",
               "schedules": [{"type": "linear", "start_factor": 0.25, "total_iters": 3},
                             {"type": "exponential", "gamma": 0.9}]}}})";

void expect_settings(const OptimizerConfig& o) {
  EXPECT_EQ(o.type, "adamw");
  EXPECT_TRUE(o.amsgrad);
  EXPECT_EQ(o.eps, 1e-8);
  ASSERT_EQ(o.param_groups.size(), 2u);
  EXPECT_EQ(o.param_groups[0].params, std::vector<std::string>{"*.bias"});
  EXPECT_EQ(o.param_groups[0].weight_decay, 0);
  EXPECT_EQ(o.param_groups[0].lr, 0.01);  // the optimizer's
  EXPECT_TRUE(o.param_groups[0].amsgrad);
  EXPECT_EQ(o.param_groups[1].params, (std::vector<std::string>{"fc.*", "x?"}));
  EXPECT_EQ(o.param_groups[1].lr, 0.02);
  EXPECT_EQ(o.param_groups[1].weight_decay, 0.1);
  EXPECT_TRUE(o.param_groups[1].param_groups.empty());
  const ScheduleConfig& s = o.schedule;
  EXPECT_EQ(s.type, "sequential");
  EXPECT_EQ(s.interval, "epoch");
  EXPECT_EQ(s.milestones, std::vector<int64_t>{3});
  ASSERT_EQ(s.schedules.size(), 2u);
  EXPECT_EQ(s.schedules[0].type, "linear");
  EXPECT_EQ(s.schedules[0].start_factor, 0.25);
  EXPECT_EQ(s.schedules[0].end_factor, 1.0);
  EXPECT_EQ(s.schedules[1].gamma, 0.9);
}

TEST(OptimizerSettings, BothFormsGiveTheSameSettings) {
  auto dsl = ModelFile::parse(std::string(kHead) + kTrain, "m.mlc");
  ASSERT_TRUE(dsl.ok()) << dsl.error().message;
  expect_settings(dsl->config().train.optimizer);
  auto json = ModelFile::parse(kJson, "m.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  expect_settings(json->config().train.optimizer);
  // The model language prints them and reads them back.
  auto doc = parse_model_language(std::string(kHead) + kTrain, "m.mlc");
  ASSERT_TRUE(doc.ok());
  std::string printed = print_model_language(*doc->root().json);
  auto again = ModelFile::parse(printed, "printed.mlc");
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << printed;
  expect_settings(again->config().train.optimizer);
}

TEST(OptimizerSettings, PyTorchDefaults) {
  auto with = [&](const std::string& optimizer) {
    auto m = ModelFile::parse(std::string(kHead) + "    optimizer = " + optimizer + "\n", "m.mlc");
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m.ok() ? m->config().train.optimizer : OptimizerConfig{};
  };
  OptimizerConfig adadelta = with("adadelta()");
  EXPECT_EQ(adadelta.lr, 1.0);
  EXPECT_EQ(adadelta.rho, 0.9);
  EXPECT_EQ(adadelta.eps, 1e-6);
  EXPECT_EQ(with("adamax()").lr, 2e-3);
  OptimizerConfig nadam = with("nadam()");
  EXPECT_EQ(nadam.lr, 2e-3);
  EXPECT_EQ(nadam.momentum_decay, 4e-3);
  EXPECT_EQ(with("radam()").lr, 1e-3);
  // OneCycleLR starts SGD's momentum at max_momentum, as torch's constructor does.
  auto m = ModelFile::parse(std::string(kHead) + "    optimizer = sgd(lr=0.1)\n" +
                                "    schedule = onecycle(max_lr=0.1, total_steps=10)\n", "m.mlc");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->config().train.optimizer.momentum, 0.95);
  EXPECT_EQ(m->config().train.optimizer.schedule.anneal_strategy, "cos");
}

}  // namespace
}  // namespace mlc
