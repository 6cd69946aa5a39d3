// libFuzzer harness for the model-file loader (frontends/model_file.h).
//
// Input: any bytes, parsed as a model file (JSON) under the work budget scaled
// down 64x (fuzz_limits below). Invariants checked on every input that loads:
//   1. build(batch) succeeds, batch = train.batch_size if > 0 else 1 (load
//      already did a trial build at that batch, model_file.h);
//   2. the built module verifies (verify_module);
//   3. its printed IR parses back (ir/parser.h), verifies, and prints
//      identically (print -> parse -> print).
// Inputs that do not load only have to fail cleanly, with a message whose
// lines are bounded (fuzz_report.h). On a broken invariant the
// harness prints what differs and traps (a crash artifact for libFuzzer).
// The invariants live in tests/fuzz/model_invariants.h (shared with
// fuzz_model_language).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "frontends/model_file.h"
#include "tests/fuzz/model_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const mlc::ModelLimits limits = mlc::fuzz::fuzz_limits();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mlc::Expected<mlc::ModelFile> model = mlc::ModelFile::parse(text, "fuzz.json", limits);
  if (!model) {  // rejected: fine, as long as it was rejected cleanly and briefly
    mlc::fuzz::check_message_bounded("fuzz_model", model.error().message, "fuzz.json");
    return 0;
  }
  mlc::fuzz::check_loaded_model("fuzz_model", *model);
  return 0;
}
