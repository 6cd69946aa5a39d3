#include "tools/mesh_train.h"

#include <cstdio>

#include "runtime/comm/local.h"
#include "runtime/thread_pool.h"

namespace mlc {

rt::MeshShape mesh_shape(const Mesh& mesh) {
  rt::MeshShape shape;
  for (const MeshAxis& a : mesh.axes) {
    shape.axes.push_back(a.name);
    shape.sizes.push_back(static_cast<int>(a.size));
  }
  return shape;
}

Expected<TrainSummary> train_on_mesh(const ModelFile& model, const TrainOptions& o) {
  const Mesh& mesh = o.parallel.mesh;
  if (!o.dump_grads_path.empty())
    return make_error("error: --dump-grads writes one device's gradients; on mesh " + mesh.str() +
                      " they are sharded: run without --mesh to dump them");
  if (rt::num_threads() > 1) {
    std::fprintf(stderr, "note: MLC_THREADS=%d ignored on mesh %s: each rank runs on one thread\n",
                 rt::num_threads(), mesh.str().c_str());
    rt::set_num_threads(1);
  }
  const Program sharded = Program::from_model(model, o.backend, o.parallel);
  const Program whole = Program::from_model(model, o.backend);
  FunctionCache functions(sharded), unsharded(whole);
  const int64_t data_ranks = data_parallel_size(mesh);
  MLC_TRY(TrainSetup setup, prepare_training(functions, o, data_ranks, mesh.str()));
  MLC_TRY(Signature train_step, functions.signature("train_step", setup.batch));

  std::optional<TrainSummary> summary;
  std::vector<Status> statuses = rt::run_local_ranks(mesh_shape(mesh), {}, [&](rt::World& world) -> Status {
    MLC_TRY(Rank rank, Rank::on_mesh(world, mesh, train_step, functions, unsharded));
    if (rank.data_ranks != data_ranks)
      return make_error(rank.prefix() + "mlc internal error: @train_step's inputs are sharded over " +
                        std::to_string(rank.data_ranks) + " data ranks, the plan says " + std::to_string(data_ranks));
    MLC_TRY(TrainSummary s, train_rank(setup, o, rank));
    if (rank.leader()) summary = std::move(s);
    return {};
  });
  for (const Status& s : statuses)
    if (!s) return s.error();
  if (!summary) return make_error("mlc internal error: rank 0 returned no summary");
  return std::move(*summary);
}

}  // namespace mlc
