// End-to-end tests of the `mlc` binary: IR printing and round trip through
// `mlc opt`, evaluation against the PyTorch reference, exit codes and
// diagnostics of bad invocations.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"

namespace {

using mlc::testing::RunResult;
using mlc::testing::slurp;

std::string temp_path(const std::string& name) {
  return (mlc::testing::scratch_dir("mlc_cli_test") / name).string();
}

// Runs `mlc ARGS` from the source root, capturing stdout and stderr.
RunResult mlc(const std::string& args, const std::string& stdin_file = "") {
  return mlc::testing::run_mlc(args, "", stdin_file.empty() ? "" : "<" + stdin_file);
}

nlohmann::json reference() {
  return nlohmann::json::parse(slurp("tests/data/oracle/eval_reference.json"));
}

double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-12); }

class Examples : public ::testing::TestWithParam<std::string> {};

TEST_P(Examples, IrRoundTripsThroughOpt) {
  RunResult ir = mlc("ir examples/" + GetParam() + ".json");
  ASSERT_EQ(ir.status, 0) << ir.err;
  EXPECT_EQ(ir.err, "");
  EXPECT_NE(ir.out.find("module @" + GetParam()), std::string::npos);
  std::string file = temp_path(GetParam() + ".mlir");
  std::ofstream(file) << ir.out;
  RunResult opt = mlc("opt " + file);
  ASSERT_EQ(opt.status, 0) << opt.err;
  EXPECT_EQ(opt.out, ir.out);
  RunResult from_stdin = mlc("opt -", file);
  ASSERT_EQ(from_stdin.status, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, ir.out);
}

TEST_P(Examples, IrAfterEachPipelineStageRoundTrips) {
  for (const char* pass : {"autodiff", "optimizer", "decompose", "canonicalize"}) {
    RunResult ir = mlc("ir examples/" + GetParam() + ".json --after " + pass);
    ASSERT_EQ(ir.status, 0) << ir.err;
    std::string file = temp_path(GetParam() + "." + pass + ".mlir");
    std::ofstream(file) << ir.out;
    RunResult opt = mlc("opt " + file);
    ASSERT_EQ(opt.status, 0) << opt.err;
    EXPECT_EQ(opt.out, ir.out) << pass;
  }
}

// --eval with the oracle's initial weights gives PyTorch's loss and accuracy.
// --after lower prints every function's executable: the five functions of
// the pipeline, each instruction with the ops it computes, kernel bodies.
TEST_P(Examples, IrAfterLowerPrintsEveryFunctionsExecutable) {
  RunResult r = mlc("ir examples/" + GetParam() + ".json --after lower");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const char* f : {"loss", "eval", "loss_grad", "train_step", "optimizer_init"})
    EXPECT_NE(r.out.find(std::string("lowered @") + f + ": "), std::string::npos) << f;
  EXPECT_NE(r.out.find("      kernel @k0_"), std::string::npos);
  EXPECT_NE(r.out.find("(examples/" + GetParam() + ".json:"), std::string::npos);
  RunResult bad = mlc("ir examples/" + GetParam() + ".json --after lower --emit mlir");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "mlc: error: --after lower prints executables, not a module: drop --emit mlir\n");
}

TEST_P(Examples, EvalMatchesPyTorchAtInit) {
  const std::string name = GetParam();
  std::string metrics = temp_path(name + ".jsonl");
  std::filesystem::remove(metrics);
  RunResult r = mlc("run examples/" + name + ".json --eval --init tests/data/oracle/" + name +
                    "/init.safetensors --metrics " + metrics);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json line = nlohmann::json::parse(slurp(metrics));
  nlohmann::json ref = reference()[name];
  EXPECT_LT(rel(line["eval"]["loss"], ref["eval_loss"]), 1e-5) << line.dump();
  EXPECT_DOUBLE_EQ(line["eval"]["accuracy"].get<double>(), ref["eval_accuracy"].get<double>());
}

INSTANTIATE_TEST_SUITE_P(All, Examples, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt"));

// With PyTorch's final weights, the digits models reach the oracle's last
// validation loss and exactly its number of correct predictions.
// `mlc convert`: JSON -> the model language is the shipped .mlc (less its
// leading comments), and back gives a model file that trains identically.
TEST_P(Examples, ConvertGivesTheShippedModelLanguageFile) {
  RunResult to_mlc = mlc("convert examples/" + GetParam() + ".json");
  ASSERT_EQ(to_mlc.status, 0) << to_mlc.err;
  std::string shipped = slurp("examples/" + GetParam() + ".mlc");
  while (shipped.rfind("#", 0) == 0) shipped.erase(0, shipped.find('\n') + 1);
  EXPECT_EQ(to_mlc.out, shipped);
  std::string json = temp_path(GetParam() + ".json");
  RunResult back = mlc("convert examples/" + GetParam() + ".mlc -o " + json);
  ASSERT_EQ(back.status, 0) << back.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(json)),
            nlohmann::json::parse(slurp("examples/" + GetParam() + ".json")));
}

TEST(Convert, Mistakes) {
  RunResult ext = mlc("convert examples/digits_mlp.json -o model.txt");
  EXPECT_EQ(ext.status, 2);
  EXPECT_EQ(ext.err, "mlc: error: -o model.txt: the output's name must end in .mlc or .json (it names the form)\n");
  RunResult bad = mlc("convert tests/frontends/data/bad/dsl_nn_prefix.mlc");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err, slurp("tests/frontends/data/bad/dsl_nn_prefix.mlc.expected"));
  EXPECT_EQ(bad.out, "");
}

TEST(Eval, TrainedDigitsMatchOracle) {
  for (std::string name : {"digits_mlp", "digits_cnn"}) {
    std::string metrics = temp_path(name + "_final.jsonl");
    std::filesystem::remove(metrics);
    RunResult r = mlc("run examples/" + name + ".json --eval --init tests/data/oracle/" + name +
                      "/final.safetensors --metrics " + metrics);
    ASSERT_EQ(r.status, 0) << r.err;
    auto oracle = nlohmann::json::parse(slurp("tests/data/oracle/" + name + "/losses.json"))["eval"];
    auto line = nlohmann::json::parse(slurp(metrics))["eval"];
    EXPECT_LT(rel(line["loss"], oracle["val_loss"].back()), 1e-5) << name;
    EXPECT_DOUBLE_EQ(line["accuracy"].get<double>(), oracle["val_acc"].back().get<double>()) << name;
    EXPECT_NE(r.out.find("accuracy"), std::string::npos);
  }
}

TEST(Errors, UsageAndInputErrors) {
  RunResult none = mlc("");
  EXPECT_EQ(none.status, 2);
  RunResult unknown = mlc("frobnicate");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos);
  RunResult bad_opt = mlc("ir examples/digits_cnn.json --bogus");
  EXPECT_EQ(bad_opt.status, 2);
  EXPECT_NE(bad_opt.err.find("unknown option --bogus"), std::string::npos);
  RunResult missing = mlc("ir no/such/model.json");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "no/such/model.json: error: cannot open: No such file or directory\n");
  RunResult bad_pass = mlc("ir examples/digits_cnn.json --after nope");
  EXPECT_EQ(bad_pass.status, 1);
  EXPECT_EQ(bad_pass.err, "error: no pass 'nope' in the pipeline (autocast, autodiff, optimizer, decompose, canonicalize, sharding)\n");
}

// `mlc help` lists every command; `mlc help X` and `mlc X --help` print the
// same text, which explains every flag X accepts (X parses its arguments
// with the same table, so a flag cannot be accepted undocumented); a flag
// the table lacks is a usage error.
TEST(Help, EveryCommandAndEveryFlagIsExplained) {
  RunResult overview = mlc("help");
  EXPECT_EQ(overview.status, 0);
  EXPECT_EQ(mlc("--help").out, overview.out);
  // The commands, as the overview lists them: "  NAME OPERANDS   summary".
  std::vector<std::string> commands;
  {
    std::istringstream lines(overview.out.substr(overview.out.find("commands:\n") + 10));
    for (std::string line; std::getline(lines, line) && line.rfind("  ", 0) == 0;)
      commands.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  EXPECT_EQ(commands, (std::vector<std::string>{"run", "compile", "plan", "ir", "opt", "convert", "predict", "generate",
                                                "report", "data", "check-grad", "help", "version"}));
  for (const std::string& name : commands) {
    SCOPED_TRACE(name);
    RunResult help = mlc("help " + name);
    EXPECT_EQ(help.status, 0);
    EXPECT_EQ(help.err, "");
    if (name != "help" && name != "version") EXPECT_EQ(mlc(name + " --help").out, help.out);
    // Each flag's line: "  --NAME [VALUE]   explanation" (the explanation on
    // the next line when the flag is wide): an explanation, not a placeholder.
    std::istringstream lines(help.out);
    std::vector<std::string> all;
    for (std::string line; std::getline(lines, line);) all.push_back(line);
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].rfind("  --", 0) != 0) continue;
      const size_t gap = all[i].find("   ", 4);
      std::string text = gap == std::string::npos ? "" : all[i].substr(all[i].find_first_not_of(' ', gap));
      if (text.empty() && i + 1 < all.size()) text = all[i + 1].substr(all[i + 1].find_first_not_of(' '));
      EXPECT_GT(text.size(), 20u) << all[i];
    }
  }
  RunResult none = mlc("help frobnicate");
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.err, "mlc: error: help: no command 'frobnicate' (commands: run, compile, plan, ir, opt, convert, predict, "
                      "generate, report, data, check-grad, help, version)\n");
  RunResult version = mlc("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.rfind("mlc 0.", 0), 0u) << version.out;
  EXPECT_EQ(mlc("version").out, version.out);
}

// `mlc --version` lists the targets, one line each, with what this machine
// has of each: the probes' own phrases (runtime/target.h availability,
// compiler/gpu/nvrtc.h), whichever this machine gives.
TEST(Help, VersionListsTheTargetsAndWhatRunsHere) {
  RunResult version = mlc("--version");
  ASSERT_EQ(version.status, 0);
  std::vector<std::string> lines;
  std::istringstream in(version.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << version.out;
  EXPECT_EQ(lines[1], "targets:");
  EXPECT_EQ(lines[2], "  cpu-x86_64");
  EXPECT_TRUE(lines[3] == "  host-gpu (not in this build)" || lines[3] == "  host-gpu (no OpenCL device)" ||
              lines[3].rfind("  host-gpu (OpenCL: ", 0) == 0)
      << lines[3];
  EXPECT_EQ(lines[4].rfind("  cuda (NVRTC ", 0), 0u) << lines[4];
  const bool nvrtc = lines[4].find(" for compiling: found; ") != std::string::npos;
  EXPECT_TRUE(nvrtc || lines[4].rfind("  cuda (NVRTC for compiling: not found; ", 0) == 0) << lines[4];
  EXPECT_TRUE(lines[4].ends_with("; driver: none)") || lines[4].find("; driver: CUDA ") != std::string::npos)
      << lines[4];

  // Without NVRTC (MLC_NVRTC names no library: nothing else is tried).
  RunResult without = mlc::testing::run_mlc("--version", "MLC_NVRTC=/nonexistent");
  ASSERT_EQ(without.status, 0);
  EXPECT_NE(without.out.find("\n  cuda (NVRTC for compiling: not found; driver: "), std::string::npos) << without.out;
}

// `mlc help opt` lists each pass's options from the pass's own table.
TEST(Help, OptListsEachPassesOptionTable) {
  RunResult help = mlc("help opt");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("passes and their options (NAME{option=value,...}):\n"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("\n  sharding        zero=0..3 (default 0): ZeRO stage over the last data axis"),
            std::string::npos)
      << help.out;
  EXPECT_NE(help.out.find("\n  canonicalize    max-rounds=1..1024 (default 16): "), std::string::npos) << help.out;
}

// Mistakes are found before training, not when the run's end writes a file.
TEST(Errors, OutputMistakesAreCaughtBeforeTraining) {
  RunResult every = mlc("run examples/digits_mlp.json --steps 1 --checkpoint-every 5");
  EXPECT_EQ(every.status, 2);
  EXPECT_EQ(every.err, "mlc: error: --checkpoint-every needs --checkpoint-dir DIR (where the checkpoints go)\n");
  RunResult save = mlc("run examples/digits_mlp.json --steps 1 --save no-such-dir/final.safetensors");
  EXPECT_EQ(save.status, 1);
  EXPECT_EQ(save.err, "no-such-dir/final.safetensors: error: --save: directory 'no-such-dir' does not exist\n");
  EXPECT_EQ(save.out, "");  // nothing trained
  RunResult eval = mlc("run examples/digits_mlp.json --eval");
  EXPECT_EQ(eval.status, 2);
  EXPECT_EQ(eval.err,
            "mlc: error: --eval evaluates given parameters: pass --init F.safetensors (what --save or a "
            "checkpoint wrote), or --init seed for the initialization train.seed draws\n");
  RunResult seeded = mlc("run examples/digits_mlp.json --eval --init seed");
  EXPECT_EQ(seeded.status, 0) << seeded.err;
  EXPECT_EQ(seeded.out.rfind("eval: loss 2.31", 0), 0u) << seeded.out;
}

// Every file and directory a command writes is checked before any work
// (runtime/output_path.h): an existing directory, a file where a directory
// should be, a missing directory, a directory where no file can be created.
// The error names the path, the flag and what is wrong, and nothing is
// trained, evaluated or compiled.
TEST(Errors, EveryOutputIsCheckedBeforeAnyWork) {
  const std::string dir = temp_path("outputs");
  std::filesystem::create_directories(dir + "/existing");
  std::ofstream(dir + "/base.mlc") << "name = m\n";
  const std::string run = "run examples/digits_mlp.json --steps 2 ";
  const std::string existing = dir + "/existing", file = dir + "/base.mlc";
  const std::pair<std::string, std::string> cases[] = {
      {run + "--save " + existing, existing + ": error: --save: '" + existing + "' is a directory: give a file name in it"},
      {run + "--save /tmp", "/tmp: error: --save: '/tmp' is a directory: give a file name in it"},
      {run + "--save out/", "out/: error: --save: 'out/' is a directory: give a file name in it"},
      {run + "--save " + file + "/p.safetensors",
       file + "/p.safetensors: error: --save: '" + file + "' is a file, not a directory"},
      {run + "--save " + file + "/a/p.safetensors",
       file + "/a/p.safetensors: error: --save: '" + file + "' is a file, not a directory"},
      {run + "--save " + dir + "/none/p.safetensors",
       dir + "/none/p.safetensors: error: --save: directory '" + dir + "/none' does not exist"},
      {run + "--save /proc/p.safetensors",
       "/proc/p.safetensors: error: --save: cannot create a file in directory '/proc': "},
      {run + "--metrics " + existing, existing + ": error: --metrics: '" + existing + "' is a directory: give a file name in it"},
      {run + "--dump-grads /proc/g.safetensors",
       "/proc/g.safetensors: error: --dump-grads: cannot create a file in directory '/proc': "},
      {run + "--profile=" + existing, existing + ": error: --profile: '" + existing + "' is a directory: give a file name in it"},
      {run + "--checkpoint-dir " + file, file + ": error: --checkpoint-dir: '" + file + "' is a file, not a directory"},
      {run + "--checkpoint-dir /proc/ckpt", "/proc/ckpt: error: --checkpoint-dir: cannot create a file in directory '/proc': "},
      {"run examples/digits_mlp.json --eval --init seed --metrics " + existing,
       existing + ": error: --metrics: '" + existing + "' is a directory: give a file name in it"},
      {"compile examples/digits_mlp.json -o " + dir + "/none/m.mlcx",
       dir + "/none/m.mlcx: error: --output: directory '" + dir + "/none' does not exist"},
      {"compile examples/digits_mlp.json --target host-gpu --emit-source " + file + " -o " + dir + "/m.mlcx",
       file + ": error: --emit-source: '" + file + "' is a file, not a directory"},
      {"convert examples/digits_mlp.json -o " + file + "/m.json",
       file + "/m.json: error: --output: '" + file + "' is a file, not a directory"},
      {"report no-such-metrics.jsonl -o /proc/r.html", "/proc/r.html: error: --output: cannot create a file in directory '/proc': "},
      {"plan examples/digits_mlp.json --search --devices 2 -o " + existing,
       existing + ": error: --output: '" + existing + "' is a directory: give a file name in it"},
  };
  for (const auto& [args, err] : cases) {
    SCOPED_TRACE(args);
    RunResult r = mlc(args);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err.substr(0, err.size()), err) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // nothing ran
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/m.mlcx"));
}

// No steps to train is a mistake, whichever way it is asked for: --steps 0,
// --epochs 0 and the model file's steps = 0 each name the flag or field. One
// step is "1 step".
TEST(Errors, ZeroStepsAreAnError) {
  RunResult steps = mlc("run examples/digits_mlp.json --steps 0");
  EXPECT_EQ(steps.status, 2);
  EXPECT_EQ(steps.err, "mlc: error: --steps needs an integer >= 1, got '0'\n");
  EXPECT_EQ(steps.out, "");
  RunResult epochs = mlc("run examples/digits_mlp.json --epochs 0");
  EXPECT_EQ(epochs.status, 2);
  EXPECT_EQ(epochs.err, "mlc: error: --epochs needs an integer >= 1, got '0'\n");
  std::string text = slurp("examples/digits_mlp.mlc");
  text.replace(text.find("epochs = 3"), 10, "steps = 0");
  const std::string model = temp_path("zero_steps.mlc");
  std::ofstream(model) << text;
  RunResult field = mlc("run " + model + " --data examples/data/digits.safetensors");
  EXPECT_EQ(field.status, 1);
  EXPECT_EQ(field.err, model + ":28:13: error: 'steps': must be positive, found 0\n");
  RunResult one = mlc("run examples/digits_mlp.json --steps 1");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out.rfind("trained 1 step: final loss ", 0), 0u) << one.out;
}

// A data tensor that does not fit its input names the input's type (a
// per-example scalar is i64[N]); an artifact's data mapping has no position
// in a model file, and the message names none.
TEST(Errors, DataTensorsThatDoNotFit) {
  mlc::rt::Tensor images(mlc::DType::f32, {4, 1, 8, 8}), labels(mlc::DType::f32, {4});
  const std::string data = temp_path("f32_labels.safetensors");
  ASSERT_TRUE(mlc::rt::write_safetensors(data, {{"val_images", &images}, {"val_labels", &labels}}).ok());
  RunResult r = mlc("run examples/digits_mlp.json --eval --init seed --data " + data);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "examples/digits_mlp.json:20:38: error: " + data +
                       ": tensor 'val_labels' gives f32[4] but input 'y' needs i64[N]\n");
  const std::string artifact = temp_path("digits_mlp.mlcx"), images_only = temp_path("images.safetensors");
  ASSERT_EQ(mlc("compile examples/digits_mlp.json -o " + artifact).status, 0);
  ASSERT_TRUE(mlc::rt::write_safetensors(images_only, {{"val_images", &images}}).ok());
  r = mlc("run " + artifact + " --eval --init seed --data " + images_only);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, images_only + ": error: no tensor 'val_labels' (the file has: val_images) (mapped to input 'y')\n");
}

// Under mpirun the process count must be the mesh's rank count: a usage
// error, found before MPI starts.
TEST(Errors, ProcessCountThatIsNotTheMeshs) {
  RunResult r = mlc::testing::run_mlc("run examples/digits_mlp.json --mesh dp=4 --steps 1", "OMPI_COMM_WORLD_SIZE=2");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "mlc: error: mpirun started 2 processes but mesh dp=4 has 4 ranks: start one process per rank "
                   "(-np 4)\n");
}

TEST(Errors, InitFileMustMatchTheModel) {
  RunResult r = mlc("run examples/digits_mlp.json --eval --init tests/data/oracle/digits_cnn/init.safetensors");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "tests/data/oracle/digits_cnn/init.safetensors: error: parameters do not match the model:\n"
            "  missing: fc1.weight f32[128,64], fc1.bias f32[128], fc2.weight f32[10,128], fc2.bias f32[10]\n"
            "  not in the model: conv1.weight, conv1.bias, conv2.weight, conv2.bias, fc.weight, fc.bias\n");
}

TEST(Errors, DataFileMustHoldTheMappedTensors) {
  RunResult r = mlc("run examples/digits_cnn.json --eval --init seed --data tests/data/oracle/digits_cnn/init.safetensors");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("tests/data/oracle/digits_cnn/init.safetensors: error: no tensor 'val_images'"),
            std::string::npos)
      << r.err;
  RunResult missing = mlc("run examples/digits_cnn.json --eval --init seed --data nowhere.safetensors");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "nowhere.safetensors: error: cannot open: No such file or directory\n");
}

TEST(Errors, OptReportsParseErrorsWithLocation) {
  std::string file = temp_path("bad.mlir");
  std::ofstream(file) << "module @m {\n  func @f(%x: f32[2] {input}) -> (f32[2]) {\n    %0 = frob(%x) : f32[2]\n";
  RunResult r = mlc("opt " + file);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(file + ":3:10: error: unknown op 'frob'"), std::string::npos) << r.err;
}

// Regression: a model input named "step" collided with the train step's
// counter; `mlc ir --after optimizer` printed IR that `mlc opt` rejected and
// `mlc run` failed. The counter is now the {step} argument, bound by kind.
TEST(Errors, AnInputNamedStepDoesNotCollideWithTheStepCounter) {
  std::string text = slurp("examples/digits_mlp.json");
  for (auto [from, to] : {std::pair<std::string, std::string>{"\"x\": {\"dtype\"", "\"step\": {\"dtype\""},
                          {"\"inputs\": [\"x\"]", "\"inputs\": [\"step\"]"},
                          {"{\"x\": \"train_images\"", "{\"step\": \"train_images\""},
                          {"{\"x\": \"val_images\"", "{\"step\": \"val_images\""},
                          {"data/digits.safetensors", MLC_SOURCE_DIR "/examples/data/digits.safetensors"}}) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  std::string dir = temp_path("step_model");
  std::filesystem::create_directories(dir);
  std::string model = dir + "/step.json";
  std::ofstream(model) << text;
  RunResult ir = mlc("ir " + model + " --after optimizer");
  ASSERT_EQ(ir.status, 0) << ir.err;
  EXPECT_NE(ir.out.find("%step: f32[32,1,8,8] {input}"), std::string::npos);
  EXPECT_NE(ir.out.find("%step_1: i64[] {step}"), std::string::npos);
  std::string printed = temp_path("step.mlir");
  std::ofstream(printed) << ir.out;
  RunResult opt = mlc("opt " + printed);
  ASSERT_EQ(opt.status, 0) << opt.err;
  EXPECT_EQ(opt.out, ir.out);
  RunResult run = mlc("run " + model + " --steps 2");
  EXPECT_EQ(run.status, 0) << run.err;
}

// `mlc ir --after=all` prints every stage; each is the module `--after STAGE`
// prints, and `mlc opt` re-prints it identically. `--timings` lists each pass.
TEST(Ir, AfterAllPrintsEveryStage) {
  RunResult all = mlc("ir examples/digits_cnn.json --after all --timings");
  ASSERT_EQ(all.status, 0) << all.err;
  const std::vector<std::string> stages = {"frontend", "autodiff", "optimizer", "decompose",
                                           "canonicalize", "fusion"};
  size_t at = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    std::string header = "// ---- after " + stages[i] + "\n";
    ASSERT_EQ(all.out.compare(at, header.size(), header), 0) << stages[i];
    size_t begin = at + header.size();
    size_t end = i + 1 < stages.size() ? all.out.find("// ---- after " + stages[i + 1], begin)
                                       : all.out.size();
    ASSERT_NE(end, std::string::npos);
    std::string stage = all.out.substr(begin, end - begin);
    RunResult one = mlc("ir examples/digits_cnn.json" +
                        (i == 0 ? std::string() : " --after " + stages[i]));
    EXPECT_EQ(stage, one.out) << stages[i];
    std::string file = temp_path("stage.mlir");
    std::ofstream(file) << stage;
    RunResult opt = mlc("opt " + file);
    EXPECT_EQ(opt.status, 0) << opt.err;
    EXPECT_EQ(opt.out, stage) << stages[i];
    at = end;
  }
  EXPECT_EQ(all.err.rfind("pass times (ms):\n", 0), 0u) << all.err;
  // Every pass is timed; fusion (outlining the kernels, last) is not a pass of the pipeline.
  for (size_t i = 1; i + 1 < stages.size(); ++i)
    EXPECT_NE(all.err.find("\n  " + stages[i] + " "), std::string::npos) << all.err;
  EXPECT_NE(all.err.find("\n  total "), std::string::npos);
  RunResult alone = mlc("ir examples/digits_cnn.json --timings");
  EXPECT_EQ(alone.status, 2);
  EXPECT_EQ(alone.err, "mlc: error: --timings times the passes, so it needs --after PASS|all\n");
}

}  // namespace
