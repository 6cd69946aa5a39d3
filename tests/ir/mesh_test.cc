// Meshes, placements on values, and the collectives: parsing, printing,
// per-device shapes and the verifier's checks against the module's mesh.
#include <gtest/gtest.h>

#include <functional>

#include "ir/collectives.h"
#include "ir/mesh.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace mlc {
namespace {

TEST(Mesh, ParsesAndPrints) {
  auto mesh = Mesh::parse("dp=2,tp=4");
  ASSERT_TRUE(mesh) << mesh.error().message;
  EXPECT_EQ(mesh->axes.size(), 2u);
  EXPECT_EQ(mesh->num_devices(), 8);
  EXPECT_EQ(mesh->str(), "dp=2,tp=4");
  EXPECT_EQ(mesh->find("tp"), 1u);
  EXPECT_FALSE(mesh->find("pp"));
}

TEST(Mesh, RejectsMalformedMeshes) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"", "mesh '': expected axes like 'dp=2,tp=2'"},
      {"dp", "mesh 'dp': expected 'name=size', found 'dp'"},
      {"dp=2,dp=3", "mesh 'dp=2,dp=3': axis 'dp' appears twice"},
      {"dp=0", "mesh 'dp=0': size of axis 'dp' must be a positive integer, found '0'"},
      {"dp=x", "mesh 'dp=x': size of axis 'dp' must be a positive integer, found 'x'"},
      {"2=2", "mesh '2=2': axis name '2' is not an identifier"},
      {"dp=2,", "mesh 'dp=2,': expected 'name=size', found ''"},
      {"a=256,b=256,c=2", "mesh 'a=256,b=256,c=2': more than 65536 devices"},
  };
  for (const Case& c : cases) {
    auto mesh = Mesh::parse(c.text);
    ASSERT_FALSE(mesh) << c.text;
    EXPECT_EQ(mesh.error().message, c.message);
  }
}

// Placement::parse reads what Placement::str writes, and nothing else.
TEST(Placement, ParsesWhatItPrints) {
  for (const Placement& p : {Placement::R(), Placement::S(0), Placement::S(12), Placement::P(), Placement::Pmax()}) {
    auto parsed = Placement::parse(p.str());
    ASSERT_TRUE(parsed) << p.str() << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, p);
  }
  for (const char* bad : {"", "r", "S", "S()", "S(-1)", "S(x)", "S(0", "S(99999999)", "S(01)", "P(min)", " R"}) {
    auto parsed = Placement::parse(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().message,
              "placement '" + std::string(bad) + "': expected 'R', 'S(dim)', 'P' or 'P(max)'");
  }
}

TEST(Mesh, LocalShapesDivideShardedDims) {
  Mesh mesh = *Mesh::parse("dp=2,fsdp=2");
  auto local = local_shape({8, 6}, {Placement::S(0), Placement::S(0)}, mesh);
  ASSERT_TRUE(local);
  EXPECT_EQ(*local, (Shape{2, 6}));
  EXPECT_EQ(global_shape(*local, {Placement::S(0), Placement::S(0)}, mesh), (Shape{8, 6}));
  EXPECT_EQ(*local_shape({8, 6}, {Placement::P(), Placement::S(1)}, mesh), (Shape{8, 3}));
  auto bad = local_shape({30, 8}, {Placement::S(0), Placement::S(0)}, mesh);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "dim 0 of [30,8] (30) does not divide by 4 (sharded over dp=2, fsdp=2)");
  EXPECT_EQ(local_shape({8}, {Placement::S(1), Placement::R()}, mesh).error().message,
            "placement S(1) on axis 'dp' names a dim out of range for rank 1");
  EXPECT_EQ(local_shape({8}, {Placement::R()}, mesh).error().message,
            "1 placements for a mesh of 2 axes (dp=2,fsdp=2)");
}

// parse_placements reads exactly what placements_str prints.
TEST(Mesh, PlacementsParseAsPrinted) {
  for (const char* text : {"<S(0),R>", "<P>", "<R,S(12),S(0)>"}) {
    auto p = parse_placements(text);
    ASSERT_TRUE(p) << text << ": " << p.error().message;
    EXPECT_EQ(placements_str(*p), text);
  }
  EXPECT_EQ(*parse_placements("<S(1),R>"), (Placements{Placement::S(1), Placement::R()}));
  const std::pair<const char*, const char*> bad[] = {
      {"<>", "placements '<>': expected a list like '<S(0),R>'"},
      {"S(0)", "placements 'S(0)': expected a list like '<S(0),R>'"},
      {"<S(01)>", "placements '<S(01)>': expected 'R', 'S(dim)', 'P' or 'P(max)', found 'S(01)'"},
      {"<S(-1)>", "placements '<S(-1)>': expected 'R', 'S(dim)', 'P' or 'P(max)', found 'S(-1)'"},
      {"<R, R>", "placements '<R, R>': expected 'R', 'S(dim)', 'P' or 'P(max)', found ' R'"},
      {"<R,,R>", "placements '<R,,R>': expected 'R', 'S(dim)', 'P' or 'P(max)', found ''"},
  };
  for (const auto& [text, message] : bad) {
    auto p = parse_placements(text);
    ASSERT_FALSE(p) << text;
    EXPECT_EQ(p.error().message, message);
  }
}

// A device's chunk of each dim: the mixed-radix number of its coords along
// the axes sharding the dim, the first axis most significant.
TEST(Mesh, ShardGridAndIndex) {
  const Mesh mesh = *Mesh::parse("dp=2,fsdp=3");
  const Placements p = {Placement::S(1), Placement::S(1)};
  EXPECT_EQ(shard_grid(p, mesh, 2), (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(shard_index(p, mesh, {1, 2}, 2), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(shard_index({Placement::S(0), Placement::R()}, mesh, {1, 2}, 2), (std::vector<int64_t>{1, 0}));
}

constexpr const char* kSharded = R"(module @m attributes {mesh = "dp=2,tp=2"} {
  func @f(%x: f32[8,4]<S(0),R> {input}, %w: f32[4,6]<R,S(1)> {param}) -> (f32[16,6]<R,S(1)>) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = false} : f32[8,6]<S(0),S(1)>
    %1 = all_gather(%0) {mesh_axis = "dp", dim = 0} : f32[16,6]<R,S(1)>
    %2 = all_reduce(%1) {mesh_axis = "tp", reduce = "sum"} : f32[16,6]<R,S(1)>
    %3 = reduce_scatter(%2) {mesh_axis = "dp", dim = 1} : f32[16,3]<S(1),S(1)>
    %4 = all_to_all(%3) {mesh_axis = "dp", split_dim = 0, concat_dim = 1} : f32[8,6]<S(0),S(1)>
    %5 = shard_slice(%4) {mesh_axis = "tp", dim = 0} : f32[4,6]<S(0),S(0)>
    %6 = collective_broadcast(%5) {mesh_axis = "tp", root = 1} : f32[4,6]<S(0),S(0)>
    return %2
  }
}
)";

TEST(ShardedIr, RoundTripsPlacementsAndCollectives) {
  auto m = parse_module(kSharded, "s.mlir");
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_TRUE(verify_module(*m)) << verify_module(*m).error().message;
  EXPECT_EQ(print_module(*m), kSharded);
  EXPECT_EQ(m->mesh().str(), "dp=2,tp=2");
}

// Replaces the first occurrence of `from` in kSharded.
std::string sharded_with(const std::string& from, const std::string& to) {
  std::string s = kSharded;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

std::string first_error(const std::string& text) {
  auto m = parse_module(text, "s.mlir");
  if (!m) return m.error().message;
  Status st = verify_module(*m);
  return st ? "" : st.error().message;
}

TEST(ShardedIr, ParserLocatesPlacementsAndCollectivesThatDoNotFitTheMesh) {
  EXPECT_EQ(first_error(sharded_with("<S(0),R> {input}", "<S(0)> {input}")),
            "s.mlir:2:11: error: argument '%x': 1 placements for a mesh of 2 axes (dp=2,tp=2)");
  EXPECT_EQ(first_error(sharded_with("<S(0),R> {input}", "<S(2),R> {input}")),
            "s.mlir:2:11: error: argument '%x': placement S(2) on axis 'dp' names a dim out of range for rank 2");
  EXPECT_EQ(first_error(sharded_with("<S(0),R> {input}", " {input}")),
            "s.mlir:2:33: error: argument '%w' has placements, unlike the function's first value");
  EXPECT_EQ(first_error(sharded_with("mesh_axis = \"dp\", dim = 0", "mesh_axis = \"pp\", dim = 0")),
            "s.mlir:4:10: error: mesh_axis 'pp' is not an axis of mesh dp=2,tp=2");
  EXPECT_EQ(first_error(sharded_with("root = 1", "root = 2")),
            "s.mlir:9:10: error: root 2 is not a rank of axis 'tp' (2 devices)");
  EXPECT_EQ(first_error(sharded_with(" attributes {mesh = \"dp=2,tp=2\"}", "")),
            "s.mlir:2:11: error: argument '%x' has placements <S(0),R> but the module has no mesh");
  EXPECT_EQ(first_error(sharded_with("mesh = \"dp=2,tp=2\"", "mesh = \"dp=2,dp=2\"")),
            "s.mlir:1:22: error: module attribute 'mesh': mesh 'dp=2,dp=2': axis 'dp' appears twice");
  EXPECT_EQ(first_error(sharded_with("<S(0),R> {input}", "<S(0),Q> {input}")),
            "s.mlir:2:29: error: expected a placement 'R', 'S(dim)', 'P' or 'P(max)', found 'Q'");
  EXPECT_EQ(first_error(sharded_with("<S(0),R> {input}", "<S(0),P(min)> {input}")),
            "s.mlir:2:31: error: expected 'max' (a partial maximum, 'P(max)'), found 'min'");
  // A partial maximum parses and verifies.
  EXPECT_EQ(first_error(sharded_with("<S(0),R> {input}", "<S(0),P(max)> {input}")), "");
  EXPECT_EQ(first_error(sharded_with("-> (f32[16,6]<R,S(1)>)", "-> (f32[16,6]<R,R>)")),
            "s.mlir:10:12: error: return value '%2' has placements <R,S(1)>, but result #0 of '@f' is declared <R,R>");
}

// The same rules on IR built in memory, where only the verifier sees them.
TEST(ShardedIr, VerifierChecksPlacementsAndCollectivesAgainstTheMesh) {
  auto verify_error = [](const std::function<void(Module&)>& edit) {
    auto parsed = parse_module(kSharded, "s.mlir");
    Module& m = *parsed;
    edit(m);
    Status st = verify_module(m);
    return st ? std::string() : st.error().message;
  };
  EXPECT_EQ(verify_error([](Module& m) { m.functions[0]->args[0]->placements.pop_back(); }),
            "error: verifier: function @f: argument #0 '%x' 1 placements for a mesh of 2 axes (dp=2,tp=2)");
  EXPECT_EQ(verify_error([](Module& m) { m.functions[0]->args[1]->placements.clear(); }),
            "error: verifier: function @f: argument #1 '%w' has no placements, unlike the function's first value");
  EXPECT_EQ(verify_error([](Module& m) { m.functions[0]->ops[1]->attrs.set("mesh_axis", std::string("pp")); }),
            "error: verifier: all_gather (op #1): mesh_axis 'pp' is not an axis of mesh dp=2,tp=2");
  EXPECT_EQ(verify_error([](Module& m) { m.set_mesh(*Mesh::parse("dp=3,tp=2")); }),
            "error: verifier: all_gather (op #1): gathers dim 0 from 8 to 16, a factor of 2, but axis 'dp' has 3 "
            "devices");
  EXPECT_EQ(verify_error([](Module& m) { m.set_mesh({}); }),
            "error: verifier: function @f: argument #0 '%x' has placements <S(0),R> but the module has no mesh");
}

TEST(ShardedIr, DiagnosesCollectiveSizesThatAreNotTheAxisSize) {
  const char* text = R"(module @m attributes {mesh = "dp=2"} {
  func @f(%x: f32[8,4]<S(0)> {input}) -> (f32[24,4]<R>) {
    %0 = all_gather(%x) {mesh_axis = "dp", dim = 0} : f32[24,4]<R>
    return %0
  }
}
)";
  EXPECT_EQ(first_error(text),
            "s.mlir:3:10: error: gathers dim 0 from 8 to 24, a factor of 3, but axis 'dp' has 2 devices");
  std::string fixed = text;
  fixed.replace(fixed.find("\"dp=2\""), 6, "\"dp=3\"");
  auto m = parse_module(fixed, "s.mlir");
  ASSERT_TRUE(m);
  const Op& op = *m->functions[0]->ops[0];
  EXPECT_TRUE(uses_mesh_axis(op.code));
  EXPECT_EQ(mesh_axis_size(op, m->mesh()), 3);
}

}  // namespace
}  // namespace mlc
