#include "ir/collectives.h"

#include "ir/op_table.h"
#include "support/quote.h"

namespace mlc {

bool uses_mesh_axis(OpCode code) {
  return op_info(code).has(kCollective) || code == OpCode::ShardSlice;
}

std::optional<int64_t> mesh_axis_size(const Op& op, const Mesh& mesh) {
  const AttrValue* a = op.attrs.find("mesh_axis");
  if (!a || !std::holds_alternative<std::string>(*a)) return std::nullopt;
  auto axis = mesh.find(std::get<std::string>(*a));
  if (!axis) return std::nullopt;
  return mesh.axes[*axis].size;
}

namespace {

// "gathers dim 0 from 16 to 48, a factor of 3, but axis 'dp' has 2 devices", or "".
std::string check_factor(std::string_view verb, int64_t dim, int64_t from, int64_t to, int64_t n,
                         const std::string& axis) {
  int64_t small = std::min(from, to), big = std::max(from, to);
  if (small == 0 ? big == 0 : big == small * n) return "";
  std::string factor = small == 0 ? "" : ", a factor of " + std::to_string(big / small);
  return std::string(verb) + " dim " + std::to_string(dim) + " from " + std::to_string(from) + " to " +
         std::to_string(to) + factor + ", but axis '" + axis + "' has " + std::to_string(n) + " devices";
}

}  // namespace

std::string check_collective(const Op& op, const Mesh& mesh) {
  const std::string& axis = op.attrs.get_string("mesh_axis");
  auto n = mesh_axis_size(op, mesh);
  if (!n)
    return "mesh_axis " + squote(axis) + " is not an axis of " +
           (mesh.empty() ? std::string("the module (it has no mesh)") : "mesh " + mesh.str());
  const Shape& out = op.result()->type.shape;
  switch (op.code) {
    case OpCode::AllGather:
    case OpCode::ReduceScatter:
    case OpCode::ShardSlice: {
      int64_t d = op.attrs.get_int("dim");
      std::string_view verb = op.code == OpCode::AllGather ? "gathers" : op.code == OpCode::ShardSlice ? "slices" : "scatters";
      return check_factor(verb, d, op.operands[0]->type.shape[d], out[d], *n, axis);
    }
    case OpCode::AllToAll: {
      int64_t s = op.attrs.get_int("split_dim"), c = op.attrs.get_int("concat_dim");
      if (s == c) return "";
      return check_factor("splits", s, op.operands[0]->type.shape[s], out[s], *n, axis);
    }
    case OpCode::CollectiveBroadcast:
    case OpCode::Send:
    case OpCode::Recv: {
      const char* which = op.code == OpCode::CollectiveBroadcast ? "root" : "peer";
      int64_t r = op.attrs.get_int(which);
      if (r >= *n)
        return std::string(which) + " " + std::to_string(r) + " is not a rank of axis '" + axis + "' (" +
               std::to_string(*n) + " devices)";
      return "";
    }
    default:
      return "";
  }
}

}  // namespace mlc
