// libFuzzer harness for the artifact reader and writer (runtime/artifact.h).
//
// Input: any bytes, read twice with parse_artifact:
//   1. as they are;
//   2. with the container's checksums made right where the header and the
//      section table can be read (tests/runtime/tiny_artifact.h's
//      refresh_checksums). A mutation of the manifest or the blobs almost
//      always breaks a checksum, which libFuzzer cannot repair; this way it
//      reaches the manifest's validation instead of stopping at the checksum.
// A custom mutator (LLVMFuzzerCustomMutator) also mutates, half of the time,
// the manifest text of an input whose container decodes (after the checksum
// repair) and encodes the container again: insertions and deletions in the
// manifest then keep the section table right, which byte mutations of the
// whole file cannot.
// Each is read as the file <temp>/fuzz.mlcx (an absolute path: a relative
// data file is read relative to the artifact's folder, so it becomes absolute,
// and write_artifact keeps an absolute one as it is).
// Invariants:
//   - a rejected input is an Error whose message starts with
//     "<temp>/fuzz.mlcx: error: " (it names the file);
//   - an accepted artifact writes back (write_artifact), the written file reads
//     back (read_artifact) with the same functions, batch sizes and counts of
//     slots, instructions and kernel objects, and writing that again gives the
//     same bytes.
// Files go to a per-process temporary directory (tests/fuzz/fuzz_temp_dir.h).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "runtime/artifact.h"
#include "tests/fuzz/fuzz_report.h"
#include "tests/fuzz/fuzz_temp_dir.h"
#include "tests/runtime/tiny_artifact.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) { mlc::fuzz::fail("fuzz_artifact", what, detail); }

const std::string& temp_dir() { return mlc::fuzz::temp_dir("artifact"); }

std::string describe(const mlc::rt::Artifact& a) {
  std::string s =
      std::to_string(a.functions.size()) + " functions, " + std::to_string(a.code.objects.size()) + " objects:";
  for (const mlc::rt::CompiledFunction& f : a.functions)
    s += " @" + f.name + "/" + std::to_string(f.batch) + " (" + std::to_string(f.executable->slots.size()) +
         " slots, " + std::to_string(f.executable->instructions.size()) + " instructions)";
  return s;
}

std::string write(const mlc::rt::Artifact& a, const std::string& path) {
  mlc::Status written = mlc::rt::write_artifact(path, a);
  if (!written) fail("write_artifact rejects an artifact that parsed", written.error().message + "\n" + describe(a));
  return mlc::fuzz::read_bytes(path);
}

void check(std::string_view bytes) {
  static const std::string path = temp_dir() + "/fuzz.mlcx";
  mlc::Expected<mlc::rt::Artifact> parsed = mlc::rt::parse_artifact(bytes, path);
  if (!parsed) {
    const std::string& m = parsed.error().message;
    if (m.rfind(path + ": error: ", 0) != 0) fail("a failure does not name the file", m);
    return;
  }
  const std::string first = temp_dir() + "/first.mlcx", second = temp_dir() + "/second.mlcx";
  const std::string written = write(*parsed, first);
  mlc::Expected<mlc::rt::Artifact> reread = mlc::rt::read_artifact(first);
  if (!reread) fail("the written artifact does not read back", reread.error().message + "\n" + describe(*parsed));
  if (describe(*reread) != describe(*parsed))
    fail("the artifact differs after writing and reading it", describe(*parsed) + "\nafter: " + describe(*reread));
  const std::string rewritten = write(*reread, second);
  if (rewritten != written)
    fail("writing the re-read artifact gives different bytes",
         "sizes " + std::to_string(written.size()) + " and " + std::to_string(rewritten.size()) + "\n" +
             mlc::fuzz::head(mlc::fuzz::first_difference(written, rewritten)));
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string fixed(reinterpret_cast<const char*>(data), size);
  mlc::testing::refresh_checksums(fixed);
  auto sections = mlc::rt::decode_container(fixed);
  if (!sections || sections->manifest.empty()) return LLVMFuzzerMutate(data, size, max_size);
  const std::string blobs(sections->blobs);
  const size_t room = max_size - std::min(max_size, size - sections->manifest.size());
  if (room == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string manifest(sections->manifest);
  manifest.resize(std::max(manifest.size(), room));
  manifest.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(manifest.data()), sections->manifest.size(), room));
  const std::string out = mlc::rt::encode_container(manifest, blobs);
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check(bytes);
  std::string fixed(bytes);
  mlc::testing::refresh_checksums(fixed);
  if (fixed != bytes) check(fixed);
  return 0;
}
