// `mlc generate` (driver/generate.h, frontends/decode_state.h):
//  - greedy decoding equals PyTorch's greedy loop on the same trained weights
//    (tests/oracle/generate.py), through the KV cache for models built of
//    CausalSelfAttention and through whole-window calls for attention written
//    by hand, on both sides of the window;
//  - the cached and uncached paths choose the same tokens, compiled and
//    interpreted;
//  - sampling (driver/token_sampling.h) follows temperature, top-k and top-p;
//  - text goes in and out through a token file's vocabulary;
//  - models that are not causal language models, and bad prompts, are errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "driver/generate.h"
#include "frontends/model_file.h"
#include "runtime/checkpoint.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
using testing::RunResult;
using testing::run_mlc;

struct Loaded {
  ModelFile model;
  std::vector<rt::NamedTensor> params;
};

Loaded load(const std::string& model_path, const std::string& params_path) {
  auto model = ModelFile::load(model_path);
  EXPECT_TRUE(model.ok()) << model.error().message;
  auto params = rt::read_init_parameters(model->config().params, params_path, model->config().name, nullptr);
  EXPECT_TRUE(params.ok()) << params.error().message;
  return {std::move(*model), std::move(params->params)};
}

nlohmann::json greedy_records() {
  std::ifstream in("tests/data/oracle/generate/greedy.json");
  return nlohmann::json::parse(in);
}

Generation greedy(const Loaded& m, Backend backend, const std::vector<int64_t>& prompt, bool cache) {
  const Program program = Program::from_model(m.model, backend);
  GenerateOptions o;
  o.prompt = prompt;
  o.max_new_tokens = 40;
  o.sampling.temperature = 0;
  o.cache = cache;
  auto g = generate(program, m.params, o);
  EXPECT_TRUE(g.ok()) << g.error().message;
  return g.ok() ? *g : Generation{};
}

// The oracle's smallest gap between the two largest logits is 1.1e-4 (its
// records hold it): far above the 1e-5 the f32 logits of two summation
// orders differ by, so every greedy choice is the same on both sides.
TEST(Generate, GreedyTokensEqualPyTorchsGreedyLoopThroughTheCache) {
  const nlohmann::json records = greedy_records();
  for (const char* name : {"tiny_gpt", "gpt8"}) {
    const Loaded m = load(std::string("examples/") + name + ".json",
                          std::string("tests/data/oracle/") + name + "/final.safetensors");
    for (const nlohmann::json& r : records.at(name)) {
      const auto prompt = r.at("prompt").get<std::vector<int64_t>>();
      const Generation g = greedy(m, Backend::compiled, prompt, true);
      EXPECT_EQ(g.tokens, r.at("tokens").get<std::vector<int64_t>>()) << name << ", prompt of " << prompt.size();
      EXPECT_EQ(g.window, 32);
      EXPECT_EQ(g.vocabulary, 64);
      EXPECT_TRUE(g.note.empty()) << g.note;
      // The cache serves every token after the first while the sequence fits
      // the window; past it, each token is a whole-window call.
      ASSERT_EQ(g.by_decode.size(), 40u);
      for (size_t i = 0; i < 40; ++i)
        EXPECT_EQ(g.by_decode[i], i > 0 && g.prefix[i] <= 32) << name << " token " << i << ", prefix " << g.prefix[i];
      EXPECT_EQ(g.cached, prompt.size() < 32);
    }
  }
}

TEST(Generate, AttentionWrittenByHandIsDecodedByWholeWindowCallsWithANote) {
  const nlohmann::json records = greedy_records();
  const Loaded m = load("examples/gpt2_tied.json", "tests/data/oracle/gpt2_tied/final.safetensors");
  for (const nlohmann::json& r : records.at("gpt2_tied")) {
    const auto prompt = r.at("prompt").get<std::vector<int64_t>>();
    const Generation g = greedy(m, Backend::compiled, prompt, true);
    EXPECT_EQ(g.tokens, r.at("tokens").get<std::vector<int64_t>>()) << "prompt of " << prompt.size();
    EXPECT_FALSE(g.cached);
    EXPECT_EQ(g.note, "the model has no CausalSelfAttention layer to cache");
  }
}

// A CausalSelfAttention beside attention written by hand: @decode builds and
// has caches, but the hand-written block sees one token; the check of the
// first step against @prefill finds it.
TEST(Generate, AStepThatDoesNotReproduceTheWindowIsNotUsed) {
  const fs::path dir = testing::scratch_dir("mlc_generate_mixed");
  fs::create_directories(dir);
  const std::string path = (dir / "mixed.mlc").string();
  std::ofstream(path) << "name = mixed\ninputs:\n    tokens: i64[batch, 8]\n    targets: i64[batch, 8]\n"
                         "model(tokens):\n    emb = Embedding(16, 8)\n    attn = CausalSelfAttention(8, 2)\n"
                         "    q = Linear(8, 8)\n    k = Linear(8, 8)\n    head = Linear(8, 16)\n    forward:\n"
                         "        x = emb(tokens)\n        x = x + attn(x)\n"
                         "        att = softmax((q(x) @ k(x).transpose(-2, -1)).masked_fill("
                         "tril(ones(x.size(1), x.size(1))) == 0, -inf), dim=-1)\n"
                         "        return head(x + att @ x)\n"
                         "loss = cross_entropy(targets=targets)\n";
  auto model = ModelFile::load(path);
  ASSERT_TRUE(model.ok()) << model.error().message;
  const std::vector<rt::NamedTensor> params = rt::init_parameters(model->config().params, 3);
  const Program program = Program::from_model(*model, Backend::compiled);
  GenerateOptions o;
  o.prompt = {1, 2, 3};
  o.max_new_tokens = 12;
  o.sampling.temperature = 0;
  auto checked = generate(program, params, o);
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  EXPECT_FALSE(checked->cached);
  EXPECT_EQ(checked->note, "the model's one-token forward does not reproduce its whole-window forward (attention "
                           "written by hand in a forward reads no cache)");
  o.cache = false;
  auto window = generate(program, params, o);
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(checked->tokens, window->tokens);
}

TEST(Generate, CachedAndWholeWindowDecodingAgreeCompiledAndInterpreted) {
  const Loaded m = load("examples/tiny_gpt.json", "tests/data/oracle/tiny_gpt/final.safetensors");
  const std::vector<int64_t> prompt{1, 8, 15, 22, 29};
  const Generation cached = greedy(m, Backend::compiled, prompt, true);
  const Generation window = greedy(m, Backend::compiled, prompt, false);
  const Generation interp = greedy(m, Backend::interp, prompt, true);
  EXPECT_EQ(cached.tokens, window.tokens);
  EXPECT_EQ(cached.tokens, interp.tokens);
  EXPECT_TRUE(cached.cached && interp.cached);
  EXPECT_FALSE(window.cached);
  EXPECT_TRUE(window.note.empty());
  for (bool d : window.by_decode) EXPECT_FALSE(d);
}

// A window of one token (a bigram model): every token is a whole-window call,
// and greedy decoding follows the argmax of the last token's embedding row.
TEST(Generate, AWindowOfOneToken) {
  const fs::path dir = testing::scratch_dir("mlc_generate_bigram");
  fs::create_directories(dir);
  const std::string path = (dir / "bigram.mlc").string();
  std::ofstream(path) << "name = bigram\ninputs:\n    tokens: i64[batch, 1]\n    targets: i64[batch, 1]\n"
                         "model(tokens):\n    emb = Embedding(16, 16)\n"
                         "loss = cross_entropy(targets=targets)\n";
  auto model = ModelFile::load(path);
  ASSERT_TRUE(model.ok()) << model.error().message;
  const std::vector<rt::NamedTensor> params = rt::init_parameters(model->config().params, 5);
  const Program program = Program::from_model(*model, Backend::compiled);
  GenerateOptions o;
  o.prompt = {3, 9};
  o.max_new_tokens = 6;
  o.sampling.temperature = 0;
  auto g = generate(program, params, o);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->window, 1);
  EXPECT_FALSE(g->cached);
  const float* w = params.at(0).tensor.data<float>();
  int64_t last = 9;
  for (int64_t token : g->tokens) {
    const int64_t best = std::max_element(w + last * 16, w + last * 16 + 16) - (w + last * 16);
    EXPECT_EQ(token, best);
    last = token;
  }
}

TEST(TokenSampling, TemperatureTopKAndTopP) {
  const std::vector<float> logits{1.0f, 3.0f, 2.0f, 3.0f, -INFINITY};
  std::mt19937_64 gen(0);
  SamplingOptions greedy{0, 0, 1};
  EXPECT_EQ(choose_token(logits, greedy, gen), 1);  // the first of the largest
  SamplingOptions top1{1, 1, 1};                      // the largest two tie: both kept
  SamplingOptions nucleus{1, 0, 0.1};                 // the most probable id alone
  for (int i = 0; i < 50; ++i) {
    const int64_t k = choose_token(logits, top1, gen);
    EXPECT_TRUE(k == 1 || k == 3) << k;
    EXPECT_EQ(choose_token(logits, nucleus, gen), 1);
  }
  // Frequencies of softmax(logits / 2) over 40000 draws, within 5 standard deviations.
  SamplingOptions warm{2, 0, 1};
  std::vector<int> counts(5);
  const int n = 40000;
  for (int i = 0; i < n; ++i) ++counts[static_cast<size_t>(choose_token(logits, warm, gen))];
  double z = 0;
  for (float x : logits) z += std::isinf(x) ? 0 : std::exp(x / 2);
  for (size_t i = 0; i < 5; ++i) {
    const double p = std::isinf(logits[i]) ? 0 : std::exp(logits[i] / 2) / z;
    EXPECT_NEAR(counts[i], n * p, 5 * std::sqrt(n * p * (1 - p)) + 1e-9) << "id " << i;
  }
  // The same seed, the same draws.
  std::mt19937_64 a(7), b(7);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(choose_token(logits, warm, a), choose_token(logits, warm, b));
  const std::vector<float> nan{0.0f, NAN};
  EXPECT_EQ(choose_token(nan, warm, gen), -1);
}

TEST(Generate, TextInAndOutThroughTheTokenFilesVocabulary) {
  const fs::path dir = testing::scratch_dir("mlc_generate_text");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string params = (dir / "char_gpt.safetensors").string();
  RunResult trained = run_mlc("run examples/char_gpt.mlc --steps 3 --save " + params);
  ASSERT_EQ(trained.status, 0) << trained.err;
  RunResult g = run_mlc("generate examples/char_gpt.mlc --init " + params +
                        " --prompt \"First Citizen:\" --max-new-tokens 20 --seed 3");
  ASSERT_EQ(g.status, 0) << g.err;
  ASSERT_EQ(g.out.rfind("First Citizen:", 0), 0u) << g.out;
  // 14 + 20 characters and a newline (every character of the vocabulary is one byte).
  EXPECT_EQ(g.out.size(), 35u) << g.out;
  EXPECT_NE(g.err.find("generated 20 tokens in "), std::string::npos) << g.err;
  EXPECT_NE(g.err.find("window 128, KV cache)"), std::string::npos) << g.err;
  // The same seed, the same text; ids with --print-tokens.
  RunResult again = run_mlc("generate examples/char_gpt.mlc --init " + params +
                            " --prompt \"First Citizen:\" --max-new-tokens 20 --seed 3");
  EXPECT_EQ(again.out, g.out);
  RunResult ids = run_mlc("generate examples/char_gpt.mlc --init " + params +
                          " --prompt-tokens 18,47 --max-new-tokens 3 --temperature 0 --print-tokens --timing");
  ASSERT_EQ(ids.status, 0) << ids.err;
  EXPECT_EQ(ids.out.rfind("18 47 ", 0), 0u) << ids.out;
  EXPECT_NE(ids.err.find("@decode (KV cache): median ms per token by prefix length"), std::string::npos) << ids.err;

  RunResult unknown = run_mlc("generate examples/char_gpt.mlc --init " + params +
                              " --prompt \"First Citizen: %\" --max-new-tokens 2");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("mlc: error: --prompt: character '%' at byte 15 is not in the vocabulary (58 characters)"),
            std::string::npos)
      << unknown.err;
}

TEST(Generate, ModelsThatAreNotLanguageModelsAndBadFlagsAreErrors) {
  RunResult mlp = run_mlc("generate examples/digits_mlp.json --init examples/data/digits.safetensors "
                          "--prompt-tokens 1 --max-new-tokens 2");
  EXPECT_EQ(mlp.status, 1);
  EXPECT_NE(mlp.err.find("examples/digits_mlp.json: error: mlc generate needs a causal language model: a forward of "
                         "one token input i64[batch, T] returning logits [batch, T, vocabulary]; its input 'x' is "
                         "f32[batch,1,8,8]"),
            std::string::npos)
      << mlp.err;
  const std::string init = " --init tests/data/oracle/tiny_gpt/final.safetensors";
  RunResult both = run_mlc("generate examples/tiny_gpt.json" + init + " --prompt a --prompt-tokens 1 --max-new-tokens 2");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("mlc: error: generate needs one of --prompt TEXT and --prompt-tokens IDS"), std::string::npos)
      << both.err;
  RunResult outside = run_mlc("generate examples/tiny_gpt.json" + init + " --prompt-tokens 3,64 --max-new-tokens 2");
  EXPECT_EQ(outside.status, 1);
  EXPECT_NE(outside.err.find("error: mlc generate: prompt token 64 is outside the model's vocabulary of 64"),
            std::string::npos)
      << outside.err;
  RunResult no_vocab = run_mlc("generate examples/tiny_gpt.json" + init + " --prompt abc --max-new-tokens 2");
  EXPECT_EQ(no_vocab.status, 1);
  EXPECT_NE(no_vocab.err.find("examples/data/tiny_gpt_tokens.safetensors: error: the metadata holds no vocabulary"),
            std::string::npos)
      << no_vocab.err;
  for (const char* flag : {" --max-new-tokens 2 --temperature -1", " --max-new-tokens 2 --top-p 0",
                           " --max-new-tokens 2 --top-k 0", " --max-new-tokens 0"}) {
    RunResult bad = run_mlc("generate examples/tiny_gpt.json" + init + " --prompt-tokens 1" + flag);
    EXPECT_EQ(bad.status, 2) << flag;
    EXPECT_EQ(bad.err.rfind("mlc: error: --", 0), 0u) << flag << ": " << bad.err;
  }
}

}  // namespace
}  // namespace mlc
