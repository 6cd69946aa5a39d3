#include "runtime/collective_run.h"

#include <cstring>
#include <vector>

#include "ir/op_table.h"
#include "runtime/tensor_chunks.h"

namespace mlc::rt {

namespace {

// Is every dim before d of size 1, so that chunks along d are contiguous?
bool leading(const Shape& shape, int64_t d) {
  for (int64_t i = 0; i < d; ++i)
    if (shape[i] != 1) return false;
  return true;
}

std::byte* scratch(int64_t bytes) {
  thread_local std::vector<std::byte> buffer;
  if (static_cast<int64_t>(buffer.size()) < bytes) buffer.resize(static_cast<size_t>(bytes));
  return buffer.data();
}

Expected<Group*> group_of(const Op& op, World& world) {
  const std::string& axis = op.attrs.get_string("mesh_axis");
  const MeshShape& mesh = world.mesh();
  for (size_t a = 0; a < mesh.axes.size(); ++a)
    if (mesh.axes[a] == axis) return &world.axis_group(a);
  return make_error(std::string(op_name(op.code)) + ": mesh_axis '" + axis +
                    "' is not an axis of the communicator's mesh " + mesh.to_string());
}

}  // namespace

std::string collective_tag(const Op& op) {
  std::string tag(op_name(op.code));
  if (op.loc.known()) tag += " at " + op.loc.str();
  if (!op.meta.scope.empty()) tag += " (" + op.meta.scope + ")";
  return tag;
}

Status run_collective(const Op& op, World& world, std::span<const Tensor* const> operands, Tensor& result) {
  MLC_TRY(Group * g, group_of(op, world));
  const int64_t n = g->size();
  const std::string tag = collective_tag(op);
  const int64_t e = dtype_size(result.dtype());
  auto copy_in = [&] {
    if (operands[0]->bytes() != result.bytes())
      std::memcpy(result.bytes(), operands[0]->bytes(), static_cast<size_t>(result.num_bytes()));
  };
  switch (op.code) {
    case OpCode::AllReduce: {
      copy_in();
      ReduceOp r = op.attrs.get_string("reduce") == "max" ? ReduceOp::max : ReduceOp::sum;
      return g->all_reduce(result.bytes(), result.num_elements(), result.dtype(), r, tag);
    }
    case OpCode::AllGather: {
      int64_t d = op.attrs.get_int("dim");
      const Tensor& x = *operands[0];
      if (leading(x.shape(), d))  // chunks are contiguous already
        return g->all_gather(x.bytes(), result.bytes(), x.num_bytes(), tag);
      std::byte* gathered = scratch(result.num_bytes());
      MLC_CHECK_OK(g->all_gather(x.bytes(), gathered, x.num_bytes(), tag));
      for (int64_t r = 0; r < n; ++r) insert_chunk(result.shape(), e, d, n, r, gathered + r * x.num_bytes(), result.bytes());
      return {};
    }
    case OpCode::ReduceScatter: {
      int64_t d = op.attrs.get_int("dim");
      const Tensor& x = *operands[0];
      const std::byte* chunks = x.bytes();
      if (!leading(x.shape(), d)) {
        std::byte* packed = scratch(x.num_bytes());
        for (int64_t r = 0; r < n; ++r) extract_chunk(x.shape(), e, d, n, r, x.bytes(), packed + r * result.num_bytes());
        chunks = packed;
      }
      return g->reduce_scatter(chunks, result.bytes(), result.num_elements(), result.dtype(), ReduceOp::sum, tag);
    }
    case OpCode::AllToAll: {
      int64_t split = op.attrs.get_int("split_dim"), concat = op.attrs.get_int("concat_dim");
      const Tensor& x = *operands[0];
      if (split == concat) {
        copy_in();
        return {};
      }
      int64_t chunk_bytes = x.num_bytes() / n;
      std::byte* send = scratch(2 * x.num_bytes());
      std::byte* recv = send + x.num_bytes();
      for (int64_t r = 0; r < n; ++r) extract_chunk(x.shape(), e, split, n, r, x.bytes(), send + r * chunk_bytes);
      MLC_CHECK_OK(g->all_to_all(send, recv, chunk_bytes, tag));
      for (int64_t r = 0; r < n; ++r) insert_chunk(result.shape(), e, concat, n, r, recv + r * chunk_bytes, result.bytes());
      return {};
    }
    case OpCode::CollectiveBroadcast:
      copy_in();
      return g->broadcast(result.bytes(), result.num_bytes(), static_cast<int>(op.attrs.get_int("root")), tag);
    case OpCode::Send:
      copy_in();
      return g->send(result.bytes(), result.num_bytes(), static_cast<int>(op.attrs.get_int("peer")), tag);
    case OpCode::Recv:
      return g->recv(result.bytes(), result.num_bytes(), static_cast<int>(op.attrs.get_int("peer")), tag);
    case OpCode::ShardSlice: {
      int64_t d = op.attrs.get_int("dim");
      const Tensor& x = *operands[0];
      extract_chunk(x.shape(), e, d, n, g->rank(), x.bytes(), result.bytes());
      return {};
    }
    default:
      return make_error("mlc internal error: " + std::string(op_name(op.code)) + " is not a collective");
  }
}

}  // namespace mlc::rt
