#include "tools/mesh_train.h"

#include <cstdio>

#include "runtime/comm/local.h"
#include "runtime/comm/mpi.h"
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

namespace {

// Under mpirun, after every process prepared: an Error unless every rank did.
// The ranks agree (a sum over all ranks) so that none goes on to train alone:
// if every rank failed (the same inputs give the same error) rank 0 returns
// its error and the others an empty one; if only some failed, each of them
// aborts the job with its own error (World::abort: "rank R failed: ...").
Status agree_prepared(rt::World& world, const Status& mine) {
  double failed = mine ? 0 : 1;
  MLC_CHECK_OK(world.all().all_reduce(&failed, 1, DType::f64, rt::ReduceOp::sum, "mlc run: ranks that failed to prepare"));
  if (failed == 0) return {};
  if (mine) return make_error("");
  if (failed == world.size()) return world.rank() == 0 ? mine : make_error("");
  world.abort(mine.error().message);
  return mine;  // abort ends the job; not reached under mpirun
}

}  // namespace

Expected<TrainSummary> train_on_mesh(const ModelFile& model, const TrainOptions& o) {
  const Mesh& mesh = o.parallel.mesh;
  if (!o.dump_grads_path.empty())
    return make_error("error: --dump-grads writes one device's gradients; on mesh " + mesh.str() +
                      " they are sharded: run without --mesh to dump them");
  // Under mpirun: this process's rank, first (the process count is checked
  // before any work).
  std::unique_ptr<rt::World> mpi;
  if (o.mpi) {
    MLC_TRY(mpi, rt::mpi_world(mesh_shape(mesh), o.comm));
  }
  const bool leader = !mpi || mpi->rank() == 0;
  if (rt::num_threads() > 1) {
    if (leader)
      std::fprintf(stderr, "note: MLC_THREADS=%d ignored on mesh %s: each rank runs on one thread\n",
                   rt::num_threads(), mesh.str().c_str());
    rt::set_num_threads(1);
  }
  const Program sharded = Program::from_model(model, o.backend, o.parallel);
  const Program whole = Program::from_model(model, o.backend);
  FunctionCache functions(sharded), unsharded(whole);
  const int64_t data_ranks = data_parallel_size(mesh);
  Expected<TrainSetup> setup = prepare_training(functions, o, data_ranks, mesh.str(), leader);
  Expected<Signature> train_step = setup ? functions.signature("train_step", setup->batch) : setup.error();
  if (mpi) MLC_CHECK_OK(agree_prepared(*mpi, train_step ? Status{} : train_step.error()));
  if (!train_step) return train_step.error();

  auto run_rank = [&](rt::World& world) -> Expected<TrainSummary> {
    MLC_TRY(Rank rank, Rank::on_mesh(world, mesh, *train_step, functions, unsharded));
    if (rank.data_ranks != data_ranks)
      return make_error(rank.prefix() + "mlc internal error: @train_step's inputs are sharded over " +
                        std::to_string(rank.data_ranks) + " data ranks, the plan says " + std::to_string(data_ranks));
    return train_rank(*setup, o, rank);
  };
  if (mpi) {
    Expected<TrainSummary> summary = run_rank(*mpi);
    // A failing rank ends the job (its peers would wait in collectives).
    if (!summary) {
      std::string message = summary.error().message;
      const std::string prefix = "rank " + std::to_string(mpi->rank()) + ": ";
      if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
      mpi->abort(message);
    }
    return summary;
  }

  std::optional<TrainSummary> summary;
  std::vector<Status> statuses = rt::run_local_ranks(mesh_shape(mesh), o.comm, [&](rt::World& world) -> Status {
    MLC_TRY(TrainSummary s, run_rank(world));
    if (s.rank == 0) summary = std::move(s);
    return {};
  });
  for (const Status& s : statuses)
    if (!s) return s.error();
  if (!summary) return make_error("mlc internal error: rank 0 returned no summary");
  return std::move(*summary);
}

}  // namespace mlc
