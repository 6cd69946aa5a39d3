// Collectives lower to `collective` instructions (runtime/executable.h), each
// naming the sharding pass's ledger entry that explains it: no compiled step
// asks the IR at run time what an op is.
#include <gtest/gtest.h>

#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/collectives.h"

namespace mlc {
namespace {

struct Plan {
  const char* name;
  const char* mesh;
  int zero;
  bool tensor_parallel;
};

class CollectiveLowering : public ::testing::TestWithParam<Plan> {};

TEST_P(CollectiveLowering, EveryCollectiveIsAnInstructionNamingItsLedgerEntry) {
  const Plan& plan = GetParam();
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/tiny_gpt.json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto m = model->build(model->config().train.batch_size);
  ASSERT_TRUE(m.ok()) << m.error().message;
  PassPipelineOptions o;
  o.optimizer = model->config().train.optimizer;
  o.parallel.mesh = Mesh::parse(plan.mesh).value();
  o.parallel.zero = plan.zero;
  if (plan.tensor_parallel)
    o.parallel.tensor_parallel = {model->config().parallel.tensor_parallel, model->config().parallel.sequence_parallel};
  std::map<std::string, std::vector<LedgerEntry>> ledger;
  o.ledger = &ledger;
  Status ran = run_pass_pipeline(*m, o);
  ASSERT_TRUE(ran) << ran.error().message;
  const Function& step = *m->find("train_step");
  LowerOptions lo;
  lo.compile_kernels = false;
  auto lowered = lower_function(step, lo);
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  const std::vector<LedgerEntry>& entries = ledger.at("train_step");
  int collectives = 0, in_ir = 0;
  for (const auto& op : step.ops) in_ir += uses_mesh_axis(op->code) && op->code != OpCode::ShardSlice;
  for (const rt::Instruction& ins : lowered->executable->instructions) {
    ASSERT_FALSE(ins.kind == rt::InstrKind::reference && uses_mesh_axis(ins.op->code))
        << ins.name << ": a collective left to the reference path";
    if (ins.kind != rt::InstrKind::collective) continue;
    const rt::CollectiveParams& c = ins.collective;
    if (c.kind != rt::CollectiveKind::shard_slice) ++collectives;
    ASSERT_GE(c.ledger, 0) << ins.name;
    ASSERT_LT(c.ledger, static_cast<int>(entries.size()));
    const LedgerEntry& e = entries[static_cast<size_t>(c.ledger)];
    EXPECT_EQ(e.id, c.ledger);
    EXPECT_EQ(e.collective, rt::collective_kind_name(c.kind)) << ins.origin;
    EXPECT_EQ(e.axis, c.axis);
    EXPECT_EQ(c.tag.rfind(std::string(rt::collective_kind_name(c.kind)), 0), 0u) << c.tag;
  }
  EXPECT_GT(collectives, 0);
  EXPECT_EQ(collectives, in_ir) << "every collective of the IR is one instruction";
}

INSTANTIATE_TEST_SUITE_P(Plans, CollectiveLowering,
                         ::testing::Values(Plan{"dp2", "dp=2", 0, false}, Plan{"dp2_zero3", "dp=2", 3, false},
                                           Plan{"tp2", "tp=2", 0, true}, Plan{"dp2_tp2", "dp=2,tp=2", 1, true}),
                         [](const ::testing::TestParamInfo<Plan>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace mlc
