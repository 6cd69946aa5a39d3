// Autodiff's handling of ops without a gradient rule and of ops whose
// gradient is zero by definition (the vjp column's `none` and `zero` kinds).
#include <gtest/gtest.h>

#include <map>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass.h"
#include "passes/vjp.h"

namespace mlc {
namespace {

Module parse_ok(const std::string& text) {
  auto m = parse_module(text, "t.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

// Regression: a loss through an op without a rule (then conv2d_input_grad,
// which has one now as ConvTranspose's forward) got a zero gradient instead
// of an error.
TEST(Autodiff, AnOpWithoutARuleOnTheLossPathIsAnError) {
  Module m = parse_ok(R"(module @m {
  func @loss(%x: f32[1,1,3,3] {input}, %dy: f32[1,2,3,3] {param}) -> (f32[]) {
    %0 = conv2d_weight_grad(%x, %dy) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[2,1,3,3] loc("model.json":7:9)
    %1 = reduce_sum(%0) {dims = [0, 1, 2, 3], keepdim = false} : f32[]
    return %1
  }
}
)");
  auto changed = run_passes(m, {"autodiff"});
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.error().message,
            "model.json:7:9: error: autodiff: no gradient rule for conv2d_weight_grad, and the "
            "loss depends on its operands through it");
}

// An op without a rule is fine where the loss does not need its gradient.
TEST(Autodiff, AnOpWithoutARuleOffTheLossPathIsFine) {
  Module m = parse_ok(R"(module @m {
  func @loss(%dy: f32[1,2,3,3] {input}, %w: f32[2,1,3,3] {param}) -> (f32[]) {
    %0 = conv2d_input_grad(%dy, %w) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[1,1,3,3]
    %1 = reduce_sum(%w) {dims = [0, 1, 2, 3], keepdim = false} : f32[]
    return %1
  }
}
)");
  auto changed = run_passes(m, {"autodiff"});
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_TRUE(verify_module(m).ok());
}

// compare and argmax have zero gradient by definition: the loss below depends
// on %w only through them, so its gradient is exactly zero, without an error.
TEST(Autodiff, ZeroByDefinitionOpsGiveAZeroGradient) {
  Module m = parse_ok(R"(module @m {
  func @loss(%w: f32[4] {param}, %z: f32[4] {input}) -> (f32[]) {
    %0 = compare(%w, %z) {direction = "gt"} : bool[4]
    %1 = cast(%0) : f32[4]
    %2 = argmax(%w) {axis = 0} : i64[]
    %3 = cast(%2) : f32[]
    %4 = reduce_sum(%1) {dims = [0], keepdim = false} : f32[]
    %5 = add(%4, %3) : f32[]
    return %5
  }
}
)");
  auto changed = run_passes(m, {"autodiff"});
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  const Function* g = m.find("loss_grad");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->results.size(), 2u);
  std::string text = print_module(m);
  const Op* grad = g->results[1]->producer;
  ASSERT_NE(grad, nullptr);
  EXPECT_EQ(grad->code, OpCode::Broadcast) << text;  // broadcast(0.0)
  EXPECT_EQ(grad->operands[0]->producer->code, OpCode::Constant) << text;
}

// The module of loss = sum(combine(op(w) attrs, t)) over f32[4,8], after
// autodiff (its gradient function is @loss_grad).
Module differentiated(const std::string& op, const std::string& attrs, const std::string& combine) {
  Module m = parse_ok(R"(module @m {
  func @loss(%w: f32[4,8] {param}, %t: f32[4,8] {input}) -> (f32[]) {
    %0 = )" + op + "(%w)" + attrs + R"( : f32[4,8]
    %1 = )" + combine + R"((%0, %t) : f32[4,8]
    %2 = reduce_sum(%1) {dims = [0, 1], keepdim = false} : f32[]
    return %2
  }
}
)");
  auto changed = run_passes(m, {"autodiff"});
  EXPECT_TRUE(changed.ok()) << changed.error().message;
  return m;
}

// softmax and log_softmax have rules of their own, PyTorch's backward
// formulas over the result: the gradient neither recomputes the forward pass
// nor goes through the max the forward pass subtracts (no compare, no second
// max, no exp of the logits).
TEST(Autodiff, SoftmaxGradientsReadTheResultOnly) {
  for (const std::string op : {"softmax", "log_softmax"}) {
    SCOPED_TRACE(op);
    Module m = differentiated(op, " {axis = -1}", "mul");
    const Function* g = m.find("loss_grad");
    ASSERT_NE(g, nullptr);
    std::map<OpCode, int> count;
    for (const auto& o : g->ops) ++count[o->code];
    std::string text = print_module(m);
    EXPECT_EQ(count[OpCode::Compare], 0) << text;
    EXPECT_EQ(count[OpCode::ReduceMax], 0) << text;
    EXPECT_EQ(count[OpCode::ReduceSum], 2) << text;  // the loss, and the rule's one sum over the row
    EXPECT_EQ(count[OpCode::Softmax] + count[OpCode::LogSoftmax], 1) << text;  // the forward pass's
    EXPECT_EQ(count[OpCode::Exp], op == "log_softmax" ? 1 : 0) << text;  // exp(y)
  }
}

// relu's gradient masks with its result (PyTorch's threshold_backward), so
// its input need not outlive the forward pass; silu's is computed from its
// input alone (PyTorch's silu_backward), not from its result.
TEST(Autodiff, ReluAndSiluGradientsReadWhatPyTorchReads) {
  for (const std::string op : {"relu", "silu"}) {
    SCOPED_TRACE(op);
    Module m = differentiated(op, "", "add");
    const Function* g = m.find("loss_grad");
    ASSERT_NE(g, nullptr);
    const Op* fwd = nullptr;
    for (const auto& o : g->ops)
      if (o->code == OpCode::Relu || o->code == OpCode::Silu) fwd = o.get();
    ASSERT_NE(fwd, nullptr);
    int compares = 0, result_reads = 0;
    for (const auto& o : g->ops) {
      if (o->code == OpCode::Compare) {
        ++compares;
        EXPECT_EQ(o->operands[0], fwd->result()) << print_module(m);
      }
      if (o->code != OpCode::Compare)
        for (const Value* v : o->operands) result_reads += v == fwd->result();
    }
    EXPECT_EQ(compares, op == "relu" ? 1 : 0);
    EXPECT_EQ(result_reads, 1) << print_module(m);  // the forward pass's add only
  }
}

TEST(Autodiff, TheTableSaysWhichOpsHaveZeroGradient) {
  for (OpCode code : {OpCode::Compare, OpCode::Argmax, OpCode::MaxPool2dIndices, OpCode::Iota, OpCode::Constant})
    EXPECT_EQ(vjp_rule(code).kind, VjpRule::Kind::zero) << op_name(code);
  for (OpCode code : {OpCode::Conv2dWeightGrad, OpCode::MaxPool2dGrad, OpCode::MaxPool2dScatter,
                      OpCode::AvgPool2dGrad})
    EXPECT_EQ(vjp_rule(code).kind, VjpRule::Kind::none) << op_name(code);
  // conv2d_input_grad is also ConvTranspose's forward.
  EXPECT_EQ(vjp_rule(OpCode::Conv2dInputGrad).kind, VjpRule::Kind::rule);
}

}  // namespace
}  // namespace mlc
