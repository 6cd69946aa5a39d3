// Runs the ops of a sharded program that use a mesh axis (ir/collectives.h:
// the collectives and shard_slice) on this device's communicator. The
// interpreter calls it with the op where other ops call their kernel; the
// executor runs `collective` instructions (runtime/executable.h
// CollectiveParams, decoded from the op by collective_params) through it.
//
// Contract: operands and result are the op's local tensors. Their sizes are
// checked against the axis's group size before anything moves (an Error
// naming the collective: an executable read from a file is not trusted to be
// consistent with the mesh). The collective's tag, for diagnostics, is the
// op's name, location and scope ("all_reduce at model.json:12:5 (fc1)").
// Layout changes around the communicator calls
// (gathering or scattering along a dim other than 0, all_to_all) use a
// per-thread scratch buffer that grows once, so steady-state steps do not
// allocate.
#pragma once

#include <span>
#include <string_view>

#include "ir/expected.h"
#include "ir/graph.h"
#include "runtime/comm/communicator.h"
#include "runtime/executable.h"
#include "runtime/tensor.h"

namespace mlc::rt {

Status run_collective(const CollectiveParams& c, World& world, std::span<const Tensor* const> operands, Tensor& result);
Status run_collective(const Op& op, World& world, std::span<const Tensor* const> operands, Tensor& result);

// The checks run_collective makes before anything moves, for executors that
// run collectives their own way (runtime/cuda/cuda_collectives.h), with the
// same messages: the index of c's axis in `mesh`, and whether the operands'
// and result's sizes (views; their data is not read) fit a group of n
// devices and its root or peer is one of them.
Expected<size_t> collective_axis(const CollectiveParams& c, const MeshShape& mesh);
Status check_collective(const CollectiveParams& c, int64_t n, std::span<const Tensor* const> operands,
                        const Tensor& result);

// The instruction parameters of `op` (uses_mesh_axis; attributes complete),
// its tag included; `ledger` is op.meta.ledger.
CollectiveParams collective_params(const Op& op);

// The tag run_collective gives `op`.
std::string collective_tag(const Op& op);

}  // namespace mlc::rt
