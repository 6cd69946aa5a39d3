// Enumerates the op table and checks that every column an op needs is filled
// and behaves: names unique and parseable back, attribute defaults of the
// right kind, composites decompose into primitives only, costs are defined.
#include <gtest/gtest.h>

#include <set>

#include "ir/builder.h"
#include "ir/decompose.h"
#include "ir/op_table.h"
#include "tests/ir/sample_fusion_body.h"

namespace mlc {
namespace {

TEST(OpTable, EveryRowIsComplete) {
  std::set<std::string_view> names;
  ASSERT_EQ(all_ops().size(), static_cast<size_t>(kNumOps));
  for (const OpInfo& info : all_ops()) {
    SCOPED_TRACE(std::string(info.name));
    EXPECT_EQ(&op_info(info.code), &info);
    EXPECT_TRUE(names.insert(info.name).second) << "duplicate op name";
    EXPECT_EQ(find_op(info.name), info.code);
    EXPECT_TRUE(info.infer.defined());
    EXPECT_NE(info.cost, nullptr);
    EXPECT_GE(info.arity, -1);
    for (const AttrSpec& spec : info.attrs) {
      if (spec.default_value) {
        EXPECT_TRUE(attr_has_kind(*spec.default_value, spec.kind)) << spec.name;
      }
    }
  }
}

// A float operand list of the right arity for each composite, with attributes
// filled by defaults; decomposing must leave only primitives and give the same type.
// The traits column: every op belongs to one family; the flags that constrain
// an op's shape say so consistently.
TEST(OpTable, TraitsClassifyEveryOp) {
  for (const OpInfo& info : all_ops()) {
    SCOPED_TRACE(std::string(info.name));
    if (info.code == OpCode::Call) {  // what it computes is its callee's (ir/ops.def); no family
      EXPECT_EQ(info.traits, 0u);
      continue;
    }
    int families = 0;
    for (uint32_t family : {kElementwise, kReduction, kMovement, kContraction, kSource, kFused, kCollective})
      families += info.has(family);
    if (info.has(kWindow) && !info.has(kReduction)) ++families;  // the pooling gradients
    EXPECT_EQ(families, 1);
    EXPECT_EQ(info.has(kSource), info.arity == 0 && !info.has(kCollective));  // recv has no operands
    if (info.has(kCommutative)) {
      EXPECT_EQ(info.arity, 2);
      EXPECT_TRUE(info.has(kElementwise));
    }
    EXPECT_EQ(info.has(kEffectful), info.has(kCollective));  // random_uniform is counter-based: pure
  }
  for (OpCode code : {OpCode::Add, OpCode::Mul, OpCode::Max, OpCode::Min})
    EXPECT_TRUE(op_info(code).has(kCommutative)) << op_name(code);
  for (OpCode code : {OpCode::Sub, OpCode::Div, OpCode::Pow, OpCode::Compare})
    EXPECT_FALSE(op_info(code).has(kCommutative)) << op_name(code);
}

TEST(OpTable, CompositesDecomposeToPrimitives) {
  for (const OpInfo& info : all_ops()) {
    if (!info.is_composite()) continue;
    SCOPED_TRACE(std::string(info.name));
    Function f("f");
    std::vector<Value*> args;
    TensorType x{DType::f32, {2, 3, 4}};
    args.push_back(f.add_arg("x", x, ArgKind::input));
    if (info.code == OpCode::LayerNorm || info.code == OpCode::RmsNorm) {
      args.push_back(f.add_arg("w", {DType::f32, {4}}, ArgKind::param));
      if (info.code == OpCode::LayerNorm) args.push_back(f.add_arg("b", {DType::f32, {4}}, ArgKind::param));
    } else if (info.code == OpCode::CrossEntropy || info.code == OpCode::NllLoss) {
      args.push_back(f.add_arg("t", {DType::i64, {2, 3}}, ArgKind::input));
    } else if (info.code == OpCode::CosineEmbeddingLoss) {
      args[0] = f.add_arg("x1", {DType::f32, {3, 4}}, ArgKind::input);
      args.push_back(f.add_arg("x2", {DType::f32, {3, 4}}, ArgKind::input));
      args.push_back(f.add_arg("y", {DType::i64, {3}}, ArgKind::input));
    } else if (info.arity == 2 || info.code == OpCode::BinaryCrossEntropyWithLogits) {  // the pointwise losses
      if (info.has(kReduction)) args.push_back(f.add_arg("t", x, ArgKind::input));
    }
    ASSERT_EQ(static_cast<int>(args.size()), info.arity < 0 ? static_cast<int>(args.size()) : info.arity);
    Attrs attrs;
    if (info.code == OpCode::Softmax || info.code == OpCode::LogSoftmax || info.code == OpCode::Cumsum)
      attrs.set("axis", int64_t{-1});
    if (info.code == OpCode::Split) attrs = {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{1, 0, 2}}};
    if (info.code == OpCode::Fusion) args.push_back(f.add_arg("b", {DType::f32, {4}}, ArgKind::param));
    Builder b(f);
    auto v = info.code == OpCode::Fusion
                 ? b.try_create_fusion(args, testing::sample_fusion_body(args[0]->type, args[1]->type))
                 : b.try_create_results(info.code, args, attrs);
    ASSERT_TRUE(v.ok()) << v.error().message;
    f.results = *v;
    std::vector<TensorType> before = result_types(*f.ops.back());
    Cost cost = op_cost(*f.ops.back());
    if (info.has(kMovement)) EXPECT_GT(cost.bytes, 0);
    else EXPECT_GT(cost.flops, 0);
    EXPECT_TRUE(decompose_composites(f));
    for (const auto& op : f.ops) EXPECT_FALSE(op_info(op->code).is_composite()) << op_name(op->code);
    ASSERT_EQ(f.results.size(), before.size());
    for (size_t k = 0; k < before.size(); ++k) EXPECT_EQ(f.results[k]->type, before[k]);
  }
}

TEST(OpTable, AttributeSchemaErrors) {
  Function f("f");
  Value* x = f.add_arg("x", {DType::f32, {1, 1, 4, 4}}, ArgKind::input);
  Value* w = f.add_arg("w", {DType::f32, {2, 1, 3, 3}}, ArgKind::param);
  Builder b(f);
  auto bad = b.try_create(OpCode::Conv2d, {x, w}, {{"strides", std::vector<int64_t>{1, 1}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "error: conv2d: unknown attribute 'strides' (expected: stride, padding, dilation, groups)");
  auto wrong_kind = b.try_create(OpCode::Conv2d, {x, w}, {{"groups", 1.5}});
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_EQ(wrong_kind.error().message, "error: conv2d: attribute 'groups' must be integer, got 1.5");
  auto missing = b.try_create(OpCode::MaxPool2d, {x}, {{"kernel", std::vector<int64_t>{2, 2}}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "error: max_pool2d: missing attribute 'stride' (integer list)");
}

TEST(OpTable, InferenceDiagnostics) {
  Function f("f");
  Value* x = f.add_arg("x", {DType::f32, {8, 3, 8, 8}}, ArgKind::input);
  Value* w = f.add_arg("w", {DType::f32, {16, 1, 3, 3}}, ArgKind::param);
  Value* v = f.add_arg("v", {DType::f32, {4}}, ArgKind::param);
  Builder b(f);
  b.set_loc(Loc{"m.json", 14, 9});
  auto conv = b.try_create(OpCode::Conv2d, {x, w});
  ASSERT_FALSE(conv.ok());
  EXPECT_EQ(conv.error().message,
            "m.json:14:9: error: conv2d: input channels 3 do not match weight in_channels 1 x groups 1");
  auto add = b.try_create(OpCode::Add, {x, v});
  ASSERT_FALSE(add.ok());
  EXPECT_EQ(add.error().message,
            "m.json:14:9: error: add: operand shapes [8,3,8,8] and [4] do not broadcast");
  auto unfold = b.try_create(OpCode::Unfold, {x}, {{"kernel", std::vector<int64_t>{3, 9}}});
  ASSERT_FALSE(unfold.ok());
  EXPECT_EQ(unfold.error().message,
            "m.json:14:9: error: unfold: kernel [3, 9] (dilation [1, 1]) does not fit input [8,8] with padding [0, 0]");
  auto fold = b.try_create(OpCode::Fold, {f.add_arg("cols", {DType::f32, {8, 27, 35}}, ArgKind::input)},
                           {{"output_size", std::vector<int64_t>{8, 8}}, {"kernel", std::vector<int64_t>{3, 3}}});
  ASSERT_FALSE(fold.ok());
  EXPECT_EQ(fold.error().message,
            "m.json:14:9: error: fold: input dim 2 (35) must be the 36 blocks (6 x 6) of output_size [8, 8], got "
            "f32[8,27,35]");
  auto arity = b.try_create(OpCode::Add, {x});
  ASSERT_FALSE(arity.ok());
  EXPECT_EQ(arity.error().message, "m.json:14:9: error: add: expected 2 operands, got 1");
  auto empty_max = b.try_create(OpCode::ReduceMax, {f.add_arg("e", {DType::f32, {0, 3}}, ArgKind::input)},
                                {{"dims", std::vector<int64_t>{0}}});
  ASSERT_FALSE(empty_max.ok());
  EXPECT_EQ(empty_max.error().message,
            "m.json:14:9: error: reduce_max: cannot reduce over dim 0 of size 0 of f32[0,3] (no identity element)");
}

TEST(OpTable, Costs) {
  Function f("f");
  Value* a = f.add_arg("a", {DType::f32, {4, 32, 64}}, ArgKind::input);
  Value* w = f.add_arg("w", {DType::f32, {128, 64}}, ArgKind::param);
  Builder b(f);
  Value* y = b.create(OpCode::Dot, {a, w}, {{"transpose_b", true}});
  EXPECT_EQ(y->type, (TensorType{DType::f32, {4, 32, 128}}));
  Cost c = op_cost(*f.ops.back());
  EXPECT_EQ(c.flops, 2LL * 4 * 32 * 128 * 64);
  EXPECT_EQ(c.bytes, 4LL * (4 * 32 * 64 + 128 * 64 + 4 * 32 * 128));
}

}  // namespace
}  // namespace mlc
