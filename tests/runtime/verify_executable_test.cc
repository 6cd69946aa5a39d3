// verify_executable (runtime/verify_executable.h): executables that are well
// formed (every index in range) but wrong, each refused with the function,
// the field and what was expected and found; the same executables through the
// artifact reader (the probe's crafted manifests) and the executor; and valid
// variants (packing into a dead value's bytes, views) that must pass. The
// executables are edits of tests/runtime/tiny_artifact.h's:
//
//   0: slot 2 (arena 0)   = copy slot 8 (a view of argument 0)
//   1: slot 3 (arena 64)  = gemm(slot 2, slot 1)
//   2: slot 4 (arena 128) = exp(slot 3)
//   3: slot 6 (arena 256) = kernel 0 (slot 4, slot 5: a constant at 192)
//   4: slot 7 (arena 320) = transpose(slot 6)
//   results: slot 7, and slot 1 as the update of argument 1; arena 384.
#include "runtime/verify_executable.h"

#include <gtest/gtest.h>

#include <functional>
#include <regex>

#include "runtime/executor.h"
#include "tests/runtime/artifact_fixture.h"
#include "tests/runtime/cuda_test_executables.h"

namespace mlc::rt {
namespace {

const TensorType kY{DType::f32, {4, 2}};

std::shared_ptr<Executable> tiny() {
  return std::make_shared<Executable>(*mlc::testing::tiny_artifact("").functions[0].executable);
}

std::string problem(const Executable& e) {
  Status st = verify_executable(e);
  return st ? "<valid>" : st.error().message;
}

// verify_executable's message on the tiny executable after `edit`.
std::string problem_after(const std::function<void(Executable&)>& edit) {
  auto e = tiny();
  edit(*e);
  return problem(*e);
}

// Adds an arena slot of type t at `offset` and returns its index.
int add_slot(Executable& e, const TensorType& t, int64_t offset) {
  e.slots.push_back({t, -1, offset});
  return static_cast<int>(e.slots.size()) - 1;
}

TEST(VerifyExecutable, TheTinyExecutablePasses) { EXPECT_EQ(problem(*tiny()), "<valid>"); }

// ---------------------------------------------------------------- liveness

TEST(VerifyExecutable, AllArenaSlotsAtOffset0) {
  EXPECT_EQ(problem_after([](Executable& e) {
              for (Slot& s : e.slots)
                if (s.arg < 0) s.offset = 0;
            }),
            "function 'eval': instructions[0].result: slot 2 (bytes [0, 48)) overlaps slot 5 (bytes [0, 32)), which is "
            "live from the start to the end");
}

TEST(VerifyExecutable, AResultOverItsOperand) {
  // exp's result over the gemm's, which exp reads.
  EXPECT_EQ(problem_after([](Executable& e) { e.slots[4].offset = 64; }),
            "function 'eval': instructions[2].result: slot 4 (bytes [64, 96)) overlaps slot 3 (bytes [64, 96)), which "
            "is live from instruction 1 to instruction 2");
}

TEST(VerifyExecutable, AValueOverwrittenBeforeItsLastRead) {
  EXPECT_EQ(problem_after([](Executable& e) {
              e.slots[6].offset = 0;             // the kernel's result over the copy's (slot 2)
              e.instructions[4].operands = {2};  // ... which the transpose then reads
              e.slots[7].type = {DType::f32, {3, 4}};
            }),
            "function 'eval': instructions[3].result: slot 6 (bytes [0, 32)) overlaps slot 2 (bytes [0, 48)), which is "
            "live from instruction 0 to instruction 4");
}

TEST(VerifyExecutable, PackingIntoTheBytesOfADeadValuePasses) {
  EXPECT_EQ(problem_after([](Executable& e) {
              e.slots[6].offset = 64;  // slot 3 is read last by instruction 2
              e.slots[7].offset = 0;   // slot 2 is read last by instruction 1
              e.arena_bytes = 256;
            }),
            "<valid>");
}

// A view reads the value last written at its offset with its size; it keeps
// that value live, against any other value over its bytes.
void return_a_view_of_slot_2(Executable& e) { e.results.push_back({add_slot(e, {DType::f32, {12}}, 0), -1}); }

TEST(VerifyExecutable, AViewKeepsItsValueLive) {
  EXPECT_EQ(problem_after(return_a_view_of_slot_2), "<valid>");
  EXPECT_EQ(problem_after([](Executable& e) {
              return_a_view_of_slot_2(e);
              e.slots[6].offset = 0;  // where slot 2 is dead but for the view
            }),
            "function 'eval': instructions[3].result: slot 6 (bytes [0, 32)) overlaps slot 2 (bytes [0, 48)), which is "
            "live from instruction 0 to the end");
}

// ---------------------------------------------------------------- data flow

TEST(VerifyExecutable, ReadBeforeItIsWritten) {
  EXPECT_EQ(problem_after([](Executable& e) { std::swap(e.instructions[0], e.instructions[1]); }),
            "function 'eval': instructions[0].operands[0]: reads slot 2, which instruction 1 writes later");
}

TEST(VerifyExecutable, ASlotNothingWrites) {
  EXPECT_EQ(
      problem_after([](Executable& e) {
        e.instructions[1].operands[0] = add_slot(e, {DType::f32, {4, 3}}, 384);
        e.arena_bytes = 448;
      }),
      "function 'eval': instructions[1].operands[0]: reads slot 9, which nothing writes before: it is no "
      "argument's, constant's or earlier instruction's result, nor a view of one (an unwritten slot at the offset "
      "and of the size of a written one)");
}

TEST(VerifyExecutable, NoInstructions) {
  EXPECT_EQ(
      problem_after([](Executable& e) { e.instructions.clear(); }),
      "function 'eval': results[0].slot: slot 7 holds no value at the end: nothing writes it (the function has no "
      "instructions)");
}

TEST(VerifyExecutable, ASlotWrittenTwice) {
  EXPECT_EQ(problem_after([](Executable& e) { e.instructions[2].result = 3; }),
            "function 'eval': instructions[2].result: writes slot 3, which instruction 1 writes too (an arena slot is "
            "written once)");
}

TEST(VerifyExecutable, AnInstructionWritingAConstant) {
  EXPECT_EQ(problem_after([](Executable& e) { e.instructions[3].result = 5; }),
            "function 'eval': instructions[3].result: writes slot 5, which constants[0] fills (a constant is written "
            "once, when the executor is created)");
}

TEST(VerifyExecutable, WritingAnArgumentNoResultUpdates) {
  // The copy into argument 0's buffer.
  EXPECT_EQ(problem_after([](Executable& e) { e.instructions[0].result = 0; }),
            "function 'eval': instructions[0].result: writes slot 0, the buffer of argument 0, which no result updates "
            "(the other arguments are only read)");
}

TEST(VerifyExecutable, AnUpdateOutsideItsArgumentsBuffer) {
  EXPECT_EQ(problem_after([](Executable& e) {
              const int s = add_slot(e, {DType::f32, {3, 2}}, 384);
              Instruction copy = e.instructions[0];
              copy.operands = {1};
              copy.result = s;
              e.instructions.push_back(copy);
              e.results[1].slot = s;
              e.arena_bytes = 448;
            }),
            "function 'eval': results[1]: updates argument 1, but slot 9 is not that argument's buffer (an updated "
            "argument's new value is in its buffer)");
}

// ---------------------------------------------------------------- arena

TEST(VerifyExecutable, AnArenaLargerThanTheSlotsNeed) {
  EXPECT_EQ(problem_after([](Executable& e) { e.arena_bytes = int64_t{3} << 30; }),
            "function 'eval': arena_bytes: is 3221225472, the slots need 384 (the end of the highest arena slot, "
            "rounded up to 64)");
  EXPECT_EQ(problem_after([](Executable& e) { e.arena_bytes = 448; }),
            "function 'eval': arena_bytes: is 448, the slots need 384 (the end of the highest arena slot, rounded up "
            "to 64)");
}

// ---------------------------------------------------------------- gemm shapes

TEST(VerifyExecutable, AGemmWithAFlippedTransposeFlag) {
  EXPECT_EQ(
      problem_after([](Executable& e) { e.instructions[1].gemm.shape.trans_a = true; }),
      "function 'eval': instructions[1].gemm: trans_a true, m 4, k 3: operand 0 must be f32[3,4], found f32[4,3]");
  EXPECT_EQ(
      problem_after([](Executable& e) { e.instructions[1].gemm.shape.trans_b = true; }),
      "function 'eval': instructions[1].gemm: trans_b true, k 3, n 2: operand 1 must be f32[2,3], found f32[3,2]");
}

TEST(VerifyExecutable, AGemmWhoseShapeIsNotItsResults) {
  EXPECT_EQ(problem_after([](Executable& e) { e.instructions[1].gemm.shape.batch = 2; }),
            "function 'eval': instructions[1].gemm: batch 2, m 4, n 2 do not match the result f32[4,2] (batch 1, m 4, "
            "n 2)");
  EXPECT_EQ(problem_after([](Executable& e) { e.instructions[1].gemm.dtype = DType::f64; }),
            "function 'eval': instructions[1].gemm: the result must be f64[..., m, n], found f32[4,2]");
}

// A batched gemm, a [2,4,3] by a shared b [3,2].
std::shared_ptr<Executable> batched_gemm(bool b_shared) {
  auto e = std::make_shared<Executable>();
  e->function = "bmm";
  e->slots = {{{DType::f32, {2, 4, 3}}, 0, 0}, {{DType::f32, {3, 2}}, 1, 0}, {{DType::f32, {2, 4, 2}}, -1, 0}};
  e->args = {{"a", ArgKind::input, 0}, {"b", ArgKind::param, 1}};
  e->results = {{2, -1}};
  Instruction g;
  g.kind = InstrKind::gemm;
  g.operands = {0, 1};
  g.result = 2;
  g.gemm.shape = {2, 4, 2, 3, false, false, b_shared};
  e->instructions = {g};
  e->arena_bytes = 64;
  return e;
}

TEST(VerifyExecutable, ABatchedGemmOverASharedMatrixSaysSo) {
  EXPECT_EQ(problem(*batched_gemm(true)), "<valid>");
  EXPECT_EQ(problem(*batched_gemm(false)),
            "function 'bmm': instructions[0].gemm.b_shared: is false, operand 1 f32[3,2] is shared by the 2 batches");
}

// Every epilogue's executable (tests/runtime/cuda_test_executables.h) passes
// on f32, bf16 and f16; one on f64, a bias of the wrong size, an aux of
// another type, a bias gradient of the wrong size, a batch that is not one
// product, a gemm without an aux epilogue with a second result do not.
TEST(VerifyExecutable, GemmEpilogues) {
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    for (size_t k = 1; k < kGemmEpilogues; ++k) {
      const auto ep = static_cast<GemmEpilogue>(k);
      EXPECT_EQ(problem(*mlc::testing::cuda_epilogue_executable(
                    GemmParams{t, {1, 4, 6, 3, ep == GemmEpilogue::bgradb, true, false}, 1, 0, ep})),
                "<valid>")
          << gemm_epilogue_name(ep) << " " << dtype_name(t);
    }
  EXPECT_EQ(problem(*mlc::testing::cuda_epilogue_executable(
                GemmParams{DType::f64, {1, 4, 6, 3, false, true, false}, 1, 0, GemmEpilogue::bias})),
            "function 'gemm': instructions[0].gemm: an epilogue bias needs an f32, bf16 or f16 gemm with alpha 1 and "
            "beta 0");
  auto bias = mlc::testing::cuda_epilogue_executable(GemmParams{DType::f32, {1, 4, 6, 3, false, true, false}, 1, 0,
                                                                GemmEpilogue::bias_gelu_aux});
  bias->slots[3].type.shape = {4};
  EXPECT_EQ(problem(*bias), "function 'gemm': instructions[0].operands[2]: the bias of an epilogue bias_gelu_aux must be "
                            "f32[6] (n elements), found f32[4]");
  auto aux = mlc::testing::cuda_epilogue_executable(GemmParams{DType::f32, {1, 4, 6, 3, false, true, false}, 1, 0,
                                                               GemmEpilogue::gelu_aux});
  aux->slots[3].type.shape = {1, 4, 5};
  EXPECT_EQ(problem(*aux), "function 'gemm': instructions[0].more_results[0]: the aux of an epilogue gelu_aux must be "
                           "f32[1,4,6], found f32[1,4,5]");
  auto grad = mlc::testing::cuda_epilogue_executable(GemmParams{DType::f32, {1, 4, 6, 3, false, true, false}, 1, 0,
                                                                GemmEpilogue::dgelu_bgrad});
  grad->slots[4].type.shape = {4};
  EXPECT_EQ(problem(*grad), "function 'gemm': instructions[0].more_results[0]: the bias gradient of an epilogue "
                            "dgelu_bgrad must be f32[6] (n elements), found f32[4]");
  auto batched = mlc::testing::cuda_epilogue_executable(GemmParams{DType::f32, {2, 4, 6, 3, true, true, true}, 1, 0,
                                                                   GemmEpilogue::relu});
  EXPECT_EQ(problem(*batched), "function 'gemm': instructions[0].gemm: an epilogue relu applies to one product, found "
                               "batch 2 (not folded into rows)");
  auto plain = mlc::testing::cuda_epilogue_executable(GemmParams{DType::f32, {1, 4, 6, 3, false, true, false}, 1, 0,
                                                                 GemmEpilogue::gelu_aux});
  plain->instructions[0].gemm.epilogue = GemmEpilogue::gelu;
  EXPECT_EQ(problem(*plain), "function 'gemm': instructions[0]: a gemm instruction has one result, found more_results");
}

// ---------------------------------------------------------------- the scratch region

// Two-phase kernels' scratch region (rule 2a) and launches (rule 6), on
// cuda_two_phase_executable's: a region of 32 bytes at 512, the kernel's 4
// partials in it, an arena of 768.
TEST(VerifyExecutable, TheScratchRegionAndTwoPhaseLaunches) {
  auto problem_of = [](const std::function<void(Executable&)>& edit) {
    auto e = mlc::testing::cuda_two_phase_executable("");
    edit(*e);
    return problem(*e);
  };
  EXPECT_EQ(problem_of([](Executable&) {}), "<valid>");
  EXPECT_EQ(problem_of([](Executable& e) { e.scratch_offset = 256; }),
            "function 'sum': slots[2]: bytes [256, 260) overlap the scratch region [256, 288)");
  EXPECT_EQ(problem_of([](Executable& e) { e.scratch_offset = 640; }),
            "function 'sum': scratch_offset: is 640, not 256-byte aligned");
  EXPECT_EQ(problem_of([](Executable& e) { e.scratch_offset = 768; }),
            "function 'sum': scratch_offset: the scratch region of 32 bytes at offset 768 does not fit the arena of 768 "
            "bytes");
  EXPECT_EQ(problem_of([](Executable& e) { e.arena_bytes = 1024; }),
            "function 'sum': arena_bytes: is 1024, the slots need 768 (the end of the highest arena slot or of the scratch "
            "region, rounded up to 256)");
  EXPECT_EQ(problem_of([](Executable& e) { e.kernels[0].launch.scratch_bytes = 40; }),
            "function 'sum': kernels[0].launch.scratch_bytes: is 40, expected 0 to the scratch region's 32");
  EXPECT_EQ(problem_of([](Executable& e) { e.kernels[0].launch.combine_grid = 0; }),
            "function 'sum': kernels[0].launch.combine_grid: is 0, expected 1 to 2147483647 (a two-phase kernel)");
  EXPECT_EQ(problem_of([](Executable& e) { e.kernels[1].launch.combine_grid = 1; }),
            "function 'sum': kernels[1].launch.combine_grid: is 1, expected 0 (a kernel of one launch)");
  EXPECT_EQ(problem_of([](Executable& e) {
              e.kernels[0].launch.scratch_bytes = e.kernels[0].launch.combine_grid = 0;
              e.scratch_bytes = 0;
            }),
            "function 'sum': scratch_offset: is 512, expected 0 without scratch bytes");
  EXPECT_EQ(problem_after([](Executable& e) {
              e.scratch_offset = 384;
              e.scratch_bytes = 8;
            }),
            "function 'eval': scratch_bytes: is 8, but cpu-x86_64 is not a GPU target (only two-phase GPU kernels use a "
            "scratch region)");
}

// ---------------------------------------------------------------- the executor

TEST(VerifyExecutable, TheExecutorRefusesWhatItRefuses) {
  auto e = tiny();
  e->arena_bytes = int64_t{3} << 30;
  auto x = Executor::create(e);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().message, problem(*e));
}

// An arena of 2^40 bytes that its slots need (one at the end): valid, and
// refused before it is allocated.
TEST(VerifyExecutable, TheExecutorRefusesAnArenaLargerThanTheMemory) {
  auto e = std::make_shared<Executable>();
  e->function = "big";
  const TensorType t{DType::f32, {16}};
  e->arena_bytes = int64_t{1} << 40;
  e->slots = {{t, 0, 0}, {t, -1, e->arena_bytes - 64}};
  e->args = {{"x", ArgKind::input, 0}};
  e->results = {{1, -1}};
  Instruction copy;
  copy.operands = {0};
  copy.result = 1;
  e->instructions = {copy};
  ASSERT_EQ(problem(*e), "<valid>");
  auto x = Executor::create(e);
  ASSERT_FALSE(x.ok());
  EXPECT_TRUE(std::regex_match(x.error().message,
                               std::regex("function 'big' needs an arena of 1099511627776 bytes, more than the [0-9]+ "
                                          "bytes of memory available")))
      << x.error().message;
}

// ---------------------------------------------------------------- through the reader

// The probe's crafted manifests: well formed, every index in range, wrong.
class VerifyManifestTest : public ArtifactTest {};

TEST_F(VerifyManifestTest, AllSlotsAtOffset0) {
  EXPECT_EQ(manifest_error([](Json& m) {
              for (Json& s : exe(m)["slots"]) s["offset"] = 0;
            }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[0].result' (@eval): slot 2 (bytes "
            "[0, 48)) overlaps slot 5 (bytes [0, 32)), which is live from the start to the end");
}

TEST_F(VerifyManifestTest, NoInstructions) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"] = Json::array(); }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.results[0].slot' (@eval): slot 7 holds no value "
            "at the end: nothing writes it (the function has no instructions)");
}

TEST_F(VerifyManifestTest, AGemmTransposeFlagFlipped) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["instructions"][1]["gemm"]["trans_b"] = true; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.instructions[1].gemm' (@eval): trans_b true, k "
            "3, n 2: operand 1 must be f32[2,3], found f32[3,2]");
}

TEST_F(VerifyManifestTest, AnArenaOf3GiB) {
  EXPECT_EQ(manifest_error([](Json& m) { exe(m)["arena_bytes"] = int64_t{3} << 30; }),
            "tiny.mlcx: error: manifest field 'functions[0].executable.arena_bytes' (@eval): is 3221225472, the slots "
            "need 384 (the end of the highest arena slot, rounded up to 64)");
}

// What the compiler writes for a kernel whose rows have no elements.
TEST_F(VerifyManifestTest, AKernelOfEmptyRowsReadsBack) {
  auto a = parse_artifact(with_manifest([](Json& m) { exe(m)["kernels"][0]["row_cost"] = 0; }), kPath);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->functions[0].executable->kernels[0].cpu.row_cost, 0);
}

}  // namespace
}  // namespace mlc::rt
