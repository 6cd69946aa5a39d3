// mlc run MODEL.json --eval [--init F] [--data F] [--metrics OUT.jsonl] [--seed S]
// Evaluates the model on its eval split: prints the mean loss (and accuracy for
// classifiers) and appends {"eval": {"loss": L, "accuracy": A}} to the metrics file.
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/safetensors.h"
#include "tools/cli.h"
#include "tools/evaluate.h"

namespace mlc::cli {

namespace {
const char* kRunUsage =
    "usage: mlc run MODEL.json --eval [--init F.safetensors] [--data F.safetensors] "
    "[--metrics OUT.jsonl] [--seed S]";

Expected<std::vector<rt::NamedTensor>> parameters(const ModelConfig& config, const Args& args,
                                                  uint64_t seed) {
  if (args.has("init")) return rt::load_parameters(config.params, args.get("init"));
  return rt::init_parameters(config.params, seed);
}

Status append_metrics(const std::string& path, const nlohmann::json& line) {
  std::ofstream out(path, std::ios::app);
  if (!out) return make_error(path + ": error: cannot open for writing");
  out << line.dump() << "\n";
  out.flush();
  if (!out) return make_error(path + ": error: write failed");
  return {};
}
}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
  Args args;
  std::string error;
  if (!parse_args(argv, {"eval"}, {"init", "data", "metrics", "seed"}, args, error))
    return usage_error(error + "\n" + kRunUsage);
  if (args.positional.size() != 1) return usage_error(kRunUsage);
  if (!args.has("eval"))
    return usage_error("training is not available yet; pass --eval to evaluate\n" +
                       std::string(kRunUsage));
  uint64_t seed = 0;
  if (args.has("seed")) {
    try {
      seed = std::stoull(args.get("seed"));
    } catch (...) {
      return usage_error("--seed needs a non-negative integer, got '" + args.get("seed") + "'");
    }
  }

  auto model = ModelFile::load(args.positional[0]);
  if (!model) return user_error(model.error().message);
  const ModelConfig& config = model->config();
  auto params = parameters(config, args, seed ? seed : config.train.seed);
  if (!params) return user_error(params.error().message);

  std::string data_path = args.get("data", config.data.file);
  if (data_path.empty())
    return user_error(config.path + ": error: no data file: give \"data\": {\"file\": ...} or --data");
  auto data = rt::read_safetensors(data_path);
  if (!data) return user_error(data.error().message);
  auto split = rt::Split::load(*data, config.data.eval, config.inputs, "eval");
  if (!split) return user_error(split.error().message);

  int64_t batch = config.train.eval_batch_size;
  if (batch <= 0) batch = std::min<int64_t>(split->num_examples(), 1024);
  auto result = evaluate(*model, *split, *params, batch);
  if (!result) return user_error(result.error().message);

  nlohmann::json eval = {{"loss", result->loss}};
  if (result->accuracy) eval["accuracy"] = *result->accuracy;
  if (result->accuracy)
    std::printf("eval: loss %.6f  accuracy %.4f (%lld/%lld)\n", result->loss, *result->accuracy,
                static_cast<long long>(result->correct), static_cast<long long>(result->positions));
  else
    std::printf("eval: loss %.6f\n", result->loss);
  if (args.has("metrics")) {
    Status s = append_metrics(args.get("metrics"), {{"eval", eval}});
    if (!s) return user_error(s.error().message);
  }
  return kOk;
}

}  // namespace mlc::cli
