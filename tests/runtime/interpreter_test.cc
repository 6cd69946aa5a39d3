// The reference interpreter: running Builder-made functions, argument checks,
// located kernel errors, buffer lifetimes.
#include "runtime/interpreter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::rt {
namespace {

using namespace testing;

// linear (dot + broadcast bias) -> relu -> cross_entropy; returns loss and activations.
std::unique_ptr<Function> make_mlp() {
  auto f = std::make_unique<Function>("mlp");
  Value* x = f->add_arg("x", {DType::f32, {2, 3}}, ArgKind::input);
  Value* t = f->add_arg("targets", {DType::i64, {2}}, ArgKind::input);
  Value* w = f->add_arg("fc.weight", {DType::f32, {3, 2}}, ArgKind::param);
  Value* b = f->add_arg("fc.bias", {DType::f32, {2}}, ArgKind::param);
  Builder bld(*f);
  Value* h = bld.add(bld.create(OpCode::Dot, {x, w}), bld.broadcast_to(b, {2, 2}));
  Value* r = bld.create(OpCode::Relu, {h});
  Value* loss = bld.create(OpCode::CrossEntropy, {r, t});
  f->results = {loss, r};
  return f;
}

struct MlpArgs {
  Tensor x = make_tensor(DType::f32, {2, 3}, {1, 0, -1, 2, 1, 0});
  Tensor t = make_tensor(DType::i64, {2}, {0, 1});
  Tensor w = make_tensor(DType::f32, {3, 2}, {1, -1, 0, 1, 1, 0});
  Tensor b = make_tensor(DType::f32, {2}, {0.5, 0});
};

TEST(Interpreter, RunsLinearReluCrossEntropy) {
  auto f = make_mlp();
  auto interp = Interpreter::create(*f);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  MlpArgs a;
  auto out = interp->run({a.x, a.t, a.w, a.b});
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->size(), 2u);
  // x.w = [[0, -1], [2, -1]]; + b = [[0.5, -1], [2.5, -1]]; relu = [[0.5, 0], [2.5, 0]].
  EXPECT_EQ(to_doubles((*out)[1]), (std::vector<double>{0.5, 0, 2.5, 0}));
  // CE: row 0 log(1 + e^-0.5), row 1 log(1 + e^2.5); mean.
  ASSERT_EQ((*out)[0].type(), (TensorType{DType::f32, {}}));
  EXPECT_NEAR(to_doubles((*out)[0])[0], (0.4740769841801067 + 2.5788897342925496) / 2, 1e-6);
  // No composite survives in the interpreted function.
  for (const auto& op : interp->function().ops) EXPECT_FALSE(op_info(op->code).is_composite());
  // The caller's function is untouched (dot, broadcast, add, relu, cross_entropy).
  EXPECT_EQ(f->ops.size(), 5u);
  // Running again gives the same results (no state kept between runs).
  auto again = interp->run({a.x, a.t, a.w, a.b});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(to_doubles((*again)[0]), to_doubles((*out)[0]));
}

TEST(Interpreter, ChecksArgumentCountAndTypes) {
  auto interp = Interpreter::create(*make_mlp());
  ASSERT_TRUE(interp.ok());
  MlpArgs a;
  auto few = interp->run({a.x, a.t});
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error().message, "function 'mlp' expects 4 arguments, got 2");
  Tensor bad_w = make_tensor(DType::f32, {3}, {1, 2, 3});
  auto shape = interp->run({a.x, a.t, bad_w, a.b});
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.error().message, "argument 2 'fc.weight': expected f32[3,2], got f32[3]");
  Tensor t32 = make_tensor(DType::i32, {2}, {0, 1});
  auto dtype = interp->run({a.x, t32, a.w, a.b});
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.error().message, "argument 1 'targets': expected i64[2], got i32[2]");
  std::vector<const Tensor*> with_null = {&a.x, nullptr, &a.w, &a.b};
  auto null = interp->run(with_null);
  ASSERT_FALSE(null.ok());
  EXPECT_EQ(null.error().message, "argument 1 'targets': no tensor given");
}

TEST(Interpreter, KernelErrorsAreLocatedAndNamed) {
  Function f("lookup");
  Value* table = f.add_arg("embed.weight", {DType::f32, {64, 4}}, ArgKind::param);
  Value* ids = f.add_arg("ids", {DType::i64, {2}}, ArgKind::input);
  Builder b(f);
  b.set_loc(Loc{"model.json", 14, 9});
  f.results = {b.create(OpCode::Gather, {table, ids}, {{"axis", int64_t{0}}})};
  auto interp = Interpreter::create(f);
  ASSERT_TRUE(interp.ok());
  Tensor t(DType::f32, {64, 4});
  Tensor bad = make_tensor(DType::i64, {2}, {3, 70});
  auto out = interp->run({t, bad});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message,
            "model.json:14:9: error: gather: index 70 out of range [0, 64) along axis 0");
}

TEST(Interpreter, DecomposedOpsKeepTheCompositeLocation) {
  Function f("ce");
  Value* logits = f.add_arg("logits", {DType::f32, {1, 2}}, ArgKind::input);
  Value* x = f.add_arg("x", {DType::i32, {1}}, ArgKind::input);
  Builder b(f);
  b.set_loc(Loc{"net.py", 3, 1});
  Value* zero = b.scalar(0, DType::i32);
  b.set_loc(Loc{"net.py", 7, 5});
  Value* q = b.div(x, zero);  // integer division by zero at run time
  f.results = {b.create(OpCode::Softmax, {logits}, {{"axis", int64_t{-1}}}), q};
  auto interp = Interpreter::create(f);
  ASSERT_TRUE(interp.ok());
  for (const auto& op : interp->function().ops) {
    if (op->code == OpCode::Exp) {
      EXPECT_EQ(op->loc, (Loc{"net.py", 7, 5}));
    }
  }
  Tensor l = make_tensor(DType::f32, {1, 2}, {0, 0});
  Tensor one = make_tensor(DType::i32, {1}, {1});
  auto out = interp->run({l, one});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message, "net.py:7:5: error: div: integer division by zero");
}

TEST(Interpreter, CreateRejectsInvalidOps) {
  Function f("bad");
  Value* x = f.add_arg("x", {DType::f32, {2}}, ArgKind::input);
  Op* op = f.insert_op(0, OpCode::Exp, {x}, {}, {DType::f32, {3}}, Loc{"bad.mlir", 2, 3});
  f.results = {op->result()};
  auto interp = Interpreter::create(f);
  ASSERT_FALSE(interp.ok());
  EXPECT_EQ(interp.error().message,
            "bad.mlir:2:3: error: exp: declared result type f32[3] does not match the inferred f32[2]");
}

TEST(Interpreter, FillsMissingAttributeDefaults) {
  Function f("defaults");
  Value* x = f.add_arg("x", {DType::f32, {1, 1, 2, 2}}, ArgKind::input);
  Value* w = f.add_arg("w", {DType::f32, {1, 1, 1, 1}}, ArgKind::param);
  // No attributes at all: stride, padding, dilation and groups take their defaults.
  Op* op = f.insert_op(0, OpCode::Conv2d, {x, w}, {}, {DType::f32, {1, 1, 2, 2}}, Loc{});
  f.results = {op->result()};
  auto interp = Interpreter::create(f);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  auto out = interp->run({make_tensor(DType::f32, {1, 1, 2, 2}, {1, 2, 3, 4}),
                          make_tensor(DType::f32, {1, 1, 1, 1}, {2})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(to_doubles((*out)[0]), (std::vector<double>{2, 4, 6, 8}));
}

TEST(Interpreter, ValuesLiveUntilTheirLastUse) {
  Function f("chain");
  Value* x = f.add_arg("x", {DType::f64, {2}}, ArgKind::input);
  Builder b(f);
  Value* a = b.mul(x, x);                        // used by the last op
  Value* c = b.add(a, a);                        // 2 x^2
  b.unary(OpCode::Neg, c);                       // dead: freed right away
  Value* d = b.mul(c, a);                        // 2 x^4
  f.results = {d, x, d, a};                      // an argument and a duplicate among results
  auto interp = Interpreter::create(f);
  ASSERT_TRUE(interp.ok());
  Tensor in = make_tensor(DType::f64, {2}, {2, 3});
  auto out = interp->run({in});
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->size(), 4u);
  EXPECT_EQ(to_doubles((*out)[0]), (std::vector<double>{32, 162}));
  EXPECT_EQ(to_doubles((*out)[1]), (std::vector<double>{2, 3}));
  EXPECT_EQ(to_doubles((*out)[2]), (std::vector<double>{32, 162}));
  EXPECT_EQ(to_doubles((*out)[3]), (std::vector<double>{4, 9}));
}

TEST(Interpreter, EmptyFunctionAndZeroSizeTensors) {
  Function f("empty");
  Value* x = f.add_arg("x", {DType::f32, {0, 3}}, ArgKind::input);
  Builder b(f);
  f.results = {b.reduce_sum(b.unary(OpCode::Exp, x), {0}, false)};
  auto interp = Interpreter::create(f);
  ASSERT_TRUE(interp.ok());
  auto out = interp->run({Tensor(DType::f32, {0, 3})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(to_doubles((*out)[0]), (std::vector<double>{0, 0, 0}));
}

}  // namespace
}  // namespace mlc::rt
