#include "ir/mesh.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "support/quote.h"

namespace mlc {

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

int64_t Mesh::num_devices() const {
  int64_t n = 1;
  for (const MeshAxis& a : axes) n *= a.size;
  return n;
}

std::optional<size_t> Mesh::find(std::string_view axis) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == axis) return i;
  return std::nullopt;
}

std::string Mesh::str() const {
  std::string s;
  for (const MeshAxis& a : axes) s += (s.empty() ? "" : ",") + a.name + "=" + std::to_string(a.size);
  return s;
}

Expected<Mesh> Mesh::parse(std::string_view text) {
  const std::string what = "mesh " + squote(text);
  Mesh mesh;
  if (text.empty()) return make_error(what + ": expected axes like 'dp=2,tp=2'");
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return make_error(what + ": expected 'name=size', found " + squote(item));
    std::string_view name = item.substr(0, eq), size = item.substr(eq + 1);
    if (!is_identifier(name))
      return make_error(what + ": axis name " + squote(name) + " is not an identifier");
    if (mesh.find(name)) return make_error(what + ": axis " + squote(name) + " appears twice");
    int64_t n = 0;
    if (size.empty() || size.size() > 6) n = -1;
    for (char c : size) n = (n < 0 || !std::isdigit(static_cast<unsigned char>(c))) ? -1 : n * 10 + (c - '0');
    if (n < 1)
      return make_error(what + ": size of axis " + squote(name) + " must be a positive integer, found " +
                        squote(size));
    mesh.axes.push_back({std::string(name), n});
    if (mesh.num_devices() > kMaxMeshDevices)
      return make_error(what + ": more than " + std::to_string(kMaxMeshDevices) + " devices");
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return mesh;
}

std::string Placement::str() const {
  switch (kind) {
    case Kind::replicated: return "R";
    case Kind::sharded: return "S(" + std::to_string(dim) + ")";
    case Kind::partial: return "P";
    case Kind::partial_max: return "P(max)";
  }
  return "?";
}

Expected<Placement> Placement::parse(std::string_view text) {
  if (text == "R") return R();
  if (text == "P") return P();
  if (text == "P(max)") return Pmax();
  // S(dim): dim in canonical decimal (no sign, no leading zero), at most 6 digits.
  const std::string_view dim =
      text.size() > 3 && text.substr(0, 2) == "S(" && text.back() == ')' ? text.substr(2, text.size() - 3) : "";
  if (!dim.empty() && dim.size() <= 6 && (dim == "0" || dim[0] != '0') &&
      std::all_of(dim.begin(), dim.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return S(std::stoll(std::string(dim)));
  return make_error("placement " + squote(text) + ": expected 'R', 'S(dim)', 'P' or 'P(max)'");
}

std::string placements_str(const Placements& p) {
  if (p.empty()) return "";
  std::string s = "<";
  for (size_t i = 0; i < p.size(); ++i) s += (i ? "," : "") + p[i].str();
  return s + ">";
}

Expected<Placements> parse_placements(std::string_view text) {
  const std::string what = "placements " + squote(text);
  if (text.size() < 3 || text.front() != '<' || text.back() != '>')
    return make_error(what + ": expected a list like '<S(0),R>'");
  Placements p;
  std::string_view rest = text.substr(1, text.size() - 2);
  for (;;) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    auto one = Placement::parse(item);
    if (!one)
      return make_error(what + ": expected 'R', 'S(dim)', 'P' or 'P(max)', found " + squote(item));
    p.push_back(*one);
    if (comma == std::string_view::npos) return p;
    rest.remove_prefix(comma + 1);
  }
}

Placements replicated(size_t axes) { return Placements(axes, Placement::R()); }

int64_t shard_count(const Placements& p, const Mesh& mesh, int64_t d) {
  int64_t n = 1;
  for (size_t a = 0; a < p.size() && a < mesh.axes.size(); ++a)
    if (p[a].is_sharded() && p[a].dim == d) n *= mesh.axes[a].size;
  return n;
}

std::vector<int64_t> shard_grid(const Placements& p, const Mesh& mesh, int64_t rank) {
  std::vector<int64_t> grid;
  for (int64_t d = 0; d < rank; ++d) grid.push_back(shard_count(p, mesh, d));
  return grid;
}

std::vector<int64_t> shard_index(const Placements& p, const Mesh& mesh, const std::vector<int>& coords,
                                 int64_t rank) {
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (size_t a = 0; a < p.size() && a < mesh.axes.size() && a < coords.size(); ++a)
    if (p[a].is_sharded() && p[a].dim >= 0 && p[a].dim < rank)
      index[p[a].dim] = index[p[a].dim] * mesh.axes[a].size + coords[a];
  return index;
}

std::string check_placements(const Placements& p, int64_t rank, const Mesh& mesh) {
  if (p.size() != mesh.axes.size())
    return std::to_string(p.size()) + " placements for a mesh of " + std::to_string(mesh.axes.size()) +
           " axes (" + mesh.str() + ")";
  for (size_t a = 0; a < p.size(); ++a)
    if (p[a].is_sharded() && (p[a].dim < 0 || p[a].dim >= rank))
      return "placement " + p[a].str() + " on axis '" + mesh.axes[a].name + "' names a dim out of range for rank " +
             std::to_string(rank);
  return "";
}

Expected<Shape> local_shape(const Shape& global, const Placements& p, const Mesh& mesh) {
  if (std::string problem = check_placements(p, static_cast<int64_t>(global.size()), mesh); !problem.empty())
    return make_error(problem);
  Shape local = global;
  for (size_t d = 0; d < global.size(); ++d) {
    int64_t n = shard_count(p, mesh, static_cast<int64_t>(d));
    if (global[d] % n == 0) {
      local[d] = global[d] / n;
      continue;
    }
    std::string axes;
    for (size_t a = 0; a < p.size(); ++a)
      if (p[a].is_sharded() && p[a].dim == static_cast<int64_t>(d))
        axes += (axes.empty() ? "" : ", ") + mesh.axes[a].name + "=" + std::to_string(mesh.axes[a].size);
    return make_error("dim " + std::to_string(d) + " of " + shape_to_string(global) + " (" +
                      std::to_string(global[d]) + ") does not divide by " + std::to_string(n) + " (sharded over " +
                      axes + ")");
  }
  return local;
}

Shape global_shape(const Shape& local, const Placements& p, const Mesh& mesh) {
  Shape global = local;
  for (size_t d = 0; d < local.size(); ++d) global[d] *= shard_count(p, mesh, static_cast<int64_t>(d));
  return global;
}

}  // namespace mlc
