// The artifact reader (runtime/artifact.h) on a hand-built artifact
// (tests/runtime/tiny_artifact.h, no compiler involved): a valid one reads
// back field for field, and every damage to its manifest is an Error
// "<path>: error: <what>" naming what is wrong, never a crash (its
// container's: artifact_container_test.cc). This
// suite needs only runtime/, so it also runs under ASan+UBSan
// (scripts/test.sh); tests/tools/artifact_test.cc covers compiled models.
#include "runtime/artifact.h"

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/cpu/native_code.h"
#include "tests/runtime/artifact_fixture.h"

namespace mlc::rt {
namespace {

// ---------------------------------------------------------------- valid

TEST_F(ArtifactTest, ValidArtifactReadsBackFieldForField) {
  auto a = read_artifact(path());
  ASSERT_TRUE(a.ok()) << a.error().message;
  const Artifact want = mlc::testing::tiny_artifact("");
  EXPECT_EQ(a->mlc_version, mlc_version());
  EXPECT_EQ(a->module_hash, want.module_hash);
  EXPECT_EQ(a->code->target, "cpu-x86_64");
  EXPECT_EQ(a->code->arch, want.code->arch);
  EXPECT_EQ(a->code->features, want.code->features);
  ASSERT_EQ(a->code->objects.size(), 1u);
  EXPECT_EQ(a->code->objects[0].symbol, "mlc_kernel_0123456789abcdef");
  EXPECT_EQ(a->code->objects[0].bytes, "not an object file");
  EXPECT_EQ(a->code->objects[0].source, "");
  EXPECT_EQ(a->code->generator, "");
  EXPECT_EQ(a->num_classes, std::nullopt);

  const ModelConfig& c = a->config;
  EXPECT_EQ(c.name, "tiny");
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].shape, (Shape{-1, 3}));
  EXPECT_EQ(c.inputs[0].batch_dim, 0);
  ASSERT_EQ(c.params.size(), 1u);
  EXPECT_EQ(c.params[0].type, (TensorType{DType::f32, {3, 2}}));
  EXPECT_EQ(c.params[0].init.kind, ParamInit::Kind::kaiming_uniform);
  EXPECT_EQ(c.params[0].init.fan_in, 3);
  EXPECT_EQ(c.loss_type, "mse");
  // The data file is stored relative to the artifact's folder and read back
  // relative to it.
  EXPECT_EQ(c.data.file, (fs::path(path()).parent_path() / "tiny.safetensors").string());
  ASSERT_EQ(c.data.eval.size(), 2u);
  ASSERT_EQ(c.data.eval[0].slices.size(), 2u);
  EXPECT_EQ(c.data.eval[0].slices[0].start, 8);
  EXPECT_EQ(c.data.eval[0].slices[0].stop, std::nullopt);
  EXPECT_EQ(c.data.eval[0].slices[1].stop, -1);
  EXPECT_EQ(c.train.batch_size, 4);
  EXPECT_EQ(c.train.seed, 7u);
  EXPECT_FALSE(c.train.drop_last);
  EXPECT_EQ(c.train.optimizer.type, "adam");
  EXPECT_EQ(c.train.optimizer.lr, 0.01);
  EXPECT_EQ(c.train.optimizer.schedule.type, "cosine");
  EXPECT_EQ(c.train.optimizer.schedule.total_steps, 10);

  ASSERT_EQ(a->functions.size(), 1u);
  EXPECT_EQ(a->find("eval", 4), &a->functions[0]);
  EXPECT_EQ(a->find("eval", 5), nullptr);
  const Executable& e = *a->functions[0].executable;
  const Executable& w = *want.functions[0].executable;
  EXPECT_EQ(e.function, "eval");
  EXPECT_EQ(e.arena_bytes, 384);
  ASSERT_EQ(e.slots.size(), w.slots.size());
  for (size_t s = 0; s < e.slots.size(); ++s) {
    EXPECT_EQ(e.slots[s].type, w.slots[s].type) << s;
    EXPECT_EQ(e.slots[s].arg, w.slots[s].arg) << s;
    EXPECT_EQ(e.slots[s].offset, w.slots[s].offset) << s;
  }
  ASSERT_EQ(e.args.size(), 2u);
  EXPECT_EQ(e.args[1].name, "w");
  EXPECT_EQ(e.args[1].kind, ArgKind::param);
  ASSERT_EQ(e.results.size(), 2u);
  EXPECT_EQ(e.results[1].updates, 1);
  ASSERT_EQ(e.constants.size(), 1u);
  EXPECT_EQ(e.constants[0].slot, 5);
  EXPECT_EQ(e.constants[0].bytes, w.constants[0].bytes);
  ASSERT_EQ(e.kernels.size(), 1u);
  EXPECT_EQ(e.kernels[0].object, 0);
  EXPECT_EQ(e.kernels[0].cpu.rows, 4);
  EXPECT_EQ(e.kernels[0].cpu.row_cost, 2);
  EXPECT_EQ(e.kernels[0].origin, "add (tiny.json:4:5)");
  EXPECT_EQ(e.kernels[0].types, w.kernels[0].types);
  ASSERT_EQ(e.instructions.size(), 5u);
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    EXPECT_EQ(e.instructions[i].kind, w.instructions[i].kind) << i;
    EXPECT_EQ(e.instructions[i].name, w.instructions[i].name) << i;
    EXPECT_EQ(e.instructions[i].operands, w.instructions[i].operands) << i;
    EXPECT_EQ(e.instructions[i].result, w.instructions[i].result) << i;
    EXPECT_EQ(e.instructions[i].loc, w.instructions[i].loc) << i;
  }
  EXPECT_EQ(e.instructions[1].gemm.shape.k, 3);
  EXPECT_EQ(e.instructions[2].op->code, OpCode::Exp);
  EXPECT_EQ(e.instructions[4].op->attrs.get_ints("perm"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(e.instructions[3].kernel, 0);
}

TEST_F(ArtifactTest, WritingTheSameArtifactTwiceGivesTheSameBytes) {
  const std::string again = path() + ".again.mlcx";
  ASSERT_TRUE(
      write_artifact(again, mlc::testing::tiny_artifact((fs::path(path()).parent_path() / "tiny.safetensors").string()))
          .ok());
  std::ifstream in(again, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), valid());
}

// An artifact as read (its kernel objects in `code`, none in the
// executables) writes back to the bytes it was read from.
TEST_F(ArtifactTest, ReadArtifactWritesBackToTheSameBytes) {
  auto a = read_artifact(path());
  ASSERT_TRUE(a.ok()) << a.error().message;
  const std::string again = path() + ".rewritten.mlcx";
  ASSERT_TRUE(write_artifact(again, *a).ok());
  std::ifstream in(again, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), valid());
}

TEST_F(ArtifactTest, ReEncodingTheManifestUnchangedStillParses) {
  EXPECT_EQ(with_manifest([](Json&) {}), valid());
  EXPECT_TRUE(parse_artifact(valid(), kPath).ok());
}

TEST_F(ArtifactTest, ReadingAMissingFileNamesIt) {
  auto a = read_artifact(path() + ".missing");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message, path() + ".missing: error: cannot open: No such file or directory");
}

// Linking refuses code for CPU features this machine lacks, before looking at
// the object bytes (running such code would die of an illegal instruction).
TEST_F(ArtifactTest, LinkRefusesAFeatureThisCpuLacks) {
  auto a =
      parse_artifact(with_manifest([](Json& m) { m["target"]["features"] = "+sse2,+mlc-imaginary-feature"; }), kPath);
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto linked = load_artifact_code(*a);
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().message, "the kernels were compiled for CPU 'x86-64', whose features this CPU ('" +
                                        host_cpu() + "') lacks: mlc-imaginary-feature");
}

TEST_F(ArtifactTest, LinkRejectsAnObjectThatIsNotMachineCode) {
  auto a = parse_artifact(valid(), kPath);
  ASSERT_TRUE(a.ok());
  auto linked = load_artifact_code(*a);
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().message.rfind("kernel object 'mlc_kernel_0123456789abcdef' is not a loadable object: ", 0), 0u)
      << linked.error().message;
}

// ---------------------------------------------------------------- manifest

TEST_F(ArtifactTest, ManifestIsNotJson) {
  EXPECT_EQ(error_of(encode_container("{\"format\": \"mlcx\",", blobs())),
            "tiny.mlcx: error: the manifest is not valid JSON: [json.exception.parse_error.101] parse error at line 1, "
            "column 19: syntax error while parsing object key - unexpected end of input; expected string literal");
}

TEST_F(ArtifactTest, ManifestIsNotAnObject) {
  EXPECT_EQ(error_of(encode_container("[1, 2]", blobs())),
            "tiny.mlcx: error: the manifest: expected an object, found [1,2]");
}

TEST_F(ArtifactTest, ManifestNestedTooDeep) {
  // A wrong-typed value is quoted in the message: a deep one must not take the
  // reader down (recursion) on its way to saying so.
  std::string deep = "{\"format\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_EQ(error_of(encode_container(deep, blobs())),
            "tiny.mlcx: error: the manifest's JSON at byte 42: nesting deeper than 32 levels");
}

TEST_F(ArtifactTest, ManifestWithADuplicateKey) {
  EXPECT_EQ(error_of(encode_container("{\"format\": \"mlcx\", \"format\": \"mlcx\"}", blobs())),
            "tiny.mlcx: error: the manifest's JSON at byte 27: duplicate key 'format'");
}

TEST_F(ArtifactTest, Format) {
  EXPECT_EQ(manifest_error([](Json& m) { m["format"] = "mlcy"; }),
            "tiny.mlcx: error: manifest field 'format': expected \"mlcx\", found \"mlcy\"");
}

TEST_F(ArtifactTest, MlcVersion) {
  EXPECT_EQ(manifest_error([](Json& m) { m["mlc_version"] = "0.0.1"; }),
            "tiny.mlcx: error: compiled by mlc 0.0.1, this is mlc 0.7.0: compile it again with this mlc");
}

TEST_F(ArtifactTest, MissingModuleHash) {
  EXPECT_EQ(manifest_error([](Json& m) { m.erase("module_hash"); }),
            "tiny.mlcx: error: manifest field 'module_hash' is missing");
}

TEST_F(ArtifactTest, MissingTrainBatchSize) {
  EXPECT_EQ(manifest_error([](Json& m) { m["model"]["train"].erase("batch_size"); }),
            "tiny.mlcx: error: manifest field 'model.train.batch_size' is missing");
}

TEST_F(ArtifactTest, ArenaBytesIsAString) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["arena_bytes"] = "384"; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.arena_bytes': expected an integer in [0, "
            "1099511627776], found \"384\"");
}

TEST_F(ArtifactTest, SlotOffsetNot64Aligned) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["slots"][3]["offset"] = 96; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.slots[3]' (@eval): offset 96 is not 64-byte "
            "aligned");
}

TEST_F(ArtifactTest, SlotBeyondTheArena) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["slots"][7]["offset"] = 384; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.slots[7]' (@eval): f32[2,4] (32 bytes) at "
            "offset 384 does not fit the arena of 384 bytes");
}

TEST_F(ArtifactTest, SlotLargerThanTheArena) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["arena_bytes"] = 16; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.slots[2]' (@eval): f32[4,3] (48 bytes) at "
            "offset 0 does not fit the arena of 16 bytes");
}

TEST_F(ArtifactTest, SlotOfAnArgumentOutOfRange) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["slots"][8]["arg"] = 2; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.slots[8].arg': expected an integer in [-1, 1], "
            "found 2");
}

TEST_F(ArtifactTest, ArgumentWhoseSlotIsNotItsBuffer) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["args"][1]["slot"] = 0; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.args[1]' (@eval): slot 0 is not this argument's "
            "buffer");
}

TEST_F(ArtifactTest, ViewBeyondItsArgumentsBuffer) {
  EXPECT_EQ(
      manifest_error([](Json& m) { exe(m)["slots"][8]["offset"] = 4; }),
      "tiny.mlcx: error: manifest field 'functions[0].executable.slots[8]' (@eval): f32[12] (48 bytes) at offset 4 "
      "does not fit the 48 bytes of argument 0");
}

TEST_F(ArtifactTest, UnknownArgumentKind) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["args"][1]["kind"] = "weight"; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.args[1].kind': expected input, param, frozen, "
            "state or step, found \"weight\"");
}

TEST_F(ArtifactTest, KernelObjectIndexOutOfRange) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["kernels"][0]["object"] = 1; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.kernels[0].object': expected an integer in [0, "
            "0], found 1");
}

TEST_F(ArtifactTest, KernelIndexOutOfRange) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][3]["kernel"] = 1; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[3].kernel': expected an integer in "
            "[0, 0], found 1");
}

TEST_F(ArtifactTest, InstructionOperandOutOfRange) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["operands"][0] = 9; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].operands[0]': expected an "
            "integer in [0, 8], found 9");
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["operands"][0] = -1; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].operands[0]': expected an "
            "integer in [0, 8], found -1");
}

TEST_F(ArtifactTest, InstructionResultOutOfRange) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][0]["result"] = 9; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[0].result': expected an integer in "
            "[0, 8], found 9");
}

TEST_F(ArtifactTest, KernelOperandOfAnotherType) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][3]["operands"][1] = 2; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[3]' (@eval): operand 1 is "
            "f32[4,3], kernel 'fusion_0' was compiled for f32[4,2]");
}

TEST_F(ArtifactTest, KernelResultOfAnotherType) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][3]["result"] = 7; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[3]' (@eval): result is f32[2,4], "
            "kernel 'fusion_0' was compiled for f32[4,2]");
}

TEST_F(ArtifactTest, KernelInstructionWithTooFewOperands) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][3]["operands"].erase(1); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[3]' (@eval): a kernel instruction "
            "takes 2 operands, found 1");
}

// A kernel with two outputs: its instruction names one input, its result
// and one more result (a slot 9 of its own, f32[4,2] at the arena's end).
void two_outputs(Json& m, Json more_results) {
  Json& e = m["functions"][0]["executable"];
  e["kernels"][0]["outputs"] = 2;
  Json slot = e["slots"][6];
  slot["offset"] = 384;
  e["slots"].push_back(slot);
  e["arena_bytes"] = 448;
  Json& ins = e["instructions"][3];
  ins["operands"] = Json::array({4});
  if (!more_results.is_null()) ins["more_results"] = std::move(more_results);
}

TEST_F(ArtifactTest, KernelWithTwoOutputsReadsBack) {
  auto a = parse_artifact(with_manifest([](Json& m) { two_outputs(m, Json::array({9})); }), kPath);
  ASSERT_TRUE(a.ok()) << a.error().message;
  const Executable& e = *a->functions[0].executable;
  EXPECT_EQ(e.kernels[0].outputs, 2);
  EXPECT_EQ(e.instructions[3].operands, (std::vector<int>{4}));
  EXPECT_EQ(e.instructions[3].result, 6);
  EXPECT_EQ(e.instructions[3].more_results, (std::vector<int>{9}));
}

TEST_F(ArtifactTest, KernelOutputsOutOfRange) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["kernels"][0]["outputs"] = 4; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.kernels[0].outputs' (@eval): is 4, expected 1 "
            "to the kernel's 3 buffers");
}

TEST_F(ArtifactTest, KernelInstructionWithoutItsSecondResult) {
  EXPECT_EQ(manifest_error([](Json& m) { two_outputs(m, nullptr); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[3]' (@eval): kernel 'fusion_0' has "
            "2 outputs, the instruction 1 result");
}

TEST_F(ArtifactTest, KernelMoreResultOfAnotherType) {
  EXPECT_EQ(manifest_error([](Json& m) { two_outputs(m, Json::array({7})); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[3].more_results[0]' (@eval): is "
            "f32[2,4], kernel 'fusion_0' was compiled for f32[4,2]");
}

TEST_F(ArtifactTest, KernelMoreResultOutOfRange) {
  EXPECT_EQ(manifest_error([](Json& m) { two_outputs(m, Json::array({10})); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[3].more_results[0]': expected an "
            "integer in [0, 9], found 10");
}

TEST_F(ArtifactTest, MoreResultsOnAGemm) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["more_results"] = Json::array({6}); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1]' (@eval): a gemm instruction "
            "has one result, found more_results");
}

TEST_F(ArtifactTest, KernelRowsDoNotMatchItsResult) {
  EXPECT_EQ(
      manifest_error([](Json& m) { exe(m)["kernels"][0]["rows"] = 3; }),
      "tiny.mlcx: error: manifest field 'functions[0].executable.kernels[0]' (@eval): rows 3 do not match its result "
      "f32[4,2]");
}

TEST_F(ArtifactTest, KernelWithoutTypes) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["kernels"][0]["types"] = Json::array(); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.kernels[0]' (@eval): has no result type");
}

TEST_F(ArtifactTest, GemmShapeDoesNotMatchItsOperands) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["gemm"]["k"] = 2; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].gemm' (@eval): trans_a false, m "
            "4, k 2: operand 0 must be f32[4,2], found f32[4,3]");
}

TEST_F(ArtifactTest, GemmOfIntegers) {
  EXPECT_EQ(
      manifest_error([](Json& m) { exe(m)["instructions"][1]["gemm"]["dtype"] = "i32"; }),
      "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].gemm' (@eval): dtype must be f32, f64, "
      "bf16 or f16");
}

TEST_F(ArtifactTest, GemmWithOneOperand) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["operands"].erase(1); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1]' (@eval): a gemm instruction "
            "takes 2 operands, found 1");
}

// A gemm update (compiler/fusion.h): alpha, beta and an addend of the
// result's type as a third operand (slot 5, f32[4,2]). Edits the gemm of
// instruction 1; an addend slot < 0 adds no operand.
template <class Alpha>
void make_gemm_update(Json& m, int addend, const Alpha& alpha, double beta) {
  Json& ins = m["functions"][0]["executable"]["instructions"][1];
  if (addend >= 0) ins["operands"].push_back(addend);
  ins["gemm"]["alpha"] = alpha;
  ins["gemm"]["beta"] = beta;
}

// Gemm epilogues (runtime/executable.h GemmEpilogue) on the gemm of
// instruction 1 (f32[4,3] x f32[3,2]): the name reads back (absent: none),
// an unknown one is refused by the reader, missing or mistyped operands and
// results by the verifier.
TEST_F(ArtifactTest, GemmEpilogueReadsBackAndWritesBack) {
  auto a = parse_artifact(with_manifest([](Json& m) { exe(m)["instructions"][1]["gemm"]["epilogue"] = "relu"; }), kPath);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->functions[0].executable->instructions[1].gemm.epilogue, GemmEpilogue::relu);
  const std::string again = path() + ".epilogue";
  ASSERT_TRUE(write_artifact(again, *a).ok());
  auto b = read_artifact(again);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->functions[0].executable->instructions[1].gemm.epilogue, GemmEpilogue::relu);
  auto none = parse_artifact(valid(), kPath);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->functions[0].executable->instructions[1].gemm.epilogue, GemmEpilogue::none);
}

TEST_F(ArtifactTest, GemmEpilogueErrors) {
  // The message with instruction 1's gemm given epilogue e (after `edit`).
  auto error = [](const Json& e, const std::function<void(Json&)>& edit = nullptr) {
    return manifest_error([&](Json& m) {
      if (edit) edit(m);
      exe(m)["instructions"][1]["gemm"]["epilogue"] = e;
    });
  };
  const std::string at = "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1]";
  EXPECT_EQ(error("erf_gelu"), at + ".gemm.epilogue': unknown gemm epilogue \"erf_gelu\"");
  EXPECT_EQ(error(3), at + ".gemm.epilogue': expected a string, found 3");
  EXPECT_EQ(error("bias"), at + "' (@eval): a gemm instruction takes 3 operands, found 2");
  EXPECT_EQ(error("bias", [](Json& m) { exe(m)["instructions"][1]["operands"].push_back(5); }),
            at + ".operands[2]' (@eval): the bias of an epilogue bias must be f32[2] (n elements), found f32[4,2]");
  EXPECT_EQ(error("gelu_aux"), at + "' (@eval): a gemm with epilogue gelu_aux has 2 results, found 1");
  EXPECT_EQ(error("relu", [](Json& m) { make_gemm_update(m, 5, 1.0, 1.0); }),
            at + ".gemm' (@eval): an epilogue relu needs an f32, bf16 or f16 gemm with alpha 1 and beta 0");
}

// The tiny manifest as a host-gpu one (slots on 256-byte boundaries, a
// launch per kernel) whose kernel has two phases, with the scratch region
// after the slots: the launch's scratch_bytes and combine_grid and the
// region read back and write back (absent: one launch, no region); the
// verifier's rules on them reach the reader.
TEST_F(ArtifactTest, TwoPhaseKernelsReadBackAndWriteBack) {
  auto on_host_gpu = [](Json& m) {
    m["target"]["name"] = std::string(kHostGpuTarget);
    m["target"]["arch"] = "opencl-c";
    m["target"]["features"] = "";
    for (Json& s : exe(m)["slots"]) s["offset"] = s["offset"].get<int64_t>() * 4;
    exe(m)["arena_bytes"] = 384 * 4 + 256;
    exe(m)["scratch_offset"] = 384 * 4;
    exe(m)["scratch_bytes"] = 64;
    exe(m)["kernels"][0]["launch"] = {{"grid", 8}, {"block", 256}, {"shared_bytes", 2048}, {"scratch_bytes", 64},
                                      {"combine_grid", 1}};
  };
  auto a = parse_artifact(with_manifest(on_host_gpu), kPath);
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto check = [](const Artifact& read) {
    const Executable& e = *read.functions[0].executable;
    EXPECT_EQ(e.scratch_offset, 384 * 4);
    EXPECT_EQ(e.scratch_bytes, 64);
    EXPECT_EQ(e.kernels[0].launch, (GpuLaunch{8, 256, 2048, 64, 1}));
  };
  check(*a);
  const std::string again = path() + ".two_phase";
  ASSERT_TRUE(write_artifact(again, *a).ok());
  auto b = read_artifact(again);
  ASSERT_TRUE(b.ok()) << b.error().message;
  check(*b);
  const std::string at = "tiny.mlcx: error: manifest field 'functions[0].executable.";
  auto edited = [&](const std::function<void(Json&)>& edit) {
    return manifest_error([&](Json& m) {
      on_host_gpu(m);
      edit(m);
    });
  };
  EXPECT_EQ(edited([](Json& m) { exe(m)["kernels"][0]["launch"].erase("combine_grid"); }),
            at + "kernels[0].launch.combine_grid' is missing");
  EXPECT_EQ(edited([](Json& m) { exe(m)["kernels"][0]["launch"]["scratch_bytes"] = 0; }),
            at + "kernels[0].launch.scratch_bytes': expected an integer in [1, 1099511627776], found 0");
  EXPECT_EQ(edited([](Json& m) { exe(m)["kernels"][0]["launch"]["scratch_bytes"] = 128; }),
            at + "kernels[0].launch.scratch_bytes' (@eval): is 128, expected 0 to the scratch region's 64");
  EXPECT_EQ(edited([](Json& m) { exe(m)["scratch_offset"] = 256; }),
            at + "slots[3]' (@eval): bytes [256, 288) overlap the scratch region [256, 320)");
  EXPECT_EQ(edited([](Json& m) { exe(m).erase("scratch_bytes"); }),
            at + "kernels[0].launch.scratch_bytes' (@eval): is 64, expected 0 to the scratch region's 0");
}

TEST_F(ArtifactTest, GemmUpdateReadsBack) {
  auto a = parse_artifact(with_manifest([](Json& m) { make_gemm_update(m, 5, -0.01, 1.0); }), kPath);
  ASSERT_TRUE(a.ok()) << a.error().message;
  const GemmParams& g = a->functions[0].executable->instructions[1].gemm;
  EXPECT_EQ(g.alpha, -0.01);
  EXPECT_EQ(g.beta, 1.0);
  EXPECT_EQ(a->functions[0].executable->instructions[1].operands, (std::vector<int>{2, 1, 5}));
}

TEST_F(ArtifactTest, GemmUpdateWithoutItsAddend) {
  EXPECT_EQ(manifest_error([](Json& m) { make_gemm_update(m, -1, -0.01, 1.0); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1]' (@eval): a gemm instruction "
            "takes 3 operands, found 2");
}

TEST_F(ArtifactTest, GemmUpdateWithBeta0) {
  EXPECT_EQ(manifest_error([](Json& m) { make_gemm_update(m, 5, 1.0, 0.0); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].gemm': beta must not be 0 (a "
            "gemm with an addend adds it)");
}

TEST_F(ArtifactTest, GemmUpdateWithAlphaButNoBeta) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["gemm"]["alpha"] = -0.01; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].gemm.beta' is missing");
}

TEST_F(ArtifactTest, GemmUpdateAddendOfAnotherType) {
  EXPECT_EQ(manifest_error([](Json& m) { make_gemm_update(m, 0, 1.0, 1.0); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1]' (@eval): the addend (operand "
            "2) is f32[4,3], the result f32[4,2]");
}

TEST_F(ArtifactTest, GemmUpdateWithAnAlphaThatIsNotANumber) {
  EXPECT_EQ(manifest_error([](Json& m) { make_gemm_update(m, 5, "-0.01", 1.0); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].gemm.alpha': expected a finite "
            "number, found \"-0.01\"");
}

TEST_F(ArtifactTest, ReferenceOpWithAnUnknownCode) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][2]["op"]["code"] = "relux"; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[2].op.code': unknown op \"relux\"");
}

TEST_F(ArtifactTest, ReferenceOpWhoseAttributesInferAnotherType) {
  EXPECT_EQ(manifest_error([](Json& m) {
              exe(m)["instructions"][4]["op"]["attrs"][0]["ints"] = {0, 1};
            }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[4].op': is not a valid transpose: "
            "declared result type f32[2,4] does not match the inferred f32[4,2]");
}

TEST_F(ArtifactTest, ReferenceOpWithAnInvalidAttribute) {
  EXPECT_EQ(manifest_error([](Json& m) {
              exe(m)["instructions"][4]["op"]["attrs"][0]["ints"] = {0, 0};
            }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[4].op': is not a valid transpose: "
            "perm [0, 0] is not a permutation of 0..1");
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][4]["op"]["attrs"] = Json::array(); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[4].op': is not a valid transpose: "
            "missing attribute 'perm' (integer list)");
  EXPECT_EQ(manifest_error([](Json& m) {
              exe(m)["instructions"][4]["op"]["attrs"][0] = {{"name", "perm"}, {"float", "1.5"}};
            }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[4].op': is not a valid transpose: "
            "attribute 'perm' must be integer list, got 1.5");
}

TEST_F(ArtifactTest, ReferenceOpThatIsAComposite) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][2]["op"]["code"] = "relu"; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[2].op.code': \"relu\" is a "
            "composite op, which no instruction runs (compiled code decomposes it)");
}

TEST_F(ArtifactTest, ReferenceOpWithTheWrongOperandCount) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][2]["operands"].push_back(3); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[2].op': is not a valid exp: "
            "expected 1 operand, got 2");
}

TEST_F(ArtifactTest, ReferenceOpOfTheWrongDtype) {
  // exp of a float slot whose result slot is another dtype.
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["slots"][4]["type"]["dtype"] = "f64"; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[2].op': is not a valid exp: "
            "declared result type f64[4,2] does not match the inferred f32[4,2]");
}

TEST_F(ArtifactTest, CopyWithMismatchedBytes) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][0]["operands"][0] = 3; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[0]' (@eval): copies 32 bytes into "
            "48");
}

TEST_F(ArtifactTest, ConstantWithTheWrongSize) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["constants"][0]["size"] = 16; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.constants[0]' (@eval): has 16 bytes, its slot "
            "f32[4,2] has 32");
}

TEST_F(ArtifactTest, ConstantInAnArgumentsSlot) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["constants"][0]["slot"] = 0; }),
            "tiny.mlcx: "
            "error: manifest field 'functions[0].executable.constants[0]' (@eval): names an argument's slot");
}

TEST_F(ArtifactTest, BlobRangeOutsideTheBlobs) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["constants"][0]["offset"] = 1000; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.constants[0]': bytes [1000, +32) lie outside "
            "the blobs section's 96 bytes");
  EXPECT_EQ(
      manifest_error([](Json& m) { m["objects"][0]["size"] = 10000; }),
      "tiny.mlcx: error: manifest field 'objects[0]': bytes [0, +10000) lie outside the blobs section's 96 bytes");
}

TEST_F(ArtifactTest, BlobsSharedByManyObjects) {
  // Every object copies its bytes: ranges that overlap would multiply the
  // memory a small file asks for.
  EXPECT_EQ(manifest_error([](Json& m) {
              for (int i = 0; i < 1000; ++i) {
                m["objects"].push_back(m["objects"][0]);
                m["objects"].back()["symbol"] = "mlc_kernel_" + std::string(16, 'a') + std::string(i + 1, '_');
              }
            }),
            "tiny.mlcx: error: manifest field 'objects[5]': bytes [0, +18) overlap other objects' or constants' bytes: "
            "together they claim more than the blobs section's 96 bytes");
}

TEST_F(ArtifactTest, UnknownDtype) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["slots"][0]["type"]["dtype"] = "f31"; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.slots[0].type.dtype': expected a dtype (f32, "
            "f64, bf16, f16, i32, i64, bool), found \"f31\"");
}

TEST_F(ArtifactTest, ShapeWithANegativeDim) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["slots"][0]["type"]["shape"][0] = -4; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.slots[0].type.shape[0]': expected an integer in "
            "[0, 1099511627776], found -4");
}

TEST_F(ArtifactTest, ShapeWithTooManyElements) {
  EXPECT_EQ(manifest_error([](Json& m) {
              exe(m)["slots"][0]["type"]["shape"] = {1 << 20, 1 << 20, 2};
            }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.slots[0].type': has more than 2^40 elements");
}

TEST_F(ArtifactTest, UnknownOptimizer) {
  EXPECT_EQ(manifest_error([](Json& m) { m["model"]["train"]["optimizer"]["type"] = "sgdx"; }),
            "tiny.mlcx: error: manifest field 'model.train.optimizer.type': unknown optimizer \"sgdx\"");
}

TEST_F(ArtifactTest, UnknownInitialization) {
  EXPECT_EQ(manifest_error([](Json& m) { m["model"]["params"][0]["init"]["kind"] = "xavier"; }),
            "tiny.mlcx: error: manifest field 'model.params[0].init': unknown initialization \"xavier\"");
}

TEST_F(ArtifactTest, InputBatchDimThatIsNotTheBatchSymbol) {
  EXPECT_EQ(manifest_error([](Json& m) { m["model"]["inputs"][0]["batch_dim"] = 1; }),
            "tiny.mlcx: error: manifest field 'model.inputs[0]': batch_dim does not match batched and shape");
}

TEST_F(ArtifactTest, UnknownInstructionKind) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][0]["kind"] = "kernal"; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[0].kind': expected kernel, gemm, "
            "reference, copy or collective, found \"kernal\"");
}

TEST_F(ArtifactTest, EmptyFunctionList) {
  EXPECT_EQ(manifest_error([](Json& m) { m["functions"] = Json::array(); }),
            "tiny.mlcx: error: manifest field 'functions': the artifact has no functions");
}

TEST_F(ArtifactTest, FunctionListedTwice) {
  EXPECT_EQ(manifest_error([](Json& m) { m["functions"].push_back(m["functions"][0]); }),
            "tiny.mlcx: error: manifest field 'functions[1]': @eval for batch 4 appears twice");
}

TEST_F(ArtifactTest, FunctionForBatch0) {
  EXPECT_EQ(
      manifest_error([](Json& m) { m["functions"][0]["batch"] = 0; }),
      "tiny.mlcx: error: manifest field 'functions[0].batch': expected an integer in [1, 1099511627776], found 0");
}

TEST_F(ArtifactTest, ResultThatUpdatesAnArgumentOfAnotherType) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["results"][1]["updates"] = 0; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.results[1]' (@eval): updates an argument of "
            "another type: slot 1 is f32[3,2], argument 0 f32[4,3]");
}

// A symbol names a kernel (runtime/kernel_imports.h), never another function
// of the process: an artifact whose manifest names `abort` would call it.
TEST_F(ArtifactTest, ObjectSymbolThatIsNotAKernelName) {
  for (const std::string symbol : {"abort", "a b", "mlc_kernel_0123456789ABCDEF", "mlc_kernel_0123456789abcde",
                                   "mlc_kernel_0123456789abcdef_x", "mlc_kernel_0123456789abcdef0"})
    EXPECT_EQ(manifest_error([&](Json& m) { m["objects"][0]["symbol"] = symbol; }),
              "tiny.mlcx: error: manifest field 'objects[0].symbol': expected a kernel's name (mlc_kernel_ and 16 "
              "lowercase hex digits), found \"" + symbol + "\"");
  EXPECT_EQ(manifest_error([](Json& m) { m["objects"][0]["symbol"] = std::string(100, 'x'); }),
            "tiny.mlcx: error: manifest field 'objects[0].symbol': expected a kernel's name (mlc_kernel_ and 16 "
            "lowercase hex digits), found \"" + std::string(36, 'x') + "...");
  // With the '_'s of a hash collision it is one.
  EXPECT_EQ(manifest_error([](Json& m) { m["objects"][0]["symbol"] = "mlc_kernel_0123456789abcdef__"; }), "<parsed>");
}

// Each object's kernel IR (opaque text here) and the code generator read back
// as written; an object without its "source" range is refused.
TEST_F(ArtifactTest, ObjectSourceAndGeneratorReadBack) {
  Artifact a = mlc::testing::tiny_artifact("");
  a.code->objects[0].source = "{\"exprs\": []}";
  a.code->generator = "LLVM 19.1.7, mlc-llvm-emitter 11";
  const std::string written = path() + ".source.mlcx";
  ASSERT_TRUE(write_artifact(written, a).ok());
  auto back = read_artifact(written);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->code->objects[0].source, "{\"exprs\": []}");
  EXPECT_EQ(back->code->objects[0].bytes, "not an object file");
  EXPECT_EQ(back->code->generator, "LLVM 19.1.7, mlc-llvm-emitter 11");
  EXPECT_EQ(manifest_error([](Json& m) { m["objects"][0].erase("source"); }),
            "tiny.mlcx: error: manifest field 'objects[0].source' is missing");
  EXPECT_EQ(manifest_error([](Json& m) { m["objects"][0]["source"]["size"] = 1000; }),
            "tiny.mlcx: error: manifest field 'objects[0].source': bytes [64, +1000) lie outside the blobs section's "
            "96 bytes");
  EXPECT_EQ(manifest_error([](Json& m) { m["target"].erase("generator"); }),
            "tiny.mlcx: error: manifest field 'target.generator' is missing");
}

TEST_F(ArtifactTest, ObjectSymbolListedTwice) {
  // write_artifact keeps one object per symbol (equal symbols are equal code).
  EXPECT_EQ(
      manifest_error([](Json& m) {
        m["objects"].push_back(m["objects"][0]);
        m["objects"][1]["size"] = 0;
      }),
      "tiny.mlcx: error: manifest field 'objects[1]': symbol \"mlc_kernel_0123456789abcdef\" is also the symbol of objects[0]");
}

TEST_F(ArtifactTest, LocWithLine0) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["loc"]["line"] = 0; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].loc.line': expected an integer "
            "in [1, 2147483647], found 0");
}

}  // namespace
}  // namespace mlc::rt
