// A pipeline stage's programs sharded over the mesh's other axes
// (docs/architecture.md, Parallelism): the functions of one stage module
// (passes/pipeline_split.h) become SPMD programs of the ranks holding the
// stage (one coordinate on pp, every coordinate on the data axes and tp), by
// the sharding pass (passes/sharding.h) with the data-parallel plan, ZeRO and
// the tensor-parallel plan as for a model without pp. The pp axis takes part
// as an axis on which every value is replicated (R): placements index the
// whole mesh, as the ranks' do.
//
// What the stages' functions must agree on, so that one's results are
// another's arguments, is planned here rather than left to each function:
//  - activations (pipe.in.K, @forward's results, their gradients pipe.out.K.grad
//    and @loss_grad's gradients of pipe.in.K): S(0) on every data axis when
//    their dim 0 divides by the data axes' devices (the micro-batch's rows,
//    as the model's inputs), else R; R on tp and pp. Evaluation's (@eval_forward,
//    @eval) are R everywhere: each replica evaluates the whole batch.
//  - a parameter p's gradient (@loss_grad's and @loss_grad_weight's results,
//    @accumulate_grads' <p>.grad and <p>.micro_grad, @apply_update's and
//    @grad_norms' <p>.grad): a partial sum on every data axis (P: the
//    micro-batches' gradients are summed unreduced, and @apply_update
//    reduces the sum once per step: all_reduce, or with ZeRO reduce_scatter
//    to the optimizer state's shard), p's own placement on tp (a sharded
//    weight's gradient stays sharded), R on pp. A gradient @loss_grad
//    leaves whole on a data axis (no batch contributes to it) is R there, in
//    every function.
//  - grad_norms: R.
// The micro-batch functions are built for the global micro-batch (every
// data rank's rows): each computes the mean gradient of the global
// micro-batch, as gradient accumulation on one device does.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"
#include "ir/parallel_plan.h"
#include "passes/sharding.h"

namespace mlc {

// Whether a pipelined plan's stages are sharded (its mesh has axes beside pp).
bool shards_pipeline_stages(const ParallelPlan& plan);

// Shards every function of `stage` (a module of build_pipeline_stage, after
// decompose and canonicalize) over `plan.mesh`; sets the module's mesh. The
// ledger of each function's collectives, by function name, into `ledger`.
Status shard_pipeline_stage(Module& stage, const ParallelPlan& plan,
                            std::map<std::string, std::vector<LedgerEntry>>* ledger = nullptr);

}  // namespace mlc
