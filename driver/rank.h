// What one rank of a training run sees: a single device (no world), or one
// rank of a device mesh whose ranks run the sharded functions of a Program
// (driver/program.h) as SPMD programs, here as threads of one process
// (driver/mesh_train.h) or one per process under mpirun: nothing here
// assumes the ranks share memory except FunctionCache, which is per process.
//
// Contracts:
//  - Rank::function gives the caller its own StepFunction, with this rank's
//    world set: its collectives run on that world.
//  - Tensors of a sharded function's arguments are local parts (ir/mesh.h):
//    for S(d) on axis a, chunk coords[a] of dim d's equal chunks, nested in
//    mesh-axis order (the first axis picks the outer chunk): the chunk
//    shard_index of the grid shard_grid. local_part cuts a global tensor so;
//    gather is its inverse, a collective (an all_gather
//    per sharding axis, through the Group API) that every rank must call in
//    the same order, giving every rank the whole tensor.
//  - The data ranks are the ranks that differ along the mesh axes sharding
//    the inputs' dim 0 (DistributedSampler's replicas); ranks that differ
//    only along other axes get the same data. A single device is data rank 0
//    of 1.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ir/mesh.h"
#include "runtime/comm/communicator.h"
#include "runtime/parameters.h"
#include "driver/program.h"
#include "driver/step_function.h"

namespace mlc {

// The functions of a Program, compiled once per (name, batch) and shared by
// the ranks of this process: get() hands out the function compiled for the
// first request, replicas (StepFunction::replica) for the others.
// Thread-safe; compiling holds the lock, so a rank asking for a function
// another is compiling waits for it.
class FunctionCache {
 public:
  explicit FunctionCache(const Program& program) : program_(program) {}
  const Program& program() const { return program_; }
  Expected<StepFunction> get(const std::string& name, int64_t batch);
  // The function's calling convention (compiling it if no one has yet).
  Expected<Signature> signature(const std::string& name, int64_t batch);

 private:
  const Program& program_;
  std::mutex mutex_;
  std::map<std::pair<std::string, int64_t>, StepFunction> compiled_;  // code only
};

struct Rank {
  rt::World* world = nullptr;  // null: a single device
  Mesh mesh;                   // empty: a single device
  std::vector<int> coords;     // this rank's index along each mesh axis
  FunctionCache* functions = nullptr;  // the (sharded, on a mesh) functions
  // Where this rank keeps its parameters and optimizer state between steps
  // (runtime/device_tensors.h; not owned): given to every function it hands
  // out. Null: in the host tensors.
  rt::DeviceTensors* device_tensors = nullptr;
  // On a mesh: the same model's unsharded functions (for the eval examples
  // that do not split evenly over the data ranks); null on a single device.
  FunctionCache* unsharded = nullptr;
  std::vector<size_t> data_axes;  // mesh axes sharding the inputs' dim 0
  int64_t data_rank = 0, data_ranks = 1;

  // Rank `world`'s view of `mesh`, data axes from `train_step`'s inputs.
  static Expected<Rank> on_mesh(rt::World& world, const Mesh& mesh, const Signature& train_step,
                                FunctionCache& functions, FunctionCache& unsharded);

  int index() const { return world ? world->rank() : 0; }
  // Rank 0 logs and writes metrics, saved parameters and checkpoint indices.
  bool leader() const { return index() == 0; }
  // Function `name` for `batch`, with this rank's world and device tensors.
  Expected<StepFunction> function(const std::string& name, int64_t batch) const;
  // The host's bytes of `tensors` made current / marked newer than their
  // device copies (no-ops without device_tensors).
  Status to_host(const std::vector<rt::NamedTensor>& tensors) const;
  void host_wrote(const std::vector<rt::NamedTensor>& tensors) const;
  rt::Tensor local_part(const rt::Tensor& global, const Placements& placements) const;
  // Whether this rank's local part under `placements` is the first copy of
  // its chunk: its index is 0 along every axis that does not shard the
  // tensor. Of the ranks holding one chunk exactly one is; every rank on a
  // single device.
  bool holds_first_copy(const Placements& placements) const;
  Expected<rt::Tensor> gather(const rt::Tensor& local, const Placements& placements, const std::string& name) const;
  // In place: each value summed over the data ranks (a no-op on one device).
  Status sum_over_data_ranks(std::vector<double>& values, const std::string& tag) const;
  // "rank R: " on a mesh, "" on a single device: the prefix of this rank's errors.
  std::string prefix() const;
};

// The number of data-parallel ranks of `mesh` (the product of the sizes of
// its data axes, passes/sharding.h is_data_axis): 1 for the empty mesh.
int64_t data_parallel_size(const Mesh& mesh);

}  // namespace mlc
