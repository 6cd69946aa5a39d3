// Kernels with several outputs (compiler/fusion.h): a producer read after
// its consumer's group, or returned, joins the group as a further output
// where it is elementwise, of the root's shape and evaluated at the root's
// index. Checked: AdamW's update is one kernel storing m', v' and p', each in
// its own argument's buffer, with the interpreter's bits (the ops are
// IEEE-exact and evaluated in the same order); a producer read before the
// group's root stays a kernel of its own; `mlc ir --after fusion` shows such
// a group as one fusion op with several results.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/lower.h"
#include "compiler/outline_fusions.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"

namespace mlc {
namespace {

Module parse_ok(const std::string& text) {
  auto m = parse_module(text, "multi_output_test.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

// One AdamW step of a [64,32] parameter, as the optimizer pass writes it
// (bias corrections as inputs %c1 = lr / (1 - b1^t), %c2 = sqrt(1 - b2^t)).
constexpr char kAdamW[] = R"(module @m {
  func @step(%p: f32[64,32] {param}, %m: f32[64,32] {state}, %v: f32[64,32] {state}, %g: f32[64,32] {input}, %c1: f32[] {input}, %c2: f32[] {input}) -> (f32[64,32] {updates = %p}, f32[64,32] {updates = %m}, f32[64,32] {updates = %v}) {
    %0 = constant() {value = 0.9} : f32[]
    %1 = mul(%m, %0) : f32[64,32]
    %2 = constant() {value = 0.1} : f32[]
    %3 = mul(%g, %2) : f32[64,32]
    %4 = add(%1, %3) : f32[64,32]
    %5 = constant() {value = 0.95} : f32[]
    %6 = mul(%v, %5) : f32[64,32]
    %7 = constant() {value = 0.05} : f32[]
    %8 = mul(%g, %7) : f32[64,32]
    %9 = mul(%8, %g) : f32[64,32]
    %10 = add(%6, %9) : f32[64,32]
    %11 = constant() {value = 0.9997} : f32[]
    %12 = mul(%p, %11) : f32[64,32]
    %13 = mul(%4, %c1) : f32[64,32]
    %14 = sqrt(%10) : f32[64,32]
    %15 = div(%14, %c2) : f32[64,32]
    %16 = constant() {value = 1e-8} : f32[]
    %17 = add(%15, %16) : f32[64,32]
    %18 = div(%13, %17) : f32[64,32]
    %19 = sub(%12, %18) : f32[64,32]
    return %19, %4, %10
  }
})";

TEST(MultiOutput, AdamWIsOneKernelWritingEveryStateInPlace) {
  Module m = parse_ok(kAdamW);
  const Function& f = *m.find("step");
  auto l = lower_function(f);
  ASSERT_TRUE(l.ok()) << l.error().message;
  const rt::Executable& e = *l->executable;
  ASSERT_EQ(e.instructions.size(), 1u) << print_lowered(*l);
  const rt::Instruction& ins = e.instructions[0];
  ASSERT_EQ(ins.kind, rt::InstrKind::kernel);
  ASSERT_EQ(ins.more_results.size(), 2u);
  // p', m', v' each in its argument's buffer: no arena, no copies.
  EXPECT_EQ(e.slots[ins.result].arg, 0);
  EXPECT_EQ(e.slots[ins.more_results[0]].arg, 1);
  EXPECT_EQ(e.slots[ins.more_results[1]].arg, 2);
  EXPECT_EQ(l->plan.arena_bytes, 0);
  const kir::Kernel& k = l->kernels[0];
  EXPECT_EQ(k.num_outputs(), 3);
  EXPECT_GE(k.output_alias, 0);
  EXPECT_EQ(k.more_alias.size(), 2u);
  for (int a : k.more_alias) EXPECT_GE(a, 0);

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1), pos(0.01f, 1);
  std::vector<rt::Tensor> args;
  for (const Value* a : f.args) {
    rt::Tensor t(a->type.dtype, a->type.shape);
    const bool positive = a->name == "v" || a->name == "c1" || a->name == "c2";
    for (float& x : t.span<float>()) x = positive ? pos(rng) : u(rng);
    args.push_back(std::move(t));
  }
  auto interp = rt::Interpreter::create(f);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  auto want = interp->run(args);
  ASSERT_TRUE(want.ok()) << want.error().message;
  auto exe = rt::Executor::create(l->executable);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : args) ptrs.push_back(&t);
  ASSERT_TRUE(exe->run(ptrs).ok());
  // The step wrote p', m' and v' over the arguments.
  for (size_t r = 0; r < 3; ++r) {
    SCOPED_TRACE("result " + std::to_string(r));
    ASSERT_EQ(args[r].num_bytes(), (*want)[r].num_bytes());
    EXPECT_EQ(std::memcmp(args[r].bytes(), (*want)[r].bytes(), static_cast<size_t>(args[r].num_bytes())), 0);
  }
}

// %0 is read by the dot, which runs before the kernel of %3: it cannot be
// that kernel's output, so it is a kernel of its own.
TEST(MultiOutput, AValueReadBeforeTheRootIsNoOutput) {
  Module m = parse_ok(R"(module @m {
  func @f(%a: f32[8,8] {input}, %w: f32[8,8] {input}) -> (f32[8,8]) {
    %0 = exp(%a) : f32[8,8]
    %1 = dot(%0, %w) {transpose_a = false, transpose_b = false} : f32[8,8]
    %2 = add(%0, %a) : f32[8,8]
    %3 = mul(%2, %1) : f32[8,8]
    return %3
  }
})");
  LowerOptions o;
  o.compile_kernels = false;
  auto l = lower_function(*m.find("f"), o);
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_EQ(l->kernels.size(), 2u) << print_lowered(*l);
  EXPECT_EQ(l->kernels[0].origin, "%0 exp");
  EXPECT_EQ(l->kernels[0].num_outputs(), 1);
  EXPECT_EQ(l->kernels[1].num_outputs(), 1);
}

TEST(MultiOutput, OutlinedAsOneFusionWithSeveralResults) {
  Module m = parse_ok(kAdamW);
  Function& f = *m.find("step");
  EXPECT_EQ(outline_fusions(f), 1);
  ASSERT_TRUE(verify_module(m).ok()) << print_module(m);
  const Op* fusion = nullptr;
  for (const auto& op : f.ops)
    if (op->code == OpCode::Fusion) fusion = op.get();
  ASSERT_NE(fusion, nullptr) << print_module(m);
  EXPECT_EQ(fusion->results.size(), 3u);
  // The function returns the fusion's results: p', m', v'.
  for (size_t r = 0; r < 3; ++r) EXPECT_EQ(f.results[r], fusion->results[r]) << print_module(m);
  // The printed module parses back.
  EXPECT_TRUE(parse_module(print_module(m), "printed.mlir").ok()) << print_module(m);
}

}  // namespace
}  // namespace mlc
