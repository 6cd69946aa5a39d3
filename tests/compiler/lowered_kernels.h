// Kernels of a textual IR function, lowered and compiled, with the buffer
// types every instruction runs them on (rt::KernelInfo::types): the inputs
// of the kernel IR tests (kernel_ir_json_test.cc, kernel_ir_verify_test.cc,
// native_code_test.cc). kVariedKernels covers every kind of kernel IR
// expression: window ops with padding and their gradients, unfold/fold,
// pad, concat, strided slices, iota, argmax, masks, casts, compares and
// selects, row reductions fused into their users, reshapes, -inf and NaN
// constants, an output written into an input, a column sum, and a tensor
// of zeros (which LLVM fills with memset), gather, scatter_add and
// random_uniform.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/lower.h"
#include "ir/parser.h"

namespace mlc::testing {

inline constexpr char kVariedKernels[] = R"(module @m {
  func @f(%x: f32[2,3,8,8] {input}, %y: f32[2,3,4,4] {input}, %v: f32[6,5] {input}, %i: i32[6,5] {input},
          %p: f64[6,5] {param}, %w: f32[8,64] {input}, %t: i64[4] {input}, %s: i64[] {input}) -> (f32[2,3,4,4], f32[2,3,4,4], f32[2,3,8,8], f32[2,3,8,8], f32[2,3,8,8],
          f32[7,7], f32[6,10], f32[3,3], i64[6,5], i64[6], f32[5], f32[6,5], f32[3,10], f32[6,5], f64[6,5] {updates = %p}, f32[64], f32[16,64],
          f32[4,64], f32[8,64], f32[4]) {
    %0 = max_pool2d(%x) {kernel = [3, 3], stride = [2, 2], padding = [1, 1]} : f32[2,3,4,4]
    %1 = avg_pool2d(%x) {kernel = [3, 3], stride = [2, 2], padding = [1, 1], count_include_pad = false} : f32[2,3,4,4]
    %2 = max_pool2d_grad(%x, %y) {kernel = [3, 3], stride = [2, 2], padding = [1, 1]} : f32[2,3,8,8]
    %3 = avg_pool2d_grad(%y) {kernel = [3, 3], stride = [2, 2], padding = [1, 1], count_include_pad = true} : f32[2,3,8,8]
    %4 = unfold(%x) {kernel = [3, 3], stride = [2, 2], padding = [1, 1]} : f32[2,27,16]
    %5 = fold(%4) {output_size = [8, 8], kernel = [3, 3], stride = [2, 2], padding = [1, 1]} : f32[2,3,8,8]
    %6 = pad(%v) {low = [1, 0], high = [0, 2], value = -1.5} : f32[7,7]
    %7 = concat(%v, %v) {axis = 1} : f32[6,10]
    %8 = slice(%v) {start = [1, 0], limit = [6, 5], stride = [2, 2]} : f32[3,3]
    %9 = iota() {dim = 1} : i64[6,5]
    %10 = argmax(%v) {axis = 1} : i64[6]
    %11 = cast(%i) : f32[6,5]
    %12 = compare(%v, %11) {direction = "lt"} : bool[6,5]
    %13 = select(%12, %v, %11) : f32[6,5]
    %14 = reduce_sum(%13) {dims = [0], keepdim = false} : f32[5]
    %15 = reduce_max(%v) {dims = [1], keepdim = true} : f32[6,1]
    %16 = broadcast(%15) {dims = [0, 1]} : f32[6,5]
    %17 = sub(%v, %16) : f32[6,5]
    %18 = exp(%17) : f32[6,5]
    %19 = reduce_sum(%18) {dims = [1], keepdim = true} : f32[6,1]
    %20 = broadcast(%19) {dims = [0, 1]} : f32[6,5]
    %21 = log(%20) : f32[6,5]
    %22 = sub(%17, %21) : f32[6,5]
    %23 = transpose(%v) {perm = [1, 0]} : f32[5,6]
    %24 = reshape(%23) : f32[3,10]
    %25 = tanh(%24) : f32[3,10]
    %26 = constant() {value = -inf} : f32[]
    %27 = broadcast(%26) {dims = []} : f32[6,5]
    %28 = constant() {value = nan} : f32[]
    %29 = broadcast(%28) {dims = []} : f32[6,5]
    %30 = select(%12, %27, %29) : f32[6,5]
    %31 = max(%30, %v) : f32[6,5]
    %32 = constant() {value = 0.5} : f64[]
    %33 = broadcast(%32) {dims = []} : f64[6,5]
    %34 = mul(%p, %33) : f64[6,5]
    %35 = reduce_sum(%w) {dims = [0], keepdim = false} : f32[64]
    %36 = constant() {value = 0.0} : f32[]
    %37 = broadcast(%36) {dims = []} : f32[16,64]
    %38 = gather(%w, %t) {axis = 0} : f32[4,64]
    %39 = scatter_add(%w, %t, %38) {axis = 0} : f32[8,64]
    %40 = random_uniform(%t, %s) {seed = 5, stream = 9} : f32[4]
    return %0, %1, %2, %3, %5, %6, %7, %8, %9, %10, %14, %22, %25, %31, %34, %35, %37, %38, %39, %40
  }
})";

struct LoweredKernels {
  std::vector<kir::Kernel> kernels;
  // Per kernel: the buffers it runs on (inputs, then outputs).
  std::vector<std::vector<TensorType>> buffers;
  std::shared_ptr<rt::Executable> executable;
};

// Function @f of `text`, lowered and compiled (no kernel cache); kVariedKernels once per process.
inline LoweredKernels lower_kernels(const std::string& text) {
  LoweredKernels out;
  auto m = parse_module(text, "lowered_kernels.mlir");
  if (!m.ok()) {
    ADD_FAILURE() << m.error().message;
    return out;
  }
  auto l = lower_function(*m->find("f"));
  if (!l.ok()) {
    ADD_FAILURE() << l.error().message;
    return out;
  }
  out.kernels = l->kernels;
  for (const rt::KernelInfo& k : l->executable->kernels) out.buffers.push_back(k.types);
  out.executable = l->executable;
  return out;
}

// The kernels of function @f of `text` lowered for `target` (their code not
// generated): the GPU schedule and source suites' inputs.
inline std::vector<kir::Kernel> kernels_for_target(const std::string& text, const std::string& target) {
  auto m = parse_module(text, "lowered_kernels.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  if (!m.ok()) return {};
  LowerOptions o;
  o.compile_kernels = false;
  o.target = target;
  auto l = lower_function(*m->find("f"), o);
  EXPECT_TRUE(l.ok()) << l.error().message;
  return l.ok() ? l->kernels : std::vector<kir::Kernel>{};
}

inline const LoweredKernels& lowered_kernels() {
  static const LoweredKernels varied = lower_kernels(kVariedKernels);
  return varied;
}

}  // namespace mlc::testing
