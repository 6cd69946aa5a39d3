// libFuzzer harness for what `mlc run --verify-code` does with an artifact's
// kernel IR before trusting it (driver/verify_code.h): kernel_from_json
// (compiler/kernel_ir_json.h), kir::verify_kernel and verify_kernel_buffers
// (compiler/kernel_ir_verify.h), and code generation (compiler/cpu/llvm_jit.h) of
// what the verifier accepts.
//
// Input: any bytes, as the kernel IR's JSON text.
// Invariants, on a text that kernel_from_json accepts:
//   - kernel_to_json of the kernel reads back with the same signature and
//     writes the same text again;
//   - verify_kernel gives the same answer for the re-read kernel;
// and on a kernel verify_kernel accepts:
//   - verify_kernel_buffers returns (on buffers of the params' dtypes: inputs
//     of 64 elements, outputs of the domain's shape);
//   - code generation compiles it (kernels of at most 256 expressions, to
//     keep runs fast): an error there, or an assertion, is a gap of the
//     verifier, which promises kernels code generation handles.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "compiler/cpu/llvm_jit.h"
#include "compiler/kernel_ir_json.h"
#include "compiler/kernel_ir_verify.h"
#include "tests/fuzz/fuzz_report.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) { mlc::fuzz::fail("fuzz_kernel_ir", what, detail); }

void check(std::string_view text) {
  auto k = mlc::kir::kernel_from_json(text);
  if (!k) {
    if (k.error().message.rfind("kernel IR", 0) != 0) fail("a failure does not say it is the kernel IR's", k.error().message);
    return;
  }
  const std::string json = mlc::kir::kernel_to_json(*k);
  auto back = mlc::kir::kernel_from_json(json);
  if (!back) fail("the written kernel IR does not read back", back.error().message + "\n" + mlc::fuzz::head(json));
  if (mlc::kir::signature(*back) != mlc::kir::signature(*k)) fail("the kernel differs after writing and reading it", mlc::fuzz::head(json));
  if (mlc::kir::kernel_to_json(*back) != json) fail("writing the re-read kernel gives another text", mlc::fuzz::head(json));
  const mlc::Status verified = mlc::kir::verify_kernel(*k);
  if (verified.ok() != mlc::kir::verify_kernel(*back).ok()) fail("the re-read kernel verifies differently", mlc::fuzz::head(json));
  if (!verified) return;
  std::vector<mlc::TensorType> buffers;
  for (int p = 0; p < static_cast<int>(k->params.size()); ++p)
    buffers.push_back({k->params[static_cast<size_t>(p)], p < k->num_inputs() ? mlc::Shape{64} : k->domain});
  (void)mlc::kir::verify_kernel_buffers(*k, buffers);
  if (k->exprs.size() > 256) return;
  k->name = "mlc_kernel_fuzz";
  mlc::CompileOptions options;
  options.threads = 1;
  auto compiled = mlc::compile_named_kernels({*k}, options);
  if (!compiled) fail("code generation fails on a kernel the verifier accepts", compiled.error().message + "\n" + mlc::fuzz::head(json));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
