// libFuzzer harness for the textual IR parser (ir/parser.h).
//
// Input: any bytes, parsed as IR text. Invariants checked on every input that
// parses (ir/parser.h, ir/printer.h and ir/verifier.h promise them):
//   1. the parsed module verifies (verify_module);
//   2. its printed text parses again, and that module verifies too;
//   3. print -> parse -> print is byte-identical.
// Inputs that do not parse only have to fail cleanly (an Error, no crash, no
// sanitizer report, no timeout) and briefly (every line of the message
// bounded, fuzz_report.h). On a broken invariant the harness prints what
// differs and traps, so libFuzzer saves the input as a crash artifact.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tests/fuzz/fuzz_report.h"

namespace {

using mlc::fuzz::first_difference;

const std::string kPath = "fuzz.mlir";

[[noreturn]] void fail(const char* what, const std::string& detail) {
  mlc::fuzz::fail("fuzz_ir", what, detail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mlc::Expected<mlc::Module> parsed = mlc::parse_module(text, kPath);
  if (!parsed) {  // rejected: fine, as long as it was rejected cleanly and briefly
    mlc::fuzz::check_message_bounded("fuzz_ir", parsed.error().message, kPath);
    return 0;
  }

  mlc::Status verified = mlc::verify_module(*parsed);
  if (!verified) fail("a parsed module does not verify", verified.error().message);

  const std::string first = mlc::print_module(*parsed);
  mlc::Expected<mlc::Module> reparsed = mlc::parse_module(first, kPath);
  if (!reparsed)
    fail("the printed module does not parse back",
         reparsed.error().message + "\n---- printed text:\n" + first);
  mlc::Status reverified = mlc::verify_module(*reparsed);
  if (!reverified)
    fail("the re-parsed module does not verify",
         reverified.error().message + "\n---- printed text:\n" + first);

  const std::string second = mlc::print_module(*reparsed);
  if (first != second)
    fail("print -> parse -> print is not identical", first_difference(first, second));
  return 0;
}
