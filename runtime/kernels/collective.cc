// The reference-kernel column of the collectives and shard_slice. They need
// the device's communicator and rank, which a kernel does not see: the
// interpreter and the executor run them through runtime/collective_run.h.
// These entries only report a program run without a mesh.
#include "runtime/kernels/kernels.h"

#include "ir/op_table.h"

namespace mlc::rt {

namespace {

Status needs_mesh(const Op& op) {
  return make_error(std::string(op_name(op.code)) +
                    ": runs only on a device mesh (the program was started without a communicator)");
}

}  // namespace

#define MLC_MESH_KERNEL(Enum) \
  Status kernel_##Enum(const Op& op, std::span<const Tensor* const>, Tensor&) { return needs_mesh(op); }
MLC_MESH_KERNEL(AllReduce)
MLC_MESH_KERNEL(AllGather)
MLC_MESH_KERNEL(ReduceScatter)
MLC_MESH_KERNEL(AllToAll)
MLC_MESH_KERNEL(CollectiveBroadcast)
MLC_MESH_KERNEL(Send)
MLC_MESH_KERNEL(Recv)
MLC_MESH_KERNEL(ShardSlice)
#undef MLC_MESH_KERNEL

}  // namespace mlc::rt
