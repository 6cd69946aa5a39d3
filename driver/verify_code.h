// `mlc run X.mlcx --verify-code`: before an artifact's kernel objects are
// linked or run, check that each is exactly the code this mlc generates from
// the kernel IR the artifact carries beside it, and that this kernel IR reads
// and writes only inside the buffers its instructions pass.
//
// Why recompiling and not a signature: it needs no keys to make, share or
// revoke; it proves what the code does (the kernel IR, whose meaning is
// compiler/kernel_ir.h's), not who built it, so an artifact from anyone can be
// checked; and it reuses the determinism of code generation that the kernel
// cache already relies on (compiler/cpu/llvm_jit.h). It costs a compile of every
// kernel (without the kernel cache, which could hold anything).
//
// verify_artifact_code(a) checks, for every object of a.code:
//  1. its kernel IR (ObjectFile::source) parses (compiler/kernel_ir_json.h)
//     and passes kir::verify_kernel (compiler/kernel_ir_verify.h);
//  2. for every kernel of every function that runs it (rt::KernelInfo): its
//     rows (compiler/cpu/row_split.h) and outputs are the kernel IR's, and
//     its buffers (KernelInfo::types, which the reader has checked against
//     every instruction that runs the kernel) agree with the kernel IR:
//     kir::verify_kernel_buffers, every load within its input;
//  3. its symbol is the name compile_kernels gives that kernel IR
//     (kir::kernel_symbol, with the '_'s of a hash collision);
//  4. compiling the kernel IR again for the artifact's target CPU and
//     features gives the object's bytes, byte for byte.
// The artifact must come from this mlc version and code generator
// (CodeModule::generator): another one generates other bytes. Any failure is
// an Error naming the object (and the kernel) and what differed. On success
// it returns the number of objects verified.
//
// What this guarantees, with the reader's checks of the manifest
// (runtime/artifact.h): every kernel that runs is code this mlc's compiler
// generates from a verified kernel IR, reading and writing only inside the
// slots its instructions pass. It does not vouch for the rest of the
// manifest: which instructions run in which order on which slots and
// settings is what the file says (gemm and reference instructions run this
// mlc's own library code on slots the reader checks), so an artifact can
// still compute other numbers than its model would.
#pragma once

#include "ir/expected.h"
#include "runtime/artifact.h"

namespace mlc {

Expected<int> verify_artifact_code(const rt::Artifact& a);

}  // namespace mlc
