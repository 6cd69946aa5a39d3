// Training on a device mesh (`mlc run MODEL.json --mesh dp=2 [--zero N]`):
// the ranks of the mesh as threads of this process, on the local
// communicator (runtime/comm/local.h), or, with TrainOptions::mpi (`mpirun
// -np 2 mlc run ...`), this process as one rank on the MPI communicator
// (runtime/comm/mpi.h); each rank runs train_rank (driver/train.h) on the
// model's sharded functions (Program::from_model with TrainOptions::parallel).
// Both communicators sum in rank order, so the two give bit-identical losses.
//
// What is shared and what is per rank:
//  - Once, before the ranks start: the data, the global initial state and
//    --resume's checkpoint (prepare_training), and every function's
//    compilation (FunctionCache; ranks get replicas).
//  - Per rank, through its World only: its local parts of the state, its
//    data, its collectives; --save gathers the sharded tensors with an
//    all_gather per sharding axis (Rank::gather) and rank 0 writes them as
//    one device's file; a checkpoint is sharded: every rank writes its own
//    chunks, rank 0 the index (driver/sharded_checkpoint.h), and it loads on
//    any mesh or none.
//    The per-rank loop thus needs nothing of the other ranks' memory.
//  - Under mpirun every process does the "once" part itself, the same way
//    (same files, same seed: the same global initial state), after creating
//    its world (rt::mpi_world: an Error unless the launcher started as many
//    processes as the mesh has ranks). Only rank 0 prints notes, the
//    progress and the summary; ranks agree that every one prepared before
//    training (if all failed, rank 0 returns the error and the others an
//    Error with an empty message, which the caller does not print).
//  - A rank that fails ends the run. Threads: run_local_ranks aborts the
//    world, every rank's pending or later collective fails naming the failed
//    rank, and the error returned is the first failing rank's ("rank R:
//    ..."). mpirun: the failing process aborts the job (World::abort prints
//    "rank R failed: ..." and MPI_Abort ends every process).
//
// The functions come from a model file compiled now or from an artifact that
// `mlc compile --mesh` wrote (the same SPMD executables for every rank).
// --dump-grads on a mesh: @loss_grad's gradients are fresh results, which
// the sharding pass makes replicated (whole on every rank); rank 0 writes
// them, the same file as one device's.
// MLC_THREADS > 1 is reduced to 1: each rank is one thread, and the kernel
// thread pool runs one region at a time.
#pragma once

#include "frontends/model_file.h"
#include "driver/train.h"

namespace mlc {

// Trains on options.parallel.mesh (not empty) with `sharded`'s functions
// (compiled for that mesh and ZeRO stage) and `unsharded`'s (the same model
// on one device: evaluation examples that do not split evenly over the data
// ranks), with options.comm's timeout. The summary is rank 0's; under mpirun
// (options.mpi) it is this process's rank's (TrainSummary::rank).
Expected<TrainSummary> train_on_mesh(const Program& sharded, const Program& unsharded, const TrainOptions& options);

// The communicators' view of `mesh`: its axes and sizes.
rt::MeshShape mesh_shape(const Mesh& mesh);

}  // namespace mlc
