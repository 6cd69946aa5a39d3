// libFuzzer harness for the model-file loader (frontends/model_file.h).
//
// Input: any bytes, parsed as a model file (JSON) under the work budget scaled
// down 64x (fuzz_limits below). Invariants checked on every input that loads:
//   1. build(batch) succeeds, batch = train.batch_size if > 0 else 1 (load
//      already did a trial build at that batch, model_file.h);
//   2. the built module verifies (verify_module);
//   3. its printed IR parses back (ir/parser.h), verifies, and prints
//      identically (print -> parse -> print).
// Inputs that do not load only have to fail cleanly. On a broken invariant the
// harness prints what differs and traps (a crash artifact for libFuzzer).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "frontends/model_file.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tests/fuzz/fuzz_report.h"

namespace {

using mlc::fuzz::first_difference;
using mlc::fuzz::head;

const std::string kPath = "fuzz.json";

[[noreturn]] void fail(const char* what, const std::string& detail) {
  mlc::fuzz::fail("fuzz_model", what, detail);
}

// The work budget scaled down 64x: the same checks, at sizes that one input
// runs through in well under libFuzzer's timeout under ASan (a model at the
// documented IR budget takes about a minute here: build, verify, print, parse).
mlc::ModelLimits fuzz_limits() {
  mlc::ModelLimits l;
  l.max_param_tensors = l.max_param_tensors >> 6;
  l.max_modules = l.max_modules >> 6;
  l.max_forward_ops = l.max_forward_ops >> 6;
  l.max_ir_ops = l.max_ir_ops >> 6;
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const mlc::ModelLimits limits = fuzz_limits();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mlc::Expected<mlc::ModelFile> model = mlc::ModelFile::parse(text, kPath, limits);
  if (!model) return 0;  // rejected: fine, as long as it was rejected cleanly

  const int64_t batch = model->config().trial_batch();
  mlc::Expected<mlc::Module> built = model->build(batch);
  if (!built)
    fail("a model file that loaded does not build at its batch size",
         "batch " + std::to_string(batch) + ": " + built.error().message);

  mlc::Status verified = mlc::verify_module(*built);
  if (!verified) fail("the built module does not verify", verified.error().message);

  const std::string first = mlc::print_module(*built);
  mlc::Expected<mlc::Module> reparsed = mlc::parse_module(first, "printed.mlir");
  if (!reparsed)
    fail("the built module's printed IR does not parse",
         reparsed.error().message + "\n---- printed IR:\n" + head(first));
  mlc::Status reverified = mlc::verify_module(*reparsed);
  if (!reverified)
    fail("the re-parsed module does not verify",
         reverified.error().message + "\n---- printed IR:\n" + head(first));

  const std::string second = mlc::print_module(*reparsed);
  if (first != second)
    fail("print -> parse -> print is not identical", first_difference(first, second));
  return 0;
}
