// train.phases (docs/model-format.md, frontends/phases_section.h): a model
// trained in phases, each with its own loss and optimizer. Both forms give the
// same phases; each phase's functions differentiate its own parameters only
// (the others are {frozen}) and update only its buffers; mistakes are
// reported at the field with what was expected.
#include <gtest/gtest.h>

#include <algorithm>

#include "frontends/dsl_parse.h"
#include "frontends/dsl_print.h"
#include "frontends/model_file.h"
#include "ir/printer.h"

namespace mlc {
namespace {

// A two-network model: `g` maps noise to a sample, `d` scores samples.
constexpr const char* kModel = R"(name = gan
inputs:
    x: f32[batch, 4]
    z: f32[batch, 2]
model:
    g:
        0 = Linear(2, 4)
        1 = BatchNorm1d(4)
    d:
        0 = Linear(4, 3)
        1 = BatchNorm1d(3)
        2 = Linear(3, 1)
        3 = Sigmoid()
train:
    batch_size = 8; steps = 2
)";

constexpr const char* kPhases = R"(    phases:
        D:
            params = "d.*"
            optimizer = adam(lr=0.001)
            loss:
                real = d(x).view(-1)
                fake = d(g(z)).view(-1)
                return F.binary_cross_entropy(real, torch.full((8,), 1.0)) + F.binary_cross_entropy(fake, torch.full((8,), 0.0))
        G:
            params = "g.*"
            buffers = "d.*"
            optimizer = sgd(lr=0.1, momentum=0.9)
            clip_grad_norm = 1.0
            loss:
                return F.binary_cross_entropy(d(g(z)).view(-1), torch.full((8,), 1.0))
)";

Expected<ModelFile> parse(const std::string& phases) { return ModelFile::parse(std::string(kModel) + phases, "gan.mlc"); }

std::string error_of(const std::string& phases) {
  auto m = parse(phases);
  return m.ok() ? std::string("(no error)") : m.error().message;
}

// An argument's kind in a function of `m`.
ArgKind kind_of(const Module& m, const std::string& fn, const std::string& arg) {
  const Function& f = *m.find(fn);
  for (size_t i = 0; i < f.args.size(); ++i)
    if (f.args[i]->name == arg) return f.arg_kinds[i];
  ADD_FAILURE() << "no argument " << arg << " of @" << fn;
  return ArgKind::input;
}

// The arguments a function's results update.
std::vector<std::string> updated(const Function& f) {
  std::vector<std::string> out;
  for (size_t i = 0; i < f.results.size(); ++i)
    if (i < f.result_updates.size() && f.result_updates[i] >= 0)
      out.push_back(f.args[static_cast<size_t>(f.result_updates[i])]->name);
  return out;
}

TEST(PhasesSection, ResolvesEachPhasesParametersAndBuffers) {
  auto m = parse(kPhases);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const std::vector<PhaseConfig>& phases = m->config().train.phases;
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].name, "D");
  EXPECT_EQ(phases[0].params, (std::vector<std::string>{"d.0.weight", "d.0.bias", "d.1.weight", "d.1.bias",
                                                          "d.2.weight", "d.2.bias"}));
  EXPECT_EQ(phases[0].buffers.size(), 6u);  // every BatchNorm buffer, g's and d's
  EXPECT_EQ(phases[1].params, (std::vector<std::string>{"g.0.weight", "g.0.bias", "g.1.weight", "g.1.bias"}));
  EXPECT_EQ(phases[1].buffers,
            (std::vector<std::string>{"d.1.running_mean", "d.1.running_var", "d.1.num_batches_tracked"}));
  EXPECT_EQ(phases[0].optimizer.type, "adam");
  EXPECT_EQ(phases[1].optimizer.type, "sgd");
  EXPECT_EQ(phases[1].optimizer.momentum, 0.9);
  EXPECT_EQ(phases[1].optimizer.clip_grad_norm, 1.0);
  EXPECT_TRUE(m->config().train.optimizer.type.empty());
}

TEST(PhasesSection, EachPhaseTrainsItsParametersAndUpdatesItsBuffers) {
  auto m = parse(kPhases);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto d = m->build_phase(8, 0);
  auto g = m->build_phase(8, 1);
  ASSERT_TRUE(d.ok() && g.ok());
  EXPECT_EQ(kind_of(*d, "loss", "d.0.weight"), ArgKind::param);
  EXPECT_EQ(kind_of(*d, "loss", "g.0.weight"), ArgKind::frozen);
  EXPECT_EQ(kind_of(*g, "loss", "g.0.weight"), ArgKind::param);
  EXPECT_EQ(kind_of(*g, "loss", "d.2.bias"), ArgKind::frozen);
  EXPECT_EQ(kind_of(*g, "loss", "g.1.running_mean"), ArgKind::buffer);
  // D's loss runs g once and d twice; G's runs both once but updates only d's statistics.
  EXPECT_EQ(updated(*d->find("loss")),
            (std::vector<std::string>{"g.1.running_mean", "g.1.running_var", "g.1.num_batches_tracked",
                                      "d.1.running_mean", "d.1.running_var", "d.1.num_batches_tracked"}));
  EXPECT_EQ(updated(*g->find("loss")),
            (std::vector<std::string>{"d.1.running_mean", "d.1.running_var", "d.1.num_batches_tracked"}));
  // build(): the phases' losses summed, every trainable parameter a {param}.
  auto all = m->build(8);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(kind_of(*all, "loss", "g.0.weight"), ArgKind::param);
  EXPECT_EQ(kind_of(*all, "loss", "d.0.weight"), ArgKind::param);
  EXPECT_EQ(updated(*all->find("loss")).size(), 6u);
  ASSERT_EQ(all->find("eval")->results.size(), 1u);
}

TEST(PhasesSection, BothFormsAndThePrintedFormAreTheSame) {
  auto dsl = parse(kPhases);
  ASSERT_TRUE(dsl.ok()) << dsl.error().message;
  auto doc = parse_model_language(std::string(kModel) + kPhases, "gan.mlc");
  ASSERT_TRUE(doc.ok());
  const std::string printed = print_model_language(*doc->root().json);
  EXPECT_NE(printed.find("            loss:\n                real = d(x).view(-1)\n"), std::string::npos) << printed;
  auto again = ModelFile::parse(printed, "printed.mlc");
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << printed;
  auto json = ModelFile::parse(doc->root().json->dump(), "gan.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  for (const ModelFile* other : {&*again, &*json}) {
    ASSERT_EQ(other->config().train.phases.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(other->config().train.phases[i].params, dsl->config().train.phases[i].params);
      EXPECT_EQ(other->config().train.phases[i].buffers, dsl->config().train.phases[i].buffers);
      auto a = dsl->build_phase(8, i);
      auto b = other->build_phase(8, i);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->find("loss")->ops.size(), b->find("loss")->ops.size());
    }
  }
}

TEST(PhasesSection, MistakesAreReportedAtTheField) {
  auto phases = [](const std::string& d_params, const std::string& g_extra = "", const std::string& d_loss =
                       "return F.binary_cross_entropy(d(x).view(-1), torch.full((8,), 1.0))") {
    return "    phases:\n        D:\n            params = " + d_params +
           "\n            optimizer = adam(lr=0.001)\n            loss:\n                " + d_loss +
           "\n        G:\n            params = \"g.*\"\n" + g_extra +
           "            optimizer = adam(lr=0.001)\n            loss:\n                return d(g(z)).sum()\n";
  };
  EXPECT_EQ(error_of(phases("\"e.*\"")), "gan.mlc:18:22: error: 'params': 'e.*' matches no parameter of the model");
  EXPECT_EQ(error_of(phases("[\"d.*\", \"g.0.*\"]")),
            "gan.mlc:23:22: error: 'params': 'g.*' matches parameter 'g.0.weight', which phase 'D' trains already; "
            "a parameter is trained by one phase");
  EXPECT_EQ(error_of(phases("\"d.0.*\"")),
            "gan.mlc:16:5: error: parameter 'd.1.weight' is trained by no phase; add it to a phase's 'params', or "
            "mark its layer \"trainable\": false");
  EXPECT_EQ(error_of(phases("\"d.*\"", "            buffers = \"g.0.*\"\n")),
            "gan.mlc:24:23: error: 'buffers': 'g.0.*' matches no buffer of the model");
  EXPECT_EQ(error_of(phases("\"d.*\"", "", "return d(x)")),
            "gan.mlc:17:9: error: phase 'D': its loss must be a 0-d float tensor, found f32[8,1]");
  EXPECT_EQ(error_of(phases("\"d.*\"", "            optimizer = lbfgs()\n")),
            "gan.mlc:25:13: error: duplicate key 'optimizer' (first at line 24, column 13)");
  const std::string lbfgs = "    phases:\n        D:\n            params = \"*\"\n            optimizer = lbfgs()\n"
                            "            loss:\n                return d(g(z)).sum()\n";
  EXPECT_EQ(error_of(lbfgs), "gan.mlc:19:25: error: optimizer \"lbfgs\" re-evaluates its loss within a step and "
                             "cannot be a phase's");
  EXPECT_EQ(error_of("    optimizer = sgd(lr=0.1)\n" + phases("\"d.*\"")),
            "gan.mlc:16:5: error: 'optimizer': with 'phases' each phase has its own optimizer, schedule and "
            "clip_grad_norm");
  EXPECT_EQ(error_of("    accumulate = 2\n" + phases("\"d.*\"")),
            "gan.mlc:16:5: error: 'accumulate' is not supported with 'phases'");
  auto with_loss = ModelFile::parse(std::string(kModel) + phases("\"d.*\"") + "loss = mse(targets=x)\n", "gan.mlc");
  ASSERT_FALSE(with_loss.ok());
  EXPECT_EQ(with_loss.error().message,
            "gan.mlc:27:1: error: 'loss': with train.phases each phase has its own 'loss'; remove this section");
}

}  // namespace
}  // namespace mlc
