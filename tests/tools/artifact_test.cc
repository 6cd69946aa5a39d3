// `mlc compile` and `mlc run MODEL.mlcx` end to end: an artifact trains and
// evaluates exactly as its model file does (per-step losses, evaluations and
// final parameters byte for byte, on one thread and on two), compiling is
// deterministic, and the CLI's usage errors, input errors and corrupt
// artifacts end with their exact diagnostics. The reader's checks one by one,
// on a hand-built artifact, are tests/runtime/artifact_test.cc.
#include "runtime/artifact.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "runtime/cpu/native_code.h"
#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using mlc::testing::RunResult;
using mlc::testing::slurp;

std::string scratch(const std::string& name) {
  return (mlc::testing::scratch_dir("mlc_artifact_cli_test") / name).string();
}

RunResult mlc(const std::string& args, const std::string& env = "") { return mlc::testing::run_mlc(args, env); }

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The summary line without its timing ("trained N steps: final loss L").
std::string without_timing(const std::string& out) { return out.substr(0, out.find(", median step")); }

// ---------------------------------------------------------------- examples

class CompiledExample : public ::testing::TestWithParam<std::string> {};

// Each example trained from its artifact: the metrics file (every step's
// loss, every evaluation) and the saved parameters are the model file's, byte
// for byte, with one thread and with two (MLC_THREADS splits kernels and
// GEMMs; each thread count is deterministic). Whole runs: every epoch, every
// evaluation (the CNN's five epochs take about 0.3 s with warm kernels).
TEST_P(CompiledExample, TrainsExactlyAsTheModelFile) {
  const std::string name = GetParam(), model = "examples/" + name + ".json", artifact = scratch(name + ".mlcx");
  RunResult compiled = mlc("compile " + model + " -o " + artifact);
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  EXPECT_EQ(compiled.out.rfind("wrote " + artifact + ": ", 0), 0u) << compiled.out;
  for (const char* threads : {"1", "2"}) {
    SCOPED_TRACE(std::string("MLC_THREADS=") + threads);
    const std::string env = std::string("MLC_THREADS=") + threads;
    std::string metrics[2], saved[2], out[2];
    const std::string inputs[2] = {model, artifact};
    for (int k = 0; k < 2; ++k) {
      metrics[k] = scratch(name + "." + threads + "." + std::to_string(k) + ".jsonl");
      saved[k] = scratch(name + "." + threads + "." + std::to_string(k) + ".safetensors");
      fs::remove(metrics[k]);
      RunResult r = mlc("run " + inputs[k] + " --metrics " + metrics[k] + " --save " + saved[k], env);
      ASSERT_EQ(r.status, 0) << inputs[k] << ": " << r.err;
      out[k] = without_timing(r.out);
    }
    const std::string losses = slurp(metrics[0]);
    EXPECT_NE(losses.find("\"loss\""), std::string::npos);
    EXPECT_NE(losses.find("\"eval\""), std::string::npos);
    EXPECT_EQ(slurp(metrics[1]), losses);
    EXPECT_GT(slurp(saved[0]).size(), 1000u);
    EXPECT_TRUE(slurp(saved[1]) == slurp(saved[0])) << "the saved parameters differ";
    EXPECT_EQ(out[1], out[0]);
  }
}

// An artifact keeps the seeded initialization's draw order and copies
// (ParamInfo::draw_index, ParamInit::same_as: MultiheadAttention's out_proj
// first, TransformerEncoder's layers copies of one): its run from seed 0 is
// the model file's, byte for byte.
TEST(CompiledInit, AnArtifactDrawsTheModelFilesInitialization) {
  const std::string model = "tests/data/oracle/attention/encoder_stack.json", artifact = scratch("encoder_stack.mlcx");
  RunResult compiled = mlc("compile " + model + " -o " + artifact);
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  std::string metrics[2], saved[2];
  const std::string inputs[2] = {model, artifact};
  for (int k = 0; k < 2; ++k) {
    metrics[k] = scratch("encoder_stack." + std::to_string(k) + ".jsonl");
    saved[k] = scratch("encoder_stack." + std::to_string(k) + ".safetensors");
    fs::remove(metrics[k]);
    RunResult r = mlc("run " + inputs[k] + " --steps 2 --metrics " + metrics[k] + " --save " + saved[k]);
    ASSERT_EQ(r.status, 0) << inputs[k] << ": " << r.err;
  }
  EXPECT_NE(slurp(metrics[0]).find("\"loss\""), std::string::npos);
  EXPECT_EQ(slurp(metrics[1]), slurp(metrics[0]));
  EXPECT_TRUE(slurp(saved[1]) == slurp(saved[0])) << "the saved parameters differ";
}

// --eval prints what the model file's --eval prints, at the seed's initial
// weights and at PyTorch's.
TEST_P(CompiledExample, EvaluatesExactlyAsTheModelFile) {
  const std::string name = GetParam(), model = "examples/" + name + ".json", artifact = scratch(name + ".eval.mlcx");
  ASSERT_EQ(mlc("compile " + model + " -o " + artifact).status, 0);
  for (const std::string& init : {std::string(" --init seed"), " --init tests/data/oracle/" + name + "/init.safetensors"}) {
    RunResult from_model = mlc("run " + model + " --eval" + init),
              from_artifact = mlc("run " + artifact + " --eval" + init);
    ASSERT_EQ(from_model.status, 0) << from_model.err;
    ASSERT_EQ(from_artifact.status, 0) << from_artifact.err;
    // "eval: loss ", or "eval (training data, no eval split): loss " for a model without an eval split.
    EXPECT_EQ(from_model.out.rfind("eval", 0), 0u) << from_model.out;
    EXPECT_NE(from_model.out.find(": loss "), std::string::npos) << from_model.out;
    EXPECT_EQ(from_artifact.out, from_model.out) << init;
  }
  // An artifact compiled for a mesh evaluates on its ranks, to the same figures.
  const std::string mesh_artifact = scratch(name + ".eval.dp2.mlcx");
  ASSERT_EQ(mlc("compile " + model + " --mesh dp=2 -o " + mesh_artifact).status, 0);
  RunResult on_mesh = mlc("run " + mesh_artifact + " --eval --init seed");
  ASSERT_EQ(on_mesh.status, 0) << on_mesh.err;
  EXPECT_EQ(on_mesh.out, mlc("run " + model + " --eval --init seed").out);
}

// The same model compiles to the same bytes: twice in a row (the second from
// the kernel cache) and without the cache (every kernel generated again).
TEST_P(CompiledExample, CompilesToTheSameBytesEveryTime) {
  const std::string model = "examples/" + GetParam() + ".json";
  const std::string a = scratch(GetParam() + ".1.mlcx"), b = scratch(GetParam() + ".2.mlcx"),
                    c = scratch(GetParam() + ".3.mlcx");
  ASSERT_EQ(mlc("compile " + model + " -o " + a).status, 0);
  ASSERT_EQ(mlc("compile " + model + " -o " + b).status, 0);
  ASSERT_EQ(mlc("compile " + model + " -o " + c, "MLC_CACHE_DIR=off").status, 0);
  const std::string bytes = slurp(a);
  EXPECT_GT(bytes.size(), 10000u);
  EXPECT_TRUE(slurp(b) == bytes) << "compiled again";
  EXPECT_TRUE(slurp(c) == bytes) << "compiled without the kernel cache";
}

INSTANTIATE_TEST_SUITE_P(All, CompiledExample, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// ---------------------------------------------------------------- diagnostics

// examples/digits_mlp.json compiled once for the suite: the valid artifact
// the diagnostics below run or damage.
class ArtifactCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RunResult r = mlc("compile examples/digits_mlp.json -o " + artifact());
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static std::string artifact() { return scratch("suite_digits_mlp.mlcx"); }
  static std::string valid() { return slurp(artifact()); }

  // The artifact with its manifest edited, written as NAME.mlcx; its path.
  static std::string with_manifest(const std::string& name, const std::function<void(Json&)>& edit) {
    return edited(valid(), name, edit);
  }
  // The artifact of `bytes` with its manifest edited, written as NAME.mlcx.
  static std::string edited(const std::string& bytes, const std::string& name, const std::function<void(Json&)>& edit) {
    auto sections = mlc::rt::decode_container(bytes);
    EXPECT_TRUE(sections.ok());
    Json m = Json::parse(sections->manifest);
    edit(m);
    const std::string path = scratch(name + ".mlcx");
    write_bytes(path, mlc::rt::encode_container(m.dump(1), sections->blobs));
    return path;
  }
  static std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = scratch(name + ".mlcx");
    write_bytes(path, bytes);
    return path;
  }
  // A model file: digits_mlp.json edited, its data file given by absolute path.
  static std::string model_without(const std::string& name, const std::string& key) {
    Json m = Json::parse(slurp("examples/digits_mlp.json"));
    m["data"]["file"] = std::string(MLC_SOURCE_DIR) + "/examples/data/digits.safetensors";
    m.erase(key);
    const std::string path = scratch(name + ".json");
    std::ofstream(path) << m.dump(1);
    return path;
  }
};

TEST_F(ArtifactCli, BackendWithAnArtifactIsAUsageError) {
  RunResult r = mlc("run " + artifact() + " --backend interp");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "mlc: error: --backend applies to model files; an artifact runs the code it was compiled to\n");
}

// --target cuda without an arch takes this machine's GPU's: without one it
// is an error that names the fix, and nothing is written
// (tests/tools/gpu_cli_test.cc compiles for cuda:sm_90).
TEST_F(ArtifactCli, CompileForCudaWithoutAGpuNamesTheArchToGive) {
  RunResult r = mlc("compile examples/digits_mlp.json --target cuda -o " + scratch("cuda.mlcx"));
  if (r.status == 0) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--target cuda:sm_90 (H100, H200) or cuda:sm_80 (A100)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(scratch("cuda.mlcx")));
}

TEST_F(ArtifactCli, OutputWithoutMlcxIsAUsageError) {
  RunResult r = mlc("compile examples/digits_mlp.json -o " + scratch("model.bin"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "mlc: error: -o " + scratch("model.bin") + ": an artifact's name ends in .mlcx\n");
  RunResult none = mlc("compile");
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.err,
            "mlc: error: usage: mlc compile MODEL.json|MODEL.mlc [flags]; `mlc help compile` explains them\n");
}

TEST_F(ArtifactCli, ModelWithoutTrainSection) {
  const std::string model = model_without("no_train", "train");
  RunResult r = mlc("compile " + model + " -o " + scratch("no_train.mlcx"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, model + ": error: the model file has no \"train\": {\"optimizer\": ...}\n");
  // The model language's file is told in its own words.
  const std::string mlc_model = scratch("no_train.mlc");
  ASSERT_EQ(mlc("convert " + model + " -o " + mlc_model).status, 0);
  r = mlc("compile " + mlc_model + " -o " + scratch("no_train.mlcx"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, mlc_model + ": error: the model file has no train: optimizer = ...\n");
}

TEST_F(ArtifactCli, MissingDataFile) {
  RunResult r = mlc("compile examples/digits_mlp.json --data nowhere.safetensors -o " + scratch("nowhere.mlcx"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "nowhere.safetensors: error: cannot open: No such file or directory\n");
  const std::string model = model_without("no_data", "data");
  RunResult none = mlc("compile " + model + " -o " + scratch("no_data.mlcx"));
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err, model + ": error: no data file to size the batches: give \"data\": {\"file\": ...} or --data\n");
  const std::string mlc_model = scratch("no_data.mlc");
  ASSERT_EQ(mlc("convert " + model + " -o " + mlc_model).status, 0);
  none = mlc("compile " + mlc_model + " -o " + scratch("no_data.mlcx"));
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err, mlc_model + ": error: no data file to size the batches: give data: file = ... or --data\n");
}

TEST_F(ArtifactCli, MissingArtifact) {
  RunResult r = mlc("run " + scratch("nothing_here.mlcx"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, scratch("nothing_here.mlcx") + ": error: cannot open: No such file or directory\n");
}

// Batch sizes are static: the artifact holds @eval for the 357 examples it
// was compiled for, and says so when the data's eval split has 100.
TEST_F(ArtifactCli, EvalSplitOfAnotherSize) {
  auto data = mlc::rt::read_safetensors("examples/data/digits.safetensors");
  ASSERT_TRUE(data.ok()) << data.error().message;
  std::vector<mlc::rt::Tensor> kept;
  std::vector<std::pair<std::string, const mlc::rt::Tensor*>> tensors;
  kept.reserve(4);
  for (const char* name : {"train_images", "train_labels", "val_images", "val_labels"}) {
    auto t = data->get(name);
    ASSERT_TRUE(t.ok()) << t.error().message;
    mlc::Shape shape = (*t)->shape();
    if (std::strncmp(name, "val", 3) == 0) shape[0] = 100;
    kept.emplace_back((*t)->dtype(), shape);
    std::memcpy(kept.back().bytes(), (*t)->bytes(), static_cast<size_t>(kept.back().num_bytes()));
    tensors.emplace_back(name, &kept.back());
  }
  const std::string small = scratch("digits_val100.safetensors");
  ASSERT_TRUE(mlc::rt::write_safetensors(small, tensors).ok());
  const std::string message = artifact() +
                              ": error: the artifact has no @eval for batches of 100 (it has batches of 357); compile "
                              "the model for this data: mlc compile MODEL.json --data DATA.safetensors\n";
  RunResult eval = mlc("run " + artifact() + " --eval --init seed --data " + small);
  EXPECT_EQ(eval.status, 1);
  EXPECT_EQ(eval.err, message);
  RunResult train = mlc("run " + artifact() + " --steps 2 --data " + small);
  EXPECT_EQ(train.status, 1);
  ASSERT_NE(train.err.find(artifact()), std::string::npos) << train.err;
  EXPECT_EQ(train.err.substr(train.err.find(artifact())), message) << train.err;
  // Compiled for that data (which becomes the artifact's data file), it runs.
  const std::string resized = scratch("digits_val100.mlcx");
  ASSERT_EQ(mlc("compile examples/digits_mlp.json --data " + small + " -o " + resized).status, 0);
  RunResult ok = mlc("run " + resized + " --eval --init seed");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("/100)\n"), std::string::npos) << ok.out;
}

// A corrupt artifact given to `mlc run`: the reader's message, exit status 1.
TEST_F(ArtifactCli, RunReportsATruncatedArtifact) {
  const std::string path = write("truncated", valid().substr(0, 100));
  RunResult r = mlc("run " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, path + ": error: truncated: the section table ends at byte 104, the file has 100\n");
}

TEST_F(ArtifactCli, RunReportsADamagedBlob) {
  std::string bytes = valid();
  bytes[bytes.size() - 100] ^= 0x10;  // inside a kernel object
  const std::string path = write("damaged_blob", bytes);
  RunResult r = mlc("run " + path + " --eval --init seed");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: section 'blobs' checksum mismatch (the file is corrupt)\n");
}

TEST_F(ArtifactCli, RunReportsAnUnknownOptimizer) {
  const std::string path =
      with_manifest("unknown_optimizer", [](Json& m) { m["model"]["train"]["optimizer"]["type"] = "lion"; });
  RunResult r = mlc("run " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: manifest field 'model.train.optimizer.type': unknown optimizer \"lion\"\n");
}

TEST_F(ArtifactCli, RunReportsKernelRowsThatDoNotMatchTheirResult) {
  std::string type;
  const std::string path = with_manifest("kernel_rows", [&](Json& m) {
    Json& k = m["functions"][0]["executable"]["kernels"][0];
    const Json& result = k["types"].back();
    type = result["dtype"].get<std::string>() + "[";
    for (size_t d = 0; d < result["shape"].size(); ++d)
      type += (d ? "," : "") + std::to_string(result["shape"][d].get<int64_t>());
    type += "]";
    k["rows"] = k["rows"].get<int64_t>() + 1;
  });
  const Json m = Json::parse(mlc::rt::decode_container(valid())->manifest);
  const Json& k = m["functions"][0]["executable"]["kernels"][0];
  RunResult r = mlc("run " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: manifest field 'functions[0].executable.kernels[0]' (@train_step): rows " +
                       std::to_string(k["rows"].get<int64_t>() + 1) + " do not match its result " + type + "\n");
}

TEST_F(ArtifactCli, RunReportsAnArtifactWithoutFunctions) {
  const std::string path = with_manifest("no_functions", [](Json& m) { m["functions"] = Json::array(); });
  RunResult r = mlc("run " + path + " --eval --init seed");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: manifest field 'functions': the artifact has no functions\n");
}

// Code for a CPU feature this machine lacks is refused before it is linked.
TEST_F(ArtifactCli, RunRefusesCodeForAFeatureThisCpuLacks) {
  std::string cpu;
  const std::string path = with_manifest("imaginary_feature", [&](Json& m) {
    cpu = m["target"]["arch"].get<std::string>();
    m["target"]["features"] = m["target"]["features"].get<std::string>() + ",+mlc-imaginary-feature";
  });
  auto parsed = mlc::rt::read_artifact(path);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto linked = mlc::rt::load_artifact_code(*parsed);
  ASSERT_FALSE(linked.ok());
  const std::string message = "the kernels were compiled for CPU '" + cpu + "', whose features this CPU ('" +
                              mlc::rt::host_cpu() + "') lacks: mlc-imaginary-feature";
  EXPECT_EQ(linked.error().message, message);
  RunResult r = mlc("run " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: " + message + "\n");
}

// ---------------------------------------------------------------- meshes

struct MeshCase {
  const char* model;
  const char* flags;
};

class CompiledMeshExample : public ::testing::TestWithParam<MeshCase> {};

// `mlc compile --mesh` then `mlc run ART.mlcx` (on the artifact's mesh, ranks
// as threads): the metrics (every step's loss, the evaluation, whose examples
// beyond the even split run the unsharded @eval) and the saved parameters are
// those of `mlc run MODEL.json --mesh`, byte for byte.
TEST_P(CompiledMeshExample, TrainsExactlyAsTheModelFileOnTheMesh) {
  const MeshCase c = GetParam();
  const std::string model = "examples/" + std::string(c.model) + ".json",
                    artifact = scratch(std::string(c.model) + ".mesh.mlcx");
  RunResult compiled = mlc("compile " + model + " " + c.flags + " -o " + artifact);
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  EXPECT_NE(compiled.out.find(" on mesh "), std::string::npos) << compiled.out;
  std::string metrics[2], saved[2], out[2];
  const std::string runs[2] = {model + " " + c.flags, artifact};
  for (int k = 0; k < 2; ++k) {
    metrics[k] = scratch(std::string(c.model) + ".mesh." + std::to_string(k) + ".jsonl");
    saved[k] = scratch(std::string(c.model) + ".mesh." + std::to_string(k) + ".safetensors");
    fs::remove(metrics[k]);
    RunResult r = mlc("run " + runs[k] + " --steps 10 --metrics " + metrics[k] + " --save " + saved[k]);
    ASSERT_EQ(r.status, 0) << runs[k] << ": " << r.err;
    out[k] = without_timing(r.out);
  }
  const std::string losses = slurp(metrics[0]);
  EXPECT_NE(losses.find("\"eval\""), std::string::npos);
  EXPECT_EQ(slurp(metrics[1]), losses);
  EXPECT_TRUE(slurp(saved[1]) == slurp(saved[0])) << "the saved parameters differ";
  EXPECT_EQ(out[1], out[0]);
}

INSTANTIATE_TEST_SUITE_P(All, CompiledMeshExample,
                         ::testing::Values(MeshCase{"digits_mlp", "--mesh dp=2 --zero 1"},
                                           MeshCase{"tiny_gpt", "--mesh tp=2"}),
                         [](const ::testing::TestParamInfo<MeshCase>& info) { return std::string(info.param.model); });

// digits_mlp compiled for mesh dp=2, ZeRO 1: @train_step, @optimizer_init and
// @eval (356 = 2 x 178 examples) sharded, @eval for batches of 1 unsharded
// (the 357th example).
class MeshArtifactCli : public ArtifactCli {
 protected:
  static void SetUpTestSuite() {
    ArtifactCli::SetUpTestSuite();
    RunResult r = mlc("compile examples/digits_mlp.json --mesh dp=2 --zero 1 -o " + mesh_artifact());
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static std::string mesh_artifact() { return scratch("suite_digits_mlp_dp2.mlcx"); }
  static std::string mesh_edited(const std::string& name, const std::function<void(Json&)>& edit) {
    return edited(slurp(mesh_artifact()), name, edit);
  }
  // The error `mlc run` reports for the mesh artifact edited so.
  static std::string run_error(const std::string& name, const std::function<void(Json&)>& edit) {
    const std::string path = mesh_edited(name, edit);
    RunResult r = mlc("run " + path + " --steps 1");
    EXPECT_EQ(r.status, 1) << r.out;
    return r.err.substr(0, path.size()) == path ? r.err.substr(path.size()) : r.err;
  }
};

TEST_F(MeshArtifactCli, HoldsTheMeshAndTheShardedAndUnshardedFunctions) {
  auto a = mlc::rt::read_artifact(mesh_artifact());
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mesh.str(), "dp=2");
  EXPECT_EQ(a->zero, 1);
  std::vector<std::string> functions;
  for (const mlc::rt::CompiledFunction& f : a->functions)
    functions.push_back((f.sharded ? "sharded @" : "@") + f.name + " " + std::to_string(f.batch));
  EXPECT_EQ(functions, (std::vector<std::string>{"sharded @train_step 32", "sharded @optimizer_init 32",
                                                 "sharded @eval 356", "@eval 1"}));
  const mlc::rt::Executable& step = *a->functions[0].executable;
  ASSERT_FALSE(step.args.empty());
  EXPECT_EQ(step.args[0].name, "x");
  EXPECT_EQ(mlc::placements_str(step.args[0].placements), "<S(0)>");
  for (const mlc::rt::ArgSpec& arg : a->functions[3].executable->args) EXPECT_TRUE(arg.placements.empty());
}

TEST_F(MeshArtifactCli, RunsOnItsMeshOnly) {
  RunResult same = mlc("run " + mesh_artifact() + " --mesh dp=2 --zero 1 --steps 1");
  EXPECT_EQ(same.status, 0) << same.err;
  // --eval evaluates on the artifact's mesh, as the model file does on one device.
  RunResult eval = mlc("run " + mesh_artifact() + " --eval --init seed");
  EXPECT_EQ(eval.status, 0) << eval.err;
  EXPECT_EQ(eval.out, mlc("run examples/digits_mlp.json --eval --init seed").out);
  const std::pair<std::string, std::string> usage_errors[] = {
      {mesh_artifact() + " --mesh dp=4 --steps 1",
       "--mesh dp=4: " + mesh_artifact() + " was compiled for mesh dp=2: run it without --mesh, or compile the "
       "model for this mesh (mlc compile MODEL.json --mesh dp=4)"},
      {mesh_artifact() + " --mesh dp=2 --zero 3 --steps 1",
       "--zero 3: " + mesh_artifact() + " was compiled for ZeRO stage 1 on mesh dp=2: run it without --zero, or "
       "compile the model for this stage (mlc compile MODEL.json --mesh dp=2 --zero 3)"},
      {artifact() + " --mesh dp=2 --steps 1",
       "--mesh dp=2: " + artifact() + " was compiled for one device: run it without --mesh, or compile the model "
       "for this mesh (mlc compile MODEL.json --mesh dp=2)"},
  };
  for (const auto& [args, message] : usage_errors) {
    RunResult r = mlc("run " + args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.err, "mlc: error: " + message + "\n");
  }
}

TEST_F(MeshArtifactCli, ReportsBadMeshesAndPlacements) {
  const std::string args = "manifest field 'functions[0].executable.args[0].placements";
  EXPECT_EQ(run_error("placement_syntax",
                      [](Json& m) { m["functions"][0]["executable"]["args"][0]["placements"][0] = "S(x)"; }),
            ": error: " + args + "[0]': placement 'S(x)': expected 'R', 'S(dim)', 'P' or 'P(max)'\n");
  EXPECT_EQ(run_error("placement_count",
                      [](Json& m) { m["functions"][0]["executable"]["args"][0]["placements"] = {"S(0)", "R"}; }),
            ": error: " + args + "': 2 placements for a mesh of 1 axes (dp=2)\n");
  EXPECT_EQ(run_error("placement_dim",
                      [](Json& m) { m["functions"][0]["executable"]["args"][0]["placements"] = {"S(4)"}; }),
            ": error: " + args + "': placement S(4) on axis 'dp' names a dim out of range for rank 4\n");
  EXPECT_EQ(run_error("unsharded_placed",
                      [](Json& m) { m["functions"][3]["executable"]["args"][0]["placements"] = {"S(0)"}; }),
            ": error: manifest field 'functions[3].executable.args[0].placements': placements <S(0)> on an "
            "argument of an unsharded function\n");
  EXPECT_EQ(run_error("mesh_syntax", [](Json& m) { m["parallel"]["mesh"] = "dp="; }),
            ": error: manifest field 'parallel.mesh': mesh 'dp=': size of axis 'dp' must be a positive integer, "
            "found ''\n");
  EXPECT_EQ(run_error("zero_range", [](Json& m) { m["parallel"]["zero"] = 4; }),
            ": error: manifest field 'parallel.zero': expected an integer in [0, 3], found 4\n");
  EXPECT_EQ(run_error("no_mesh",
                      [](Json& m) {
                        m["parallel"]["mesh"] = "";
                        m["parallel"]["zero"] = 0;
                      }),
            ": error: manifest field 'functions[0]': is sharded, but the artifact has no mesh (parallel.mesh is "
            "\"\")\n");
}

}  // namespace
