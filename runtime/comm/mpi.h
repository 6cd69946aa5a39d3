// The MPI communicator: one rank per process under `mpirun -np N` (OpenMPI)
// or Slurm's `srun`. Only runtime/comm/mpi.cc includes mpi.h.
//
// Contracts (beyond communicator.h's):
//  - MPI is initialized once per process (MPI_THREAD_SERIALIZED: one thread
//    at a time may use the communicator) by the first mpi_world and finalized
//    at exit. Every rank must create its worlds in the same order (creating
//    one is collective over MPI_COMM_WORLD).
//  - Determinism: MPI does not promise its reduction order, so reductions do
//    not use MPI's. reduce_scatter is an all_to_all of the chunks followed by
//    a local sum in group-rank order (comm_internal.h); all_reduce is that
//    reduce_scatter followed by an all_gather of the reduced chunks. Each
//    rank sends and receives (n-1)/n of the data twice, as a ring all_reduce
//    does, but in 2 steps of n-1 messages each and with a copy of n chunks of
//    1/n each in memory; bit-identical on every rank.
//  - Timeouts: every operation is non-blocking (MPI_Ialltoallv, MPI_Ibcast,
//    MPI_Isend, MPI_Improbe/MPI_Imrecv, ...) and polled with MPI_Test until
//    the world's deadline. On timeout this rank asks the other ranks of the
//    group what they are doing (ranks answer while they wait inside any
//    collective of this communicator), prints
//      "rank 0: TAG: timed out after 500 ms waiting for rank 1 (rank 1 is in 'OTHER TAG')"
//    (or "... (no answer: computing, stuck or gone)") on stderr, and calls
//    MPI_Abort: mpirun then ends every process of the job.
//  - Failures: World::abort prints "rank R failed: REASON" on stderr and
//    calls MPI_Abort; it does not return. Transport errors (MPI error codes)
//    and recv size mismatches do the same, naming the tag. OpenMPI (without
//    the ULFM extension, which Debian does not build) cannot tell surviving
//    ranks that a peer failed: when a process dies or aborts, mpirun kills
//    the others, so no rank hangs, but only the failing rank explains why.
//  - Bad arguments (a bool reduction, negative sizes, a root or peer outside
//    the group) are returned as Errors without aborting: every rank of an
//    SPMD program makes the same mistake.
//  - send is eager: it copies the data and returns; the copy is sent in the
//    background, progressed by later calls, and waited for (to the timeout)
//    when the world is destroyed. recv checks the size of the message.
//  - Counts travel as MPI ints: one rank's part of a collective is at most
//    2^31-1 elements (reductions) or bytes (the others); larger is an Error.
#pragma once

#include <memory>

#include "runtime/comm/communicator.h"

namespace mlc::rt {

// True if this process was started by an MPI or Slurm launcher (OpenMPI's
// OMPI_COMM_WORLD_SIZE, PMI's or PMIx's PMI_SIZE / PMIX_RANK, Slurm's
// SLURM_STEP_NUM_TASKS with SLURM_PROCID), so the tools choose mpi_world.
bool launched_by_mpi();

// The number of processes the launcher started, from the same environment
// (OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_STEP_NUM_TASKS), without
// initializing MPI; 0 when not launched so or the count is not given.
int launched_processes();
// "mpirun", or "srun" under Slurm without Open MPI's launcher: the launcher
// messages name.
const char* mpi_launcher_name();

// This process's world: initializes MPI if needed, checks that the launcher
// started mesh.num_ranks() processes ("mpirun started 3 processes but mesh
// dp=2,tp=2 has 4 ranks"), and splits one communicator per mesh axis.
Expected<std::unique_ptr<World>> mpi_world(const MeshShape& mesh, const CommOptions& options);

}  // namespace mlc::rt
