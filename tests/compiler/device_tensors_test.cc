// Kept tensors on host copies (runtime/device_tensors.h host_shadow_tensors):
// rt::Executor runs a CPU executable's kept arguments on their copies, so the
// caller's tensors see the updates only through to_host, and host writes only
// through host_wrote, as on a GPU. The cuda executor's own binding is tested
// on the fake driver (tests/runtime/cuda_target_test.cc).
#include <gtest/gtest.h>

#include "compiler/lower.h"
#include "ir/parser.h"
#include "runtime/executor.h"
#include "runtime/target.h"

namespace mlc {
namespace {

// p <- p * 0.5 + x, and y = sum(p) (of the old p).
constexpr const char* kStep = R"(module @m {
  func @step(%x: f32[4] {input}, %p: f32[4] {param}) -> (f32[4] {updates = %p}, f32[]) {
    %0 = constant() {value = 0.5} : f32[]
    %1 = broadcast(%0) {dims = []} : f32[4]
    %2 = mul(%p, %1) : f32[4]
    %3 = add(%2, %x) : f32[4]
    %4 = reduce_sum(%p) {dims = [0], keepdim = false} : f32[]
    return %3, %4
  }
}
)";

std::vector<float> values(const rt::Tensor& t) { return {t.data<float>(), t.data<float>() + t.num_elements()}; }

struct Step {
  std::unique_ptr<Module> module;
  std::optional<rt::Executor> a, b;  // two executors of the step, as a train step and an eval share tensors
  Step() {
    auto m = parse_module(kStep, "step.mlir");
    EXPECT_TRUE(m.ok()) << m.error().message;
    module = std::make_unique<Module>(std::move(*m));
    auto l = lower_function(*module->functions.front());
    EXPECT_TRUE(l.ok()) << l.error().message;
    for (auto* x : {&a, &b}) {
      auto made = rt::Executor::create(l->executable);
      EXPECT_TRUE(made.ok());
      x->emplace(std::move(*made));
    }
  }
};

TEST(DeviceTensors, HostCopiesBehaveAsAGpusMemory) {
  Step step;
  std::unique_ptr<rt::DeviceTensors> kept = rt::host_shadow_tensors();
  ASSERT_TRUE(step.a->set_device_tensors(kept.get()).ok());
  ASSERT_TRUE(step.b->set_device_tensors(kept.get()).ok());
  rt::Tensor x(DType::f32, {4}), p(DType::f32, {4});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = 1, p.data<float>()[i] = 8;
  ASSERT_TRUE(kept->keep(p).ok());
  EXPECT_EQ(kept->bytes(), 16);
  rt::Tensor* args[] = {&x, &p};
  ASSERT_TRUE(step.a->run(args).ok());
  EXPECT_EQ(step.a->result(1).data<float>()[0], 32.0f);
  EXPECT_EQ(values(p), std::vector<float>(4, 8)) << "not written back";
  EXPECT_EQ(values(step.a->result(0)), std::vector<float>(4, 5)) << "the result is the device copy";
  ASSERT_TRUE(step.b->run(args).ok());  // the other executor reads the same copy
  EXPECT_EQ(step.b->result(1).data<float>()[0], 20.0f);
  ASSERT_TRUE(kept->to_host_all().ok());
  EXPECT_EQ(values(p), std::vector<float>(4, 3.5f));
  // A host write without host_wrote is not seen; with it, it is.
  for (int i = 0; i < 4; ++i) p.data<float>()[i] = 100;
  ASSERT_TRUE(step.a->run(args).ok());
  EXPECT_EQ(step.a->result(1).data<float>()[0], 14.0f);
  for (int i = 0; i < 4; ++i) p.data<float>()[i] = 2;
  kept->host_wrote(p);
  ASSERT_TRUE(step.a->run(args).ok());
  EXPECT_EQ(step.a->result(1).data<float>()[0], 8.0f);
  ASSERT_TRUE(kept->to_host(p).ok());
  EXPECT_EQ(values(p), std::vector<float>(4, 2.0f));
  // Arguments not kept are the caller's tensors, updated in place.
  rt::Tensor q(DType::f32, {4});
  rt::Tensor* loose[] = {&x, &q};
  ASSERT_TRUE(step.a->run(loose).ok());
  EXPECT_EQ(values(q), std::vector<float>(4, 1.0f));
}

TEST(DeviceTensors, EachTargetKeepsItsOwn) {
  // The CPU keeps nothing of its own; the host device keeps host copies.
  auto cpu = rt::find_target(rt::kCpuTarget)->make_device_tensors();
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->get(), nullptr);
  if (const rt::Target* host_gpu = rt::find_target(rt::kHostGpuTarget)) {
    auto kept = host_gpu->make_device_tensors();
    ASSERT_TRUE(kept.ok());
    ASSERT_NE(kept->get(), nullptr);
    EXPECT_EQ((*kept)->target(), "");
  }
}

}  // namespace
}  // namespace mlc
