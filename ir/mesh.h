// Device meshes and placements (docs/architecture.md, Parallelism).
//
// A mesh has named axes with sizes, "dp=2,tp=2"; its devices (ranks) are
// numbered row-major over the axes in their declared order. A tensor value
// of a sharded program carries one placement per mesh axis, like PyTorch
// DTensor's Replicate / Shard(d) / Partial:
//   R     replicated: every device of the axis holds the whole (local) tensor;
//   S(d)  sharded on dim d: device i of the axis holds chunk i of d's equal chunks;
//   P     partial sum: the tensor is the sum over the axis of the devices' values.
// Several axes may shard one dim; chunks nest in mesh-axis order (the first
// axis picks the outer chunk).
//
// Text: the module says `attributes {mesh = "dp=2,tp=2"}`, and a value's type
// is followed by its placements in mesh-axis order: `f32[16,64]<S(0),R>`. The
// shape printed is the local (per-device) shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/types.h"

namespace mlc {

struct MeshAxis {
  std::string name;
  int64_t size = 1;
  friend bool operator==(const MeshAxis&, const MeshAxis&) = default;
};

// Most devices a mesh may have; keeps rank arithmetic small and absurd meshes errors.
inline constexpr int64_t kMaxMeshDevices = 1 << 16;

struct Mesh {
  std::vector<MeshAxis> axes;

  bool empty() const { return axes.empty(); }
  int64_t num_devices() const;
  std::optional<size_t> find(std::string_view axis) const;
  std::string str() const;  // "dp=2,tp=2"; "" for the empty mesh
  friend bool operator==(const Mesh&, const Mesh&) = default;

  // "dp=2,tp=2": axis names are identifiers, distinct; sizes >= 1; at most
  // kMaxMeshDevices devices. Errors say what is wrong, without a location:
  //   "mesh 'dp=2,dp=3': axis 'dp' appears twice"
  static Expected<Mesh> parse(std::string_view text);
};

// R: every device holds the whole value. S(d): device i of the axis holds
// chunk i of dim d. P: the value is the sum of the devices' values (a partial
// sum, PyTorch DTensor's Partial()). P(max): the value is their elementwise
// maximum (Partial("max"): a max over a sharded dim, as in vocabulary-parallel
// softmax).
struct Placement {
  enum class Kind : uint8_t { replicated, sharded, partial, partial_max };
  Kind kind = Kind::replicated;
  int64_t dim = 0;  // sharded only

  static Placement R() { return {}; }
  static Placement S(int64_t d) { return {Kind::sharded, d}; }
  static Placement P() { return {Kind::partial, 0}; }
  static Placement Pmax() { return {Kind::partial_max, 0}; }
  bool is_replicated() const { return kind == Kind::replicated; }
  bool is_sharded() const { return kind == Kind::sharded; }
  // A pending reduction of either kind.
  bool is_partial() const { return kind == Kind::partial || kind == Kind::partial_max; }
  // The pending reduction's all_reduce `reduce` attribute: "sum" or "max".
  std::string_view reduction() const { return kind == Kind::partial_max ? "max" : "sum"; }
  std::string str() const;  // "R", "S(0)", "P", "P(max)"
  friend bool operator==(const Placement&, const Placement&) = default;

  // The inverse of str(): "R", "S(d)" (d a decimal integer in [0, 2^24)),
  // "P" or "P(max)". Errors say what was found, without a location:
  //   "placement 'S(x)': expected 'R', 'S(dim)', 'P' or 'P(max)'"
  static Expected<Placement> parse(std::string_view text);
};

// One placement per mesh axis, in the mesh's axis order; empty for a value
// of an unsharded program.
using Placements = std::vector<Placement>;

std::string placements_str(const Placements& p);  // "<S(0),R>"; "" when empty
// The inverse of placements_str for a non-empty list, in exactly its spelling
// ("<S(0),R>": no spaces, dims in decimal without leading zeros), so that
// printing what it parses gives the text back. Errors say what is wrong:
//   "placements '<S(x)>': expected 'R', 'S(dim)', 'P' or 'P(max)', found 'S(x)'"
Expected<Placements> parse_placements(std::string_view text);
// All replicated, for a mesh of `axes` axes.
Placements replicated(size_t axes);

// The number of chunks dim `d` is cut into: the product of the sizes of the
// axes that shard it.
int64_t shard_count(const Placements& p, const Mesh& mesh, int64_t d);

// Per dim of a tensor of `rank` dims, the shard_count: the grid of chunks
// the tensor is cut into.
std::vector<int64_t> shard_grid(const Placements& p, const Mesh& mesh, int64_t rank);
// Per dim, the chunk of the grid that the device at `coords` (its index along
// each mesh axis) holds: the mixed-radix number of its coords along the axes
// sharding that dim, the first axis most significant, as chunks nest.
std::vector<int64_t> shard_index(const Placements& p, const Mesh& mesh, const std::vector<int>& coords,
                                 int64_t rank);

// The local shape of a tensor of `global` shape: every sharded dim divided by
// its shard count. Errors: a placement list of the wrong length, a dim out of
// range, or a dim that does not divide:
//   "dim 0 of [30,8] (30) does not divide by 4 (sharded over dp=2, fsdp=2)"
Expected<Shape> local_shape(const Shape& global, const Placements& p, const Mesh& mesh);
// The inverse: every sharded dim multiplied by its shard count.
Shape global_shape(const Shape& local, const Placements& p, const Mesh& mesh);
// "" if `p` is valid for a tensor of `rank` on `mesh`, else what is wrong.
std::string check_placements(const Placements& p, int64_t rank, const Mesh& mesh);

}  // namespace mlc
