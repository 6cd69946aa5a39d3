// gather, scatter_add and random_uniform as loop kernels (compiler/fusion.h;
// kir::ExprKind::checked_index, kir::Kernel::scatter, kir::ExprKind::random):
// they lower to kernel instructions, a gather fused with its consumer; an
// index out of range stops the compiled run with the reference kernel's
// error, located at the op, on one thread and on several; scatter_add adds
// in the reference kernel's order whichever thread runs a row; and the
// examples' train steps run no reference kernel. (Every op against the
// interpreter, bit for bit: tests/compiler/compiled_test.cc.)
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/builder.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"
#include "runtime/thread_pool.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc {
namespace {

using rt::testing::make_tensor;

// Instructions of f's executable by kind: {kernel, reference}.
std::pair<int, int> kinds(const Function& f) {
  auto l = lower_function(f);
  EXPECT_TRUE(l.ok()) << l.error().message;
  std::pair<int, int> c{0, 0};
  if (!l.ok()) return c;
  for (const rt::Instruction& ins : l->executable->instructions) {
    c.first += ins.kind == rt::InstrKind::kernel;
    c.second += ins.kind == rt::InstrKind::reference;
  }
  return c;
}

// f's error on `inputs`, interpreted and compiled ("<ok>" where it runs).
std::pair<std::string, std::string> errors(const Function& f, std::vector<rt::Tensor> inputs) {
  std::pair<std::string, std::string> out{"<ok>", "<ok>"};
  auto interp = rt::Interpreter::create(f);
  EXPECT_TRUE(interp.ok());
  if (auto r = interp->run(inputs); !r.ok()) out.first = r.error().message;
  auto lowered = lower_function(f);
  EXPECT_TRUE(lowered.ok());
  auto exe = rt::Executor::create(lowered->executable);
  EXPECT_TRUE(exe.ok());
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : inputs) ptrs.push_back(&t);
  if (Status s = exe->run(ptrs); !s.ok()) out.second = s.error().message;
  return out;
}

// add(gather(table, ids), bias): one kernel; the gather at model.json:14:9,
// the add at 15:3.
struct Lookup {
  Function f{"lookup"};
  Lookup(Shape table, DType ids, Shape id_shape, int64_t axis) {
    Value* t = f.add_arg("embed.weight", {DType::f32, table}, ArgKind::param);
    Value* i = f.add_arg("ids", {ids, id_shape}, ArgKind::input);
    Builder b(f);
    b.set_loc(Loc{"model.json", 14, 9});
    Value* g = b.create(OpCode::Gather, {t, i}, {{"axis", axis}});
    b.set_loc(Loc{"model.json", 15, 3});
    f.results = {b.add(g, g)};
  }
};

TEST(IndexingKernels, GatherOutOfRangeStopsTheRunWithTheReferenceError) {
  Lookup rows({64, 4}, DType::i64, {2}, 0);
  EXPECT_EQ(kinds(rows.f), (std::pair<int, int>{1, 0}));
  const rt::Tensor table(DType::f32, {64, 4});
  EXPECT_EQ(errors(rows.f, {table, make_tensor(DType::i64, {2}, {3, 63})}), (std::pair<std::string, std::string>{"<ok>", "<ok>"}));
  const std::string want = "model.json:14:9: error: gather: index 70 out of range [0, 64) along axis 0";
  EXPECT_EQ(errors(rows.f, {table, make_tensor(DType::i64, {2}, {3, 70})}), (std::pair{want, want}));
  // i32 indices, along axis 1: the first index out of range (-1, before 9).
  Lookup cols({4, 8}, DType::i32, {3}, 1);
  const std::string neg = "model.json:14:9: error: gather: index -1 out of range [0, 8) along axis 1";
  EXPECT_EQ(errors(cols.f, {rt::Tensor(DType::f32, {4, 8}), make_tensor(DType::i32, {3}, {0, -1, 9})}),
            (std::pair{neg, neg}));
}

TEST(IndexingKernels, EveryThreadsShareStopsOnAnIndexOutOfRange) {
  const int threads = rt::num_threads();
  rt::set_num_threads(4);
  Lookup big({512, 64}, DType::i64, {256, 16}, 0);  // 256 * 16 rows of 64: split over the threads
  EXPECT_EQ(kinds(big.f), (std::pair<int, int>{1, 0}));
  std::vector<double> ids(256 * 16, 7);
  for (size_t at : {size_t{5}, size_t{4000}}) {
    std::vector<double> bad = ids;
    bad[at] = 512;
    const std::string want = "model.json:14:9: error: gather: index 512 out of range [0, 512) along axis 0";
    EXPECT_EQ(errors(big.f, {rt::Tensor(DType::f32, {512, 64}), make_tensor(DType::i64, {256, 16}, bad)}),
              (std::pair{want, want}));
  }
  rt::set_num_threads(threads);
}

// scatter_add(zeros, ids, updates) at model.json:20:1: one kernel.
struct Scatter {
  Function f{"scatter"};
  Scatter(Shape out, Shape ids, Shape updates) {
    Value* i = f.add_arg("ids", {DType::i64, ids}, ArgKind::input);
    Value* u = f.add_arg("updates", {DType::f32, updates}, ArgKind::input);
    Builder b(f);
    Value* zero = b.create(OpCode::Broadcast, {b.scalar(0, DType::f32)}, {{"dims", std::vector<int64_t>{}}},
                           TensorType{DType::f32, out});
    b.set_loc(Loc{"model.json", 20, 1});
    f.results = {b.create(OpCode::ScatterAdd, {zero, i, u}, {{"axis", int64_t{0}}})};
  }
};

TEST(IndexingKernels, ScatterAddOutOfRangeStopsTheRunWithTheReferenceError) {
  Scatter s({6, 3}, {4}, {4, 3});
  EXPECT_EQ(kinds(s.f), (std::pair<int, int>{1, 0}));
  const std::string want = "model.json:20:1: error: scatter_add: index 6 out of range [0, 6) along axis 0";
  EXPECT_EQ(errors(s.f, {make_tensor(DType::i64, {4}, {0, 6, 1, -2}), rt::Tensor(DType::f32, {4, 3})}),
            (std::pair{want, want}));
}

// Updates whose f32 sum depends on the order: 1e8 + 1 - 1e8 is 0 in order
// (1e8 + 1 rounds to 1e8), 1 in others. Every output row gets them, on 4
// threads, each row's terms from updates far apart.
TEST(IndexingKernels, ScatterAddAddsInTheReferenceOrderOnEveryThread) {
  const int threads = rt::num_threads();
  rt::set_num_threads(4);
  const int64_t rows = 64, width = 256, n = 3 * rows;
  Scatter s({rows, width}, {n}, {n, width});
  EXPECT_EQ(kinds(s.f), (std::pair<int, int>{1, 0}));
  std::vector<double> ids(n), updates(n * width);
  for (int64_t j = 0; j < n; ++j) {
    ids[j] = static_cast<double>(j % rows);
    const double term = j < rows ? 1e8 : j < 2 * rows ? 1 : -1e8;
    for (int64_t q = 0; q < width; ++q) updates[j * width + q] = term;
  }
  std::vector<rt::Tensor> in = {make_tensor(DType::i64, {n}, ids), make_tensor(DType::f32, {n, width}, updates)};
  auto interp = rt::Interpreter::create(s.f);
  ASSERT_TRUE(interp.ok());
  auto want = interp->run(in);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(rt::testing::to_doubles((*want)[0]), std::vector<double>(rows * width, 0.0));
  auto lowered = lower_function(s.f);
  ASSERT_TRUE(lowered.ok());
  auto exe = rt::Executor::create(lowered->executable);
  ASSERT_TRUE(exe.ok());
  std::vector<rt::Tensor*> ptrs = {&in[0], &in[1]};
  ASSERT_TRUE(exe->run(ptrs).ok());
  EXPECT_EQ(rt::testing::to_doubles(exe->result(0)), rt::testing::to_doubles((*want)[0]));
  rt::set_num_threads(threads);
}

// The train steps of the examples with embeddings (gather, scatter_add) and
// Dropout (random_uniform) hold no reference instruction.
TEST(IndexingKernels, ExampleTrainStepsHoldNoReferenceInstruction) {
  for (const char* example : {"tiny_gpt", "gpt2_tied", "digits_cnn_bn"}) {
    SCOPED_TRACE(example);
    auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + example + ".json");
    ASSERT_TRUE(model.ok());
    auto m = model->build(model->config().train.batch_size);
    ASSERT_TRUE(m.ok());
    PassPipelineOptions p;
    p.optimizer = model->config().train.optimizer;
    ASSERT_TRUE(run_pass_pipeline(*m, p).ok());
    LowerOptions o;
    o.compile_kernels = false;
    auto l = lower_function(*m->find("train_step"), o);
    ASSERT_TRUE(l.ok());
    for (const rt::Instruction& ins : l->executable->instructions)
      EXPECT_NE(ins.kind, rt::InstrKind::reference) << ins.name << ": " << ins.origin;
  }
}

}  // namespace
}  // namespace mlc
