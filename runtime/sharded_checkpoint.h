// Sharded checkpoints: what a run on a device mesh writes, every rank its own
// chunks, so that no rank gathers a whole tensor (driver/sharded_checkpoint.h
// writes them; read_checkpoint, runtime/checkpoint.h, reads them on any mesh
// or none).
//
// The files of the checkpoint of step N in a directory:
//   step_0000000N.rankRRRRR.safetensors  the chunks rank R writes, each under
//       its tensor's name, for every tensor whose chunk R holds the first copy
//       of (no other rank of a lower number holds it: a tensor replicated
//       along an axis is written by the ranks at index 0 of that axis), so
//       every byte is written once; a rank with nothing to write writes no file;
//   step_0000000N.index.json  written by rank 0 after every rank's shard is
//       on disk: the checkpoint exists only once it does.
//
// The index, JSON (one tensor a line):
//   {"format":"mlc-sharded-checkpoint/1","model":NAME,"step":N,"seed":S,
//    "batch_size":B,"steps_per_epoch":E,"shuffle":BOOL,"mesh":"dp=2","tensors":[
//   {"name":"fc.weight","dtype":"f32","shape":[64,64],"placements":"<S(0)>","shards":[
//     {"file":"step_0000000N.rank00000.safetensors","index":[0,0],"checksum":"<16 hex digits>"},...]},
//   ...]}
// "shape" is the global (whole) shape; "placements" are the tensor's on the
// mesh (ir/mesh.h; R or S(d), never P); a shard's "index" is its chunk of the
// grid the placements cut the tensor into (ir/mesh.h shard_grid,
// runtime/tensor_chunks.h), and its checksum is FNV-1a 64 of the chunk's bytes.
//
// Reading contract (parse_checkpoint_index, read_sharded_checkpoint):
//  - The index is validated whole before any shard is read: exact field sets,
//    the format, integer ranges, the mesh, each tensor's dtype, shape,
//    placements (valid for its rank and the mesh, dims dividing) and shards:
//    one for every chunk of the grid, each index once, files plain names in
//    the index's directory. Every error names the file and what is wrong.
//  - The tensors must be the model's (names and global types); then every
//    shard file is read and validated (runtime/safetensors.h), each chunk must
//    have its local type and match its checksum, and a shard file may hold
//    nothing the index does not name. A missing or corrupt shard is an error
//    naming the shard file and the index: a checkpoint is loaded whole or not
//    at all.
//  - Each tensor is assembled whole in memory (every process reads every
//    shard). At mlc's model sizes this is cheap; the ranks of the resuming
//    run then take their local parts under their own plan, which is what
//    lets a checkpoint of one mesh resume on another mesh or on one device.
//  - The index file is at most kMaxCheckpointIndexBytes; its JSON at most 6
//    levels deep and 4,194,304 values (docs/limits.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/mesh.h"
#include "ir/types.h"
#include "runtime/checkpoint.h"

namespace mlc::rt {

inline constexpr std::string_view kCheckpointIndexSuffix = ".index.json";
inline constexpr int64_t kMaxCheckpointIndexBytes = int64_t{64} << 20;

struct ShardRef {
  std::string file;            // a file name in the index's directory
  std::vector<int64_t> index;  // the chunk, one entry per dim
  uint64_t checksum = 0;       // fnv1a64 of the chunk's bytes
};

struct IndexedTensor {
  std::string name;
  TensorType type;  // global
  Placements placements;
  std::vector<ShardRef> shards;
};

struct CheckpointIndex {
  std::string model;
  TrainPosition position;
  Mesh mesh;
  std::vector<IndexedTensor> tensors;  // parameters, then optimizer state
};

// The index's text, as described above (parse_checkpoint_index gives it back).
std::string format_checkpoint_index(const CheckpointIndex& index);
// Parses and validates an index's text; `path` is only used in messages.
Expected<CheckpointIndex> parse_checkpoint_index(std::string_view text, const std::string& path);
// Writes the index atomically, once its text parses back (an index that would
// not read is an internal error, never written).
Status write_checkpoint_index(const std::string& path, const CheckpointIndex& index);

// Writes one rank's chunks (non-empty) to `path` atomically; returns the
// checksum of each chunk, in order.
Expected<std::vector<uint64_t>> write_checkpoint_shard(const std::string& path, const std::vector<NamedTensor>& chunks);

// Reads and verifies the checkpoint whose index is `path`: whole tensors, as
// read_checkpoint gives them.
Expected<TrainState> read_sharded_checkpoint(const std::string& path, const std::string& model_name,
                                             const std::vector<NamedTensor>& params,
                                             const std::vector<NamedTensor>& state);
// As read_sharded_checkpoint, for --init (rt::read_init_parameters): the
// optimizer state is read only where the index holds exactly `state`'s
// tensors (names and global types); otherwise TrainState::state is empty and
// `state_left_out` says whether the index held any tensor besides the
// parameters (another optimizer's state, never read).
Expected<TrainState> read_sharded_checkpoint_parameters(const std::string& path, const std::string& model_name,
                                                        const std::vector<NamedTensor>& params,
                                                        const std::vector<NamedTensor>& state, bool& state_left_out);

}  // namespace mlc::rt
