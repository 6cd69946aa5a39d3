// A sharded checkpoint as the ranks of a one-axis mesh "dp=N" write it
// (driver/sharded_checkpoint.h), without a mesh: rank r's shard holds the
// chunk r of every tensor it holds the first copy of (a replicated tensor:
// rank 0 alone), then the index. Shared by tests/runtime/ and the checkpoint
// fuzzer's harness and seeds (tests/fuzz/), which need the same files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/sharded_checkpoint.h"
#include "runtime/tensor_chunks.h"

namespace mlc::testing {

// Writes the checkpoint of `globals` (parameters, then optimizer state) with
// `placements` on mesh dp=`ranks` into `dir`; returns the index's path, or ""
// if a write failed.
inline std::string write_sharded_fixture(const std::string& dir, const std::string& model,
                                         const rt::TrainPosition& position, int ranks,
                                         const std::vector<rt::NamedTensor>& globals,
                                         const std::vector<Placements>& placements) {
  const Mesh mesh{{{"dp", ranks}}};
  rt::CheckpointIndex index{model, position, mesh, {}};
  std::vector<std::vector<rt::NamedTensor>> files(static_cast<size_t>(ranks));
  std::vector<std::vector<rt::ShardRef*>> refs(static_cast<size_t>(ranks));
  index.tensors.reserve(globals.size());
  for (size_t i = 0; i < globals.size(); ++i) {
    const rt::Tensor& g = globals[i].tensor;
    rt::IndexedTensor& t = index.tensors.emplace_back(rt::IndexedTensor{globals[i].name, g.type(), placements[i], {}});
    const int writers = placements[i][0].is_sharded() ? ranks : 1;
    t.shards.reserve(static_cast<size_t>(writers));
    for (int r = 0; r < writers; ++r) {
      const std::vector<int64_t> at = shard_index(placements[i], mesh, {r}, g.rank());
      files[r].push_back({globals[i].name, rt::grid_chunk(g, shard_grid(placements[i], mesh, g.rank()), at)});
      const std::string path = rt::checkpoint_shard_path(dir, position.step, r);
      refs[r].push_back(&t.shards.emplace_back(rt::ShardRef{std::filesystem::path(path).filename().string(), at, 0}));
    }
  }
  for (int r = 0; r < ranks; ++r) {
    if (files[r].empty()) continue;
    auto sums = rt::write_checkpoint_shard(rt::checkpoint_shard_path(dir, position.step, r), files[r]);
    if (!sums) return "";
    for (size_t k = 0; k < sums->size(); ++k) refs[r][k]->checksum = (*sums)[k];
  }
  const std::string path = rt::checkpoint_index_path(dir, position.step);
  return rt::write_checkpoint_index(path, index) ? path : "";
}

}  // namespace mlc::testing
