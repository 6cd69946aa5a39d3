// mlc plan MODEL --search --devices N [--memory-cap BYTES] [--runnable-only]
// [--gflops G] [--top K] [--format text|json] [-o plan.json]: the plan search
// (driver/plan_search.h) from the command line. -o writes the best runnable
// plan as a plan file (driver/plan_file.h) for `mlc run MODEL --plan plan.json`.
#include <cstdio>
#include <cstdlib>

#include "driver/plan_file.h"
#include "driver/plan_parallel.h"
#include "driver/plan_search.h"
#include "frontends/model_limits.h"
#include "ir/source_file.h"
#include "tools/cli.h"

namespace mlc::cli {

namespace {

// "1073741824", "512MiB", "16GiB", "2G", "64K": bytes; nullopt when malformed.
std::optional<int64_t> parse_bytes(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(v > 0)) return std::nullopt;
  const std::string unit = end;
  double scale = 0;
  for (const auto& [name, s] : {std::pair{"", 1.0}, {"B", 1.0}, {"K", 1024.0}, {"KiB", 1024.0}, {"M", 1048576.0},
                                {"MiB", 1048576.0}, {"G", 1073741824.0}, {"GiB", 1073741824.0},
                                {"T", 1099511627776.0}, {"TiB", 1099511627776.0}})
    if (unit == name) scale = s;
  if (scale == 0 || v * scale > 9e18) return std::nullopt;
  return static_cast<int64_t>(v * scale);
}

}  // namespace

bool parse_gflops(const Args& args, std::optional<double>& out, std::string& error) {
  if (!args.has("gflops")) return true;
  char* end = nullptr;
  const double g = std::strtod(args.get("gflops").c_str(), &end);
  if (*end != '\0' || !(g > 0)) {
    error = "--gflops takes a positive number, got '" + args.get("gflops") + "'";
    return false;
  }
  out = g;
  return true;
}

int run_plan_search(const Args& args) {
  for (const char* pipeline_flag : {"mesh", "zero", "microbatches", "schedule", "virtual-stages"})
    if (args.has(pipeline_flag))
      return usage_error("--search enumerates the plans: leave out --" + std::string(pipeline_flag));
  if (args.has("output"))
    if (std::string problem = output_problem(args.get("output"), "output"); !problem.empty())
      return user_error(problem);
  SearchOptions options;
  const std::string devices = args.get("devices");
  char* end = nullptr;
  const long n = std::strtol(devices.c_str(), &end, 10);
  if (devices.empty() || *end != '\0' || n < 1 || n > 4096)
    return usage_error("--search needs --devices N, 1 to 4096 devices, got '" + devices + "'");
  options.devices = n;
  if (args.has("memory-cap")) {
    std::optional<int64_t> cap = parse_bytes(args.get("memory-cap"));
    if (!cap)
      return usage_error("--memory-cap takes bytes per rank, e.g. 1073741824, 512MiB or 16GiB, got '" +
                         args.get("memory-cap") + "'");
    options.memory_cap = *cap;
  }
  std::optional<double> gflops;
  std::string error;
  if (!parse_gflops(args, gflops, error)) return usage_error(error);
  size_t top = 10;
  if (args.has("top")) {
    const long t = std::strtol(args.get("top").c_str(), &end, 10);
    if (*end != '\0' || t < 1) return usage_error("--top takes a positive integer, got '" + args.get("top") + "'");
    top = static_cast<size_t>(t);
  }
  options.runnable_only = args.has("runnable-only");
  auto file = read_source_file(args.positional[0], kMaxModelFileBytes, "model file");
  if (!file) return user_error(file.error().message);
  auto estimator = PlanEstimator::create(file->text, file->name);
  if (!estimator) return user_error(estimator.error().message);
  options.rates = host_rates(gflops);
  auto result = search_plans(**estimator, options);
  if (!result) return user_error(result.error().message);
  if (args.get("format", "text") == "json")
    std::printf("%s\n", search_json(**estimator, *result, options, top).dump(1).c_str());
  else
    std::fputs(search_text(**estimator, *result, options, top).c_str(), stdout);
  if (args.has("output")) {
    const RankedPlan* best = nullptr;
    for (const RankedPlan& p : result->plans)
      if (p.runnable && !best) best = &p;
    if (!best)
      return user_error("error: no runnable plan fits " + std::to_string(options.devices) + " devices" +
                        (options.memory_cap ? " under the memory cap of " + human_bytes(options.memory_cap) : "") +
                        ": nothing written to " + args.get("output"));
    const nlohmann::ordered_json plan =
        plan_file_json(best->plan, (*estimator)->model().config().name, options.devices, best->json());
    if (Status s = write_plan_file(args.get("output"), plan); !s) return user_error(s.error().message);
    std::fprintf(stderr, "wrote the best runnable plan (%s) to %s\n", best->name().c_str(),
                 args.get("output").c_str());
  }
  return kOk;
}

}  // namespace mlc::cli
