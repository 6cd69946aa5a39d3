// A mesh run's checkpoint (runtime/sharded_checkpoint.h has the files and
// their format): every rank writes the chunks it holds the first copy of to
// its own shard file, the ranks then exchange their chunks' checksums (an
// all_gather over all ranks, which is also the barrier: it ends only once
// every rank's shard is renamed into place and synced), and rank 0 writes the
// index last and prunes the directory. Under mpirun every process writes its
// own shard the same way; the ranks must share the directory (a shared
// filesystem), as they share the data file.
//
// A failure to write ends the run (the collective fails on the other ranks,
// naming the rank); the index is then not written, so the step's shards are
// an interrupted checkpoint that --resume skips.
#pragma once

#include <string>
#include <vector>

#include "ir/mesh.h"
#include "runtime/checkpoint.h"
#include "driver/rank.h"

namespace mlc {

// A collective: every rank of `rank`'s world calls it with its local parts of
// the same tensors (parameters, then optimizer state) and their placements.
// `writes`, when given: per tensor, whether this rank writes its chunk (a
// pipeline's tensors live on their stages' ranks), instead of whether it
// holds a first copy; a rank's other entries of `locals` give only their
// local types.
Status write_sharded_checkpoint(const Rank& rank, const std::string& dir, int keep, const std::string& model_name,
                                const rt::TrainPosition& position, const std::vector<rt::NamedTensor>& locals,
                                const std::vector<Placements>& placements, const std::vector<bool>* writes = nullptr);

}  // namespace mlc
