// The sharding pass (docs/architecture.md, Parallelism): turns a function of the whole computation
// (global shapes) into the SPMD program every device of a mesh runs, with
// local shapes, a placement per mesh axis on every value, and the collectives
// that move data between placements; and explains each collective it
// inserted (the collective ledger).
//
// How it works (GSPMD's partitioner and OneFlow's SBP boxing, greedily):
//  - Arguments are placed by the plan. Then, in program order, each op takes
//    on each mesh axis the signature of its sharding rule (passes/
//    sharding_rules.h) that moves the fewest bytes, given where its operands
//    are: the estimated time of the collectives its operands would need
//    (latency + bytes / bandwidth, below). Ties go to the signature whose
//    results are placed as their consumers prefer (parameter and optimizer-
//    state updates want their argument's placement; elementwise chains pass
//    that preference back), then to the one that shards more results.
//  - Operands are moved to the chosen placements: P -> R all_reduce, P -> S(d)
//    reduce_scatter, S(d) -> R all_gather, S(d) -> S(e) all_to_all, R -> S(d)
//    shard_slice (local, no communication). A move is made once per value and
//    target placement and shared by its consumers, except that with zero = 3
//    (FSDP) a sharded parameter is gathered again before each use.
//  - A partial sum consumed twice (a gradient read by two optimizer updates)
//    or returned is resolved where it is produced, once.
//  - Results are moved to what the calling convention needs: an updated
//    parameter or state to its argument's placement, everything else to R.
//
// Contracts: the input is verified and unsharded (no placements, primitives
// only: after decompose and canonicalize); the output verifies against the
// plan's mesh, computes on every device the local part of the input's
// values, and keeps each op's location and scope. Shape errors name the
// argument and what does not divide:
//   "argument 'x' (f32[30,64]) cannot be placed <S(0)> on mesh dp=4: dim 0 of [30,64] (30) does not divide by 4 ..."
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"
#include "ir/mesh.h"
#include "ir/model_config.h"
#include "ir/parallel_plan.h"
#include "passes/pass.h"

namespace mlc {

// The cost model's link: every collective takes kCollectiveLatencyUs plus its
// bytes at kLinkBytesPerUs (10 GB/s, memory-to-memory between threads or
// shared-memory MPI ranks on one machine).
inline constexpr double kCollectiveLatencyUs = 5.0;
inline constexpr double kLinkBytesPerUs = 10e3;

struct ShardingPlan {
  Mesh mesh;
  // Placements of the function's arguments by name; unlisted arguments are replicated.
  std::map<std::string, Placements> args;
  int zero = 0;  // ZeRO stage; 3 re-gathers sharded parameters before every use (FSDP)
  // Arguments that keep their placement on the listed mesh axes at every use
  // (tensor-parallel weights): no signature that would move them there is
  // taken, and an op that has none is an error naming the argument.
  std::map<std::string, std::vector<size_t>> pinned;
  // Values of the function moved to a placement on one axis as soon as they
  // are made (a rowwise layer's partial sums reduced at its output).
  struct Settle {
    size_t axis;
    Placement to;
  };
  std::map<const Value*, std::vector<Settle>> settle;
  // Results moved to these placements instead of the calling convention's,
  // by result index (a pipeline stage's sent activations and gradients,
  // passes/pipeline_stage_sharding.h). P on an axis keeps a partial sum
  // partial there (no all_reduce); where the result is not partial on that
  // axis it is made R there instead: the sharded function's result's
  // placements say which.
  std::map<size_t, Placements> results;
};

// The data-parallel plan for a function on `mesh`, whose axes are data axes
// or tp (ir/parallel_plan.h check_mesh_axes). Data ({input}) is sharded on its
// dim 0 over every data axis; with zero >= 1 optimizer state ({state}), and
// with zero = 3 parameters ({param}, {frozen}), are sharded over the last data
// axis (HSDP: replicated over the others) on their first dim that divides by
// its size, and stay replicated when none does. The step counter stays
// replicated.
Expected<ShardingPlan> data_parallel_plan(const Function& f, const Mesh& mesh, int zero);

// Adds `tp` to `plan` for `f` (nothing when the mesh has no "tp" axis):
//  - a rowwise (vocabulary-parallel) embedding table's lookups and their
//    gradients are rewritten in `f` into ops whose sharding rules keep the
//    table sharded (passes/tensor_parallel.cc); the values `f` computes are
//    unchanged;
//  - each planned parameter, and its optimizer state ("<param>.<slot>", same
//    type), is placed S(dim) on tp and pinned there;
//  - the forward result of each op reading a rowwise weight (its contraction
//    or embedding lookup, a partial sum) settles at R on tp, or with
//    sequence parallelism at S(1), the sequence dim of [batch, seq, ...]
//    activations (R for lower ranks). "Forward" is what the function's fresh
//    results (the loss, metrics) depend on.
// Errors: a planned parameter that `f` does not take, named with the plan
// entry's location.
Status apply_tensor_parallel(Function& f, const TensorParallelPlan& tp, ShardingPlan& plan);

// One inserted collective and why.
struct LedgerEntry {
  int id = 0;                // order of insertion in the function
  std::string collective;    // "all_reduce", ..., "shard_slice"
  std::string axis;          // mesh axis
  std::string value;         // what moves: "%fc1.weight", or its producer "dot at m.json:12:5 (fc1)"
  std::string consumer;      // who needs it: "sub at m.json:3:1 (optimizer)", "result #2 (updates %fc1.weight)"
  Placements from, to;       // the value's placements before and after this move
  TensorType type;           // the local type moved
  int64_t bytes = 0;         // sent per device
  double estimated_us = 0;
  // The consumer's best signature that did not need this move, and its cost
  // (empty when the move was forced by the calling convention).
  std::string alternative;
  double alternative_us = 0;
  Loc loc;  // the consumer's
};

// How the ledger names an op (LedgerEntry::value and consumer): its name,
// its model-file location and its layer's scope where known,
// "dot at m.json:12:5 (fc1)".
std::string describe_op(const Op& op);

struct ShardedFunction {
  std::unique_ptr<Function> function;
  std::vector<LedgerEntry> ledger;
};

Expected<ShardedFunction> shard_function(const Function& global, const ShardingPlan& plan);

// Bytes one device sends for `code` over an axis of `n` devices moving a local
// tensor of `bytes` (the operand's): ring all_reduce 2(n-1)/n, reduce_scatter
// and all_to_all (n-1)/n, all_gather (n-1) times its shard, shard_slice 0.
int64_t collective_bytes(OpCode code, int64_t n, int64_t bytes);

}  // namespace mlc

namespace mlc {

// The pass form (`mlc opt --passes sharding{zero=1}`, and the pipeline's
// `sharding` stage when the module has a mesh): shards @train_step, @eval and
// @loss_grad with data_parallel_plan over the module's mesh; the other
// functions (@optimizer_init, @loss) stay unsharded. Without a mesh it changes
// nothing; a mesh axis without an implementation is an error
// (check_mesh_axes). Options: zero=0..3; the pipeline gives the ZeRO stage
// and the tensor-parallel plan of its ParallelPlan to the constructor.
// ledger() is the last run's, by function.
class ShardingPass : public Pass {
 public:
  ShardingPass() = default;
  ShardingPass(int zero, TensorParallelPlan tp) : zero_(zero), tp_(std::move(tp)) {}
  std::string_view name() const override { return "sharding"; }
  Expected<bool> run(Module& module) override;
  std::vector<PassOption> options() override;
  const std::map<std::string, std::vector<LedgerEntry>>& ledger() const { return ledger_; }

 private:
  int zero_ = 0;
  TensorParallelPlan tp_;
  std::map<std::string, std::vector<LedgerEntry>> ledger_;
};

}  // namespace mlc
