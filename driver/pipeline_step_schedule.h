// The step schedule (driver/step_schedule.h) of one pipeline rank: its
// actions in the pipeline schedule (ir/pipeline_schedule.h), made calls of
// its stages' functions (driver/program.h, passes/pipeline_split.h) and
// messages to the neighbouring stages' ranks:
//
//   F s.j       stage s's @forward on micro-batch j (none on the last stage,
//               whose @loss_grad computes its forward), reading its
//               received activations of j;
//   SEND_F s.j  each of that call's results to stage s+1's rank;
//   RECV_F s.j  stage s's results for j into stage s+1's buffers
//               s<s+1>.mb<j>.in.K (its pipe.in.K for micro-batch j);
//   B s.j       stage s's @loss_grad on micro-batch j (received activations
//               of j, and the gradients of its sent ones, s<s>.mb<j>.out.K.grad;
//               the last stage's loss is the step's), then the stage's
//               @accumulate_grads adds its parameter gradients times 1/m
//               into the gradient sums;
//   SEND_B s.j  @loss_grad's gradients of the float received activations to
//               stage s-1's rank; RECV_B receives them as its seeds;
//   I s.j, W s.j  zb1p's backward in two: @loss_grad_input (the gradients
//               SEND_B sends; the last stage's loss), and later
//               @loss_grad_weight with @accumulate_grads;
//   then each stage's @apply_update of the sums: one optimizer step.
//
// The micro-batches are those of gradient accumulation (driver/step_schedule.h):
// micro-batch j is rows [j*B/m, (j+1)*B/m) of each data rank's share, and
// the gradient is sum_j g_j * (1/m), so a pipelined step is the
// single-device step with m accumulation steps up to f32 rounding (the
// stages are compiled apart, and a value read on both sides of a cut sums
// its gradients in another order), the same on every schedule. With axes
// beside pp the stages' functions are SPMD programs over them
// (passes/pipeline_stage_sharding.h), compiled for the global micro-batch
// B/m; a rank's messages go to the ranks of its own coordinates on the
// other axes, and the gradient sums stay partial over the data axes until
// @apply_update reduces them. Messages are tagged
// "pipeline: stage 0's activation 1 of micro-batch 2 (F0.2.1)" and "...'s
// input gradient ... (B<s>.<j>.<K>)"; the loss goes to every rank from the
// last stage's (StepSchedule::loss_root).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <optional>

#include "driver/rank.h"
#include "driver/step_schedule.h"

namespace mlc {

// The mesh axis index of "pp" in `rank.mesh`; nullopt when it has none.
std::optional<size_t> pipeline_axis(const Rank& rank);

// What one pipeline rank's schedule is built from: the program, the rank's
// index along pp, the world rank of each pipeline rank and its stage
// functions' signatures.
struct PipelineRankView {
  const Program* program = nullptr;
  int me = 0;  // the pipeline rank
  std::function<int(int)> world_rank;  // of pipeline rank r
  // The first replica's (coordinate 0 on the data axes) world rank of pipeline rank r.
  std::function<int(int)> first_replica;
  size_t axis = 0;  // the pp axis's index in the mesh
  // The data axes replicating the pipeline: index and name; and their ranks.
  std::vector<std::pair<size_t, std::string>> data_axes;
  int64_t data_ranks = 1;
  // The ranks running each pipeline rank's stages (every coordinate on the other axes).
  int64_t stage_ranks = 1;
  std::function<Expected<Signature>(const std::string& name, int64_t batch)> signature;
  // A rank of a run: its world, and its FunctionCache's signatures (compiling them).
  static Expected<PipelineRankView> of(const Rank& rank);
  // Pipeline rank `me` of a pp-only mesh, planned (`mlc plan`): world rank r
  // is pipeline rank r, and signatures come from the program's IR, compiling nothing.
  static PipelineRankView planned(const Program& program, int me);
};

// Rank `rank`'s schedule for steps of `batch` (global) examples. Asks the
// rank's FunctionCache for its stages' signatures (compiling them).
Expected<StepSchedule> build_pipeline_step_schedule(const Rank& rank, int64_t batch);
Expected<StepSchedule> build_pipeline_step_schedule(const PipelineRankView& view, int64_t batch);

// The world ranks of the first replica (coordinate 0 on the data axes)
// holding each parameter and optimizer-state tensor of a pipeline (those of
// the stages reading it), ascending: one rank, or several for a shared
// parameter (tied weights), whose first writes it to checkpoints. Every
// replica holds the same copies. Asks for every stage's signatures.
using PipelineHolders = std::map<std::string, std::vector<int>>;
Expected<PipelineHolders> pipeline_tensor_holders(const Rank& rank, int64_t batch);
// Whether `rank` (of any replica) holds tensor `name`.
bool holds(const Rank& rank, const PipelineHolders& holders, const std::string& name);
// Whether `rank` writes its chunk of tensor `name`, placed `placements`, to
// a checkpoint: it is of the first holder's stage and holds a first copy of
// that chunk (coordinate 0 on the axes the tensor is not sharded over).
bool writes_pipeline_tensor(const Rank& rank, const PipelineHolders& holders, const std::string& name,
                            const Placements& placements);
// The placements of every parameter and optimizer-state tensor of a
// pipeline, as its stage's @apply_update takes it (replicated on a pp-only
// mesh). Asks for every stage's signatures.
Expected<std::map<std::string, Placements>> pipeline_tensor_placements(const Rank& rank, int64_t batch);
Expected<PipelineHolders> pipeline_tensor_holders(const PipelineRankView& view, int64_t batch);

// Rank 0's whole copies of `global`'s tensors (their names and types; the
// values of the ranks holding each): a collective, each tensor made whole
// within its stage's ranks (partial sums added, shards gathered, as
// `placements` of `mine` say) and sent to rank 0 by its first holder.
// `mine` are this rank's local tensors; other ranks get {}.
Expected<std::vector<rt::NamedTensor>> gather_pipeline_tensors(const Rank& rank, const PipelineHolders& holders,
                                                               const std::vector<rt::NamedTensor>& global,
                                                               const std::vector<rt::NamedTensor>& mine,
                                                               const std::vector<Placements>& placements);

}  // namespace mlc
