// Linking kernel objects (runtime/cpu/native_code.h) refuses objects that are not
// what the compiler makes: ones made by the compiler (kVariedKernels) and
// then altered as an attacker would, by renaming a function they call to
// `system`, or by naming an object after another object's function.
#include "runtime/cpu/native_code.h"

#include <gtest/gtest.h>

#include "compiler/llvm_jit.h"
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

}  // namespace
}  // namespace mlc
