// Training on a device mesh (`mlc run MODEL.json --mesh dp=2 [--zero N]`):
// the ranks of the mesh as threads of this process, on the local
// communicator (runtime/comm/local.h), each running train_rank
// (tools/train.h) on the model's sharded functions (Program::from_model with
// TrainOptions::parallel).
//
// What is shared and what is per rank:
//  - Once, before the ranks start: the data, the global initial state and
//    --resume's checkpoint (prepare_training), and every function's
//    compilation (FunctionCache; ranks get replicas).
//  - Per rank, through its World only: its local parts of the state, its
//    data, its collectives; --save and checkpoints gather the sharded
//    tensors with an all_gather per sharding axis (Rank::gather) and rank 0
//    writes them as one device's files, so they load on any mesh or none.
//    The per-rank loop thus needs nothing of the other ranks' memory, so the
//    same loop can run one rank per process under mpirun (rt::mpi_world) once
//    every process prepares the same setup.
//  - A rank that fails ends the run: run_local_ranks aborts the world, every
//    rank's pending or later collective fails naming the failed rank, and the
//    error returned is the first failing rank's ("rank R: ...").
//
// Not on a mesh (errors): artifacts (compiled for one device), --dump-grads.
// MLC_THREADS > 1 is reduced to 1: each rank is one thread, and the kernel
// thread pool runs one region at a time.
#pragma once

#include "frontends/model_file.h"
#include "tools/train.h"

namespace mlc {

// Trains `model` on options.parallel.mesh (not empty), the compiled step
// functions on options.backend. The summary is rank 0's.
Expected<TrainSummary> train_on_mesh(const ModelFile& model, const TrainOptions& options);

// The communicators' view of `mesh`: its axes and sizes.
rt::MeshShape mesh_shape(const Mesh& mesh);

}  // namespace mlc
