// Executables for the "cuda" target built by hand, without the compiler, for
// tests/runtime/cuda_target_test.cc (on the fake driver, tests/runtime/
// fake_cuda.h) and cuda_gpu_test.cc (on a GPU). Their kernels are those of
// tests/data/cuda/kernels.cu; every code object holds the same cubin bytes
// and names its own kernel.
//
// step: every instruction kind the target runs.
//   slot 0  x  f32[2,3]  argument 0 (input)
//   slot 1  w  f32[3,2]  argument 1 (param), updated: w / 2
//   slot 2     f32[2,3]  arena 0     = add_one(x)                 kernel 0
//   slot 3     f32[2,2]  arena 256   = gemm(slot 2, w)
//   slot 4     f32[2,2]  arena 512   constant {10, 20, 30, 40}
//   slot 5     f32[2,2]  arena 768   = gemm(slot 2, w) + slot 4   (update)
//   slot 6     f32[2,2]  arena 1024  = copy slot 5
//   then slot 1 = halve(slot 1), in place                         kernel 1
//   results: slot 6, and slot 1 as w's update.
//
// gather: a kernel's index check, its indices in the arena.
//   slot 0  idx    i32[3]  argument 0 (input)
//   slot 1  table  f32[4]  argument 1 (input)
//   slot 2         i32[3]  arena 0    = copy_idx(idx)               kernel 0
//   slot 3         f32[3]  arena 256  = gather(table, slot 2)       kernel 1, indices in [0, 4) (m.json:3:5)
//   slot 4         i32[3]  arena 0    = zero_idx(slot 3)            kernel 2: overwrites slot 2's bytes
//   results: slots 3 and 4.
//
// sum: a two-phase kernel (runtime/executable.h GpuLaunch) and a kernel
// after it; the scratch region after the slots.
//   slot 0  x  f32[1000]  argument 0 (input)
//   slot 1     f32[]      arena 0    = sum_two_phase(x)   kernel 0: phase 0 on 4 blocks
//                                      (partial g: the doubles' sum of x[g::4], scratch
//                                      word g), then phase 1 on 1 (the partials' sum)
//   slot 2     f32[]      arena 256  = increment(slot 1)  kernel 1
//   scratch [512, 544): 4 doubles; arena 768. results: slots 1 and 2.
//
// gemm: one gemm instruction over arguments a and b; as an update, x is
// argument 2 and the result is in the arena (x copied there first) or, in
// place, x's own buffer (argument 2, updated).
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/executable.h"

namespace mlc::testing {

inline rt::Slot cuda_slot(DType t, Shape s, int arg, int64_t offset) { return {TensorType{t, std::move(s)}, arg, offset}; }

inline rt::KernelInfo cuda_kernel(std::string name, int object, std::vector<TensorType> types, std::string origin) {
  rt::KernelInfo k;
  k.name = std::move(name);
  k.object = object;
  const Shape& out = types.back().shape;
  k.cpu.rows = 1;
  for (size_t d = 0; d + 1 < out.size(); ++d) k.cpu.rows *= out[d];
  k.types = std::move(types);
  k.origin = std::move(origin);
  k.launch = {1, 256, 0};
  return k;
}

inline rt::Instruction cuda_instruction(rt::InstrKind kind, std::vector<int> operands, int result, std::string name,
                                        int line) {
  rt::Instruction i;
  i.kind = kind;
  i.operands = std::move(operands);
  i.result = result;
  i.name = std::move(name);
  i.loc = Loc{"m.json", line, 1};
  return i;
}

inline std::shared_ptr<rt::CodeModule> cuda_module(const std::string& cubin, const std::vector<std::string>& symbols,
                                                   const std::string& arch = "sm_90") {
  auto code = std::make_shared<rt::CodeModule>();
  code->target = std::string(rt::kCudaTarget);
  code->arch = arch;
  code->generator = "nvcc (tests/data/cuda/kernels.cu)";
  for (const std::string& s : symbols) code->objects.push_back({s, cubin, ""});
  return code;
}

inline std::shared_ptr<rt::Executable> cuda_step_executable(const std::string& cubin, const std::string& arch = "sm_90") {
  using rt::InstrKind;
  auto e = std::make_shared<rt::Executable>();
  e->function = "step";
  e->target = std::string(rt::kCudaTarget);
  e->slots = {cuda_slot(DType::f32, {2, 3}, 0, 0),     cuda_slot(DType::f32, {3, 2}, 1, 0),
              cuda_slot(DType::f32, {2, 3}, -1, 0),    cuda_slot(DType::f32, {2, 2}, -1, 256),
              cuda_slot(DType::f32, {2, 2}, -1, 512),  cuda_slot(DType::f32, {2, 2}, -1, 768),
              cuda_slot(DType::f32, {2, 2}, -1, 1024)};
  e->args = {{"x", ArgKind::input, 0, {}}, {"w", ArgKind::param, 1, {}}};
  e->results = {{6, -1}, {1, 1}};
  const float c[4] = {10, 20, 30, 40};
  rt::ConstantData constant{4, std::vector<std::byte>(sizeof c)};
  std::memcpy(constant.bytes.data(), c, sizeof c);
  e->constants = {constant};
  const TensorType x{DType::f32, {2, 3}}, w{DType::f32, {3, 2}};
  e->kernels = {cuda_kernel("add_one", 0, {x, x}, "%1 add (m.json:1:1)"),
                cuda_kernel("halve", 1, {w, w}, "%7 mul (m.json:5:1)")};
  e->instructions.push_back(cuda_instruction(InstrKind::kernel, {0}, 2, "add", 1));
  e->instructions.back().kernel = 0;
  e->instructions.push_back(cuda_instruction(InstrKind::gemm, {2, 1}, 3, "dot", 2));
  e->instructions.back().gemm = {DType::f32, {1, 2, 2, 3, false, false, false}, 1, 0};
  e->instructions.push_back(cuda_instruction(InstrKind::gemm, {2, 1, 4}, 5, "dot_add", 3));
  e->instructions.back().gemm = {DType::f32, {1, 2, 2, 3, false, false, false}, 1, 1};
  e->instructions.push_back(cuda_instruction(InstrKind::copy, {5}, 6, "copy", 4));
  e->instructions.push_back(cuda_instruction(InstrKind::kernel, {1}, 1, "mul", 5));
  e->instructions.back().kernel = 1;
  e->arena_bytes = 1280;
  e->code = cuda_module(cubin, {"add_one", "halve"}, arch);
  return e;
}

// The step's results for x and w: y = (x + 1) w + c (row-major [2,2]), w / 2.
inline std::vector<float> cuda_step_expected_y(const std::vector<float>& x, const std::vector<float>& w) {
  const float c[4] = {10, 20, 30, 40};
  std::vector<float> y(4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float s = 0;
      for (int l = 0; l < 3; ++l) s += (x[i * 3 + l] + 1) * w[l * 2 + j];
      y[i * 2 + j] = s + c[i * 2 + j];
    }
  return y;
}

inline std::shared_ptr<rt::Executable> cuda_gather_executable(const std::string& cubin) {
  using rt::InstrKind;
  auto e = std::make_shared<rt::Executable>();
  e->function = "lookup";
  e->target = std::string(rt::kCudaTarget);
  e->slots = {cuda_slot(DType::i32, {3}, 0, 0), cuda_slot(DType::f32, {4}, 1, 0), cuda_slot(DType::i32, {3}, -1, 0),
              cuda_slot(DType::f32, {3}, -1, 256), cuda_slot(DType::i32, {3}, -1, 0)};
  e->args = {{"idx", ArgKind::input, 0, {}}, {"table", ArgKind::input, 1, {}}};
  e->results = {{3, -1}, {4, -1}};
  const TensorType idx{DType::i32, {3}}, table{DType::f32, {4}}, out{DType::f32, {3}};
  e->kernels = {cuda_kernel("copy_idx", 0, {idx, idx}, "%1 copy (m.json:2:1)"),
                cuda_kernel("gather", 1, {table, idx, out}, "%2 gather (m.json:3:5)"),
                cuda_kernel("zero_idx", 2, {out, idx}, "%3 zeros (m.json:4:1)")};
  e->kernels[1].index_checks = {{1, 4, 0, "gather", Loc{"m.json", 3, 5}}};
  e->instructions.push_back(cuda_instruction(InstrKind::kernel, {0}, 2, "copy_idx", 2));
  e->instructions.back().kernel = 0;
  e->instructions.push_back(cuda_instruction(InstrKind::kernel, {1, 2}, 3, "gather", 3));
  e->instructions.back().kernel = 1;
  e->instructions.push_back(cuda_instruction(InstrKind::kernel, {3}, 4, "zero_idx", 4));
  e->instructions.back().kernel = 2;
  e->arena_bytes = 512;
  e->code = cuda_module(cubin, {"copy_idx", "gather", "zero_idx"});
  return e;
}

inline std::shared_ptr<rt::Executable> cuda_two_phase_executable(const std::string& cubin) {
  using rt::InstrKind;
  auto e = std::make_shared<rt::Executable>();
  e->function = "sum";
  e->target = std::string(rt::kCudaTarget);
  e->slots = {cuda_slot(DType::f32, {1000}, 0, 0), cuda_slot(DType::f32, {}, -1, 0), cuda_slot(DType::f32, {}, -1, 256)};
  e->args = {{"x", ArgKind::input, 0, {}}};
  e->results = {{1, -1}, {2, -1}};
  const TensorType x{DType::f32, {1000}}, scalar{DType::f32, {}};
  e->kernels = {cuda_kernel("sum_two_phase", 0, {x, scalar}, "%1 reduce_sum (m.json:2:1)"),
                cuda_kernel("increment", 1, {scalar, scalar}, "%2 add (m.json:3:1)")};
  e->kernels[0].launch = {4, 256, 2048, 4 * 8, 1};
  e->instructions.push_back(cuda_instruction(InstrKind::kernel, {0}, 1, "sum", 2));
  e->instructions.back().kernel = 0;
  e->instructions.push_back(cuda_instruction(InstrKind::kernel, {1}, 2, "add", 3));
  e->instructions.back().kernel = 1;
  e->scratch_offset = 512;
  e->scratch_bytes = 4 * 8;
  e->arena_bytes = 768;
  e->code = cuda_module(cubin, {"sum_two_phase", "increment"});
  return e;
}

// One gemm as an executable: a and b arguments; the result in the arena, or,
// for an update in place, x's own buffer (argument 2, updated).
inline std::shared_ptr<rt::Executable> cuda_gemm_executable(const rt::GemmParams& g, bool in_place) {
  const rt::blas::DotShape& d = g.shape;
  const Shape a = d.trans_a ? Shape{d.batch, d.k, d.m} : Shape{d.batch, d.m, d.k};
  Shape b = d.trans_b ? Shape{d.batch, d.n, d.k} : Shape{d.batch, d.k, d.n};
  if (d.b_shared) b.erase(b.begin());
  const Shape c{d.batch, d.m, d.n};
  auto e = std::make_shared<rt::Executable>();
  e->function = "gemm";
  e->target = std::string(rt::kCudaTarget);
  e->slots = {cuda_slot(g.dtype, a, 0, 0), cuda_slot(g.dtype, b, 1, 0)};
  e->args = {{"a", ArgKind::input, 0, {}}, {"b", ArgKind::input, 1, {}}};
  rt::Instruction ins = cuda_instruction(rt::InstrKind::gemm, {0, 1}, -1, "dot", 1);
  ins.gemm = g;
  if (g.updates()) {
    e->slots.push_back(cuda_slot(g.dtype, c, 2, 0));
    e->args.push_back({"x", in_place ? ArgKind::state : ArgKind::input, 2, {}});
    ins.operands.push_back(2);
  }
  if (in_place) {
    ins.result = 2;
    e->results = {{2, 2}};
  } else {
    e->slots.push_back(cuda_slot(g.dtype, c, -1, 0));
    ins.result = static_cast<int>(e->slots.size()) - 1;
    e->results = {{ins.result, -1}};
    e->arena_bytes = (TensorType{g.dtype, c}.num_bytes() + rt::kGpuArenaAlignment - 1) / rt::kGpuArenaAlignment *
                     rt::kGpuArenaAlignment;
  }
  e->instructions = {ins};
  return e;
}

// One f32 gemm with an epilogue (rt::GemmEpilogue): a, b and the
// epilogue's operand (bias [n], or dgelu's aux of the result's type) are
// arguments 0 to 2; the result and the epilogue's result (the aux, or the
// bias gradient: bgradb's [m], dgelu_bgrad's [n]) are in the arena, results
// 0 and 1.
inline std::shared_ptr<rt::Executable> cuda_epilogue_executable(const rt::GemmParams& g) {
  auto e = cuda_gemm_executable(g, false);
  const rt::blas::DotShape& d = g.shape;
  const TensorType c = e->slots[2].type;
  rt::Instruction& ins = e->instructions[0];
  if (rt::epilogue_operands(g.epilogue)) {
    const Shape s = rt::epilogue_has_dgelu(g.epilogue) ? c.shape : Shape{d.n};
    e->slots.push_back(cuda_slot(g.dtype, s, 2, 0));
    e->args.push_back({"extra", ArgKind::input, static_cast<int>(e->slots.size()) - 1, {}});
    ins.operands.push_back(static_cast<int>(e->slots.size()) - 1);
  }
  if (rt::epilogue_results(g.epilogue)) {
    const Shape s = g.epilogue == rt::GemmEpilogue::bgradb        ? Shape{d.m}
                    : g.epilogue == rt::GemmEpilogue::dgelu_bgrad ? Shape{d.n}
                                                                  : c.shape;
    const int64_t offset = e->arena_bytes;
    e->slots.push_back(cuda_slot(g.dtype, s, -1, offset));
    ins.more_results = {static_cast<int>(e->slots.size()) - 1};
    e->results.push_back({ins.more_results[0], -1});
    e->arena_bytes = offset + (TensorType{g.dtype, s}.num_bytes() + rt::kGpuArenaAlignment - 1) /
                                  rt::kGpuArenaAlignment * rt::kGpuArenaAlignment;
  }
  return e;
}

}  // namespace mlc::testing
