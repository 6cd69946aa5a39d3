// The parallel plan (docs/architecture.md, Parallelism): how a model's step
// is partitioned over devices, one typed value from the command line and the
// model file's "parallel" section (frontends/parallel_section.h) to the
// sharding pass (passes/sharding.h).
//
// Mesh axes have a meaning by name. The data axes (dp, ddp, fsdp) split the
// batch; ZeRO shards over the last of them. `tp` is the tensor-parallel axis
// of the tensor-parallel plan, `pp` the pipeline's. Every other name is an
// error: `sp`, `cp` and `ep` are not implemented yet, and a name without a
// meaning is refused rather than taken for data parallelism.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/mesh.h"
#include "ir/model_config.h"
#include "ir/pipeline_schedule.h"

namespace mlc {

// The data axis names, in the order diagnostics list them.
const std::vector<std::string_view>& data_axis_names();
bool is_data_axis(std::string_view axis);
// {} when every axis of `mesh` has an implementation (a data axis or tp);
// otherwise an Error about the first that has none, without a location:
//   "unknown axis 'foo'; supported axes: dp, ddp, fsdp (data), tp (tensor), pp (pipeline)"
//   "axis 'pp' (pipeline parallelism) beside tp is not implemented yet; pp=N runs alone or with data axes (dp, ddp, fsdp)"
Status check_mesh_axes(const Mesh& mesh);

// The tensor-parallel plan of a model file's "parallel" section, applied on
// the mesh's "tp" axis (passes/sharding.h apply_tensor_parallel).
struct TensorParallelPlan {
  std::vector<TensorParallelParam> params;
  bool sequence_parallel = false;
  bool empty() const { return params.empty(); }
};

struct ParallelPlan {
  Mesh mesh;  // empty: one device, nothing is partitioned
  int zero = 0;  // ZeRO stage over the mesh's last data axis, 0..3 (3: FSDP)
  TensorParallelPlan tensor_parallel;  // on the mesh's "tp" axis, if it has one
  // Pipeline parallelism on the mesh's "pp" axis (ir/pipeline_schedule.h):
  // its ranks run virtual_stages stages each, of the model cut where
  // split_before says or balanced (ir/pipeline_stages.h), micro_batches per
  // step in `schedule`'s order. No pp axis: no pipeline, and the fields are unused.
  int virtual_stages = 1;
  int micro_batches = 0;  // 0: as many as the pipeline has ranks
  PipelineScheduleKind schedule = PipelineScheduleKind::one_f_one_b;
  std::vector<std::string> split_before;
  // The pp axis's size (1 without one), the stages, the micro-batches.
  int pipeline_ranks() const;
  int pipeline_stages() const { return pipeline_ranks() * virtual_stages; }
  int pipeline_micro_batches() const { return micro_batches > 0 ? micro_batches : pipeline_ranks(); }
  bool pipelined() const { return pipeline_ranks() > 1; }
  // {} or an Error saying what the plan asks for that is not implemented:
  // the mesh's axes (check_mesh_axes: a pp axis beside tp too) or the ZeRO
  // stage (none but 0 on a pipeline), e.g.
  //   "parallel plan: mesh pp=2,tp=2: axis 'pp' (pipeline parallelism) beside tp is not implemented yet; ..."
  Status validate() const;
};

// The command line's --mesh and --zero, parsed; nullopt when not given.
struct ParallelFlags {
  std::optional<Mesh> mesh;
  std::optional<int> zero;
  std::optional<int> microbatches;                 // --microbatches
  std::optional<PipelineScheduleKind> schedule;    // --schedule
  std::optional<int> virtual_stages;               // --virtual-stages
  std::optional<bool> sequence_parallel;           // a plan file's (driver/plan_file.h)
};

// The one place a plan is built: the command line's flags over the model
// file's "parallel" section. --mesh replaces the section's mesh; the
// section's ZeRO stage applies when --zero is not given and there is a mesh;
// the tensor-parallel plan is the section's, and so is the pipeline's (its
// virtual stages, micro-batches, schedule and cuts; --microbatches,
// --schedule and --virtual-stages override), and so is sequence parallelism
// unless the flags say. The pipeline runs on the mesh's pp axis; the
// section's "stages" is what `mlc plan` plans without one. The section's mesh
// was checked when the model file was loaded.
ParallelPlan make_parallel_plan(const ParallelFlags& cli, const ParallelConfig& section);

}  // namespace mlc
