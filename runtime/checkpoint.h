// Training checkpoints: parameters, optimizer state and the position in the
// run. Two forms, both read by read_checkpoint (any run can resume from
// either):
//  - whole (a single device's run): one safetensors file,
//    "<dir>/step_00000123.safetensors", whose metadata carries the step,
//    epoch, seed, data-order settings and a checksum of every tensor;
//  - sharded (a mesh's run, runtime/sharded_checkpoint.h): every rank's own
//    chunks in "<dir>/step_00000123.rank00001.safetensors", and an index,
//    "<dir>/step_00000123.index.json", written last.
//
// Guarantees: every file is written atomically (write_safetensors,
// write_file_atomically: temp file, fsync, rename), so a crash leaves either
// the old set or the new file; a truncated or corrupted file is detected
// (header validation, then per-tensor FNV-1a checksums) and reported, never
// loaded. The data order of the run is a pure function of (seed, epoch,
// shuffle), so (step, epoch) restore it exactly.
//
// A directory's checkpoints are its whole files and its indices; shards
// without an index (a checkpoint interrupted before its index was written)
// are no checkpoint: list_checkpoints does not list them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "runtime/checksum.h"
#include "runtime/parameters.h"

namespace mlc::rt {

// Where a run is: what restores its data order.
struct TrainPosition {
  int64_t step = 0;   // the next global step to run (= steps already taken)
  uint64_t seed = 0;
  int64_t batch_size = 0;
  int64_t steps_per_epoch = 0;
  bool shuffle = false;
};

struct TrainState : TrainPosition {
  std::vector<NamedTensor> params;  // model order, whole tensors
  std::vector<NamedTensor> state;   // optimizer state, @train_step order, whole tensors
};

// Writes a whole checkpoint.
Status write_checkpoint(const std::string& path, const std::string& model_name, const TrainState& s);

// Reads and verifies a checkpoint: a sharded one when `path` is an index (its
// name ends in ".index.json"), else a whole one. `params` and `state` give
// the expected names and types (the tensors' values are ignored).
Expected<TrainState> read_checkpoint(const std::string& path, const std::string& model_name,
                                     const std::vector<NamedTensor>& params,
                                     const std::vector<NamedTensor>& state);

// What --init (and --eval --init) reads: the parameters (buffers included)
// of `path`, which is
//  - an mlc checkpoint, whole (its metadata's format is mlc's) or sharded
//    (`path` an index): verified as read_checkpoint verifies it; its optimizer
//    state replaces `*state` only where it is exactly `*state`'s tensors
//    (names and types), and is otherwise not read (another optimizer's state,
//    or `state` null: evaluation needs none), which `state_left_out` reports;
//    its position is not restored (--start-step);
//  - any other safetensors file: load_parameters (parameters under PyTorch's
//    names, optionally with `*state`'s).
struct InitParameters {
  std::vector<NamedTensor> params;  // model order
  bool state_left_out = false;      // a checkpoint's optimizer state was not read
};
Expected<InitParameters> read_init_parameters(const std::vector<ParamInfo>& params, const std::string& path,
                                              const std::string& model_name, std::vector<NamedTensor>* state);

// "<dir>/step_00000123.safetensors"
std::string checkpoint_path(const std::string& dir, int64_t step);
// "<dir>/step_00000123.index.json"
std::string checkpoint_index_path(const std::string& dir, int64_t step);
// "<dir>/step_00000123.rank00001.safetensors"
std::string checkpoint_shard_path(const std::string& dir, int64_t step, int rank);
// The checkpoints of `dir` (whole files and indices), newest (highest step) first.
std::vector<std::string> list_checkpoints(const std::string& dir);
// The steps of `dir` that have shards but no index nor whole file, newest first.
std::vector<int64_t> interrupted_checkpoints(const std::string& dir);
// Removes the temporary files of checkpoint writes that a killed run left in
// `dir` (rt::create_temp_file's "<checkpoint file>.tmp.<pid>.<random>", and
// the "<checkpoint file>.tmp.<pid>" of older mlc), and only those: the target
// must be a checkpoint file name (whole, shard or index) and the pid no live
// process of this machine (a live one may be writing it now). Returns the
// files removed.
std::vector<std::string> remove_stale_temp_files(const std::string& dir);
// Deletes all but the newest `keep` (at least 1) checkpoints of `dir`, an
// index before its shards, and the shards of interrupted checkpoints older
// than the ones kept.
void prune_checkpoints(const std::string& dir, int keep);

}  // namespace mlc::rt
