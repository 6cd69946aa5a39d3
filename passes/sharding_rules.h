// The sharding-rule column of the op table: for each op, the placement
// signatures it accepts on one mesh axis (docs/architecture.md, Parallelism; OneFlow's SBP,
// PyTorch DTensor's op strategies). A signature gives each operand the
// placement it must have on that axis and each result the placement it then
// has. The same set applies on every axis; the sharding pass (passes/
// sharding.h) picks one per axis.
//
// Contracts:
//  - Rules read the op's global (unsharded) types and attributes.
//  - The first signature is always all-replicated, which every op accepts.
//  - S(d) signatures are listed only where computing chunk i of every S
//    operand (the others whole) gives exactly chunk i of each S result, or
//    for P results, a term of the sum; a dim whose computation needs
//    neighbours or global positions (pooling windows, slices that do not span
//    the dim, iota along its dim, dense constants) is never sharded.
//    Divisibility by the axis size is the pass's check, not the rule's.
//  - P signatures are listed where the op is linear in the P operands with the
//    others replicated: the sum over devices of the op's results is the op of
//    the summed operands.
//  - Composites and fusions are sharded through their decomposition (they
//    never reach the pass, which runs after decompose and before fusion), and
//    the collectives are inserted by the pass: those rows give all-R only.
#pragma once

#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/mesh.h"

namespace mlc {

struct ShardingSignature {
  std::vector<Placement> operands;
  std::vector<Placement> results;
};

// How the rule of an op is derived, for the table test and `mlc plan`.
enum class ShardingRuleKind {
  elementwise,   // every dim of the result, operands aligned numpy-style
  movement,      // dims mapped through the op (broadcast, reshape, transpose, ...)
  reduction,     // kept dims map; reduced dims give P (sum) or P(max) (max)
  contraction,   // dot and convolutions: batch/free dims map, contracted dims give P
  window,        // pooling and its gradients: batch and channel dims only
  indexing,      // gather / scatter_add: the non-indexed dims and the index dims
  source,        // iota / constant
  collective,    // inserted by the sharding pass itself: replicated only
  decomposed,    // composites and fusions: sharded through their decomposition
};
ShardingRuleKind sharding_rule_kind(OpCode code);
std::string_view sharding_rule_kind_name(ShardingRuleKind kind);

// A cast to a wider float dtype (bf16/f16 -> f32/f64, f32 -> f64): exact, so a
// partial sum stays partial through it (gradients reduced after the widening
// cast, mixed precision's reduce dtype).
bool widens(const Op& op);

// The op's signatures on one axis; the first is all-replicated.
std::vector<ShardingSignature> sharding_signatures(const Op& op);

// The rules' check of a sharded function (the sharding pass's output, or any
// SPMD program on `mesh`): every op but the collectives and shard_slice
// (which the verifier checks against the mesh) has, on every mesh axis,
// operand and result placements that one of its signatures allows, its
// types read as global. Errors name the op and axis:
//   "m.json:3:5: error: sharding rules: dot on axis 'tp' has (S(1), S(0)) -> S(1), which its rule does not allow"
Status check_sharding_rules(const Function& f, const Mesh& mesh);

// A slice's attributes moved between a global and a local operand shape: a
// dim it takes whole (the only kind its rule shards) has limit `from`'s size,
// which becomes `to`'s. Other ops' attributes are returned as they are.
Attrs slice_attrs_for(const Op& op, const Shape& from, const Shape& to);

}  // namespace mlc
