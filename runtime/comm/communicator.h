// Communicators: how the ranks of a device mesh exchange tensors. One
// interface, chosen at start:
//   local  the N ranks of the mesh as threads of one process (tests, and a
//          mesh simulated on one machine: `mlc run MODEL.json --mesh dp=2`);
//   mpi    one rank per process under `mpirun -np N` or Slurm's `srun`.
//
// A World is the set of all ranks; a Group is the ranks of one mesh axis that
// share this rank's coordinates on every other axis (the ranks a collective
// over that axis talks to). Rank numbering is row-major over the mesh axes in
// their declared order: with mesh dp=2,tp=2, world rank = dp_index * 2 +
// tp_index, and the tp group of world rank 2 is {2, 3}.
//
// Contracts:
//  - Every rank of a group calls the same collectives in the same order with
//    the same sizes (the program is SPMD). A collective returns when this
//    rank's part is done; buffers may be reused afterwards.
//  - Results are deterministic and bit-identical on every rank of the group:
//    sums add the ranks' contributions in group-rank order (0 + 1 + 2 ...),
//    whatever the arrival order.
//  - `tag` names the collective for diagnostics (its ledger entry: "all_reduce
//    #3: gradient of fc1.weight (model.json:12:5)"). Every failure is an Error
//    whose message names the tag, this rank, and the peer that is missing:
//      "rank 0: all_reduce #3 ...: timed out after 30 s waiting for rank 1"
//      "rank 0: all_reduce #3 ...: rank 1 failed: <its error>"
//  - A rank that fails calls World::abort(reason): every collective pending or
//    started later on any rank returns an Error naming the failed rank and its
//    reason, so no rank hangs. A collective that waits longer than the world's
//    timeout fails the same way on this rank and aborts the world.
//  - Buffers never alias between `in` and `out` unless stated.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/expected.h"

namespace mlc::rt {

enum class ReduceOp : uint8_t { sum, max };

class Group {
 public:
  virtual ~Group() = default;
  virtual int rank() const = 0;  // 0 .. size()-1 within the group
  virtual int size() const = 0;
  // The world rank of group rank `r`.
  virtual int world_rank(int r) const = 0;

  // In place: data[i] = op over the group of data[i]. `count` elements of dtype.
  virtual Status all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, std::string_view tag) = 0;
  // out = concatenation of every rank's `in` (bytes_per_rank each), in group-rank order.
  virtual Status all_gather(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) = 0;
  // in holds size() chunks of count_per_rank elements; out = the sum over the
  // group of chunk rank() (in group-rank order).
  virtual Status reduce_scatter(const void* in, void* out, int64_t count_per_rank, DType dtype, ReduceOp op,
                                std::string_view tag) = 0;
  // in holds size() chunks of bytes_per_rank; chunk j goes to rank j; out
  // holds size() chunks, chunk i from rank i.
  virtual Status all_to_all(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) = 0;
  // In place: every rank's data = root's data.
  virtual Status broadcast(void* data, int64_t bytes, int root, std::string_view tag) = 0;
  // Point to point within the group (pipeline stages). Matched in order per (sender, receiver).
  virtual Status send(const void* data, int64_t bytes, int peer, std::string_view tag) = 0;
  virtual Status recv(void* data, int64_t bytes, int peer, std::string_view tag) = 0;
  virtual Status barrier(std::string_view tag) = 0;
};

// A mesh as communicators see it: axis names and sizes, row-major. No axes
// is the mesh of one rank.
struct MeshShape {
  std::vector<std::string> axes;
  std::vector<int> sizes;
  int num_ranks() const;
  // This rank's index along each axis.
  std::vector<int> coords(int world_rank) const;
  // The world ranks of the group of axis `axis` through `world_rank`, in
  // group-rank order (the ranks that differ from it only along that axis).
  std::vector<int> axis_group_ranks(int world_rank, size_t axis) const;
  // As the CLI spells it: "dp=2,tp=2" ("(one rank)" for no axes).
  std::string to_string() const;
  // An Error unless axes and sizes have the same length, every size is >= 1,
  // names are non-empty and distinct, and num_ranks() fits in an int.
  Status check() const;
};

class World {
 public:
  virtual ~World() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const MeshShape& mesh() const = 0;
  // The group of mesh axis `axis` (an index into mesh().axes) through this rank.
  virtual Group& axis_group(size_t axis) = 0;
  // All ranks (rank() == world rank).
  virtual Group& all() = 0;
  // Marks this rank failed: every rank's pending and later collectives return
  // an Error naming this rank and `reason`. Idempotent.
  virtual void abort(std::string_view reason) = 0;
  virtual std::chrono::milliseconds timeout() const = 0;
};

struct CommOptions {
  // How long one collective (or recv) may wait for its peers; > 0.
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
};

}  // namespace mlc::rt
