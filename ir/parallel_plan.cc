#include "ir/parallel_plan.h"

#include <algorithm>
#include <string>

namespace mlc {

namespace {

// Axis names with a meaning that is not implemented yet, and the meaning.
struct PlannedAxis {
  std::string_view name, what;
};
constexpr PlannedAxis kNotImplemented[] = {
    {"sp", "sequence parallelism on an axis of its own; the model file's \"sequence_parallel\" shards over tp"},
    {"cp", "context parallelism"},
    {"ep", "expert parallelism"},
};

std::string supported_axes() {
  std::string s;
  for (std::string_view a : data_axis_names()) s += (s.empty() ? "" : ", ") + std::string(a);
  return "supported axes: " + s + " (data), tp (tensor), pp (pipeline)";
}

}  // namespace

const std::vector<std::string_view>& data_axis_names() {
  static const std::vector<std::string_view> names = {"dp", "ddp", "fsdp"};
  return names;
}

bool is_data_axis(std::string_view axis) {
  const auto& names = data_axis_names();
  return std::find(names.begin(), names.end(), axis) != names.end();
}

Status check_mesh_axes(const Mesh& mesh) {
  for (const MeshAxis& a : mesh.axes) {
    if (a.name == "tp" || a.name == "pp" || is_data_axis(a.name)) continue;
    for (const PlannedAxis& p : kNotImplemented)
      if (a.name == p.name)
        return make_error("axis '" + a.name + "' (" + std::string(p.what) + ") is not implemented yet; " +
                          supported_axes());
    return make_error("unknown axis '" + a.name + "'; " + supported_axes());
  }
  return {};
}

Status ParallelPlan::validate() const {
  if (Status axes = check_mesh_axes(mesh); !axes)
    return make_error("parallel plan: mesh " + mesh.str() + ": " + axes.error().message);
  if (zero < 0 || zero > 3) return make_error("parallel plan: ZeRO stage " + std::to_string(zero) + ": must be 0, 1, 2 or 3");
  return {};
}

int ParallelPlan::pipeline_ranks() const {
  for (const MeshAxis& a : mesh.axes)
    if (a.name == "pp") return static_cast<int>(a.size);
  return 1;
}

ParallelPlan make_parallel_plan(const ParallelFlags& cli, const ParallelConfig& section) {
  ParallelPlan plan;
  if (cli.mesh) {
    plan.mesh = *cli.mesh;
  } else if (!section.mesh.empty()) {
    plan.mesh = Mesh::parse(section.mesh).value();  // checked by the model file's parser
  }
  if (cli.zero) {
    plan.zero = *cli.zero;
  } else if (!plan.mesh.empty()) {
    plan.zero = section.zero;
  }
  plan.tensor_parallel = {section.tensor_parallel, section.sequence_parallel};
  const PipelineConfig& pipe = section.pipeline;
  if (pipe.given) {
    plan.virtual_stages = pipe.virtual_stages;
    if (pipe.microbatches_loc.known()) plan.micro_batches = pipe.microbatches;
    plan.schedule = pipe.schedule;
    plan.split_before = pipe.split_before;
  }
  if (cli.microbatches) plan.micro_batches = *cli.microbatches;
  if (cli.schedule) plan.schedule = *cli.schedule;
  if (cli.virtual_stages) plan.virtual_stages = *cli.virtual_stages;
  if (cli.sequence_parallel) plan.tensor_parallel.sequence_parallel = *cli.sequence_parallel;
  return plan;
}

}  // namespace mlc
