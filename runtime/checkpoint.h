// Training checkpoints: parameters, optimizer state and the position in the
// run, in one safetensors file whose metadata carries the step, epoch, seed,
// data-order settings and a checksum of every tensor.
//
// Guarantees: a checkpoint is written atomically (write_safetensors: temp file,
// fsync, rename), so a crash leaves either the old set or the new file; a
// truncated or corrupted file is detected (header validation, then per-tensor
// FNV-1a checksums) and reported, never loaded. The data order of the run is a
// pure function of (seed, epoch, shuffle), so (step, epoch) restore it exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "runtime/checksum.h"
#include "runtime/parameters.h"

namespace mlc::rt {

struct TrainState {
  int64_t step = 0;   // the next global step to run (= steps already taken)
  uint64_t seed = 0;
  int64_t batch_size = 0;
  int64_t steps_per_epoch = 0;
  bool shuffle = false;
  std::vector<NamedTensor> params;  // model order
  std::vector<NamedTensor> state;   // optimizer state, @train_step order
};

Status write_checkpoint(const std::string& path, const std::string& model_name, const TrainState& s);

// Reads and verifies a checkpoint. `params` and `state` give the expected
// names and types (the tensors' values are ignored).
Expected<TrainState> read_checkpoint(const std::string& path, const std::string& model_name,
                                     const std::vector<NamedTensor>& params,
                                     const std::vector<NamedTensor>& state);

// "<dir>/step_00000123.safetensors"
std::string checkpoint_path(const std::string& dir, int64_t step);
// Checkpoint files in `dir`, newest (highest step) first.
std::vector<std::string> list_checkpoints(const std::string& dir);
// Deletes all but the newest `keep` checkpoints of `dir`.
void prune_checkpoints(const std::string& dir, int keep);

}  // namespace mlc::rt
