// The parallel plan (ir/parallel_plan.h): which mesh axes have an
// implementation, the plan the command line and the model file's "parallel"
// section make together, and what validate() refuses.
#include "ir/parallel_plan.h"

#include <gtest/gtest.h>

#include <string>

namespace mlc {
namespace {

Mesh mesh(const char* text) { return Mesh::parse(text).value(); }

std::string axes_error(const char* text) {
  Status s = check_mesh_axes(mesh(text));
  return s ? std::string("ok") : s.error().message;
}

TEST(ParallelPlan, DataAxesAndTpAreTheAxesWithAnImplementation) {
  for (const char* ok : {"dp=2", "ddp=2", "fsdp=2", "tp=2", "pp=2", "dp=2,fsdp=2", "dp=2,tp=2", "fsdp=2,tp=2"})
    EXPECT_EQ(axes_error(ok), "ok") << ok;
  EXPECT_TRUE(is_data_axis("dp") && is_data_axis("ddp") && is_data_axis("fsdp"));
  EXPECT_FALSE(is_data_axis("tp") || is_data_axis("pp") || is_data_axis("foo"));
  const std::string supported = "; supported axes: dp, ddp, fsdp (data), tp (tensor), pp (pipeline)";
  EXPECT_EQ(axes_error("dp=2,sp=2"),
            "axis 'sp' (sequence parallelism on an axis of its own; the model file's \"sequence_parallel\" shards "
            "over tp) is not implemented yet" + supported);
  EXPECT_EQ(axes_error("cp=2"), "axis 'cp' (context parallelism) is not implemented yet" + supported);
  EXPECT_EQ(axes_error("tp=2,ep=2"), "axis 'ep' (expert parallelism) is not implemented yet" + supported);
  // A name without a meaning was data parallelism; now it is refused.
  EXPECT_EQ(axes_error("foo=2"), "unknown axis 'foo'" + supported);
  EXPECT_EQ(axes_error("data=2"), "unknown axis 'data'" + supported);
}

// What the command line and the section made before there was one plan
// (--mesh over the section's mesh; the section's ZeRO stage without --zero,
// on a mesh; the section's tensor-parallel plan always), case by case.
TEST(ParallelPlan, CommandLineFlagsOverTheModelFilesSection) {
  ParallelConfig section;
  section.mesh = "dp=2,tp=2";
  section.zero = 1;
  section.tensor_parallel = {{"fc1.weight", 0, false, {}}, {"fc2.weight", 1, true, {}}};
  section.sequence_parallel = true;
  auto same_tp = [&](const ParallelPlan& p) {
    ASSERT_EQ(p.tensor_parallel.params.size(), 2u);
    EXPECT_EQ(p.tensor_parallel.params[1].name, "fc2.weight");
    EXPECT_EQ(p.tensor_parallel.params[1].dim, 1);
    EXPECT_TRUE(p.tensor_parallel.params[1].rowwise);
    EXPECT_TRUE(p.tensor_parallel.sequence_parallel);
    EXPECT_FALSE(p.pipelined());
    EXPECT_EQ(p.pipeline_stages(), 1);
    EXPECT_TRUE(p.validate());
  };
  ParallelPlan p = make_parallel_plan({}, section);
  EXPECT_EQ(p.mesh, mesh("dp=2,tp=2"));
  EXPECT_EQ(p.zero, 1);
  same_tp(p);
  p = make_parallel_plan({mesh("tp=2"), std::nullopt}, section);
  EXPECT_EQ(p.mesh, mesh("tp=2"));
  EXPECT_EQ(p.zero, 1);
  same_tp(p);
  p = make_parallel_plan({mesh("dp=2"), 3}, section);
  EXPECT_EQ(p.mesh, mesh("dp=2"));
  EXPECT_EQ(p.zero, 3);
  same_tp(p);
  p = make_parallel_plan({std::nullopt, 0}, section);
  EXPECT_EQ(p.mesh, mesh("dp=2,tp=2"));
  EXPECT_EQ(p.zero, 0);

  ParallelConfig none;  // no section: only what the flags say
  p = make_parallel_plan({}, none);
  EXPECT_TRUE(p.mesh.empty());
  EXPECT_EQ(p.zero, 0);
  EXPECT_TRUE(p.tensor_parallel.empty());
  EXPECT_FALSE(p.tensor_parallel.sequence_parallel);
  p = make_parallel_plan({mesh("dp=2,fsdp=2"), 3}, none);
  EXPECT_EQ(p.mesh, mesh("dp=2,fsdp=2"));
  EXPECT_EQ(p.zero, 3);

  ParallelConfig zero_only;  // a ZeRO stage without a mesh applies to --mesh
  zero_only.zero = 2;
  EXPECT_EQ(make_parallel_plan({}, zero_only).zero, 0);
  EXPECT_EQ(make_parallel_plan({mesh("dp=2"), std::nullopt}, zero_only).zero, 2);
}

TEST(ParallelPlan, ValidateRefusesWhatIsNotImplemented) {
  auto error = [](const ParallelPlan& p) {
    Status s = p.validate();
    return s ? std::string("ok") : s.error().message;
  };
  ParallelPlan p;
  EXPECT_EQ(error(p), "ok");
  // Pipelines beside tp and with ZeRO: each stage sharded over the other axes.
  p.mesh = mesh("pp=2,tp=2");
  EXPECT_EQ(error(p), "ok");
  p.mesh = mesh("pp=2");
  EXPECT_EQ(error(p), "ok");
  p.mesh = mesh("dp=2,pp=2,tp=2");
  EXPECT_EQ(error(p), "ok");
  p.zero = 3;
  EXPECT_EQ(error(p), "ok");
  p.zero = 0;
  p.mesh = mesh("dp=2");
  p.zero = 4;
  EXPECT_EQ(error(p), "parallel plan: ZeRO stage 4: must be 0, 1, 2 or 3");
}

TEST(ParallelPlan, PipelineSettingsFromTheSectionAndTheFlags) {
  ParallelConfig section;
  section.pipeline.given = true;
  section.pipeline.stages = 2;
  section.pipeline.virtual_stages = 2;
  section.pipeline.microbatches = 6;
  section.pipeline.microbatches_loc = Loc{"m.json", 3, 5};
  section.pipeline.schedule = PipelineScheduleKind::interleaved;
  section.pipeline.split_before = {"b", "c", "d"};
  ParallelPlan p = make_parallel_plan({mesh("pp=2"), std::nullopt}, section);
  EXPECT_TRUE(p.pipelined());
  EXPECT_EQ(p.pipeline_ranks(), 2);
  EXPECT_EQ(p.pipeline_stages(), 4);
  EXPECT_EQ(p.pipeline_micro_batches(), 6);
  EXPECT_EQ(p.schedule, PipelineScheduleKind::interleaved);
  EXPECT_EQ(p.split_before, (std::vector<std::string>{"b", "c", "d"}));
  ParallelFlags flags{mesh("pp=4"), std::nullopt, 8, PipelineScheduleKind::gpipe};
  p = make_parallel_plan(flags, section);
  EXPECT_EQ(p.pipeline_ranks(), 4);
  EXPECT_EQ(p.pipeline_micro_batches(), 8);
  EXPECT_EQ(p.schedule, PipelineScheduleKind::gpipe);
  section.pipeline.microbatches_loc = Loc{};  // not given: as many as the ranks
  EXPECT_EQ(make_parallel_plan({mesh("pp=4"), std::nullopt}, section).pipeline_micro_batches(), 4);
  EXPECT_FALSE(make_parallel_plan({}, section).pipelined());  // no pp axis: planned only
}

}  // namespace
}  // namespace mlc
