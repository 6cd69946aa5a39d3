// What the collectives of ir/ops.def mean on a given mesh: the group size of
// their axis and the checks the verifier makes against the module's mesh.
#pragma once

#include <optional>
#include <string>

#include "ir/graph.h"
#include "ir/mesh.h"

namespace mlc {

// Is `code` an op with a `mesh_axis` attribute (the collectives and shard_slice)?
bool uses_mesh_axis(OpCode code);

// The size of the axis that op (uses_mesh_axis) runs over, or nullopt when
// the mesh has no such axis.
std::optional<int64_t> mesh_axis_size(const Op& op, const Mesh& mesh);

// "" if `op` (uses_mesh_axis, attributes complete, inference passed) fits
// `mesh`: its axis exists, the size ratio along its dims is the axis size,
// and root/peer are ranks of the axis. Else what is wrong:
//   "mesh_axis 'tp' is not an axis of mesh dp=2"
//   "gathers dim 0 from 16 to 48, a factor of 3, but axis 'dp' has 2 devices"
std::string check_collective(const Op& op, const Mesh& mesh);

}  // namespace mlc
