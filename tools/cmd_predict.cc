// mlc predict MODEL --init F [--data F] [--split eval|train] [--batch N]
// [--value PATH] [--backend compiled|interp] [-o OUT.safetensors]: the model's outputs (or a module's) for
// every example of a split (driver/predict.h), written as one tensor
// "outputs" [examples, ...] with the model, split and data file in the
// metadata; without -o, a summary and each of the first examples' outputs
// (a classifier's predicted class and its logit).
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "driver/predict.h"
#include "frontends/model_file.h"
#include "runtime/checkpoint.h"
#include "runtime/safetensors.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace mlc::cli {

namespace {

// The first examples' outputs, one line each.
void print_outputs(const Predictions& p, bool classifier) {
  const rt::Tensor& y = p.outputs;
  const int64_t shown = std::min<int64_t>(p.examples, 8);
  const int64_t per = y.num_elements() / p.examples;
  if (y.dtype() != DType::f32) {
    std::printf("  (%s outputs are not printed: -o OUT.safetensors writes them)\n", dtype_name(y.dtype()).data());
    return;
  }
  const float* v = y.data<float>();
  for (int64_t i = 0; i < shown; ++i) {
    const float* row = v + i * per;
    if (classifier && y.type().rank() == 2) {
      int64_t best = 0;
      for (int64_t c = 1; c < per; ++c)
        if (row[c] > row[best]) best = c;
      std::printf("  example %lld: class %lld (logit %.4f)\n", static_cast<long long>(i), static_cast<long long>(best),
                  static_cast<double>(row[best]));
      continue;
    }
    std::printf("  example %lld:", static_cast<long long>(i));
    for (int64_t k = 0; k < std::min<int64_t>(per, 8); ++k) std::printf(" %.4f", static_cast<double>(row[k]));
    std::printf("%s\n", per > 8 ? " ..." : "");
  }
  if (shown < p.examples) std::printf("  ... (-o OUT.safetensors writes all %lld)\n", static_cast<long long>(p.examples));
}

}  // namespace

int cmd_predict(const std::vector<std::string>& argv) {
  std::vector<std::string> args_in;
  for (const std::string& a : argv) args_in.push_back(a == "-o" ? "--output" : a);
  const CommandDoc& doc = *find_command_doc("predict");
  Args args;
  std::string error;
  if (!parse_command_args(doc, args_in, args, error)) return usage_error(error);
  if (args.positional.size() != 1) return usage_error(usage_line(doc));
  if (!args.has("init")) return usage_error("predict needs --init F: the trained parameters (mlc run --save)");
  std::optional<Backend> backend = parse_backend(args.get("backend", "compiled"));
  if (!backend) return usage_error("--backend must be compiled or interp, got '" + args.get("backend") + "'");
  PredictOptions o;
  o.data_path = args.get("data");
  o.split = args.get("split", "eval");
  o.value = args.get("value");
  if (args.has("batch")) {
    const std::string n = args.get("batch");
    char* end = nullptr;
    const long long b = std::strtoll(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || b < 1 || b > (int64_t{1} << 30))
      return usage_error("--batch takes a positive integer, got '" + n + "'");
    o.batch = b;
  }
  const std::string output = args.get("output");
  auto model = ModelFile::load(args.positional[0]);
  if (!model) return user_error(model.error().message);
  // PyTorch's weights, mlc run --save's parameters, or an mlc checkpoint (its optimizer state not read).
  auto params = rt::read_init_parameters(model->config().params, args.get("init"), model->config().name, nullptr);
  if (!params) return user_error(params.error().message);
  const Program program = Program::from_model(*model, *backend);
  auto p = predict(program, params->params, o);
  if (!p) return user_error(p.error().message);
  std::printf("predicted %lld examples of the %s split of %s in batches of %lld: outputs %s\n",
              static_cast<long long>(p->examples), o.split.c_str(), p->data_path.c_str(),
              static_cast<long long>(p->batch), p->outputs.type().str().c_str());
  if (output.empty()) {
    print_outputs(*p, model->config().classifier && o.value.empty());
    return kOk;
  }
  Status written = rt::write_safetensors(output, {{"outputs", &p->outputs}},
                                         {{"model", model->config().name},
                                          {"split", o.split},
                                          {"data", p->data_path},
                                          {"value", o.value.empty() ? "output" : o.value}});
  if (!written) return user_error(written.error().message);
  std::printf("wrote %s\n", output.c_str());
  return kOk;
}

}  // namespace mlc::cli
