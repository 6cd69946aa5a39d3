// mlc generate MODEL --init F (--prompt TEXT | --prompt-tokens IDS)
// --max-new-tokens N [--temperature T] [--top-k K] [--top-p P] [--seed S]
// [--data F] [--no-cache] [--print-tokens] [--timing] [--backend ...]:
// autoregressive sampling from a causal language model (driver/generate.h),
// its vocabulary read from the data file's metadata (runtime/token_vocabulary.h).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "driver/generate.h"
#include "frontends/model_file.h"
#include "runtime/checkpoint.h"
#include "runtime/safetensors.h"
#include "runtime/token_vocabulary.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace mlc::cli {

namespace {

bool parse_int(const std::string& s, int64_t lo, int64_t hi, int64_t& out) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) return false;
  out = v;
  return true;
}

bool parse_real(const std::string& s, double lo, double hi, double& out) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= lo && v <= hi)) return false;
  out = v;
  return true;
}

// "3 14 15": token ids separated by spaces or commas.
bool parse_ids(const std::string& s, std::vector<int64_t>& out) {
  std::string spaced = s;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  std::string word;
  while (in >> word) {
    int64_t id = 0;
    if (!parse_int(word, 0, int64_t{1} << 40, id)) return false;
    out.push_back(id);
  }
  return !out.empty();
}

// Median seconds of the calls by prefix-length bucket (--timing), for the
// cached steps and the whole-window calls apart.
void print_timing(const Generation& g) {
  for (bool decode : {true, false}) {
    std::map<int64_t, std::vector<double>> buckets;  // first prefix length of the bucket -> seconds
    const int64_t width = std::max<int64_t>(1, g.window / 8);
    for (size_t i = 0; i < g.seconds.size(); ++i)
      if (g.by_decode[i] == decode) buckets[(g.prefix[i] - 1) / width * width + 1].push_back(g.seconds[i]);
    if (buckets.empty()) continue;
    std::fprintf(stderr, "%s: median ms per token by prefix length\n",
                 decode ? "@decode (KV cache)" : "@prefill (whole window)");
    for (auto& [first, s] : buckets) {
      std::sort(s.begin(), s.end());
      std::fprintf(stderr, "  %4lld-%-4lld %8.3f ms (%zu token%s)\n", static_cast<long long>(first),
                   static_cast<long long>(first + width - 1), 1e3 * s[s.size() / 2], s.size(), s.size() == 1 ? "" : "s");
    }
  }
}

}  // namespace

int cmd_generate(const std::vector<std::string>& argv) {
  const CommandDoc& doc = *find_command_doc("generate");
  Args args;
  std::string error;
  if (!parse_command_args(doc, argv, args, error)) return usage_error(error);
  if (args.positional.size() != 1) return usage_error(usage_line(doc));
  if (!args.has("init")) return usage_error("generate needs --init F: the trained parameters (mlc run --save)");
  if (args.has("prompt") == args.has("prompt-tokens"))
    return usage_error("generate needs one of --prompt TEXT and --prompt-tokens IDS");
  std::optional<Backend> backend = parse_backend(args.get("backend", "compiled"));
  if (!backend) return usage_error("--backend must be compiled or interp, got '" + args.get("backend") + "'");
  GenerateOptions o;
  if (!args.has("max-new-tokens") || !parse_int(args.get("max-new-tokens"), 1, 1 << 20, o.max_new_tokens))
    return usage_error("--max-new-tokens takes a positive integer (at most 2^20), got '" + args.get("max-new-tokens") + "'");
  if (args.has("temperature") && !parse_real(args.get("temperature"), 0, 1e6, o.sampling.temperature))
    return usage_error("--temperature takes a number >= 0 (0: greedy), got '" + args.get("temperature") + "'");
  if (args.has("top-k") && !parse_int(args.get("top-k"), 1, int64_t{1} << 40, o.sampling.top_k))
    return usage_error("--top-k takes a positive integer, got '" + args.get("top-k") + "'");
  if (args.has("top-p") && (!parse_real(args.get("top-p"), 0, 1, o.sampling.top_p) || o.sampling.top_p == 0))
    return usage_error("--top-p takes a number in (0, 1], got '" + args.get("top-p") + "'");
  int64_t seed = 0;
  if (args.has("seed") && !parse_int(args.get("seed"), 0, INT64_MAX, seed))
    return usage_error("--seed takes a non-negative integer, got '" + args.get("seed") + "'");
  o.seed = static_cast<uint64_t>(seed);
  o.cache = !args.has("no-cache");
  if (args.has("prompt-tokens") && !parse_ids(args.get("prompt-tokens"), o.prompt))
    return usage_error("--prompt-tokens takes token ids separated by spaces or commas, got '" +
                       args.get("prompt-tokens") + "'");

  auto model = ModelFile::load(args.positional[0]);
  if (!model) return user_error(model.error().message);
  if (auto window = model->generation_window(); !window) return user_error(window.error().message);
  // The vocabulary: the data file's metadata (mlc data text), if it has one;
  // a prompt of text needs it, a prompt of ids prints ids without it.
  std::optional<rt::Vocabulary> vocab;
  const std::string data = args.get("data", model->config().data.file);
  if (data.empty() && args.has("prompt"))
    return user_error(model->config().path + ": error: the model file names no data file to read a vocabulary "
                      "from; give --data F (a token file of mlc data text) or --prompt-tokens IDS");
  if (!data.empty()) {
    auto file = rt::read_safetensors(data);
    auto v = file ? rt::vocabulary_of(file->metadata, data) : Expected<rt::Vocabulary>(file.take_error());
    if (v) vocab = std::move(*v);
    else if (args.has("prompt")) return user_error(v.error().message + "; give the prompt as --prompt-tokens IDS");
  }
  if (args.has("prompt")) {
    auto ids = rt::encode(*vocab, args.get("prompt"), "--prompt");
    if (!ids) return usage_error(ids.error().message);
    if (ids->empty()) return usage_error("--prompt is empty");
    o.prompt = std::move(*ids);
  }
  // `--init seed`: train.seed's draw of the initial parameters (for timing).
  std::vector<rt::NamedTensor> params;
  if (args.get("init") == "seed") {
    params = rt::init_parameters(model->config().params, model->config().train.seed);
  } else {
    auto read = rt::read_init_parameters(model->config().params, args.get("init"), model->config().name, nullptr);
    if (!read) return user_error(read.error().message);
    params = std::move(read->params);
  }
  const bool as_text = vocab && !args.has("print-tokens");
  if (as_text)
    for (int64_t id : o.prompt) std::fputs(rt::decode(*vocab, id).c_str(), stdout);
  else
    for (size_t i = 0; i < o.prompt.size(); ++i) std::printf("%s%lld", i ? " " : "", static_cast<long long>(o.prompt[i]));
  o.on_token = [&](int64_t id) {
    if (as_text) std::fputs(rt::decode(*vocab, id).c_str(), stdout);
    else std::printf(" %lld", static_cast<long long>(id));
    std::fflush(stdout);
  };
  const Program program = Program::from_model(*model, *backend);
  auto g = generate(program, params, o);
  std::printf("\n");
  std::fflush(stdout);
  if (!g) return user_error(g.error().message);
  if (!g->note.empty()) std::fprintf(stderr, "note: no KV cache: %s\n", g->note.c_str());
  double total = 0;
  for (double s : g->seconds) total += s;
  std::fprintf(stderr, "generated %zu token%s in %.3f s (%.3f ms per token; window %lld, %s)\n", g->tokens.size(),
               g->tokens.size() == 1 ? "" : "s", total, 1e3 * total / static_cast<double>(g->tokens.size()),
               static_cast<long long>(g->window), g->cached ? "KV cache" : "whole window per token");
  if (args.has("timing")) print_timing(*g);
  return kOk;
}

}  // namespace mlc::cli
