// libFuzzer harness for the numpy readers of `mlc data import` (runtime/npy.h,
// runtime/npz.h).
//
// Input: any bytes, parsed twice: as an .npy file (parse_npy) and as an .npz
// archive (parse_npz). Invariants:
//   1. a rejection is an Error whose message starts with the path and
//      ": error: " (for an archive's member, "<path>(<member>): error: ") and
//      whose lines stay bounded (fuzz_report.h);
//   2. an accepted .npy file's tensor has a valid type, and format_npy
//      (which writes every dtype parse_npy gives) writes it as a file that
//      parse_npy reads back with the same type and bytes; writing that again
//      gives the same file (the writer is a function of the tensor);
//   3. every tensor of an accepted archive passes the same round trip, and its
//      name is a member's name less ".npy".
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "runtime/npy.h"
#include "runtime/npz.h"
#include "tests/fuzz/fuzz_report.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) { mlc::fuzz::fail("fuzz_npy", what, detail); }

void check_rejection(const std::string& message, const std::string& path) {
  if (message.rfind(path + ": error: ", 0) != 0 && message.rfind(path + "(", 0) != 0)
    fail("a rejection does not start with the path", message);
  mlc::fuzz::check_message_bounded("fuzz_npy", message, path);
}

void round_trip(const mlc::rt::Tensor& t, const std::string& what) {
  if (!mlc::checked_num_elements(t.shape()) || t.shape().size() > mlc::kMaxRank) fail("an invalid type", what);
  auto file = mlc::rt::format_npy(t);
  if (!file) fail("format_npy refused a tensor parse_npy gave", what + ": " + file.error().message);
  auto back = mlc::rt::parse_npy(*file, "round_trip.npy");
  if (!back) fail("a written .npy file does not read back", what + ": " + back.error().message);
  if (back->type() != t.type() || std::memcmp(back->bytes(), t.bytes(), static_cast<size_t>(t.num_bytes())) != 0)
    fail("a written .npy file reads back differently", what + ": " + t.type().str() + " vs " + back->type().str());
  auto again = mlc::rt::format_npy(*back);
  if (!again || *again != *file) fail("writing the re-read tensor gives other bytes", what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto npy = mlc::rt::parse_npy(bytes, "fuzz.npy");
  if (npy) round_trip(*npy, "the .npy file");
  else check_rejection(npy.error().message, "fuzz.npy");
  auto npz = mlc::rt::parse_npz(bytes, "fuzz.npz");
  if (!npz) {
    check_rejection(npz.error().message, "fuzz.npz");
    return 0;
  }
  for (const mlc::rt::NamedTensor& t : *npz) round_trip(t.tensor, "member '" + t.name + "'");
  return 0;
}
