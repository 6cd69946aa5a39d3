// The compiled train step of each example: the runtime allocates exactly the
// planned arena, a steady-state step performs no heap allocation, profiled or
// not (for steps without reference-kernel instructions), results that update
// arguments land in the caller's tensors, and one step equals the
// interpreter's.
#include <gtest/gtest.h>

#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"
#include "runtime/parameters.h"
#include "runtime/thread_pool.h"
#include "tests/compiler/step_arguments.h"
#include "tests/counting_new.h"  // g_counting, g_allocations

namespace mlc {
namespace {

struct Step {
  Module module;
  const Function* fn = nullptr;
};

Step train_step(const std::string& example) {
  Step s;
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + example + ".json");
  EXPECT_TRUE(model.ok());
  auto m = model->build(model->config().train.batch_size);
  EXPECT_TRUE(m.ok());
  s.module = std::move(*m);
  PassPipelineOptions o;
  o.optimizer = model->config().train.optimizer;
  EXPECT_TRUE(run_pass_pipeline(s.module, o).ok());
  s.fn = s.module.find("train_step");
  return s;
}


class Examples : public ::testing::TestWithParam<std::string> {};

TEST_P(Examples, CompiledStepMatchesTheInterpreterInPlace) {
  Step s = train_step(GetParam());
  ASSERT_NE(s.fn, nullptr);
  std::vector<rt::Tensor> want_args = testing::step_arguments(*s.fn), got_args = testing::step_arguments(*s.fn);
  auto interp = rt::Interpreter::create(*s.fn);
  ASSERT_TRUE(interp.ok());
  auto want = interp->run(want_args);
  ASSERT_TRUE(want.ok()) << want.error().message;

  auto lowered = lower_function(*s.fn);
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  auto exe = rt::Executor::create(lowered->executable);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  EXPECT_EQ(exe->arena_bytes(), lowered->plan.arena_bytes);
  EXPECT_LE(static_cast<double>(lowered->plan.arena_bytes), 1.1 * static_cast<double>(lowered->plan.lower_bound));
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : got_args) ptrs.push_back(&t);
  ASSERT_TRUE(exe->run(ptrs).ok());
  // f32 training math: libmvec exp/log, reassociated double sums and
  // convolutions' GEMM sums in another order (see compiled_test.cc) differ
  // from the interpreter by a few f32 ulps per op;
  // through one step of these models that stays below 1e-5 relative.
  for (size_t k = 0; k < s.fn->results.size(); ++k) {
    int a = s.fn->updated_arg(k);
    const rt::Tensor& got = a >= 0 ? got_args[a] : exe->result(k);
    if (a >= 0) {
      EXPECT_EQ(exe->result(k).bytes(), got_args[a].bytes()) << "result " << k << " is not in its argument";
    }
    const rt::Tensor& ref = (*want)[k];
    ASSERT_EQ(got.type(), ref.type());
    double scale = 1e-30, err = 0;
    for (int64_t i = 0; i < ref.num_elements(); ++i) {
      scale = std::max(scale, static_cast<double>(std::fabs(ref.data<float>()[i])));
      err = std::max(err, static_cast<double>(std::fabs(ref.data<float>()[i] - got.data<float>()[i])));
    }
    EXPECT_LE(err, 1e-5 * scale) << "result " << k;
  }
}

// A steady-state step allocates nothing, profiled or not. Profiling times
// every instruction once per run, and the instructions' intervals lie within
// the run's (no timed assertion: only how the numbers relate).
TEST_P(Examples, SteadyStateStepAllocatesNothing) {
  Step s = train_step(GetParam());
  auto lowered = lower_function(*s.fn);
  ASSERT_TRUE(lowered.ok());
  bool all_compiled = true;
  for (const rt::Instruction& ins : lowered->executable->instructions)
    all_compiled &= ins.kind != rt::InstrKind::reference;
  auto exe = rt::Executor::create(lowered->executable);
  ASSERT_TRUE(exe.ok());
  std::vector<rt::Tensor> args = testing::step_arguments(*s.fn);
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : args) ptrs.push_back(&t);
  ASSERT_TRUE(exe->run(ptrs).ok());
  EXPECT_EQ(exe->profile(), nullptr);
  for (bool profiled : {false, true}) {
    if (profiled) {
      exe->enable_profiling();
      ASSERT_TRUE(exe->run(ptrs).ok());
    }
    g_allocations = 0;
    g_counting = true;
    Status st = exe->run(ptrs);
    g_counting = false;
    ASSERT_TRUE(st.ok());
    if (all_compiled) {
      EXPECT_EQ(g_allocations.load(), 0) << GetParam() << (profiled ? ", profiled" : "");
    } else {
      GTEST_LOG_(INFO) << GetParam() << ": reference-kernel instructions made " << g_allocations.load() << " allocations";
    }
  }
  const rt::ExecutionProfile* p = exe->profile();
  ASSERT_NE(p, nullptr);
  const size_t n = lowered->executable->instructions.size();
  ASSERT_EQ(p->calls.size(), n);
  ASSERT_EQ(p->ns.size(), n);
  EXPECT_EQ(p->runs, 2);
  int64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(p->calls[i], 2) << "instruction " << i;
    EXPECT_GE(p->ns[i], 0) << "instruction " << i;
    sum += p->ns[i];
  }
  EXPECT_LE(sum, p->run_ns);
  EXPECT_GT(p->run_ns, 0);
}

// Threads split kernels into whole rows, each computed by the same code as on
// one thread, and GEMMs into blocks of C (never a sum over k). Kernels are
// therefore bit-identical across thread counts. A GEMM block may in general
// round differently from the whole (OpenBLAS chooses kernels by size, see
// thread_pool_test.cc); on these examples' shapes with Debian's OpenBLAS it
// does not, which this test pins. Two runs on two threads are identical.
TEST_P(Examples, TwoThreadsGiveTheOneThreadStepBitForBit) {
  Step s = train_step(GetParam());
  auto lowered = lower_function(*s.fn);
  ASSERT_TRUE(lowered.ok());
  auto step = [&](int threads) {
    rt::set_num_threads(threads);
    auto exe = rt::Executor::create(lowered->executable);
    EXPECT_TRUE(exe.ok());
    std::vector<rt::Tensor> args = testing::step_arguments(*s.fn);
    std::vector<rt::Tensor*> ptrs;
    for (rt::Tensor& t : args) ptrs.push_back(&t);
    EXPECT_TRUE(exe->run(ptrs).ok());
    std::vector<std::vector<std::byte>> out;
    for (size_t k = 0; k < exe->num_results(); ++k) {
      const rt::Tensor& r = exe->result(k);
      out.emplace_back(r.bytes(), r.bytes() + r.type().num_bytes());
    }
    return out;
  };
  auto one = step(1), two = step(2), again = step(2);
  rt::set_num_threads(1);
  ASSERT_EQ(one.size(), two.size());
  for (size_t k = 0; k < one.size(); ++k) {
    EXPECT_TRUE(one[k] == two[k]) << GetParam() << ": result " << k << " differs between 1 and 2 threads";
    EXPECT_TRUE(two[k] == again[k]) << GetParam() << ": result " << k << " differs between two 2-thread runs";
  }
}

INSTANTIATE_TEST_SUITE_P(All, Examples, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt", "batchnorm_mlp", "digits_cnn_bn"));

}  // namespace
}  // namespace mlc
