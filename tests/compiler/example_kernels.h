// The loop kernels of every example's functions (the whole pipeline, one
// device) under f32 and bf16 compute, for the suites that check every kernel
// the compiler generates (GPU sources, NVRTC).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"

namespace mlc::testing {

inline const char* const kExampleNames[] = {"digits_mlp", "digits_cnn",    "digits_cnn_bn", "batchnorm_mlp", "legendre",
                                            "tiny_gpt",   "gpt2_tied",     "pytorch/mnist", "pytorch/vae"};

struct ExampleKernel {
  std::string where;  // "tiny_gpt bf16 @train_step"
  kir::Kernel kernel;
};

// Every kernel of `example`'s functions, lowered for `target` (code not
// generated). legendre's custom op is f32 only.
inline std::vector<ExampleKernel> example_kernels(const std::string& example, const std::string& target) {
  std::vector<ExampleKernel> out;
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + example + ".json");
  EXPECT_TRUE(model.ok()) << model.error().message;
  if (!model.ok()) return out;
  MixedPrecisionConfig bf16;
  bf16.compute = DType::bf16;
  for (const auto& [policy, config] : {std::pair{"f32", MixedPrecisionConfig{}}, std::pair{"bf16", bf16}}) {
    if (example == "legendre" && config.enabled()) continue;
    auto m = model->build(model->config().train.batch_size);
    EXPECT_TRUE(m.ok()) << m.error().message;
    if (!m.ok()) return out;
    PassPipelineOptions o;
    o.optimizer = model->config().train.optimizer;
    // An "epoch" schedule (pytorch/mnist's StepLR) needs the data's steps per
    // epoch; the kernels do not depend on its value.
    if (o.optimizer) o.optimizer->steps_per_epoch = 1;
    o.mixed_precision = config;
    Status ran = run_pass_pipeline(*m, o);
    EXPECT_TRUE(ran) << ran.error().message;
    LowerOptions lo;
    lo.compile_kernels = false;
    lo.target = target;
    for (const auto& f : m->functions) {
      auto l = lower_function(*f, lo);
      EXPECT_TRUE(l.ok()) << "@" << f->name << ": " << l.error().message;
      if (!l.ok()) continue;
      for (kir::Kernel& k : l->kernels) out.push_back({example + " " + policy + " @" + f->name, std::move(k)});
    }
  }
  return out;
}

}  // namespace mlc::testing
