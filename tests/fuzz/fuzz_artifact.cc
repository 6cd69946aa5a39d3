// libFuzzer harness for the artifact reader and writer (runtime/artifact.h).
//
// Input: any bytes, read twice with parse_artifact:
//   1. as they are;
//   2. with the container's checksums made right where the header and the
//      section table can be read (tests/runtime/tiny_artifact.h's
//      refresh_checksums). A mutation of the manifest or the blobs almost
//      always breaks a checksum, which libFuzzer cannot repair; this way it
//      reaches the manifest's validation instead of stopping at the checksum.
// A custom mutator (LLVMFuzzerCustomMutator) mutates, a quarter of the time
// each: the whole file's bytes; the manifest text of an input whose container
// decodes (after the checksum repair), encoding the container again, so that
// insertions and deletions in the manifest keep the section table right,
// which byte mutations of the whole file cannot; and, half of the time, the
// manifest's parsed values (tests/fuzz/manifest_mutator.h: slots moved,
// operands and results renamed, instructions reordered, arenas resized, gemm
// flags flipped, any integer, boolean or list), which keeps it well formed
// JSON of well-typed fields, so that the reader gets to the checks of what an
// executable means (runtime/verify_executable.h): on the seeds about two
// thirds of these mutations stop there, against almost none of the others.
// Each is read as the file <temp>/fuzz.mlcx (an absolute path: a relative
// data file is read relative to the artifact's folder, so it becomes absolute,
// and write_artifact keeps an absolute one as it is).
// Invariants:
//   - a rejected input is an Error whose message starts with
//     "<temp>/fuzz.mlcx: error: " (it names the file);
//   - every executable of an accepted artifact passes verify_executable, and
//     a small one without kernel instructions (their code is never linked:
//     that would run it) runs once under the executor on zero arguments,
//     ending in an Error or not, without a sanitizer report;
//   - an accepted artifact writes back (write_artifact), the written file reads
//     back (read_artifact) with the same functions, batch sizes and counts of
//     slots, instructions and kernel objects, and writing that again gives the
//     same bytes.
// Files go to a per-process temporary directory (tests/fuzz/fuzz_temp_dir.h).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/artifact.h"
#include "runtime/executor.h"
#include "runtime/verify_executable.h"
#include "tests/fuzz/fuzz_report.h"
#include "tests/fuzz/fuzz_temp_dir.h"
#include "tests/fuzz/manifest_mutator.h"
#include "tests/runtime/tiny_artifact.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) { mlc::fuzz::fail("fuzz_artifact", what, detail); }

const std::string& temp_dir() { return mlc::fuzz::temp_dir("artifact"); }

std::string describe(const mlc::rt::Artifact& a) {
  std::string s =
      std::to_string(a.functions.size()) + " functions, " + std::to_string(a.code->objects.size()) + " objects:";
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

// Runs `e` once on zero arguments where that is cheap: no kernel instruction,
// every slot at most 4 KiB (a reference op's work then stays far under the
// harness's timeout), an arena of at most 1 MiB, at most 1024 instructions.
void run_if_small(const std::shared_ptr<const mlc::rt::Executable>& e) {
  constexpr int64_t kMaxSlotBytes = 4096;
  if (e->instructions.size() > 1024 || e->arena_bytes > (int64_t{1} << 20)) return;
  for (const mlc::rt::Instruction& ins : e->instructions)
    if (ins.kind == mlc::rt::InstrKind::kernel) return;
  for (const mlc::rt::Slot& s : e->slots)
    if (s.type.num_bytes() > kMaxSlotBytes) return;
  mlc::Expected<mlc::rt::Executor> x = mlc::rt::Executor::create(e);
  if (!x) fail("the executor refuses an executable that parsed", x.error().message);
  std::vector<mlc::rt::Tensor> args;
  std::vector<mlc::rt::Tensor*> ptrs;
  for (const mlc::rt::ArgSpec& a : e->args) args.emplace_back(e->slots[static_cast<size_t>(a.slot)].type);
  for (mlc::rt::Tensor& t : args) ptrs.push_back(&t);
  (void)x->run(ptrs);  // an Error (a gather index out of range, a collective without a mesh) is fine
}

void check(std::string_view bytes) {
  static const std::string path = temp_dir() + "/fuzz.mlcx";
  mlc::Expected<mlc::rt::Artifact> parsed = mlc::rt::parse_artifact(bytes, path);
  if (!parsed) {
    const std::string& m = parsed.error().message;
    if (m.rfind(path + ": error: ", 0) != 0) fail("a failure does not name the file", m);
    return;
  }
  for (const mlc::rt::CompiledFunction& f : parsed->functions) {
    if (auto problem = mlc::rt::find_executable_problem(*f.executable))
      fail("an accepted executable breaks a rule of verify_executable",
           "@" + f.name + ": " + problem->field + ": " + problem->what);
    run_if_small(f.executable);
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
  if (seed % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string fixed(reinterpret_cast<const char*>(data), size);
  mlc::testing::refresh_checksums(fixed);
  auto sections = mlc::rt::decode_container(fixed);
  if (!sections || sections->manifest.empty()) return LLVMFuzzerMutate(data, size, max_size);
  const std::string blobs(sections->blobs);
  std::string manifest;
  if (seed % 4 == 1) {
    const size_t room = max_size - std::min(max_size, size - sections->manifest.size());
    if (room == 0) return LLVMFuzzerMutate(data, size, max_size);
    manifest.assign(sections->manifest);
    manifest.resize(std::max(manifest.size(), room));
    manifest.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(manifest.data()), sections->manifest.size(), room));
  } else {
    manifest = mlc::fuzz::mutate_manifest(sections->manifest, seed);
    if (manifest.empty()) return LLVMFuzzerMutate(data, size, max_size);
  }
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
