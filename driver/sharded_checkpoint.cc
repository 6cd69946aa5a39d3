#include "driver/sharded_checkpoint.h"

#include <filesystem>

#include "runtime/sharded_checkpoint.h"

namespace mlc {

Status write_sharded_checkpoint(const Rank& rank, const std::string& dir, int keep, const std::string& model_name,
                                const rt::TrainPosition& position, const std::vector<rt::NamedTensor>& locals,
                                const std::vector<Placements>& placements, const std::vector<bool>* writes) {
  // Per tensor, whether this rank wrote its chunk, and the chunk's checksum.
  struct Written {
    uint64_t wrote = 0, checksum = 0;
  };
  std::vector<rt::NamedTensor> chunks;
  std::vector<size_t> chunk_of_tensor;
  for (size_t i = 0; i < locals.size(); ++i)
    if (writes ? (*writes)[i] : rank.holds_first_copy(placements[i])) {
      chunks.push_back(locals[i]);
      chunk_of_tensor.push_back(i);
    }
  std::vector<Written> mine(locals.size());
  if (!chunks.empty()) {
    MLC_TRY(std::vector<uint64_t> sums,
            rt::write_checkpoint_shard(rt::checkpoint_shard_path(dir, position.step, rank.index()), chunks));
    for (size_t k = 0; k < sums.size(); ++k) mine[chunk_of_tensor[k]] = {1, sums[k]};
  }
  const int ranks = rank.world->size();
  std::vector<Written> all(mine.size() * static_cast<size_t>(ranks));
  const auto bytes = static_cast<int64_t>(mine.size() * sizeof(Written));
  MLC_CHECK_OK(rank.world->all().all_gather(mine.data(), all.data(), bytes,
                                            "checkpoint of step " + std::to_string(position.step)));
  if (!rank.leader()) return {};

  rt::CheckpointIndex index{model_name, position, rank.mesh, {}};
  for (size_t i = 0; i < locals.size(); ++i) {
    const rt::Tensor& local = locals[i].tensor;
    const Shape global = global_shape(local.shape(), placements[i], rank.mesh);
    rt::IndexedTensor t{locals[i].name, TensorType{local.dtype(), global}, placements[i], {}};
    for (int r = 0; r < ranks; ++r) {
      const Written& w = all[static_cast<size_t>(r) * locals.size() + i];
      if (!w.wrote) continue;
      const std::string path = rt::checkpoint_shard_path(dir, position.step, r);
      const std::vector<int> coords = rank.world->mesh().coords(r);
      t.shards.push_back({std::filesystem::path(path).filename().string(),
                          shard_index(placements[i], rank.mesh, coords, local.rank()), w.checksum});
    }
    index.tensors.push_back(std::move(t));
  }
  MLC_CHECK_OK(rt::write_checkpoint_index(rt::checkpoint_index_path(dir, position.step), index));
  rt::prune_checkpoints(dir, keep);
  return {};
}

}  // namespace mlc
