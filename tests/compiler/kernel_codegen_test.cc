// What the LLVM emitter makes of loop kernels (compiler/cpu/llvm_jit.h): which
// strategy each reduction gets (cpu::reduce_strategies), and that the loops
// meant for the vectorizer are vectorized: exp, tanh and erf through libmvec's
// vector variants, column sums with unit-stride loads instead of gathers. Results
// are compared with the interpreter by compiled_test.cc; these tests pin the
// shape of the code, the causes of slow kernels found with `mlc run --profile`.
#include <gtest/gtest.h>

#include "compiler/cpu/llvm_jit.h"
#include "compiler/cpu/reduce_strategy.h"
#include "compiler/cpu/row_split.h"
#include "compiler/lower.h"
#include "ir/parser.h"

namespace mlc {
namespace {

// The kernels of function @f of `text`, lowered without native code.
std::vector<kir::Kernel> kernels_of(const std::string& text) {
  auto m = parse_module(text, "kernel_codegen_test.mlir");
  if (!m.ok()) {
    ADD_FAILURE() << m.error().message;
    return {};
  }
  LowerOptions o;
  o.compile_kernels = false;
  auto l = lower_function(*m->find("f"), o);
  if (!l.ok()) {
    ADD_FAILURE() << l.error().message;
    return {};
  }
  return l->kernels;
}

cpu::ReduceStrategy root_strategy(const kir::Kernel& k) {
  return cpu::reduce_strategies(k)[static_cast<size_t>(k.root)];
}

TEST(ReduceStrategies, FollowTheUnitStride) {
  std::vector<kir::Kernel> ks = kernels_of(R"(module @m {
  func @f(%x: f32[8,64] {input}) -> (f32[64], f32[8], f32[8,1], i64[64]) {
    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[64]
    %1 = reduce_sum(%x) {dims = [1], keepdim = false} : f32[8]
    %2 = reduce_max(%x) {dims = [1], keepdim = true} : f32[8,1]
    %3 = argmax(%x) {axis = 0} : i64[64]
    return %0, %1, %2, %3
  }
})");
  ASSERT_EQ(ks.size(), 4u);
  EXPECT_EQ(root_strategy(ks[0]), cpu::ReduceStrategy::across_row);   // column sum
  EXPECT_EQ(root_strategy(ks[1]), cpu::ReduceStrategy::per_element);  // row sum: its own loop is unit-stride
  EXPECT_EQ(root_strategy(ks[2]), cpu::ReduceStrategy::per_row);      // one element per row
  EXPECT_EQ(root_strategy(ks[3]), cpu::ReduceStrategy::per_element);  // argmax keeps its index
}

TEST(ReduceStrategies, LongSumsOverShortRowsInterleave) {
  std::vector<kir::Kernel> ks = kernels_of(R"(module @m {
  func @f(%x: f32[32,16,8,8] {input}, %y: f32[32,32,4,4] {input}) -> (f32[16], f32[32], f32[16]) {
    %0 = reduce_sum(%x) {dims = [0, 2, 3], keepdim = false} : f32[16]
    %1 = reduce_sum(%y) {dims = [0, 2, 3], keepdim = false} : f32[32]
    %2 = reduce_max(%x) {dims = [0, 2, 3], keepdim = false} : f32[16]
    return %0, %1, %2
  }
})");
  ASSERT_EQ(ks.size(), 3u);
  // A bias gradient: 2048 dependent adds per channel, 16 channels.
  EXPECT_EQ(root_strategy(ks[0]), cpu::ReduceStrategy::interleaved);
  // 512 terms: their chains already overlap enough (measured no faster).
  EXPECT_EQ(root_strategy(ks[1]), cpu::ReduceStrategy::per_element);
  // max folds vectorized, in any order (llvm_jit.cc).
  EXPECT_EQ(root_strategy(ks[2]), cpu::ReduceStrategy::per_element);
}

// A reduction over the last axis with one element per row joins the kernel
// that broadcasts it back over the row (compiler/fusion.h): log_softmax is
// one kernel, its max inside its sum of exponentials, both once per row.
TEST(ReduceStrategies, RowReductionsJoinTheKernelThatUsesThem) {
  std::vector<kir::Kernel> ks = kernels_of(R"(module @m {
  func @f(%x: f32[64,32] {input}) -> (f32[64,32]) {
    %0 = reduce_max(%x) {dims = [1], keepdim = true} : f32[64,1]
    %1 = sub(%x, %0) : f32[64,32]
    %2 = exp(%1) : f32[64,32]
    %3 = reduce_sum(%2) {dims = [1], keepdim = true} : f32[64,1]
    %4 = log(%3) : f32[64,1]
    %5 = sub(%1, %4) : f32[64,32]
    return %5
  }
})");
  ASSERT_EQ(ks.size(), 1u);
  std::vector<cpu::ReduceStrategy> s = cpu::reduce_strategies(ks[0]);
  int per_row = 0;
  for (size_t id = 0; id < s.size(); ++id)
    if (ks[0].exprs[id].kind == kir::ExprKind::reduce) {
      EXPECT_EQ(s[id], cpu::ReduceStrategy::per_row) << kir::print_kernel(ks[0]);
      ++per_row;
    }
  EXPECT_EQ(per_row, 2);  // the max, shared by both uses of %1, and the sum
}

// Where joining would evaluate an expensive op twice per element (softmax's
// exponentials: in the sum and in the quotient), they are stored instead;
// a sum over everything is no row reduction and stays a kernel of its own.
TEST(ReduceStrategies, RowReductionsRecomputeNothingExpensive) {
  std::vector<kir::Kernel> ks = kernels_of(R"(module @m {
  func @f(%x: f32[64,32] {input}) -> (f32[64,32], f32[64,32]) {
    %0 = reduce_max(%x) {dims = [1], keepdim = true} : f32[64,1]
    %1 = sub(%x, %0) : f32[64,32]
    %2 = exp(%1) : f32[64,32]
    %3 = reduce_sum(%2) {dims = [1], keepdim = true} : f32[64,1]
    %4 = div(%2, %3) : f32[64,32]
    %5 = reduce_sum(%x) {dims = [0, 1], keepdim = false} : f32[]
    %6 = div(%x, %5) : f32[64,32]
    return %4, %6
  }
})");
  ASSERT_EQ(ks.size(), 4u);
  EXPECT_NE(ks[0].origin.find("reduce_max"), std::string::npos) << ks[0].origin;  // exp with its max
  EXPECT_NE(ks[0].origin.find("exp"), std::string::npos) << ks[0].origin;
  EXPECT_NE(ks[1].origin.find("reduce_sum"), std::string::npos) << ks[1].origin;  // the quotient with its sum
  EXPECT_EQ(ks[2].domain, (std::vector<int64_t>{}));                            // the total
  EXPECT_EQ(ks[3].origin, "%6 div");
}

TEST(RowCost, CountsTheTapsOfAnUnrolledWindow) {
  std::vector<kir::Kernel> ks = kernels_of(R"(module @m {
  func @f(%x: f32[8,8] {input}) -> (f32[8,8], f32[8,7]) {
    %0 = exp(%x) : f32[8,8]
    %1 = slice(%x) {start = [0, 1], limit = [8, 8], stride = [1, 1]} : f32[8,7]
    %2 = slice(%x) {start = [0, 0], limit = [8, 7], stride = [1, 1]} : f32[8,7]
    %3 = add(%1, %2) : f32[8,7]
    return %0, %3
  }
})");
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(cpu::kernel_row_cost(ks[0]), 8);       // one load per element
  EXPECT_EQ(cpu::kernel_row_cost(ks[1]), 7 * 2);  // two taps of %x per element
}

// The optimized LLVM IR of the kernels of `text` (its functions' attributes
// name the host's features: libmvec's vector variants need AVX2).
std::string optimized_ir(const std::string& text) {
  auto ir = kernels_llvm_ir(kernels_of(text));
  EXPECT_TRUE(ir.ok()) << ir.error().message;
  return ir.ok() ? *ir : "";
}

TEST(Vectorization, ExpOverShortRowsCallsTheVectorVariant) {
  std::string ir = optimized_ir(R"(module @m {
  func @f(%x: f32[64,32] {input}) -> (f32[64,32]) {
    %0 = exp(%x) : f32[64,32]
    return %0
  }
})");
  if (ir.find("+avx2") == std::string::npos) GTEST_SKIP() << "no AVX2: libmvec has no vector exp for this CPU";
  EXPECT_NE(ir.find("_ZGV"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("call float @llvm.exp.f32"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("call float @expf"), std::string::npos) << ir;
}

// tanh and erf (GELU's) are libm calls that the vectorizer replaces with
// libmvec's variants (compiler/cpu/llvm_jit.cc add_libmvec_tanh_erf); before,
// an add+tanh kernel called tanhf once per element, 14x an exp kernel's
// time. Rows of 64 fill whole vectors of every width: no scalar call remains.
TEST(Vectorization, TanhAndErfCallTheVectorVariants) {
  for (std::string t : {"f32", "f64"}) {
    SCOPED_TRACE(t);
    const std::string x = t + "[32,64]";
    std::string ir = optimized_ir("module @m {\n  func @f(%x: " + x + " {input}, %b: " + t + "[64] {input}) -> (" + x +
                                  ", " + x + ") {\n    %0 = add(%x, %b) : " + x + "\n    %1 = tanh(%0) : " + x +
                                  "\n    %2 = erf(%x) : " + x + "\n    return %1, %2\n  }\n}");
    if (ir.find("+avx2") == std::string::npos) GTEST_SKIP() << "no AVX2";
    const std::string f = t == "f32" ? "f" : "";
    EXPECT_NE(ir.find("v_tanh" + f + "("), std::string::npos) << ir;
    EXPECT_NE(ir.find("v_erf" + f + "("), std::string::npos) << ir;
    EXPECT_EQ(ir.find("@tanh" + f + "("), std::string::npos) << ir;
    EXPECT_EQ(ir.find("@erf" + f + "("), std::string::npos) << ir;
  }
}

TEST(Vectorization, ColumnSumsLoadUnitStride) {
  std::string ir = optimized_ir(R"(module @m {
  func @f(%x: f32[16,32,64] {input}, %y: f32[16,32,64] {input}) -> (f32[64]) {
    %0 = mul(%x, %y) : f32[16,32,64]
    %1 = reduce_sum(%0) {dims = [0, 1], keepdim = false} : f32[64]
    return %1
  }
})");
  if (ir.find("+avx2") == std::string::npos) GTEST_SKIP() << "no AVX2";
  EXPECT_NE(ir.find("load <"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << ir;
}


// An update written into its argument's buffer (AdamW's p' = p * (1 - lr wd)
// - lr m' / (sqrt(v') + eps), in place) is stored through the argument's own
// pointer. With two pointers, equal at run time, the vectorizer tested them
// for overlap and ran its scalar loop: gpt256's AdamW kernels took 24 ms per
// step instead of 10.
TEST(Vectorization, InPlaceUpdatesNeedNoOverlapCheck) {
  std::vector<kir::Kernel> ks = kernels_of(R"(module @m {
  func @f(%p: f32[64,256] {param}, %m: f32[64,256] {input}, %v: f32[64,256] {input}, %a: f32[] {input}) -> (f32[64,256] {updates = %p}) {
    %0 = constant() {value = 0.9997} : f32[]
    %1 = mul(%p, %0) : f32[64,256]
    %2 = mul(%m, %a) : f32[64,256]
    %3 = sqrt(%v) : f32[64,256]
    %4 = constant() {value = 1e-8} : f32[]
    %5 = add(%3, %4) : f32[64,256]
    %6 = div(%2, %5) : f32[64,256]
    %7 = add(%1, %6) : f32[64,256]
    return %7
  }
})");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].output_alias, 0);  // written into %p's buffer
  auto ir = kernels_llvm_ir(ks);
  ASSERT_TRUE(ir.ok()) << ir.error().message;
  if (ir->find("+avx2") == std::string::npos) GTEST_SKIP() << "no AVX2";
  EXPECT_NE(ir->find("store <"), std::string::npos) << *ir;
  // LLVM names its run-time overlap tests diff.check or vector.memcheck.
  EXPECT_EQ(ir->find("diff.check"), std::string::npos) << *ir;
  EXPECT_EQ(ir->find("memcheck"), std::string::npos) << *ir;
}

}  // namespace
}  // namespace mlc
