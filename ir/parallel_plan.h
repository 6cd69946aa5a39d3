// The parallel plan (docs/architecture.md, Parallelism): how a model's step
// is partitioned over devices, one typed value from the command line and the
// model file's "parallel" section (frontends/parallel_section.h) to the
// sharding pass (passes/sharding.h).
//
// Mesh axes have a meaning by name. The data axes (dp, ddp, fsdp) split the
// batch; ZeRO shards over the last of them. `tp` is the tensor-parallel axis
// of the tensor-parallel plan. Every other name is an error: `pp`, `sp`, `cp`
// and `ep` are not implemented yet, and a name without a meaning is refused
// rather than taken for data parallelism.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/mesh.h"
#include "ir/model_config.h"

namespace mlc {

// The data axis names, in the order diagnostics list them.
const std::vector<std::string_view>& data_axis_names();
bool is_data_axis(std::string_view axis);
// {} when every axis of `mesh` has an implementation (a data axis or tp);
// otherwise an Error about the first that has none, without a location:
//   "axis 'pp' (pipeline parallelism) is not implemented yet; supported axes: dp, ddp, fsdp (data), tp (tensor)"
//   "unknown axis 'foo'; supported axes: dp, ddp, fsdp (data), tp (tensor)"
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
  // Pipeline parallelism, not implemented yet: room for it in the plan, and
  // validate() refuses any value but the defaults.
  int pipeline_stages = 1;  // stages the model is split into
  int micro_batches = 1;    // micro-batches of a step
  // {} or an Error saying what the plan asks for that is not implemented:
  // the mesh's axes (check_mesh_axes), the ZeRO stage, pipeline stages or
  // micro-batches, e.g.
  //   "parallel plan: mesh pp=2: axis 'pp' (pipeline parallelism) is not implemented yet; ..."
  //   "parallel plan: 2 pipeline stages: pipeline parallelism is not implemented yet"
  Status validate() const;
};

// The command line's --mesh and --zero, parsed; nullopt when not given.
struct ParallelFlags {
  std::optional<Mesh> mesh;
  std::optional<int> zero;
};

// The one place a plan is built: the command line's flags over the model
// file's "parallel" section. --mesh replaces the section's mesh; the
// section's ZeRO stage applies when --zero is not given and there is a mesh;
// the tensor-parallel plan is the section's, and so are the pipeline's stages
// and micro-batches (which validate() refuses). The section's mesh was checked
// when the model file was loaded.
ParallelPlan make_parallel_plan(const ParallelFlags& cli, const ParallelConfig& section);

}  // namespace mlc
