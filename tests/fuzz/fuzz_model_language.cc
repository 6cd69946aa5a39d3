// libFuzzer harness for the model language (frontends/dsl_parse.h, .mlc files)
// and its printer (frontends/dsl_print.h).
//
// Input: any bytes, read as a .mlc model file under fuzz_limits(). On every
// input that loads:
//   1. the invariants of tests/fuzz/model_invariants.h (build, verify, the
//      printed IR round-trips);
//   2. conversion: printing its DOM in the model language (what `mlc convert`
//      writes) reads back to the same values, loads, and builds the same IR
//      up to locations; printing that again gives the same text.
// Inputs that do not load only have to fail cleanly, with a message whose
// lines are bounded (fuzz_report.h: an unbounded echo of the input is a
// finding).
#include <cstddef>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>

#include "frontends/dsl_parse.h"
#include "frontends/dsl_print.h"
#include "frontends/model_file.h"
#include "tests/fuzz/model_invariants.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  mlc::fuzz::fail("fuzz_model_language", what, detail);
}

std::string without_locations(const std::string& ir) {
  static const std::regex loc(R"( loc\([^)]*\))");
  return std::regex_replace(ir, loc, "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const mlc::ModelLimits limits = mlc::fuzz::fuzz_limits();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mlc::Expected<mlc::ModelFile> model = mlc::ModelFile::parse(text, "fuzz.mlc", limits);
  if (!model) {
    mlc::fuzz::check_message_bounded("fuzz_model_language", model.error().message, "fuzz.mlc");
    return 0;
  }
  const std::string ir = mlc::fuzz::check_loaded_model("fuzz_model_language", *model);

  mlc::Expected<mlc::JsonDoc> doc = mlc::parse_model_language(text, "fuzz.mlc");
  if (!doc) fail("a model file that loaded does not parse again", doc.error().message);
  const std::string printed = mlc::print_model_language(*doc->root().json);
  mlc::Expected<mlc::JsonDoc> back = mlc::parse_model_language(printed, "printed.mlc");
  if (!back)
    fail("the converted model does not parse",
         back.error().message + "\n---- printed:\n" + mlc::fuzz::head(printed));
  if (nlohmann::json(*doc->root().json) != nlohmann::json(*back->root().json))
    fail("the converted model reads back to other values", mlc::fuzz::head(printed));
  const std::string again = mlc::print_model_language(*back->root().json);
  if (again != printed)
    fail("print -> parse -> print is not identical", mlc::fuzz::first_difference(printed, again));
  mlc::Expected<mlc::ModelFile> converted = mlc::ModelFile::parse(printed, "printed.mlc", limits);
  if (!converted)
    fail("the converted model does not load",
         converted.error().message + "\n---- printed:\n" + mlc::fuzz::head(printed));
  mlc::Expected<mlc::Module> built = converted->build(converted->config().trial_batch());
  if (!built) fail("the converted model does not build", built.error().message);
  const std::string converted_ir = mlc::print_module(*built);
  if (without_locations(converted_ir) != without_locations(ir))
    fail("the converted model builds other IR",
         mlc::fuzz::first_difference(without_locations(ir), without_locations(converted_ir)));
  return 0;
}
