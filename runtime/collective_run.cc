#include "runtime/collective_run.h"

#include <cstring>
#include <vector>

#include "ir/op_table.h"

namespace mlc::rt {

namespace {

// A tensor of `shape` seen as [outer, mid, inner] around dim `d`: `mid`
// elements along d, `inner` bytes per element step along d.
struct Around {
  int64_t outer = 1, mid = 1, inner = 1;
};

Around around(const Shape& shape, int64_t d, int64_t elem_bytes) {
  Around a;
  for (int64_t i = 0; i < d; ++i) a.outer *= shape[i];
  a.mid = shape[d];
  a.inner = elem_bytes;
  for (size_t i = static_cast<size_t>(d) + 1; i < shape.size(); ++i) a.inner *= shape[i];
  return a;
}

// Copies chunk c (of n along the mid dim) of `full` into the contiguous `chunk`,
// or back when `to_full`.
void copy_chunk(const Around& full, int64_t n, int64_t c, std::byte* full_data, std::byte* chunk, bool to_full) {
  int64_t m = full.mid / n, row = m * full.inner;
  for (int64_t o = 0; o < full.outer; ++o) {
    std::byte* f = full_data + (o * full.mid + c * m) * full.inner;
    std::byte* k = chunk + o * row;
    if (to_full)
      std::memcpy(f, k, static_cast<size_t>(row));
    else
      std::memcpy(k, f, static_cast<size_t>(row));
  }
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
      if (around(x.shape(), d, e).outer == 1)  // chunks are contiguous already
        return g->all_gather(x.bytes(), result.bytes(), x.num_bytes(), tag);
      std::byte* gathered = scratch(result.num_bytes());
      MLC_CHECK_OK(g->all_gather(x.bytes(), gathered, x.num_bytes(), tag));
      Around full = around(result.shape(), d, e);
      for (int64_t r = 0; r < n; ++r) copy_chunk(full, n, r, result.bytes(), gathered + r * x.num_bytes(), true);
      return {};
    }
    case OpCode::ReduceScatter: {
      int64_t d = op.attrs.get_int("dim");
      const Tensor& x = *operands[0];
      Around full = around(x.shape(), d, e);
      const std::byte* chunks = x.bytes();
      if (full.outer != 1) {
        std::byte* packed = scratch(x.num_bytes());
        for (int64_t r = 0; r < n; ++r)
          copy_chunk(full, n, r, const_cast<std::byte*>(x.bytes()), packed + r * result.num_bytes(), false);
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
      Around in = around(x.shape(), split, e);
      for (int64_t r = 0; r < n; ++r)
        copy_chunk(in, n, r, const_cast<std::byte*>(x.bytes()), send + r * chunk_bytes, false);
      MLC_CHECK_OK(g->all_to_all(send, recv, chunk_bytes, tag));
      Around out = around(result.shape(), concat, e);
      for (int64_t r = 0; r < n; ++r) copy_chunk(out, n, r, result.bytes(), recv + r * chunk_bytes, true);
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
      copy_chunk(around(x.shape(), d, e), n, g->rank(), const_cast<std::byte*>(x.bytes()), result.bytes(), false);
      return {};
    }
    default:
      return make_error("mlc internal error: " + std::string(op_name(op.code)) + " is not a collective");
  }
}

}  // namespace mlc::rt
