// Runs the ops of a sharded program that use a mesh axis (ir/collectives.h:
// the collectives and shard_slice) on this device's communicator. The
// interpreter and the executor call it where other ops call their kernel.
//
// Contract: `op` is verified against the mesh `world` was made for (its axis
// exists, its sizes change by the axis size); operands and result are the
// op's local tensors. The collective's tag, for diagnostics, is the op's name,
// location and scope ("all_reduce at model.json:12:5 (fc1)"), prefixed by
// `tag_prefix` when given. Layout changes around the communicator calls
// (gathering or scattering along a dim other than 0, all_to_all) use a
// per-thread scratch buffer that grows once, so steady-state steps do not
// allocate.
#pragma once

#include <span>
#include <string_view>

#include "ir/expected.h"
#include "ir/graph.h"
#include "runtime/comm/communicator.h"
#include "runtime/tensor.h"

namespace mlc::rt {

Status run_collective(const Op& op, World& world, std::span<const Tensor* const> operands, Tensor& result);

// The tag run_collective gives `op`.
std::string collective_tag(const Op& op);

}  // namespace mlc::rt
