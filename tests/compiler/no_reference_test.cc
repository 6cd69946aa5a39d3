// Every function of every example, under every mixed-precision policy and
// every mesh plan, lowers to kernels, gemms, collectives and copies: no
// `reference` instruction (runtime/executable.h); half-precision
// convolutions and scatter_add included (compiler/conv_to_gemm.h,
// compiler/half_accumulation.h). legendre's custom op declares f32
// gradients, which autocast refuses (a located error), so it runs in f32 only.
#include <gtest/gtest.h>

#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/op_table.h"

namespace mlc {
namespace {

struct Policy {
  const char* name;
  MixedPrecisionConfig config;
};

std::vector<Policy> policies() {
  MixedPrecisionConfig bf16, fsdp2, f16;
  bf16.compute = DType::bf16;
  fsdp2.param = fsdp2.compute = DType::bf16;  // bf16 parameters and compute, f32 gradient reduction
  f16.compute = DType::f16;
  f16.loss_scale.enabled = true;
  return {{"f32", {}}, {"bf16", bf16}, {"bf16_params", fsdp2}, {"f16", f16}};
}

struct MeshPlan {
  const char* mesh;
  int zero;
};
const MeshPlan kPlans[] = {{"", 0}, {"dp=2", 0}, {"dp=2", 3}, {"tp=2", 0}, {"dp=2,tp=2", 1}};

const char* const kExamples[] = {"digits_mlp", "digits_cnn", "digits_cnn_bn", "batchnorm_mlp",
                                 "legendre",   "tiny_gpt",   "gpt2_tied",
                                 "pytorch/mnist", "pytorch/vae",
                                 "pytorch/super_resolution", "pytorch/resnet18",
                                 "pytorch/word_language_model_transformer", "pytorch/vision_transformer"};

class NoReference : public ::testing::TestWithParam<const char*> {};

TEST_P(NoReference, EveryCompiledFunctionUnderEveryPolicyAndPlan) {
  const std::string example = GetParam();
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + example + ".json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  const ParallelConfig& section = model->config().parallel;
  int lowered = 0;
  for (const Policy& policy : policies())
    for (const MeshPlan& plan : kPlans) {
      if (example == "legendre" && policy.config.enabled()) continue;
      const std::string what = std::string(policy.name) + " on mesh '" + plan.mesh + "' zero " + std::to_string(plan.zero);
      SCOPED_TRACE(what);
      const bool tensor_axis = std::string(plan.mesh).find("tp") != std::string::npos;
      if (tensor_axis && section.tensor_parallel.empty()) continue;  // no tensor-parallel plan to apply
      auto m = model->build(model->config().train.batch_size);
      ASSERT_TRUE(m.ok()) << m.error().message;
      PassPipelineOptions o;
      o.optimizer = model->config().train.optimizer;
      // An "epoch" schedule (pytorch/mnist's StepLR) needs the data's steps per
      // epoch; the kernels do not depend on its value.
      if (o.optimizer) o.optimizer->steps_per_epoch = 1;
      o.mixed_precision = policy.config;
      if (*plan.mesh) {
        o.parallel.mesh = Mesh::parse(plan.mesh).value();
        o.parallel.zero = plan.zero;
        if (tensor_axis) o.parallel.tensor_parallel = {section.tensor_parallel, section.sequence_parallel};
      }
      Status ran = run_pass_pipeline(*m, o);
      ASSERT_TRUE(ran) << ran.error().message;
      LowerOptions lo;
      lo.compile_kernels = false;
      for (const auto& f : m->functions) {
        auto l = lower_function(*f, lo);
        ASSERT_TRUE(l.ok()) << "@" << f->name << ": " << l.error().message;
        ++lowered;
        for (const rt::Instruction& ins : l->executable->instructions) {
          if (ins.kind != rt::InstrKind::reference) continue;
          ADD_FAILURE() << "@" << f->name << " runs " << op_name(ins.op->code) << " on its reference kernel ("
                        << ins.origin << ")";
        }
      }
    }
  EXPECT_GT(lowered, 0);
}

INSTANTIATE_TEST_SUITE_P(Examples, NoReference, ::testing::ValuesIn(kExamples));

}  // namespace
}  // namespace mlc
