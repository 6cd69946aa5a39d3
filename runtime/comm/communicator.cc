#include "runtime/comm/communicator.h"

#include <cassert>
#include <climits>
#include <set>

namespace mlc::rt {

int MeshShape::num_ranks() const {
  int n = 1;
  for (int s : sizes) n *= s;
  return n;
}

std::vector<int> MeshShape::coords(int world_rank) const {
  std::vector<int> c(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    c[i] = world_rank % sizes[i];
    world_rank /= sizes[i];
  }
  return c;
}

std::vector<int> MeshShape::axis_group_ranks(int world_rank, size_t axis) const {
  int stride = 1;  // row-major: the product of the sizes after `axis`
  for (size_t i = axis + 1; i < sizes.size(); ++i) stride *= sizes[i];
  const int base = world_rank - coords(world_rank)[axis] * stride;
  std::vector<int> ranks;
  for (int j = 0; j < sizes[axis]; ++j) ranks.push_back(base + j * stride);
  return ranks;
}

std::string MeshShape::to_string() const {
  if (axes.empty()) return "(one rank)";
  std::string s;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) s += ',';
    s += axes[i] + '=' + (i < sizes.size() ? std::to_string(sizes[i]) : "?");
  }
  return s;
}

Status MeshShape::check() const {
  if (axes.size() != sizes.size())
    return make_error("mesh has " + std::to_string(axes.size()) + " axis names but " + std::to_string(sizes.size()) +
                      " sizes");
  std::set<std::string> seen;
  int64_t n = 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].empty()) return make_error("mesh axis " + std::to_string(i) + " has no name");
    if (!seen.insert(axes[i]).second) return make_error("mesh " + to_string() + " names axis '" + axes[i] + "' twice");
    if (sizes[i] < 1) return make_error("mesh " + to_string() + ": axis '" + axes[i] + "' must have size >= 1");
    n *= sizes[i];
    if (n > INT_MAX) return make_error("mesh " + to_string() + " has too many ranks");
  }
  return {};
}

}  // namespace mlc::rt
