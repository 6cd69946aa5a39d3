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

// "" when the operand and result sizes fit the collective over n devices.
std::string size_problem(const CollectiveParams& c, int64_t n, std::span<const Tensor* const> operands,
                         const Tensor& result) {
  const bool has_operand = c.kind != CollectiveKind::recv;
  if (operands.size() != (has_operand ? 1u : 0u))
    return std::to_string(operands.size()) + " operands, expected " + (has_operand ? "1" : "0");
  if (!has_operand) return "";
  const Tensor& x = *operands[0];
  if (x.dtype() != result.dtype()) return "operand " + x.type().str() + " and result " + result.type().str() + " differ in dtype";
  if (x.shape().size() != result.shape().size()) return "operand " + x.type().str() + " and result " + result.type().str() + " differ in rank";
  const int64_t rank = static_cast<int64_t>(x.shape().size());
  // Every dim equal but `grown` (result = operand * n there) or `shrunk` (operand = result * n).
  auto check = [&](int64_t grown, int64_t shrunk) -> std::string {
    for (int64_t d = 0; d < rank; ++d) {
      int64_t want = x.shape()[d];
      if (d == grown) want *= n;
      if (d == shrunk) {
        if (want % n) return "dim " + std::to_string(d) + " of " + x.type().str() + " does not split over " + std::to_string(n) + " devices";
        want /= n;
      }
      if (result.shape()[d] != want)
        return "operand " + x.type().str() + " and result " + result.type().str() + " do not fit " +
               std::to_string(n) + " devices";
    }
    return "";
  };
  auto in_range = [&](int64_t d) { return d >= 0 && d < rank; };
  switch (c.kind) {
    case CollectiveKind::all_gather:
      return in_range(c.dim) ? check(c.dim, -1) : "dim " + std::to_string(c.dim) + " out of range";
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::shard_slice:
      return in_range(c.dim) ? check(-1, c.dim) : "dim " + std::to_string(c.dim) + " out of range";
    case CollectiveKind::all_to_all:
      if (!in_range(c.split_dim) || !in_range(c.concat_dim)) return "split or concat dim out of range";
      return c.split_dim == c.concat_dim ? check(-1, -1) : check(c.concat_dim, c.split_dim);
    default:
      return check(-1, -1);
  }
}

}  // namespace

std::string collective_tag(const Op& op) {
  std::string tag(op_name(op.code));
  if (op.loc.known()) tag += " at " + op.loc.str();
  if (!op.meta.scope.empty()) tag += " (" + op.meta.scope + ")";
  return tag;
}

CollectiveParams collective_params(const Op& op) {
  CollectiveParams c;
  switch (op.code) {
    case OpCode::AllReduce: c.kind = CollectiveKind::all_reduce; break;
    case OpCode::AllGather: c.kind = CollectiveKind::all_gather; break;
    case OpCode::ReduceScatter: c.kind = CollectiveKind::reduce_scatter; break;
    case OpCode::AllToAll: c.kind = CollectiveKind::all_to_all; break;
    case OpCode::CollectiveBroadcast: c.kind = CollectiveKind::collective_broadcast; break;
    case OpCode::Send: c.kind = CollectiveKind::send; break;
    case OpCode::Recv: c.kind = CollectiveKind::recv; break;
    default: c.kind = CollectiveKind::shard_slice; break;
  }
  c.axis = op.attrs.get_string("mesh_axis");
  if (const AttrValue* r = op.attrs.find("reduce")) c.reduce_max = std::get<std::string>(*r) == "max";
  if (op.attrs.find("dim")) c.dim = op.attrs.get_int("dim");
  if (op.attrs.find("split_dim")) c.split_dim = op.attrs.get_int("split_dim");
  if (op.attrs.find("concat_dim")) c.concat_dim = op.attrs.get_int("concat_dim");
  if (op.attrs.find("root")) c.peer = op.attrs.get_int("root");
  if (op.attrs.find("peer")) c.peer = op.attrs.get_int("peer");
  c.ledger = op.meta.ledger;
  c.tag = collective_tag(op);
  return c;
}

Status run_collective(const Op& op, World& world, std::span<const Tensor* const> operands, Tensor& result) {
  return run_collective(collective_params(op), world, operands, result);
}

Status check_collective(const CollectiveParams& c, int64_t n, std::span<const Tensor* const> operands,
                        const Tensor& result) {
  if (std::string problem = size_problem(c, n, operands, result); !problem.empty())
    return make_error(c.tag + " on axis '" + c.axis + "' of " + std::to_string(n) + " devices: " + problem);
  if ((c.kind == CollectiveKind::collective_broadcast || c.kind == CollectiveKind::send || c.kind == CollectiveKind::recv) &&
      (c.peer < 0 || c.peer >= n))
    return make_error(c.tag + ": rank " + std::to_string(c.peer) + " is not a rank of axis '" + c.axis + "' (" +
                      std::to_string(n) + " devices)");
  return {};
}

Expected<size_t> collective_axis(const CollectiveParams& c, const MeshShape& mesh) {
  for (size_t a = 0; a < mesh.axes.size(); ++a)
    if (mesh.axes[a] == c.axis) return a;
  return make_error(std::string(collective_kind_name(c.kind)) + ": mesh_axis '" + c.axis +
                    "' is not an axis of the communicator's mesh " + mesh.to_string());
}

Status run_collective(const CollectiveParams& c, World& world, std::span<const Tensor* const> operands, Tensor& result) {
  MLC_TRY(const size_t axis, collective_axis(c, world.mesh()));
  Group* g = &world.axis_group(axis);
  const int64_t n = g->size();
  MLC_CHECK_OK(check_collective(c, n, operands, result));
  const std::string& tag = c.tag;
  const int64_t e = dtype_size(result.dtype());
  auto copy_in = [&] {
    if (operands[0]->bytes() != result.bytes())
      std::memcpy(result.bytes(), operands[0]->bytes(), static_cast<size_t>(result.num_bytes()));
  };
  switch (c.kind) {
    case CollectiveKind::all_reduce: {
      copy_in();
      return g->all_reduce(result.bytes(), result.num_elements(), result.dtype(), c.reduce_max ? ReduceOp::max : ReduceOp::sum, tag);
    }
    case CollectiveKind::all_gather: {
      const int64_t d = c.dim;
      const Tensor& x = *operands[0];
      if (leading(x.shape(), d))  // chunks are contiguous already
        return g->all_gather(x.bytes(), result.bytes(), x.num_bytes(), tag);
      std::byte* gathered = scratch(result.num_bytes());
      MLC_CHECK_OK(g->all_gather(x.bytes(), gathered, x.num_bytes(), tag));
      for (int64_t r = 0; r < n; ++r) insert_chunk(result.shape(), e, d, n, r, gathered + r * x.num_bytes(), result.bytes());
      return {};
    }
    case CollectiveKind::reduce_scatter: {
      const int64_t d = c.dim;
      const Tensor& x = *operands[0];
      const std::byte* chunks = x.bytes();
      if (!leading(x.shape(), d)) {
        std::byte* packed = scratch(x.num_bytes());
        for (int64_t r = 0; r < n; ++r) extract_chunk(x.shape(), e, d, n, r, x.bytes(), packed + r * result.num_bytes());
        chunks = packed;
      }
      return g->reduce_scatter(chunks, result.bytes(), result.num_elements(), result.dtype(), ReduceOp::sum, tag);
    }
    case CollectiveKind::all_to_all: {
      const Tensor& x = *operands[0];
      if (c.split_dim == c.concat_dim) {
        copy_in();
        return {};
      }
      int64_t chunk_bytes = x.num_bytes() / n;
      std::byte* send = scratch(2 * x.num_bytes());
      std::byte* recv = send + x.num_bytes();
      for (int64_t r = 0; r < n; ++r) extract_chunk(x.shape(), e, c.split_dim, n, r, x.bytes(), send + r * chunk_bytes);
      MLC_CHECK_OK(g->all_to_all(send, recv, chunk_bytes, tag));
      for (int64_t r = 0; r < n; ++r) insert_chunk(result.shape(), e, c.concat_dim, n, r, recv + r * chunk_bytes, result.bytes());
      return {};
    }
    case CollectiveKind::collective_broadcast:
      copy_in();
      return g->broadcast(result.bytes(), result.num_bytes(), static_cast<int>(c.peer), tag);
    case CollectiveKind::send:
      copy_in();
      return g->send(result.bytes(), result.num_bytes(), static_cast<int>(c.peer), tag);
    case CollectiveKind::recv:
      return g->recv(result.bytes(), result.num_bytes(), static_cast<int>(c.peer), tag);
    case CollectiveKind::shard_slice: {
      const Tensor& x = *operands[0];
      extract_chunk(x.shape(), e, c.dim, n, g->rank(), x.bytes(), result.bytes());
      return {};
    }
  }
  return make_error("mlc internal error: not a collective");
}

}  // namespace mlc::rt
