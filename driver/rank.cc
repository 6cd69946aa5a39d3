#include "driver/rank.h"

#include "passes/sharding.h"
#include "runtime/tensor_chunks.h"

namespace mlc {

Expected<StepFunction> FunctionCache::get(const std::string& name, int64_t batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = compiled_.find({name, batch});
  if (it != compiled_.end()) return it->second.replica();
  // The first caller gets the function compiled now (no second arena).
  MLC_TRY(StepFunction f, program_.function(name, batch));
  compiled_.emplace(std::make_pair(name, batch), f.code());
  return f;
}

Expected<Signature> FunctionCache::signature(const std::string& name, int64_t batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = compiled_.find({name, batch});
  if (it == compiled_.end()) {
    MLC_TRY(StepFunction f, program_.function(name, batch));
    it = compiled_.emplace(std::make_pair(name, batch), f.code()).first;
  }
  return it->second.signature();
}

int64_t data_parallel_size(const Mesh& mesh) {
  int64_t w = 1;
  for (const MeshAxis& a : mesh.axes)
    if (is_data_axis(a.name)) w *= a.size;
  return w;
}

Expected<Rank> Rank::on_mesh(rt::World& world, const Mesh& mesh, const Signature& train_step,
                             FunctionCache& functions, FunctionCache& unsharded) {
  Rank r;
  r.world = &world;
  r.mesh = mesh;
  r.coords = world.mesh().coords(world.rank());
  r.functions = &functions;
  r.unsharded = &unsharded;
  std::optional<std::vector<size_t>> axes;
  for (const Signature::Arg& a : train_step.args) {
    if (a.kind != ArgKind::input || a.type.rank() == 0) continue;
    std::vector<size_t> mine;
    for (size_t k = 0; k < a.placements.size(); ++k)
      if (a.placements[k] == Placement::S(0)) mine.push_back(k);
    if (axes && *axes != mine)
      return make_error("mlc internal error: the inputs of @train_step on mesh " + mesh.str() +
                        " are not all sharded on dim 0 over the same axes ('" + a.name + "' is " +
                        placements_str(a.placements) + ")");
    axes = mine;
  }
  r.data_axes = axes.value_or(std::vector<size_t>{});
  // A pipeline's: every data axis (a stage's functions may take no input
  // that its rows shard, passes/pipeline_stage_sharding.h).
  if (mesh.find("pp")) {
    r.data_axes.clear();
    for (size_t k = 0; k < mesh.axes.size(); ++k)
      if (is_data_axis(mesh.axes[k].name)) r.data_axes.push_back(k);
  }
  // Mixed radix over the data axes, the first outermost (as chunks nest).
  for (size_t k : r.data_axes) {
    r.data_rank = r.data_rank * mesh.axes[k].size + r.coords[k];
    r.data_ranks *= mesh.axes[k].size;
  }
  return r;
}

Expected<StepFunction> Rank::function(const std::string& name, int64_t batch) const {
  MLC_TRY(StepFunction f, functions->get(name, batch));
  f.set_world(world);
  MLC_CHECK_OK(f.set_device_tensors(device_tensors));
  return f;
}

Status Rank::to_host(const std::vector<rt::NamedTensor>& tensors) const {
  if (device_tensors)
    for (const rt::NamedTensor& t : tensors) MLC_CHECK_OK(device_tensors->to_host(t.tensor));
  return {};
}

void Rank::host_wrote(const std::vector<rt::NamedTensor>& tensors) const {
  if (device_tensors)
    for (const rt::NamedTensor& t : tensors) device_tensors->host_wrote(t.tensor);
}

std::string Rank::prefix() const { return world ? "rank " + std::to_string(world->rank()) + ": " : ""; }

rt::Tensor Rank::local_part(const rt::Tensor& global, const Placements& placements) const {
  return rt::grid_chunk(global, shard_grid(placements, mesh, global.rank()),
                        shard_index(placements, mesh, coords, global.rank()));
}

bool Rank::holds_first_copy(const Placements& placements) const {
  for (size_t a = 0; a < placements.size() && a < coords.size(); ++a)
    if (!placements[a].is_sharded() && coords[a] != 0) return false;
  return true;
}

Expected<rt::Tensor> Rank::gather(const rt::Tensor& local, const Placements& placements,
                                  const std::string& name) const {
  rt::Tensor t = local;
  // Innermost chunks first: gathering axis a rebuilds the chunk of the axes before it.
  for (size_t a = placements.size(); a-- > 0;) {
    if (!placements[a].is_sharded()) continue;
    if (!world) return make_error("mlc internal error: gathering '" + name + "' without a world");
    rt::Group& group = world->axis_group(a);
    const int64_t n = group.size(), d = placements[a].dim, part_bytes = t.num_bytes();
    std::vector<std::byte> parts(static_cast<size_t>(n * part_bytes));
    MLC_CHECK_OK(group.all_gather(t.bytes(), parts.data(), part_bytes, "gather of " + name));
    Shape shape = t.shape();
    shape[d] *= n;
    rt::Tensor whole(TensorType{t.dtype(), shape});
    for (int64_t i = 0; i < n; ++i)
      rt::insert_chunk(shape, dtype_size(t.dtype()), d, n, i, parts.data() + i * part_bytes, whole.bytes());
    t = std::move(whole);
  }
  return t;
}

Status Rank::sum_over_data_ranks(std::vector<double>& values, const std::string& tag) const {
  for (size_t a : data_axes)
    MLC_CHECK_OK(world->axis_group(a).all_reduce(values.data(), static_cast<int64_t>(values.size()), DType::f64,
                                                 rt::ReduceOp::sum, tag));
  return {};
}

}  // namespace mlc
