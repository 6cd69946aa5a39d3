// An executable: one function lowered by the compiler (compiler/lower.h) to
// what the runtime runs without looking at the IR's graph again: a flat
// instruction list over buffers at fixed offsets of one arena, every
// instruction's parameters decoded ahead of time, and the calling convention
// (arguments by kind, results and the arguments they update in place).
//
// Contracts:
//  - Slots are the tensors an instruction reads or writes. A slot lives in the
//    arena (at `offset` bytes, aligned to its target's arena alignment,
//    runtime/target.h) or is argument `arg`'s buffer.
//    Several slots may share bytes: a reshape is a slot over its operand's bytes,
//    and slots whose lifetimes do not overlap are packed into the same bytes.
//  - Instructions run in order. An instruction's result never shares bytes
//    with one of its operands, except where the compiler proved the overlap
//    harmless (an elementwise kernel updating an argument in place, reading each
//    element before it writes it).
//  - Constants are arena slots that `constants` fills once, when the executor
//    is created; nothing writes them afterwards.
//  - A result that updates an argument (`updates` >= 0) is in that argument's
//    buffer when the step ends: the caller's tensor holds the new value.
//  - runtime/verify_executable.h checks these and what the rest of this file
//    says, for every executable the executor runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/mesh.h"
#include "ir/types.h"
#include "runtime/blas.h"

namespace mlc::rt {

// The targets' names (runtime/target.h lists those this build has).
inline constexpr std::string_view kCpuTarget = "cpu-x86_64";
// GPU-shaped kernels run on the host through OpenCL (runtime/host_gpu/).
inline constexpr std::string_view kHostGpuTarget = "host-gpu";
// NVIDIA GPUs (runtime/cuda/).
inline constexpr std::string_view kCudaTarget = "cuda";
inline bool is_gpu_target(std::string_view t) { return t == kHostGpuTarget || t == kCudaTarget; }
// The GPU targets' arena alignment: what cudaMalloc guarantees, and a
// multiple of every vector load a kernel makes.
inline constexpr int64_t kGpuArenaAlignment = 256;

struct Slot {
  TensorType type;
  int arg = -1;        // >= 0: the buffer of argument `arg` (offset unused)
  int64_t offset = 0;  // arena byte offset when arg < 0
};

// An op of a kernel (gather, scatter_add) whose indices, input `input` of the
// kernel (i32 or i64, read whole), must lie in [0, bound): where a kernel
// returns 1, the executor reports the first index outside it as the op's
// reference kernel does, "<op>: index V out of range [0, bound) along axis A"
// at `loc`.
struct IndexCheck {
  int input = 0;
  int64_t bound = 1;
  int64_t axis = 0;
  std::string op;
  Loc loc;
};

// Kernel code for one target: code objects, each defining the one kernel
// entry point named `symbol`. For "host-gpu", an object's bytes are the
// kernel's OpenCL C text (compiler/gpu/kernel_source.h: prelude and kernel,
// self-contained) and `arch` is "opencl-c"; for "cuda", a cubin for `arch`
// ("sm_90") compiled by NVRTC from the same kernel's CUDA C text. For "cpu-x86_64", an
// object is a relocatable ELF object compiled for one CPU (`arch`, LLVM's CPU
// name, and `features`, LLVM's "+avx2,+fma,-avx512f,..."), its entry point a
// CompiledKernelFn; runtime/cpu/native_code.h links them. The compiler emits a
// CodeModule and never loads it: the runtime does (runtime/target.h), the same
// way for a module compiled in this process and for an artifact's.
// `source` is the kernel IR the object was compiled from, as text
// (compiler/kernel_ir_json.h; empty where unknown), and `generator` the code
// generator that compiled them (compiler/cpu/llvm_jit.h code_generator): the
// runtime stores and reads both as opaque text; `mlc run --verify-code`
// compiles the source again and compares (driver/verify_code.h).
struct ObjectFile {
  std::string symbol;
  std::string bytes;
  std::string source;
};

struct CodeModule {
  std::string target{kCpuTarget};
  std::string arch;
  std::string features;
  std::vector<ObjectFile> objects;
  std::string generator;
};

// How a GPU target launches a kernel (compiler/gpu/gpu_schedule.h): `grid`
// blocks of `block` threads, the kernel's static shared memory being
// `shared_bytes` (for listings and checks; the code declares it). The
// kernel's arguments are its buffers (operands, result, more results, as for
// the CPU) and then a status word (int), which it sets to
// kir::kIndexOutOfRange where a checked index was out of range. All zero on
// the CPU.
// A two-phase kernel (scratch_bytes > 0: gpu_schedule.h's row in two
// phases, a whole-tensor reduction) runs as two launches of its code, one
// after the other on the executor's one stream: phase 0 on `grid` blocks,
// which write partial results into the first scratch_bytes bytes of the
// executable's scratch region (Executable::scratch_offset), then phase 1 on
// `combine_grid` blocks, which read them and write the kernel's results.
// Its arguments are its buffers, then the scratch (a buffer, as the others),
// the status word, and the phase (i64: 0, then 1). A kernel of one launch
// has scratch_bytes and combine_grid 0.
struct GpuLaunch {
  int64_t grid = 0;
  int block = 0;
  int shared_bytes = 0;
  int64_t scratch_bytes = 0;
  int64_t combine_grid = 0;
  bool two_phase() const { return scratch_bytes > 0; }
  bool operator==(const GpuLaunch&) const = default;
};
// What every GPU target accepts (runtime/verify_executable.h checks them):
// CUDA's block and grid.x limits and its static shared memory per block.
inline constexpr int kMaxGpuBlock = 1024;
inline constexpr int64_t kMaxGpuGrid = (int64_t{1} << 31) - 1;
inline constexpr int kMaxGpuSharedBytes = 48 * 1024;

// How the CPU runs a kernel (compiler/cpu/row_split.h): its code computes a
// range of the `rows` rows of its domain (the product of its result's dims
// but the last), and the launcher (runtime/cpu/native_launcher.h) gives each
// thread whole rows, as many threads as rows * row_cost scalar evaluations
// pay for. Every target's kernels record it (runtime/verify_executable.h
// checks rows on all); only the CPU reads it.
struct CpuLaunch {
  int64_t rows = 1;      // size of the parallel (outer) iteration space
  int64_t row_cost = 1;  // scalar evaluations per row
  bool operator==(const CpuLaunch&) const = default;
};

struct KernelInfo {
  std::string name;
  int object = -1;  // its code: Executable::code->objects[object]
  std::string origin;  // the ops it computes: "add, exp, reduce_sum (model.json:12:5, ...)"
  int outputs = 1;  // buffers it writes: the last `outputs` of `types`
  // The buffers the code was compiled for, operands then results: every
  // instruction running the kernel passes slots of exactly these types.
  std::vector<TensorType> types;
  std::vector<IndexCheck> index_checks;  // program order
  CpuLaunch cpu;     // every target
  GpuLaunch launch;  // GPU targets only
};

// A collective over one mesh axis of this device's communicator
// (runtime/collective_run.h), decoded from the op the sharding pass inserted.
// `ledger` is the id of the sharding pass's ledger entry that explains it
// (passes/sharding.h LedgerEntry::id; -1 where none does, as for a
// collective written in an IR file). shard_slice, local but placed by the
// device's coordinate on the axis, is one too.
enum class CollectiveKind : uint8_t {
  all_reduce, all_gather, reduce_scatter, all_to_all, collective_broadcast, send, recv, shard_slice
};
// The op's name (ir/ops.def): "all_reduce", ..., "shard_slice".
std::string_view collective_kind_name(CollectiveKind k);

struct CollectiveParams {
  CollectiveKind kind = CollectiveKind::all_reduce;
  std::string axis;        // mesh axis name
  bool reduce_max = false;  // all_reduce: max instead of sum
  int64_t dim = 0;          // all_gather, reduce_scatter, shard_slice
  int64_t split_dim = 0, concat_dim = 0;  // all_to_all
  int64_t peer = 0;         // collective_broadcast: the root; send, recv: the peer (ranks of the axis)
  int ledger = -1;
  // For messages: "all_reduce at model.json:12:5 (fc1)", the communicator's tag.
  std::string tag;
};

// What a GEMM does with its product P = op(a) op(b) before it stores it:
// cuBLASLt's epilogues (CUBLASLT_EPILOGUE_*), which the fusion pass forms on
// GPU targets only (compiler/fusion.h). gelu is the tanh approximation,
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the formula of cuBLASLt's
// GELU epilogues and of PyTorch's gelu(approximate="tanh"); PyTorch's
// default (erf) GELU has no epilogue. dgelu is that GELU's backward,
// P * gelu'(aux).
// Slots, after the operands a and b and the result c ([..., m, n]):
//   none            c = P
//   bias            c = P + bias          operand 2: bias, n elements ([n], [1, n], ...),
//                                          added to every row (the dot's columns)
//   relu            c = max(P, 0)
//   bias_relu       c = max(P + bias, 0)  operand 2: bias
//   gelu            c = gelu(P)
//   bias_gelu       c = gelu(P + bias)    operand 2: bias
//   gelu_aux        c = gelu(P)           more_results[0]: P, the pre-activation the
//                                          backward reads (cuBLASLt's aux matrix)
//   bias_gelu_aux   c = gelu(P + bias)    operand 2: bias; more_results[0]: P + bias
//   dgelu           c = P * gelu'(aux)    operand 2: aux, of the result's type
//   dgelu_bgrad     c = P * gelu'(aux)    operand 2: aux; more_results[0]: the bias gradient,
//                                          n elements: each column's sum of c over the rows
//                                          (cuBLASLt's DGELU_BGRAD)
//   bgradb          c = P                 more_results[0]: the bias gradient, m elements:
//                                          row i's sum over k of op(a) (cuBLASLt's BGRADB)
// An epilogue applies to one product (batch 1, or batches folded into the
// rows: b_shared and not trans_a), never with beta != 0, on f32, bf16 or
// f16; its operand and results are of the gemm's dtype (cuBLASLt's default
// bias and aux types: the output's). bf16 and f16 compute as cuBLASLt's
// CUBLAS_COMPUTE_32F does: the product accumulated in f32, the epilogue in
// f32, c, the aux and the bias gradient rounded once to the dtype. On the
// host (runtime/gemm_epilogue.h) each step is the replaced ops' reference
// kernel's, rounding for rounding in f32; cuBLASLt computes them its own way.
enum class GemmEpilogue : uint8_t {
  none, bias, relu, bias_relu, gelu, bias_gelu, gelu_aux, bias_gelu_aux, dgelu, dgelu_bgrad, bgradb
};
inline constexpr size_t kGemmEpilogues = 11;
// "bias_gelu_aux", ...: listings and artifacts (runtime/artifact.h) spell it so.
std::string_view gemm_epilogue_name(GemmEpilogue e);
inline bool epilogue_has_bias(GemmEpilogue e) {
  return e == GemmEpilogue::bias || e == GemmEpilogue::bias_relu || e == GemmEpilogue::bias_gelu ||
         e == GemmEpilogue::bias_gelu_aux;
}
inline bool epilogue_has_gelu(GemmEpilogue e) {
  return e == GemmEpilogue::gelu || e == GemmEpilogue::bias_gelu || e == GemmEpilogue::gelu_aux ||
         e == GemmEpilogue::bias_gelu_aux;
}
inline bool epilogue_has_relu(GemmEpilogue e) { return e == GemmEpilogue::relu || e == GemmEpilogue::bias_relu; }
// dgelu and dgelu_bgrad: they read the aux.
inline bool epilogue_has_dgelu(GemmEpilogue e) { return e == GemmEpilogue::dgelu || e == GemmEpilogue::dgelu_bgrad; }
// gelu_aux and bias_gelu_aux: they write it.
inline bool epilogue_stores_aux(GemmEpilogue e) {
  return e == GemmEpilogue::gelu_aux || e == GemmEpilogue::bias_gelu_aux;
}
// bgradb and dgelu_bgrad: a bias gradient as their further result.
inline bool epilogue_has_bias_gradient(GemmEpilogue e) {
  return e == GemmEpilogue::bgradb || e == GemmEpilogue::dgelu_bgrad;
}
// Operands after a and b (the bias, or dgelu's aux), and results after c
// (the aux, or the bias gradient).
inline size_t epilogue_operands(GemmEpilogue e) { return epilogue_has_bias(e) || epilogue_has_dgelu(e) ? 1 : 0; }
inline size_t epilogue_results(GemmEpilogue e) {
  return epilogue_stores_aux(e) || epilogue_has_bias_gradient(e) ? 1 : 0;
}

// A `dot` on a GEMM library: operands a, b; f32, f64, bf16 or f16 (bf16 and
// f16: alpha 1, beta 0; runtime/onednn_gemm.h). With beta != 0 a gemm
// update (compiler/fusion.h): a third operand x of the result's type, and the
// result is alpha * dot(a, b) + beta * x, computed in the result's buffer
// after x is copied there (no copy where the result is x's buffer: in place).
// With an epilogue (above), its operands and results as it says.
struct GemmParams {
  DType dtype = DType::f32;
  blas::DotShape shape;
  double alpha = 1, beta = 0;
  GemmEpilogue epilogue = GemmEpilogue::none;
  bool updates() const { return beta != 0; }
};

enum class InstrKind : uint8_t {
  kernel,      // KernelInfo `kernel`, operands then result and more_results as buffers
  gemm,        // GemmParams: operands a, b (and the epilogue's), result (and the epilogue's)
  reference,   // the reference kernel of `op` (code and complete attributes)
  copy,        // result = operand 0, bytewise
  collective,  // CollectiveParams: result from operand 0 over the communicator
};
inline constexpr size_t kInstrKinds = 5;  // InstrKind's values, for tables indexed by kind
std::string_view instr_kind_name(InstrKind k);

struct Instruction {
  InstrKind kind = InstrKind::copy;
  std::vector<int> operands;  // slots
  int result = -1;            // slot
  std::vector<int> more_results;  // kernel: its further outputs' slots (kir::Kernel::more_roots);
                                  // gemm: its epilogue's results (GemmEpilogue)
  int kernel = -1;            // kernel: index into Executable::kernels
  GemmParams gemm;
  CollectiveParams collective;
  std::shared_ptr<const Op> op;  // reference: the op (operands and result unset)
  Loc loc;                       // for messages: where the (first) op came from
  std::string name;              // for messages and listings: "add", "fusion_3", ...
  // For listings and profiles: the ops it computes by id (as `mlc ir` numbers
  // results) and location, "%12 add (model.json:3:5), %13 exp (...)", or why
  // a copy exists; may be empty.
  std::string origin;
};

struct ArgSpec {
  std::string name;
  ArgKind kind = ArgKind::input;
  int slot = -1;
  // A sharded function's (one device's SPMD program, ir/mesh.h): where the
  // argument's local part lies on each mesh axis; empty when unsharded.
  Placements placements;
};

struct ResultSpec {
  int slot = -1;
  int updates = -1;  // the argument this result replaces, or -1
};

struct ConstantData {
  int slot = -1;
  std::vector<std::byte> bytes;
};

struct Executable {
  std::string function;
  std::vector<Slot> slots;
  std::vector<ArgSpec> args;
  std::vector<ResultSpec> results;
  std::vector<Instruction> instructions;
  std::vector<ConstantData> constants;
  std::vector<KernelInfo> kernels;
  int64_t arena_bytes = 0;
  // GPU targets: the arena bytes [scratch_offset, scratch_offset +
  // scratch_bytes) where two-phase kernels (GpuLaunch::scratch_bytes, each at
  // most this) keep their partial results from one launch to the next. No
  // slot overlaps them; an executor runs its kernels one at a time, so they
  // share the region. The lowering places it after the planned slots, at
  // the arena's end. 0 bytes where no kernel has two phases.
  int64_t scratch_offset = 0;
  int64_t scratch_bytes = 0;
  // What it runs on (runtime/target.h): the arena's alignment and the code's
  // form are the target's.
  std::string target{kCpuTarget};
  // The kernels' code, for `target`; null without kernels. Several
  // executables may share one module (an artifact's functions do).
  std::shared_ptr<const CodeModule> code;
};

// The arguments some result updates, each once, in the order of the results.
std::vector<int> updated_arguments(const Executable& e);

}  // namespace mlc::rt
