// An executable: one function lowered by the compiler (compiler/lower.h) to
// what the runtime runs without looking at the IR's graph again: a flat
// instruction list over buffers at fixed offsets of one arena, every
// instruction's parameters decoded ahead of time, and the calling convention
// (arguments by kind, results and the arguments they update in place).
//
// Contracts:
//  - Slots are the tensors an instruction reads or writes. A slot lives in the
//    arena (at `offset` bytes, 64-byte aligned) or is argument `arg`'s buffer.
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
#include <vector>

#include "ir/graph.h"
#include "ir/mesh.h"
#include "ir/types.h"
#include "runtime/blas.h"

namespace mlc::rt {

// Arena slots' offsets are multiples of it (compiler/memory_plan.h plans so).
inline constexpr int64_t kArenaAlignment = 64;

struct Slot {
  TensorType type;
  int arg = -1;        // >= 0: the buffer of argument `arg` (offset unused)
  int64_t offset = 0;  // arena byte offset when arg < 0
};

// A compiled loop kernel: runs rows [begin, end) of its iteration space (the
// outer dims of its outputs) over `buffers`: its inputs, then its outputs.
// Returns 0.
using CompiledKernelFn = int (*)(std::byte* const* buffers, int64_t begin, int64_t end);

// Kernel code: relocatable objects compiled for one CPU (`cpu`, LLVM's
// `features` string "+avx2,+fma,-avx512f,..."), each defining the one
// CompiledKernelFn named `symbol`. runtime/native_code.h links them.
// `source` is the kernel IR the object was compiled from, as text
// (compiler/kernel_ir_json.h; empty where unknown), and `generator` the code
// generator that compiled them (compiler/llvm_jit.h code_generator): the
// runtime stores and reads both as opaque text; `mlc run --verify-code`
// compiles the source again and compares (tools/verify_code.h).
struct ObjectFile {
  std::string symbol;
  std::string bytes;
  std::string source;
};

struct NativeCode {
  std::string cpu;
  std::string features;
  std::vector<ObjectFile> objects;
  std::string generator;
};

struct KernelInfo {
  std::string name;
  int object = -1;                // its code: Executable::native.objects[object]
  CompiledKernelFn fn = nullptr;  // set by link_kernels
  int64_t rows = 1;      // size of the parallel (outer) iteration space
  int64_t row_cost = 1;  // scalar evaluations per row (threads are given whole rows)
  std::string origin;  // the ops it computes: "add, exp, reduce_sum (model.json:12:5, ...)"
  int outputs = 1;  // buffers it writes: the last `outputs` of `types`
  // The buffers the code was compiled for, operands then results: every
  // instruction running the kernel passes slots of exactly these types.
  std::vector<TensorType> types;
};

// A `dot` on a GEMM library: operands a, b; f32, f64, bf16 or f16 (bf16 and
// f16: alpha 1, beta 0; runtime/onednn_gemm.h). With beta != 0 a gemm
// update (compiler/fusion.h): a third operand x of the result's type, and the
// result is alpha * dot(a, b) + beta * x, computed in the result's buffer
// after x is copied there (no copy where the result is x's buffer: in place).
struct GemmParams {
  DType dtype = DType::f32;
  blas::DotShape shape;
  double alpha = 1, beta = 0;
  bool updates() const { return beta != 0; }
};

enum class InstrKind : uint8_t {
  kernel,     // KernelInfo `kernel`, operands then result and more_results as buffers
  gemm,       // GemmParams
  reference,  // the reference kernel of `op` (code and complete attributes)
  copy,       // result = operand 0, bytewise
};
std::string_view instr_kind_name(InstrKind k);

struct Instruction {
  InstrKind kind = InstrKind::copy;
  std::vector<int> operands;  // slots
  int result = -1;            // slot
  std::vector<int> more_results;  // kernel: its further outputs' slots (kir::Kernel::more_roots)
  int kernel = -1;            // kernel: index into Executable::kernels
  GemmParams gemm;
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
  // The kernels' code as objects, and once linked (link_kernels), the owner
  // of the mapped code; may be null.
  NativeCode native;
  std::shared_ptr<const void> code;
};

}  // namespace mlc::rt
