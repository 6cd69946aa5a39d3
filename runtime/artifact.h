// A compiled model: `mlc compile MODEL.json -o MODEL.mlcx` writes one, and
// `mlc run MODEL.mlcx` trains and evaluates from it with no frontend, pass
// pipeline or code generation (runtime/ only).
//
// File layout (little-endian):
//   [0, 8)    magic "MLCX\r\n\x1a\n"
//   [8, 12)   u32 format version (kArtifactVersion)
//   [12, 16)  u32 number of sections N (1 <= N <= 16)
//   [16, 24)  u64 FNV-1a 64 checksum of the section table
//   [24, 24 + 40 N) section table: name (16 bytes, NUL-padded), u64 offset,
//             u64 size, u64 FNV-1a 64 checksum of the section's bytes
//   sections: "manifest" (JSON, below) and "blobs" (constant bytes and
//             kernel objects, referenced from the manifest by offset and size)
// Sections lie inside the file, in order, without overlap.
//
// The manifest: format and mlc version, the hash of the compiled module, the
// target (runtime/target.h: its name, "cpu-x86_64", the CPU and features the
// code was compiled for, and the code generator); the device mesh and ZeRO stage the sharded
// functions were compiled for ("parallel": {"mesh": "dp=2", "zero": 1}; mesh
// "" for one device); the model (inputs, parameters with their PyTorch
// names, types and initializations, data mapping, loss, training settings);
// the compiled functions, each an executable (runtime/executable.h: slots,
// arguments with their placements, results, instructions, constants, kernels,
// arena bytes) for one batch size, sharded (every rank's SPMD program on the
// mesh, one placement per mesh axis on every argument, as "S(0)") or not (no
// placements; a mesh run's unsharded functions, for the evaluation examples
// that do not split evenly over the data ranks); and the kernel objects every
// executable shares, each with its symbol (runtime/kernel_imports.h) and the
// blobs holding its bytes and its kernel IR as text ("source",
// compiler/kernel_ir_json.h).
//
// Contracts:
//  - parse_artifact validates every field before use: the container (magic,
//    version, section bounds, checksums), then each manifest field's type and
//    range (slot, kernel and object indices, offsets and sizes against the
//    blobs, reference ops re-inferred from their operand types, the mesh and
//    every placement parsed and checked against the mesh and the argument's
//    rank), then each executable's meaning (runtime/verify_executable.h:
//    slots inside the arena, operand types and gemm shapes, data flow,
//    liveness, the arena's size). An invalid file is an Error
//    "<path>: error: <what is wrong>" naming the field; it never crashes and
//    never allocates more than the file's size justifies.
//  - Every executable read shares the artifact's `code`; nothing is loaded:
//    the executor loads it (runtime/target.h load_code, once per process),
//    which refuses code for CPU features this machine lacks. load_artifact_code
//    loads it ahead of time, to report that before anything runs.
//  - write_artifact writes atomically (temporary file, fsync, rename).
// The writer is runtime/artifact_writer.cc, the reader artifact_reader.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/model_config.h"
#include "runtime/executable.h"

namespace mlc::rt {

// 2: meshes and placements; 3: kernels with several outputs; 4: each kernel
// object's kernel IR ("source"), the target's code generator, symbols that
// are kernel names only; 5: the target's name, collective instructions; 6:
// a pipeline's settings (parallel.pipeline), and two-phase GPU kernels (a
// kernel launch's scratch_bytes and combine_grid, an executable's
// scratch_offset and scratch_bytes), whose code takes two more arguments
// that an older reader would not pass.
inline constexpr uint32_t kArtifactVersion = 6;

struct CompiledFunction {
  std::string name;   // "train_step", "eval", ...
  int64_t batch = 0;  // the batch size it was compiled for (global on a mesh)
  std::shared_ptr<Executable> executable;
  bool sharded = false;  // compiled for Artifact::mesh (its arguments carry placements)
};

struct Artifact {
  std::string mlc_version;
  std::string module_hash;  // of the train step's module, hex
  Mesh mesh;     // of the sharded functions; empty: one device
  int zero = 0;  // the ZeRO stage they were compiled for
  // With a pp axis in `mesh`: the pipeline its stage functions
  // ("stage<S>.<name>", driver/program.h) run (ir/pipeline_schedule.h).
  struct Pipeline {
    int microbatches = 1;
    PipelineScheduleKind schedule = PipelineScheduleKind::one_f_one_b;
    int virtual_stages = 1;
  } pipeline;
  ModelConfig config;
  std::optional<int64_t> num_classes;  // of a classifier's cross-entropy
  std::vector<CompiledFunction> functions;
  // As read: the kernel objects of every function, shared by their
  // executables (KernelInfo::object indexes these). write_artifact takes the
  // objects from the executables.
  std::shared_ptr<CodeModule> code;

  const CompiledFunction* find(std::string_view name, int64_t batch, bool sharded = false) const;
};

Status write_artifact(const std::string& path, const Artifact& artifact);
Expected<Artifact> read_artifact(const std::string& path);
Expected<Artifact> parse_artifact(std::string_view bytes, const std::string& path);
// Loads the artifact's code (runtime/target.h load_code) and returns it: held,
// every executor of the artifact's functions shares it.
Expected<std::shared_ptr<const void>> load_artifact_code(const Artifact& artifact);

// The container alone (first stage of parse_artifact; for tests and tools that
// inspect or rewrite a manifest): the two sections' bytes, checked as
// parse_artifact checks them. Errors are the message without "<path>: error: ".
struct ArtifactSections {
  std::string_view manifest, blobs;
};
Expected<ArtifactSections> decode_container(std::string_view bytes);
std::string encode_container(std::string_view manifest, std::string_view blobs);

// The mlc version written into artifacts and checked when reading them.
std::string_view mlc_version();

}  // namespace mlc::rt
