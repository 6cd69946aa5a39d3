// The invariants of a model file that loaded, checked by fuzz_model (JSON) and
// fuzz_model_language (.mlc):
//   1. build(batch) succeeds, batch = train.batch_size if > 0 else 1 (load
//      already did a trial build at that batch, model_file.h);
//   2. the built module verifies (verify_module);
//   3. its printed IR parses back (ir/parser.h), verifies, and prints
//      identically (print -> parse -> print).
// On a broken invariant it prints what differs and traps.
#pragma once

#include <string>

#include "frontends/model_file.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tests/fuzz/fuzz_report.h"

namespace mlc::fuzz {

// The work budget scaled down 64x: the same checks, at sizes that one input
// runs through in well under libFuzzer's timeout under ASan (a model at the
// documented IR budget takes about a minute here: build, verify, print, parse).
inline ModelLimits fuzz_limits() {
  ModelLimits l;
  l.max_param_tensors = l.max_param_tensors >> 6;
  l.max_modules = l.max_modules >> 6;
  l.max_forward_ops = l.max_forward_ops >> 6;
  l.max_ir_ops = l.max_ir_ops >> 6;
  return l;
}

// Returns the built module's printed IR.
inline std::string check_loaded_model(const char* harness, const ModelFile& model) {
  auto failed = [&](const char* what, const std::string& detail) { fail(harness, what, detail); };
  const int64_t batch = model.config().trial_batch();
  Expected<Module> built = model.build(batch);
  if (!built)
    failed("a model file that loaded does not build at its batch size",
           "batch " + std::to_string(batch) + ": " + built.error().message);
  Status verified = verify_module(*built);
  if (!verified) failed("the built module does not verify", verified.error().message);
  const std::string first = print_module(*built);
  Expected<Module> reparsed = parse_module(first, "printed.mlir");
  if (!reparsed)
    failed("the built module's printed IR does not parse",
           reparsed.error().message + "\n---- printed IR:\n" + head(first));
  Status reverified = verify_module(*reparsed);
  if (!reverified)
    failed("the re-parsed module does not verify",
           reverified.error().message + "\n---- printed IR:\n" + head(first));
  const std::string second = print_module(*reparsed);
  if (first != second)
    failed("print -> parse -> print is not identical", first_difference(first, second));
  return first;
}

}  // namespace mlc::fuzz
