// Fusion: groups a function's ops into the units the executable runs.
//
// A loop group is one kernel: a root op and the producers fused into it, each
// computed inside the kernel's loops with no intermediate in memory. A
// producer joins its consumer's group when every use of its result is inside
// the group (so the value never needs memory) and it is a loop op (below).
// Recomputation is bounded: a producer evaluated more than once per element
// (below a broadcast, for instance) must be cheap (movement, sources, and
// arithmetic other than transcendental functions); a reduction or an
// expensive op joins only where it is evaluated once per element.
//
// Loop ops: elementwise ops whose result cannot fail (not integer division,
// not float-to-integer casts), movement ops other than gather (unfold
// included), reductions (reduce_*, argmax, fold), window ops (max/avg pooling
// and their gradients), iota and splat constants, all on f32, f64, i32, i64
// and bool. Everything else (dot, convolutions, gather, scatter_add,
// half-precision dtypes, dense constants) is its own group of one op. Pooling
// evaluates its operand once per element only where windows do not overlap
// (stride >= kernel); the gradients of pooling evaluate their operands several
// times per element.
// Splat constants and iota are computed inside every loop kernel that reads
// them (they may be in several groups) and get a group of their own only
// where another kind of group reads them. A reshape that is not fused into a
// consumer becomes an alias group: a view of its operand's bytes, no
// instruction.
//
// Groups are listed in the order of their roots, which is a valid schedule.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace mlc {

enum class GroupKind : uint8_t { loop, single, alias };

struct FusionGroup {
  GroupKind kind = GroupKind::single;
  std::vector<const Op*> ops;  // program order; the root is last
  const Op* root() const { return ops.back(); }
};

struct FusionPlan {
  std::vector<FusionGroup> groups;
  std::unordered_map<const Op*, int> group_of;
};

// Can `op` be computed inside a loop kernel?
bool is_loop_op(const Op& op);

FusionPlan plan_fusion(const Function& f);

}  // namespace mlc
