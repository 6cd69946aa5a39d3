// The model file's parallel.pipeline (frontends/pipeline_section.h) and the
// stage cuts of examples/tiny_gpt.json (ir/pipeline_stages.h).
#include <gtest/gtest.h>

#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/pipeline_stages.h"
#include "tests/frontends/source_root.h"

namespace mlc {
namespace {

// tiny_gpt.json with `pipeline` as its parallel.pipeline.
Expected<ModelFile> tiny_gpt_with(const std::string& pipeline) {
  std::string text = testing::read_text("examples/tiny_gpt.json");
  const std::string at = "\"parallel\": {";
  text.replace(text.find(at), at.size(), at + "\"pipeline\": " + pipeline + ", ");
  return ModelFile::parse(text, "tiny_gpt.json");
}

// The message after "FILE:LINE:COL: error: ".
std::string error_of(const std::string& pipeline) {
  auto mf = tiny_gpt_with(pipeline);
  if (mf) return "(loaded)";
  const std::string& m = mf.error().message;
  size_t at = m.find("error: ");
  return at == std::string::npos ? m : m.substr(at + 7);
}

TEST(PipelineSection, ParsesEveryField) {
  auto mf = tiny_gpt_with(
      R"({"stages": 2, "microbatches": 4, "schedule": "interleaved", "virtual_stages": 2,
          "split_before": ["layers.0", "layers.1", "norm"]})");
  ASSERT_TRUE(mf) << mf.error().message;
  const PipelineConfig& p = mf->config().parallel.pipeline;
  EXPECT_TRUE(p.given);
  EXPECT_EQ(p.stages, 2);
  EXPECT_EQ(p.microbatches, 4);
  EXPECT_EQ(p.virtual_stages, 2);
  EXPECT_EQ(p.schedule, PipelineScheduleKind::interleaved);
  EXPECT_EQ(p.split_before, (std::vector<std::string>{"layers.0", "layers.1", "norm"}));
  EXPECT_TRUE(p.stages_loc.known());
  auto defaults = tiny_gpt_with(R"({"stages": 2})");
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->config().parallel.pipeline.microbatches, 2);
  EXPECT_EQ(defaults->config().parallel.pipeline.schedule, PipelineScheduleKind::one_f_one_b);
}

TEST(PipelineSection, EveryBadValueIsALocatedErrorNamingTheField) {
  EXPECT_EQ(error_of(R"({"stages": "2"})"), "parallel.pipeline.stages: expected an integer, found a string");
  EXPECT_EQ(error_of(R"({"stages": 0})"), "parallel.pipeline.stages: expected 1 to 4096, got 0");
  EXPECT_EQ(error_of(R"({"stages": 2, "schedule": "pipedream"})"),
            "parallel.pipeline.schedule: expected gpipe, 1f1b, interleaved or zb1p, got 'pipedream'");
  EXPECT_EQ(error_of(R"({"stages": 2, "microbatches": 1})"),
            "parallel.pipeline.microbatches: 1f1b needs at least as many micro-batches as stages (1 < 2)");
  EXPECT_EQ(error_of(R"({"stages": 2, "virtual_stages": 2, "schedule": "gpipe"})"),
            "parallel.pipeline.virtual_stages: gpipe runs one stage per rank, got 2");
  EXPECT_EQ(error_of(R"({"stages": 2, "split_before": ["layers.7"]})"),
            "parallel.pipeline.split_before: 'layers.7' names no top-level layer (layers: tok_emb, pos_emb, "
            "layers.0, layers.1, norm, head)");
  EXPECT_EQ(error_of(R"({"stages": 3, "split_before": ["layers.1"]})"),
            "parallel.pipeline.split_before: 1 cuts make 2 stages, but stages·virtual_stages is 3·1 = 3");
  EXPECT_EQ(error_of(R"({"stages": 3, "split_before": ["layers.1", "layers.0"]})"),
            "parallel.pipeline.split_before: 'layers.0' does not come after 'layers.1' in the model; cuts are in "
            "model order");
  EXPECT_EQ(error_of(R"({"stages": 2, "split_before": ["pos_emb"]})"),
            "parallel.pipeline.split_before: 'pos_emb' is among the layers before the first block (tok_emb, "
            "pos_emb), which the first stage holds");
  EXPECT_EQ(error_of(R"({"stages": 2, "split_before": ["head"]})"),
            "parallel.pipeline.split_before: 'head' is among the layers after the last block (norm, head), which "
            "the last stage holds with the loss");
  EXPECT_EQ(error_of(R"({"stages": 8})"),
            "parallel.pipeline.stages: 8 stages need 7 cuts, but the model's layers allow 3 (before layers.0, "
            "layers.1, norm)");
  EXPECT_EQ(error_of(R"({"stages": 2, "split_before": "layers.1"})"),
            "parallel.pipeline.split_before: expected an array of layer names, found a string");
  EXPECT_NE(error_of(R"({"stage": 2})").find("unknown field 'stage'"), std::string::npos);
  // Located at the value.
  auto mf = tiny_gpt_with(R"({"stages": 0})");
  ASSERT_FALSE(mf);
  EXPECT_EQ(mf.error().message.substr(0, mf.error().message.find(" error")), "tiny_gpt.json:47:39:");
}

PipelineStagePlan stages_of(const ModelFile& mf, const std::vector<std::string>& split, int stages) {
  auto module = mf.build(4);
  EXPECT_TRUE(module) << module.error().message;
  auto plan = plan_pipeline_stages(*module->find("loss"), mf.config().layers, mf.config().params, split, stages);
  EXPECT_TRUE(plan) << plan.error().message;
  return *plan;
}

TEST(PipelineStages, BalancedCutsOfTinyGpt) {
  auto mf = tiny_gpt_with(R"({"stages": 1})");
  ASSERT_TRUE(mf) << mf.error().message;
  // Two stages: one block each, the embedding with the first, norm, head and loss with the last.
  PipelineStagePlan two = stages_of(*mf, {}, 2);
  EXPECT_EQ(two.stages[0].layers, (std::vector<std::string>{"tok_emb", "pos_emb", "layers.0"}));
  EXPECT_EQ(two.stages[1].layers, (std::vector<std::string>{"layers.1", "norm", "head", "loss"}));
  ASSERT_EQ(two.crossings.size(), 1u);
  ASSERT_EQ(two.crossings[0].size(), 1u);  // the residual stream
  EXPECT_EQ(two.crossings[0][0].type.str(), "f32[4,32,64]");
  EXPECT_EQ(two.crossings[0][0].bytes, 4 * 32 * 64 * 4);
  EXPECT_EQ(two.stages[0].params + two.stages[1].params, 92480);
  // Four: the embedding and the head get stages of their own.
  PipelineStagePlan four = stages_of(*mf, {}, 4);
  EXPECT_EQ(four.stages[0].layers, (std::vector<std::string>{"tok_emb", "pos_emb"}));
  EXPECT_EQ(four.stages[1].layers, (std::vector<std::string>{"layers.0"}));
  EXPECT_EQ(four.stages[2].layers, (std::vector<std::string>{"layers.1"}));
  EXPECT_EQ(four.stages[3].layers, (std::vector<std::string>{"norm", "head", "loss"}));
  EXPECT_EQ(four.stages[1].flops, four.stages[2].flops);
  EXPECT_GT(four.stages[1].flops, four.stages[3].flops);
}

TEST(PipelineStages, ExplicitCutsAndValuesSentAlong) {
  auto mf = tiny_gpt_with(R"({"stages": 1})");
  ASSERT_TRUE(mf) << mf.error().message;
  PipelineStagePlan three = stages_of(*mf, {"layers.1", "norm"}, 3);
  EXPECT_EQ(three.stages[0].layers, (std::vector<std::string>{"tok_emb", "pos_emb", "layers.0"}));
  EXPECT_EQ(three.stages[2].layers, (std::vector<std::string>{"norm", "head", "loss"}));
  for (const auto& cut : three.crossings) EXPECT_EQ(cut.size(), 1u);
  // Balanced cuts never split the embedding or the head off their stages.
  std::vector<TopLayer> layers = mf->config().layers;
  auto cuts = balanced_pipeline_cuts(layers, {100, 100, 1, 1, 100, 100}, 3);
  ASSERT_TRUE(cuts) << cuts.error().message;
  EXPECT_EQ(*cuts, (std::vector<size_t>{2, 4}));  // tok_emb, pos_emb | layers.0, layers.1 | norm, head
  // A value read two stages later is listed on both cuts, sent along.
  Module m;
  Function& f = m.add_function("loss");
  Value* x = f.add_arg("x", TensorType{DType::f32, {2}}, ArgKind::input);
  Op* a = f.insert_op(0, OpCode::Neg, {x}, {}, x->type, {});
  a->meta.scope = "a";
  Op* b = f.insert_op(1, OpCode::Neg, {a->result()}, {}, x->type, {});
  b->meta.scope = "b";
  Op* c = f.insert_op(2, OpCode::Add, {b->result(), a->result()}, {}, x->type, {});
  c->meta.scope = "c";
  f.results.push_back(c->result());
  std::vector<TopLayer> abc = {{"a", false, {}}, {"b", false, {}}, {"c", false, {}}};
  auto plan = plan_pipeline_stages(f, abc, {}, {"b", "c"}, 3);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->crossings[0].size(), 1u);
  ASSERT_EQ(plan->crossings[1].size(), 2u);
  EXPECT_EQ(plan->crossings[1][0].producer, "neg in a");
  EXPECT_EQ(plan->crossings[1][0].from_stage, 0);
  EXPECT_EQ(plan->crossings[1][0].to_stage, 2);
}

}  // namespace
}  // namespace mlc
