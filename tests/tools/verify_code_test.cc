// `mlc run X.mlcx --verify-code` (driver/verify_code.h) end to end: every
// example's artifact, and a mesh-compiled one, verifies and trains exactly as
// without it; an artifact whose code is not what its kernel IR compiles to,
// or whose kernel IR reads outside its buffers, is refused before any of it
// is linked, naming the object and what differed. Also the checks of every
// run (runtime/kernel_imports.h): a manifest naming `abort` as a symbol, and
// an object that does not define its symbol.
#include "driver/verify_code.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "compiler/cpu/llvm_jit.h"
#include "compiler/kernel_ir_json.h"
#include "runtime/artifact.h"
#include "tests/tools/run_mlc.h"

namespace {

using Json = nlohmann::ordered_json;
using mlc::testing::RunResult;
using mlc::testing::slurp;

std::string scratch(const std::string& name) {
  return (mlc::testing::scratch_dir("mlc_verify_code_test") / name).string();
}

RunResult mlc(const std::string& args) { return mlc::testing::run_mlc(args); }

const char kNote[] = " kernel objects against their kernel IR\n";

struct VerifyCase {
  const char* model;
  const char* flags;
};

class VerifiedExample : public ::testing::TestWithParam<VerifyCase> {};

// The losses of two steps and the evaluation are those of the unverified run.
TEST_P(VerifiedExample, VerifiesAndTrainsAsWithout) {
  const VerifyCase c = GetParam();
  const std::string name = std::string(c.model) + (*c.flags ? "_mesh" : ""), artifact = scratch(name + ".mlcx");
  RunResult compiled = mlc("compile examples/" + std::string(c.model) + ".json " + c.flags + " -o " + artifact);
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  auto a = mlc::rt::read_artifact(artifact);
  ASSERT_TRUE(a.ok()) << a.error().message;
  std::string metrics[2];
  for (int verify = 0; verify < 2; ++verify) {
    metrics[verify] = scratch(name + "." + std::to_string(verify) + ".jsonl");
    std::remove(metrics[verify].c_str());
    RunResult r = mlc("run " + artifact + " --steps 2 --metrics " + metrics[verify] + (verify ? " --verify-code" : ""));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string note = "verified the code of " + std::to_string(a->code->objects.size()) + kNote;
    EXPECT_EQ(r.err.find(note) != std::string::npos, verify == 1) << r.err;
  }
  EXPECT_NE(slurp(metrics[0]).find("\"loss\""), std::string::npos);
  EXPECT_EQ(slurp(metrics[1]), slurp(metrics[0]));
}

INSTANTIATE_TEST_SUITE_P(All, VerifiedExample,
                         ::testing::Values(VerifyCase{"digits_mlp", ""}, VerifyCase{"digits_cnn", ""},
                                           VerifyCase{"tiny_gpt", ""}, VerifyCase{"digits_mlp", "--mesh dp=2"}),
                         [](const ::testing::TestParamInfo<VerifyCase>& info) {
                           return std::string(info.param.model) + (*info.param.flags ? "_dp2" : "");
                         });

// digits_mlp's artifact, compiled once for the suite, and edits of it.
class VerifyCodeCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RunResult r = mlc("compile examples/digits_mlp.json -o " + artifact());
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static std::string artifact() { return scratch("suite_digits_mlp.mlcx"); }
  static mlc::rt::Artifact read() {
    auto a = mlc::rt::read_artifact(artifact());
    EXPECT_TRUE(a.ok()) << a.error().message;
    return a.ok() ? std::move(*a) : mlc::rt::Artifact{};
  }

  // The artifact edited (manifest and blobs, the checksums made right), as NAME.mlcx.
  static std::string edited(const std::string& name, const std::function<void(Json&, std::string&)>& edit) {
    const std::string bytes = slurp(artifact());
    auto sections = mlc::rt::decode_container(bytes);
    EXPECT_TRUE(sections.ok());
    Json m = Json::parse(sections->manifest);
    std::string blobs(sections->blobs);
    edit(m, blobs);
    const std::string path = scratch(name + ".mlcx");
    const std::string out = mlc::rt::encode_container(m.dump(1), blobs);
    std::ofstream(path, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
    return path;
  }
  static std::string blob(const Json& range, const std::string& blobs) {
    return blobs.substr(range["offset"].get<size_t>(), range["size"].get<size_t>());
  }
  // Appends `bytes` to the blobs and points `range` at them.
  static void replace_blob(Json& range, std::string& blobs, const std::string& bytes) {
    range["offset"] = blobs.size();
    range["size"] = bytes.size();
    blobs += bytes;
  }
  // Object 0's kernel IR, edited, in place of its own.
  static std::string with_source(const std::string& name, const std::function<void(Json&)>& edit) {
    return edited(name, [&](Json& m, std::string& blobs) {
      Json source = Json::parse(blob(m["objects"][0]["source"], blobs));
      edit(source);
      replace_blob(m["objects"][0]["source"], blobs, source.dump());
    });
  }
  static RunResult verify(const std::string& path) { return mlc("run " + path + " --verify-code --steps 1"); }
  static std::string symbol0() { return read().code->objects[0].symbol; }
};

// Object 0's bytes replaced by object 1's: not the code of object 0's kernel
// IR; and without --verify-code the linker finds that it does not define its
// symbol.
TEST_F(VerifyCodeCli, RefusesAnObjectReplacedByAnother) {
  const mlc::rt::Artifact a = read();
  const std::string& mine = a.code->objects[0].bytes;
  const std::string& other = a.code->objects[1].bytes;
  const std::string path = edited("swapped", [&](Json& m, std::string& blobs) {
    replace_blob(m["objects"][0], blobs, blob(m["objects"][1], blobs));
  });
  size_t first = 0;
  while (first < mine.size() && first < other.size() && mine[first] == other[first]) ++first;
  RunResult r = verify(path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: kernel object '" + symbol0() + "' is not the code its kernel IR compiles to: " +
                       std::to_string(other.size()) + " bytes against " + std::to_string(mine.size()) +
                       ", the first difference at byte " + std::to_string(first) + "\n");
  RunResult unverified = mlc("run " + path + " --steps 1");
  EXPECT_EQ(unverified.status, 1);
  EXPECT_EQ(unverified.err, path + ": error: kernel object '" + symbol0() + "' does not define its symbol\n");
}

// Object 0's kernel IR with one load moved to a constant index far outside
// its input (an expression prepended, the others renumbered).
TEST_F(VerifyCodeCli, RefusesKernelIrThatLoadsOutsideItsBuffer) {
  int load = -1;
  int64_t param = 0;
  const std::string path = with_source("load_out_of_bounds", [&](Json& k) {
    Json exprs = Json::array({{{"kind", "iconst"}, {"i", 1000000}}});
    for (Json e : k["exprs"]) {
      for (const char* x : {"a", "b", "c"})
        if (e.contains(x)) e[x] = e[x].get<int>() + 1;
      if (load < 0 && e["kind"] == "load") {
        load = static_cast<int>(exprs.size());
        e["a"] = 0;
        param = e.value("i", int64_t{0});
      }
      exprs.push_back(e);
    }
    k["exprs"] = exprs;
    k["root"] = k["root"].get<int>() + 1;
    for (Json& r : k["more_roots"]) r = r.get<int>() + 1;
  });
  ASSERT_GE(load, 0);
  // The first kernel that runs object 0.
  const mlc::rt::Artifact a = read();
  std::string as;
  for (const mlc::rt::CompiledFunction& f : a.functions)
    for (const mlc::rt::KernelInfo& k : f.executable->kernels)
      if (k.object == 0 && as.empty()) {
        const mlc::TensorType& input = k.types[static_cast<size_t>(param)];
        as = "kernel '" + k.name + "' of @" + f.name + " (batch " + std::to_string(f.batch) + "): kernel IR e" +
             std::to_string(load) + " (load): reads input " + std::to_string(param) + " (" + input.str() + ", " +
             std::to_string(input.num_elements()) + " elements) at e0, which takes values in [1000000, 1000000]";
      }
  RunResult r = verify(path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: kernel object '" + symbol0() + "', as " + as + "\n");
}

// Kernel IR edited (an unused expression appended): another kernel, whose
// name is not the object's; renamed as well, its code is not the object's.
TEST_F(VerifyCodeCli, RefusesKernelIrThatNoLongerMatchesTheObject) {
  std::string source;
  const std::string path = with_source("ir_edited", [&](Json& k) {
    k["exprs"].push_back({{"kind", "iconst"}, {"i", 7}});
    source = k.dump();
  });
  auto kernel = mlc::kir::kernel_from_json(source);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const std::string renamed = mlc::kir::kernel_symbol(*kernel);
  RunResult r = verify(path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: kernel object '" + symbol0() + "': its kernel IR compiles to the symbol '" +
                       renamed + "'\n");

  const std::string both = edited("ir_edited_renamed", [&](Json& m, std::string& blobs) {
    replace_blob(m["objects"][0]["source"], blobs, source);
    m["objects"][0]["symbol"] = renamed;
  });
  const mlc::rt::Artifact a = read();
  kernel->name = renamed;
  mlc::CompileOptions options;
  options.target = mlc::CodeTarget{a.code->arch, a.code->features};
  auto want = mlc::compile_named_kernels({*kernel}, options);
  ASSERT_TRUE(want.ok()) << want.error().message;
  const std::string& got = a.code->objects[0].bytes;
  size_t first = 0;
  while (first < got.size() && first < (*want)[0].size() && got[first] == (*want)[0][first]) ++first;
  RunResult renamed_run = verify(both);
  EXPECT_EQ(renamed_run.status, 1);
  EXPECT_EQ(renamed_run.err, both + ": error: kernel object '" + renamed + "' is not the code its kernel IR compiles to: " +
                                 std::to_string(got.size()) + " bytes against " + std::to_string((*want)[0].size()) +
                                 ", the first difference at byte " + std::to_string(first) + "\n");
}

TEST_F(VerifyCodeCli, RefusesAnObjectWithoutKernelIr) {
  const std::string path = edited("no_source", [](Json& m, std::string&) { m["objects"][0]["source"]["size"] = 0; });
  RunResult r = verify(path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: kernel object '" + symbol0() + "' carries no kernel IR\n");
  // Not JSON: the parser's message.
  const std::string garbled = edited("garbled_source", [](Json& m, std::string& blobs) {
    replace_blob(m["objects"][0]["source"], blobs, "[1]");
  });
  RunResult g = verify(garbled);
  EXPECT_EQ(g.err, garbled + ": error: kernel object '" + symbol0() + "': kernel IR: expected an object, found [1]\n");
}

// Verification compiles as the compiling mlc did: another code generator or
// mlc version is refused (the reader already refuses another mlc version).
TEST_F(VerifyCodeCli, NeedsTheMlcThatCompiledTheArtifact) {
  const std::string path = edited("other_generator", [](Json& m, std::string&) {
    m["target"]["generator"] = "LLVM 0.0, mlc-llvm-emitter 0";
  });
  RunResult r = verify(path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: the artifact's code was generated by LLVM 0.0, mlc-llvm-emitter 0: verifying it "
                          "needs the mlc version that compiled it (this mlc generates code with " +
                       mlc::code_generator() + ")\n");
  mlc::rt::Artifact a = read();
  a.mlc_version = "0.6.0";
  auto verified = mlc::verify_artifact_code(a);
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.error().message, "the artifact was compiled by mlc 0.6.0: verifying its code needs that mlc (this is mlc " +
                                          std::string(mlc::rt::mlc_version()) + ")");
}

TEST_F(VerifyCodeCli, AppliesToArtifactsOnly) {
  RunResult r = mlc("run examples/digits_mlp.json --verify-code --steps 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "mlc: error: --verify-code applies to artifacts (MODEL.mlcx); a model file is compiled now, by this mlc\n");
}

// Without --verify-code too: a manifest naming a function of the process as
// an object's symbol (abort would be called as a kernel) is refused by the
// reader.
TEST_F(VerifyCodeCli, EveryRunRefusesASymbolThatIsNotAKernelName) {
  const std::string path = edited("abort", [](Json& m, std::string&) { m["objects"][0]["symbol"] = "abort"; });
  RunResult r = mlc("run " + path + " --steps 1");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: manifest field 'objects[0].symbol': expected a kernel's name (mlc_kernel_ and 16 "
                          "lowercase hex digits), found \"abort\"\n");
}

}  // namespace
