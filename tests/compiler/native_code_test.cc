// Linking kernel objects (runtime/cpu/native_code.h) refuses objects that are not
// what the compiler makes: ones made by the compiler (kVariedKernels) and
// then altered as an attacker would, by renaming a function they call to
// `system`, or by naming an object after another object's function. The
// import list admits libmvec's vector tanh and erf, which kernels call.
#include "runtime/cpu/native_code.h"

#include <gtest/gtest.h>

#include "compiler/cpu/llvm_jit.h"
#include "runtime/kernel_imports.h"
#include "tests/compiler/lowered_kernels.h"

namespace mlc {
namespace {

const rt::CodeModule& varied_code() {
  static const rt::CodeModule code = [] {
    auto c = compile_kernels(mlc::testing::lowered_kernels().kernels);
    EXPECT_TRUE(c.ok()) << c.error().message;
    return c.ok() ? c->code : rt::CodeModule{};
  }();
  return code;
}

std::string link_error(const rt::CodeModule& code) {
  auto linked = rt::link_native_code(code);
  return linked.ok() ? "<linked>" : linked.error().message;
}

TEST(CodeModuleLink, LinksTheCompilersObjects) {
  ASSERT_GE(varied_code().objects.size(), 10u);
  EXPECT_EQ(link_error(varied_code()), "<linked>");
}

// An object whose call to memset (a kernel import) is renamed, in its string
// table, to system (the same length): it would run a shell command.
TEST(CodeModuleLink, RefusesAnObjectThatCallsAFunctionKernelsNeverCall) {
  rt::CodeModule code = varied_code();
  const std::string from("memset\0", 7), to("system\0", 7);
  rt::ObjectFile* patched = nullptr;
  for (rt::ObjectFile& o : code.objects)
    if (size_t at = o.bytes.find(from); at != std::string::npos && !patched) {
      o.bytes.replace(at, from.size(), to);
      patched = &o;
    }
  ASSERT_NE(patched, nullptr) << "no object calls memset";
  EXPECT_EQ(link_error(code), "kernel object '" + patched->symbol + "' refers to 'system', which kernels never call");
}

// Object 0 named after object 1's function: its own function would be looked
// up elsewhere (in object 1, or in the process for a name like `abort`).
TEST(CodeModuleLink, RefusesAnObjectThatDoesNotDefineItsSymbol) {
  rt::CodeModule code = varied_code();
  code.objects[0].symbol = code.objects[1].symbol;
  EXPECT_EQ(link_error(code), "kernel object '" + code.objects[1].symbol + "' does not define its symbol");
  code = varied_code();
  code.objects.resize(1);
  code.objects[0].symbol = "mlc_kernel_0000000000000000";
  EXPECT_EQ(link_error(code), "kernel object 'mlc_kernel_0000000000000000' does not define its symbol");
}

// The vector variants of tanh and erf that kernels call on SSE, AVX2 and
// AVX-512 hosts (compiler/cpu/llvm_jit.cc add_libmvec_tanh_erf) are imports;
// names that only look like libmvec's are not.
TEST(KernelImports, AdmitLibmvecTanhAndErfOnly) {
  for (const char* name : {"tanhf", "erf", "_ZGVbN4v_tanhf", "_ZGVbN2v_erf", "_ZGVdN8v_erff", "_ZGVdN4v_tanh",
                           "_ZGVeN16v_tanhf", "_ZGVeN16v_erff", "_ZGVeN8v_tanh", "_ZGVeN8v_erf"})
    EXPECT_TRUE(rt::is_kernel_import(name)) << name;
  for (const char* name : {"tanhl", "erfl", "_ZGVeN16v_tanhl", "_ZGVeN16v_system", "_ZGVxN16v_tanhf", "_ZGVeN16_tanhf",
                           "_ZGVeXv_tanhf", "_ZGVeN16v_tanhf@plt", "_ZGVeN16vtanhf"})
    EXPECT_FALSE(rt::is_kernel_import(name)) << name;
}

// Kernels over rows of 64 (whole vectors of every width) call the vector
// tanh and erf, and link.
TEST(NativeCodeLink, LinksKernelsThatCallVectorTanhAndErf) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2";
  const mlc::testing::LoweredKernels l = mlc::testing::lower_kernels(R"(module @m {
  func @f(%x: f32[16,64] {input}, %y: f64[16,64] {input}) -> (f32[16,64], f32[16,64], f64[16,64], f64[16,64]) {
    %0 = tanh(%x) : f32[16,64]
    %1 = erf(%x) : f32[16,64]
    %2 = tanh(%y) : f64[16,64]
    %3 = erf(%y) : f64[16,64]
    return %0, %1, %2, %3
  }
})");
  auto c = compile_kernels(l.kernels);
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::string all;
  for (const rt::ObjectFile& o : c->code.objects) all += o.bytes;
  for (const char* f : {"v_tanhf", "v_erff", "v_tanh", "v_erf"})
    EXPECT_NE(all.find(std::string(f) + '\0'), std::string::npos) << f;
  EXPECT_EQ(link_error(c->code), "<linked>");
}

}  // namespace
}  // namespace mlc
