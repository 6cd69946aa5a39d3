// The local communicator: every rank of a mesh is a thread of this process
// (tests, and `mlc run --mesh dp=2` simulating a mesh on one machine).
//
// Contracts (beyond communicator.h's):
//  - Collectives read peers' buffers in place (no copies through a transport):
//    a collective posts its buffers, waits until every rank of the group has
//    posted, computes this rank's result from the peers' buffers, then waits
//    until every rank has finished reading before it returns. all_reduce
//    reduces element ranges in parallel (rank r reduces the r-th 1/size of the
//    elements into a buffer the group shares, in group-rank order, see
//    comm_internal.h), then each rank copies the whole result.
//  - Ranks must agree on each collective's kind, sizes, dtype, op and root;
//    a disagreement is an Error on every rank of the group ("ranks disagree
//    on the collective: ...") and aborts the world. Tags are not compared.
//  - send is eager: it copies the data and returns without waiting for the
//    receiver; recv checks that the sizes match.
//  - Any failure a collective detects (timeout, disagreement, bad argument,
//    size mismatch) aborts the world, as World::abort does; a collective on
//    an aborted world returns "rank R: TAG: rank F failed: REASON" at once.
//  - Ranks in messages are world ranks.
//  - One mutex and condition variable per world serialize the bookkeeping;
//    data is copied and reduced outside the lock.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "runtime/comm/communicator.h"

namespace mlc::rt {

// Runs body(world) once per rank of `mesh`, each on its own thread, and
// returns every rank's Status (index = world rank) once all have returned.
// A body that returns an Error (or throws) aborts the world with its message,
// so peers blocked in collectives return "rank 1 failed: <message>" instead
// of hanging. An invalid mesh (MeshShape::check) gives one Error and runs
// nothing.
std::vector<Status> run_local_ranks(const MeshShape& mesh, const CommOptions& options,
                                    const std::function<Status(World&)>& body);

// The worlds of every rank of `mesh` (index = world rank), sharing their
// state, for callers that run ranks on threads of their own; such a caller
// must abort a world whose rank fails, as run_local_ranks does. Each World
// (and its groups) is used by one thread at a time.
Expected<std::vector<std::unique_ptr<World>>> make_local_worlds(const MeshShape& mesh, const CommOptions& options);

}  // namespace mlc::rt
