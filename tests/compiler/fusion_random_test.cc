// Fusion against the interpreter on random graphs: 120 random functions of
// elementwise ops, transposes, broadcasts of [8,1] values over rows and
// reductions over the last axis, some returning intermediates and some updating an argument
// in place, so that every fusion rule meets every other (row reductions
// inside their consumers, several outputs, donation). The compiled results
// must be bit-identical to the interpreter's: inputs are small integers and
// the ops (add, sub, mul, max, neg, abs, transpose, reduce_sum, reduce_max) are exact or
// round identically on both sides (elementwise ops in the same order; sums in
// a double accumulator, where sums of f32 integers below 2^53 are exact in
// any order), so no tolerance is needed and none is used.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "compiler/lower.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"

namespace mlc {
namespace {

constexpr int64_t kRows = 8, kCols = 8;  // square: a transpose keeps the shape

// A random function over inputs %x0, %x1 (f32[8,8]) and %r (f32[8,1]), and
// %p (f32[8,8] {param}) that one result updates when `update` is set.
Module random_module(std::mt19937& rng, bool update) {
  Module m;
  m.name = "random";
  Function& f = m.add_function("f");
  const TensorType full{DType::f32, {kRows, kCols}}, row{DType::f32, {kRows, 1}};
  std::vector<Value*> inputs = {f.add_arg("x0", full, ArgKind::input), f.add_arg("x1", full, ArgKind::input),
                                f.add_arg("r", row, ArgKind::input)};
  Value* p = update ? f.add_arg("p", full, ArgKind::param) : nullptr;
  if (p) inputs.push_back(p);
  std::vector<Value*> values = inputs;
  Builder b(f);
  auto pick = [&](const std::vector<Value*>& from) { return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)]; };
  const int ops = std::uniform_int_distribution<int>(4, 14)(rng);
  for (int i = 0; i < ops; ++i) {
    const int kind = std::uniform_int_distribution<int>(0, 10)(rng);
    Value* x = pick(values);
    Value* v;
    if (kind <= 4) {  // binary, [8,8] or [8,1] operands broadcast over rows
      static constexpr OpCode kBinary[] = {OpCode::Add, OpCode::Sub, OpCode::Max, OpCode::Add, OpCode::Mul};
      // A product takes one input operand, so that magnitudes grow slowly.
      Value* y = kBinary[kind] == OpCode::Mul ? pick(inputs) : pick(values);
      v = b.binary(kBinary[kind], x, y);
    } else if (kind <= 6) {
      v = b.unary(kind == 5 ? OpCode::Neg : OpCode::Abs, x);
    } else {
      std::vector<Value*> fulls;
      for (Value* c : values)
        if (c->type == full) fulls.push_back(c);
      if (kind == 10)  // reads other elements than its own: no update in place through it
        v = b.transpose(pick(fulls), {1, 0});
      else  // a reduction over the last axis, kept as [8,1]
        v = b.reduce(kind == 9 ? OpCode::ReduceMax : OpCode::ReduceSum, pick(fulls), {1}, true);
    }
    values.push_back(v);
  }
  // Results: the last value, and up to two earlier ones (not arguments).
  std::vector<Value*> made(values.begin() + static_cast<std::ptrdiff_t>(inputs.size()), values.end());
  f.results = {made.back()};
  for (int extra = std::uniform_int_distribution<int>(0, 2)(rng); extra > 0; --extra) {
    Value* v = pick(made);
    if (std::find(f.results.begin(), f.results.end(), v) == f.results.end()) f.results.push_back(v);
  }
  if (p) {  // p's new value: the first full-shaped value made, returned first
    for (Value* v : made)
      if (v->type == full) {
        std::erase(f.results, v);
        f.results.insert(f.results.begin(), v);
        f.result_updates.assign(f.results.size(), -1);
        f.result_updates[0] = 3;
        break;
      }
  }
  return m;
}

TEST(FusionRandom, CompiledIsBitIdenticalToTheInterpreter) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> small(-3, 3);
  int multi_output = 0, row_reductions_fused = 0, donated = 0;
  for (int trial = 0; trial < 120; ++trial) {
    Module m = random_module(rng, trial % 3 == 0);
    const Function& f = *m.find("f");
    SCOPED_TRACE("trial " + std::to_string(trial) + "\n" + print_module(m));
    Status verified = verify_module(m);
    ASSERT_TRUE(verified.ok()) << verified.error().message;
    std::vector<rt::Tensor> args;
    for (const Value* a : f.args) {
      rt::Tensor t(a->type.dtype, a->type.shape);
      for (float& x : t.span<float>()) x = static_cast<float>(small(rng));
      args.push_back(std::move(t));
    }
    auto interp = rt::Interpreter::create(f);
    ASSERT_TRUE(interp.ok()) << interp.error().message;
    auto want = interp->run(args);  // before the compiled step overwrites %p
    ASSERT_TRUE(want.ok()) << want.error().message;

    auto l = lower_function(f);
    ASSERT_TRUE(l.ok()) << l.error().message;
    for (const rt::Instruction& ins : l->executable->instructions) multi_output += !ins.more_results.empty();
    for (const kir::Kernel& k : l->kernels)
      for (const kir::Expr& e : k.exprs) row_reductions_fused += e.kind == kir::ExprKind::reduce && k.domain.back() > 1;
    auto exe = rt::Executor::create(l->executable);
    ASSERT_TRUE(exe.ok()) << exe.error().message;
    std::vector<rt::Tensor*> ptrs;
    for (rt::Tensor& t : args) ptrs.push_back(&t);
    ASSERT_TRUE(exe->run(ptrs).ok());
    ASSERT_EQ(exe->num_results(), want->size());
    for (size_t k = 0; k < want->size(); ++k) {
      SCOPED_TRACE("result " + std::to_string(k));
      const rt::Tensor& got = exe->result(k);
      ASSERT_EQ(got.num_bytes(), (*want)[k].num_bytes());
      EXPECT_EQ(std::memcmp(got.bytes(), (*want)[k].bytes(), static_cast<size_t>(got.num_bytes())), 0)
          << print_lowered(*l);
    }
    if (!f.result_updates.empty()) {
      // In place: no copy into %p's slot at the end.
      const rt::Executable& e = *l->executable;
      donated += std::none_of(e.instructions.begin(), e.instructions.end(), [&](const rt::Instruction& ins) {
        return ins.kind == rt::InstrKind::copy && ins.result == e.args[3].slot;
      });
      EXPECT_EQ(std::memcmp(args[3].bytes(), (*want)[0].bytes(), static_cast<size_t>(args[3].num_bytes())), 0);
    }
  }
  // The graphs exercise what they are for.
  std::printf("%d kernels with several outputs, %d reductions inside a row's kernel, %d updates in place\n",
              multi_output, row_reductions_fused, donated);
  EXPECT_GT(multi_output, 40);
  EXPECT_GT(row_reductions_fused, 25);
  EXPECT_GT(donated, 8);
}

}  // namespace
}  // namespace mlc
