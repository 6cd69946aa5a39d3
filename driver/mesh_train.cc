#include "driver/mesh_train.h"

#include <cstdio>
#include <filesystem>
#include <string_view>

#include "runtime/artifact.h"
#include "runtime/checkpoint.h"
#include "runtime/checksum.h"
#include "runtime/comm/local.h"
#include "runtime/comm/mpi.h"
#include "runtime/thread_pool.h"
#include "driver/file_digest.h"

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

// What every rank of one run must have in common, each part hashed: the
// content of every input file (not its path: the same bytes may lie at
// different paths on different hosts) and every setting that changes the
// numbers or the collectives the ranks run.
struct StartupFacts {
  static constexpr int kParts = 7;
  static constexpr const char* kNames[kParts] = {
      "a different model file (or artifact)",
      "a different mesh or ZeRO stage",
      "a different data file (its content)",
      "a different --init file (its content)",
      "a different checkpoint to resume from (its content)",
      "different training settings (backend, seed, epochs, steps, start step, evaluation, gradient statistics, "
      "checkpoints, --save or --dump-grads)",
      "a different mlc version"};
  uint64_t hash[kParts] = {};
};

// The digest of a file's content, or what stood in the way (the same for
// every rank that cannot read it, whatever its path).
std::string content_of(const std::string& path) {
  if (path.empty()) return "none";
  Expected<std::string> digest = file_digest(path);
  return digest ? *digest : "unreadable";
}

StartupFacts startup_facts(const Program& program, const TrainOptions& o) {
  const ModelConfig& c = program.config();
  StartupFacts f;
  f.hash[0] = rt::fnv1a64(content_of(program.path()));  // the model file or the artifact
  f.hash[1] = rt::fnv1a64(o.parallel.mesh.str() + "/zero=" + std::to_string(o.parallel.zero));
  f.hash[2] = rt::fnv1a64(content_of(o.data_path.empty() ? c.data.file : o.data_path));
  f.hash[3] = rt::fnv1a64(content_of(o.init_path));
  std::string resume = "no";
  if (o.resume) {
    const std::vector<std::string> checkpoints = rt::list_checkpoints(o.checkpoint_dir);
    resume = checkpoints.empty() ? "none"
                                 : std::filesystem::path(checkpoints[0]).filename().string() + ":" +
                                       content_of(checkpoints[0]);
  }
  f.hash[4] = rt::fnv1a64(resume);
  const std::string settings =
      std::string(o.backend == Backend::interp ? "interp" : "compiled") + "|seed " +
      std::to_string(o.seed.value_or(c.train.seed)) + "|epochs " + std::to_string(o.epochs.value_or(-1)) +
      "|steps " + std::to_string(o.steps.value_or(-1)) + "|start " + std::to_string(o.start_step) + "|eval " +
      (o.eval_only ? "only" : "") + std::to_string(o.eval_every.value_or(-1)) + "|grads " +
      std::to_string(o.grad_stats_every.value_or(-1)) + "|checkpoints " + (o.checkpoint_dir.empty() ? "off" : "on") +
      " every " + std::to_string(o.checkpoint_every) + "|save " + (o.save_path.empty() ? "no" : "yes") +
      "|dump-grads " + (o.dump_grads_path.empty() ? "no" : "yes");
  f.hash[5] = rt::fnv1a64(settings);
  f.hash[6] = rt::fnv1a64(rt::mlc_version());
  return f;
}

// Start-up agreement under mpirun: every rank hashes the facts above and the
// ranks compare them before any work. A mismatch stops every rank; rank 0
// reports which ranks differ in what:
//   "error: the ranks of this run disagree: rank 1 has a different data file (its content) from rank 0"
Status agree_on_startup(rt::World& world, const Program& program, const TrainOptions& o) {
  StartupFacts mine = startup_facts(program, o);
  std::vector<StartupFacts> all(static_cast<size_t>(world.size()));
  MLC_CHECK_OK(world.all().all_gather(&mine, all.data(), sizeof(StartupFacts), "mlc run: start-up agreement"));
  std::string differences;
  for (int part = 0; part < StartupFacts::kParts; ++part) {
    std::string ranks;
    int count = 0;
    for (int r = 1; r < world.size(); ++r)
      if (all[r].hash[part] != all[0].hash[part]) {
        ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
        ++count;
      }
    if (count)
      differences += std::string(differences.empty() ? "" : "; ") + (count == 1 ? "rank " : "ranks ") + ranks +
                     (count == 1 ? " has " : " have ") + StartupFacts::kNames[part] + " from rank 0";
  }
  if (differences.empty()) return {};
  return make_error(world.rank() == 0 ? "error: the ranks of this run disagree: " + differences : "");
}

}  // namespace

Expected<TrainSummary> train_on_mesh(const Program& sharded, const Program& whole, const TrainOptions& o) {
  const Mesh& mesh = o.parallel.mesh;
  // A GPU per rank: the ranks are processes (a process's code is loaded on
  // one GPU, and NCCL refuses two ranks of one communicator on one GPU).
  if (sharded.device().target == rt::kCudaTarget && !o.mpi)
    return make_error(sharded.path() + ": error: --device cuda on mesh " + mesh.str() +
                      ": each rank needs a GPU and a process of its own; start one process per rank with mpirun or "
                      "srun (mpirun -np " + std::to_string(mesh.num_devices()) +
                      " mlc run ...), each takes the GPU of its local rank");
  // Under mpirun: this process's rank, first (the process count is checked
  // before any work).
  std::unique_ptr<rt::World> mpi;
  if (o.mpi) {
    MLC_TRY(mpi, rt::mpi_world(mesh_shape(mesh), o.comm));
    MLC_CHECK_OK(agree_on_startup(*mpi, sharded, o));
  }
  const bool leader = !mpi || mpi->rank() == 0;
  if (rt::num_threads() > 1) {
    if (leader)
      std::fprintf(stderr, "note: MLC_THREADS=%d ignored on mesh %s: each rank runs on one thread\n",
                   rt::num_threads(), mesh.str().c_str());
    rt::set_num_threads(1);
  }
  FunctionCache functions(sharded), unsharded(whole);
  const int64_t data_ranks = data_parallel_size(mesh);
  Expected<TrainSetup> setup = prepare_training(functions, o, data_ranks, mesh.str(), leader);
  // The data axes are read off the step's inputs: a pipeline's first stage's.
  const ParallelPlan& plan = sharded.parallel();
  Expected<Signature> train_step =
      !setup ? Expected<Signature>(setup.error())
      : plan.pipelined()
          ? functions.signature("stage0.loss_grad", setup->batch / plan.pipeline_micro_batches())
          : functions.signature("train_step", setup->batch);
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
