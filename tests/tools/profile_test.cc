// `mlc run --profile` (driver/profile.h): a table per compiled function with
// one row per instruction, the time per kind, and the same numbers as JSON.
// Checked: every instruction and every instruction kind the lowering made is
// listed, the instructions add up to at most the measured runs, and origins
// name the model file, for model files and artifacts. No timed assertions:
// only how the numbers relate.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compiler/lower.h"
#include "ir/parser.h"
#include "tests/tools/run_mlc.h"
#include "driver/profile.h"

namespace mlc {
namespace {

using testing::RunResult;

std::string temp_path(const std::string& name) { return (testing::scratch_dir("mlc_profile_test") / name).string(); }

// Instruction counts by kind of `function` in `mlc ir --after lower` output.
std::map<std::string, int> lowered_kinds(const std::string& lowered, const std::string& function) {
  std::smatch m;
  std::regex line("lowered @" + function +
                  R"(: (\d+) instructions \((\d+) kernel, (\d+) gemm, (\d+) reference, (\d+) copy, (\d+) collective\))");
  std::map<std::string, int> kinds;
  if (!std::regex_search(lowered, m, line)) return kinds;
  for (size_t k = 0; k < rt::kInstrKinds; ++k)
    if (int n = std::stoi(m[k + 2].str())) kinds[std::string(rt::instr_kind_name(static_cast<rt::InstrKind>(k)))] = n;
  return kinds;
}

// The "by kind:" lines of the text table that starts at `from`: kind -> count.
std::map<std::string, int> table_kinds(const std::string& err, size_t from) {
  std::map<std::string, int> kinds;
  std::istringstream in(err.substr(err.find("by kind:\n", from) + 9));
  std::string line;
  std::regex row(R"(  (\w+) +(\d+) instructions +[\d.]+ ms +[\d.]+%(  [\d.]+ GFLOP/s)?)");
  std::smatch m;
  while (std::getline(in, line) && std::regex_match(line, m, row))
    if (m[1] != "all") kinds[m[1]] = std::stoi(m[2].str());
  return kinds;
}

class ProfiledExamples : public ::testing::TestWithParam<std::string> {};

TEST_P(ProfiledExamples, TrainStepTableListsEveryInstructionAndKind) {
  const std::string model = "examples/" + GetParam() + ".json", json = temp_path(GetParam() + ".json");
  RunResult r = testing::run_mlc("run " + model + " --steps 3 --profile=" + json);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json p = nlohmann::json::parse(testing::slurp(json));
  ASSERT_GE(p["functions"].size(), 2u);  // the train step, then eval
  const nlohmann::json& step = p["functions"][0];
  EXPECT_EQ(step["function"], "train_step");
  EXPECT_EQ(p["functions"].back()["function"], "eval");
  EXPECT_EQ(step["runs"], 3);
  const int64_t batch = step["batch"];

  RunResult ir = testing::run_mlc("ir " + model + " --after lower --batch " + std::to_string(batch));
  ASSERT_EQ(ir.status, 0) << ir.err;
  std::map<std::string, int> want = lowered_kinds(ir.out, "train_step");
  ASSERT_FALSE(want.empty()) << ir.out.substr(0, 200);

  // JSON: every instruction once, slowest first, called once per run; the
  // kinds as the lowering counts them; the sum within the measured runs.
  std::map<std::string, int> rows_by_kind, json_kinds;
  std::vector<bool> seen;
  double sum_ms = 0, previous = 1e300;
  for (const nlohmann::json& row : step["instructions"]) {
    const size_t index = row["index"];
    if (seen.size() <= index) seen.resize(index + 1, false);
    EXPECT_FALSE(seen[index]) << "instruction " << index << " listed twice";
    seen[index] = true;
    ++rows_by_kind[row["kind"]];
    EXPECT_EQ(row["calls"], 3);
    EXPECT_LE(row["total_ms"].get<double>(), previous) << "not sorted by total time";
    previous = row["total_ms"];
    sum_ms += previous;
    EXPECT_FALSE(row["origin"].get<std::string>().empty()) << "instruction " << index;
  }
  for (const auto& [kind, v] : step["by_kind"].items()) json_kinds[kind] = v["count"];
  EXPECT_EQ(rows_by_kind, want);
  EXPECT_EQ(json_kinds, want);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), static_cast<long>(seen.size()));
  EXPECT_LE(sum_ms, step["run_ms"].get<double>() * (1 + 1e-12));

  // Text: the same kinds and counts, one row per instruction with the origin.
  const size_t table = r.err.find("profile of @train_step (batch " + std::to_string(batch) + "): 3 runs, ");
  ASSERT_NE(table, std::string::npos) << r.err;
  EXPECT_EQ(table_kinds(r.err, table), want);
  const size_t eval = r.err.find("profile of @eval (batch ");
  ASSERT_NE(eval, std::string::npos) << r.err;
  const std::string rows = r.err.substr(table, eval - table);
  std::regex row(R"(\n +\d+ +\d+  (kernel|gemm|reference|copy|collective) +\S+ +3 +[\d.]+ +[\d.]+ +[\d.]+%  \S)");
  EXPECT_EQ(std::distance(std::sregex_iterator(rows.begin(), rows.end(), row), std::sregex_iterator()),
            static_cast<long>(seen.size()));
  EXPECT_NE(rows.find("(" + model + ":"), std::string::npos) << "no origin names the model file";
}

INSTANTIATE_TEST_SUITE_P(All, ProfiledExamples, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt"));

// On a mesh the train step's collectives are instructions of their own kind:
// the profile lists them and counts their time (it once tallied five kinds
// in a table of four, writing past its end, and left them out of "all").
TEST(Profile, MeshCollectivesAreAKindOfTheirOwn) {
  const std::string model = "examples/digits_mlp.json", json = temp_path("mesh.json");
  RunResult r = testing::run_mlc("run " + model + " --mesh dp=2 --steps 2 --profile=" + json);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json p = nlohmann::json::parse(testing::slurp(json));
  const nlohmann::json& step = p["functions"][0];
  ASSERT_EQ(step["function"], "train_step");
  RunResult ir = testing::run_mlc("ir " + model + " --after lower --mesh dp=2 --batch " +
                                  std::to_string(step["batch"].get<int64_t>()));
  ASSERT_EQ(ir.status, 0) << ir.err;
  std::map<std::string, int> want = lowered_kinds(ir.out, "train_step"), json_kinds;
  ASSERT_GT(want["collective"], 0) << ir.out.substr(0, 300);
  for (const auto& [kind, v] : step["by_kind"].items()) json_kinds[kind] = v["count"];
  EXPECT_EQ(json_kinds, want);
  const size_t table = r.err.find("profile of @train_step");
  ASSERT_NE(table, std::string::npos) << r.err;
  EXPECT_EQ(table_kinds(r.err, table), want);
  int listed = 0;
  for (const nlohmann::json& row : step["instructions"]) listed += row["kind"] == "collective";
  EXPECT_EQ(listed, want["collective"]);
}

// Every gemm row of the JSON carries its shape and FLOPs, and the rates agree
// with the times: rate = flop * calls / time, per row and for the kind.
TEST(Profile, GemmsCarryTheirShapeAndRate) {
  const std::string json = temp_path("gemm_rate.json");
  RunResult r = testing::run_mlc("run examples/digits_mlp.json --steps 2 --profile=" + json);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json step = nlohmann::json::parse(testing::slurp(json))["functions"][0];
  double flop = 0, ms = 0;
  int gemms = 0;
  for (const nlohmann::json& row : step["instructions"]) {
    if (row["kind"] != "gemm") {
      EXPECT_FALSE(row.contains("gemm"));
      continue;
    }
    ++gemms;
    const nlohmann::json& g = row["gemm"];
    EXPECT_EQ(g["dtype"], "f32");
    const double per_call = 2.0 * g["batch"].get<double>() * g["m"].get<double>() * g["n"].get<double>() *
                            g["k"].get<double>();
    EXPECT_EQ(g["flop"].get<double>(), per_call);
    const double row_ms = row["total_ms"];
    if (row_ms > 0) EXPECT_NEAR(g["gflops"].get<double>(), per_call * row["calls"].get<double>() / (row_ms * 1e6), 1e-9 * g["gflops"].get<double>());
    flop += per_call * row["calls"].get<double>();
    ms += row_ms;
  }
  ASSERT_GT(gemms, 0);
  const double kind_rate = step["by_kind"]["gemm"]["gflops"];
  EXPECT_NEAR(kind_rate, flop / (ms * 1e6), 1e-6 * kind_rate);
  EXPECT_NE(r.err.find(" GFLOP/s\n"), std::string::npos) << r.err;
}

TEST(Profile, ArtifactsKeepTheOrigins) {
  const std::string artifact = temp_path("digits_mlp.mlcx");
  RunResult c = testing::run_mlc("compile examples/digits_mlp.json -o " + artifact);
  ASSERT_EQ(c.status, 0) << c.err;
  RunResult r = testing::run_mlc("run " + artifact + " --steps 2 --profile");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("profile of @train_step (batch "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dot (examples/digits_mlp.json:"), std::string::npos) << r.err;
}

TEST(Profile, EvalAloneIsProfiled) {
  RunResult r = testing::run_mlc("run examples/digits_mlp.json --eval --init seed --profile");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("profile of @eval (batch "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("profile of @train_step"), std::string::npos) << r.err;
}

TEST(Profile, InterpreterIsRefused) {
  RunResult r = testing::run_mlc("run examples/digits_mlp.json --backend interp --profile");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "mlc: error: --profile times the compiled backend's instructions; drop --backend interp\n");
}

// A result that updates an argument but cannot be written in place is a copy
// instruction: the table lists that kind too.
TEST(Profile, TableListsCopies) {
  auto m = parse_module(R"(module @m {
  func @step(%x: f32[4] {input}, %w: f32[4] {param}, %v: f32[4] {state}) -> (f32[4] {updates = %w}, f32[4] {updates = %v}) {
    %0 = add(%x, %w) : f32[4]
    return %v, %0
  }
})", "step.mlir");
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto lowered = lower_function(*m->find("step"));
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  std::array<int, rt::kInstrKinds> by_kind{};
  for (const rt::Instruction& ins : lowered->executable->instructions) ++by_kind[static_cast<size_t>(ins.kind)];
  ASSERT_GT(by_kind[static_cast<size_t>(rt::InstrKind::copy)], 0) << print_lowered(*lowered);
  auto exe = rt::Executor::create(lowered->executable);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  exe->enable_profiling();
  std::vector<rt::Tensor> args;
  for (const auto& a : m->find("step")->args) args.emplace_back(a->type);
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : args) ptrs.push_back(&t);
  ASSERT_TRUE(exe->run(ptrs).ok());
  FunctionProfile p{"step", 4, lowered->executable, *exe->profile()};
  std::string table = profile_table(p);
  std::map<std::string, int> want;
  for (size_t k = 0; k < rt::kInstrKinds; ++k)
    if (by_kind[k]) want[std::string(rt::instr_kind_name(static_cast<rt::InstrKind>(k)))] = by_kind[k];
  EXPECT_EQ(table_kinds(table, 0), want) << table;
  EXPECT_NE(table.find("copied back"), std::string::npos) << table;
  nlohmann::ordered_json j = profile_json({p});
  EXPECT_EQ(j["functions"][0]["by_kind"]["copy"]["count"], by_kind[static_cast<size_t>(rt::InstrKind::copy)]);
}

}  // namespace
}  // namespace mlc
