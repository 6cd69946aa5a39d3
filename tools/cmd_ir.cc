// mlc ir MODEL.json [--after PASS] [--batch N]: builds the model's IR and prints
// it (after the pipeline up to PASS) on stdout; diagnostics go to stderr.
#include <cstdio>

#include "compiler/pipeline.h"
#include "frontends/model_file.h"
#include "ir/printer.h"
#include "tools/cli.h"

namespace mlc::cli {

int cmd_ir(const std::vector<std::string>& argv) {
  Args args;
  std::string error;
  if (!parse_args(argv, {}, {"after", "batch"}, args, error)) return usage_error(error);
  if (args.positional.size() != 1) return usage_error("usage: mlc ir MODEL.json [--after PASS] [--batch N]");
  auto model = ModelFile::load(args.positional[0]);
  if (!model) return user_error(model.error().message);
  int64_t batch = model->config().trial_batch();
  if (args.has("batch")) {
    try {
      batch = std::stoll(args.get("batch"));
    } catch (...) {
      batch = 0;
    }
    if (batch < 1) return usage_error("--batch needs a positive integer, got '" + args.get("batch") + "'");
  }
  auto module = model->build(batch);
  if (!module) return user_error(module.error().message);
  if (args.has("after")) {
    PipelineOptions options;
    if (!model->config().train.optimizer.type.empty()) options.optimizer = model->config().train.optimizer;
    Status s = run_pipeline(*module, options, args.get("after"));
    if (!s) return user_error(s.error().message);
  }
  std::fputs(print_module(*module).c_str(), stdout);
  return kOk;
}

}  // namespace mlc::cli
