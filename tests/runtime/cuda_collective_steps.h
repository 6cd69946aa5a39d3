// Executables of collective instructions for the "cuda" target, built by
// hand, and their inputs, for tests/runtime/cuda_collectives_test.cc (on the
// fake driver and NCCL) and cuda_nccl_gpu_test.cc (on GPUs).
//
// collective_step(x, links): argument x is copied into the arena, each
// collective takes the previous one's result (recv takes nothing), and the
// last result is copied into the step's only result. A collective's axis is
// "dp" unless its link names one; its tag is "<kind> at m.json:L:5", L = 3,
// 4, ... in order (its location is the same).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/executable.h"
#include "runtime/half.h"
#include "runtime/tensor.h"
#include "tests/runtime/cuda_test_executables.h"

namespace mlc::testing {

struct Link {
  rt::CollectiveParams c;
  TensorType out;  // its result
};

inline std::shared_ptr<rt::Executable> collective_step(const TensorType& x, std::vector<Link> links) {
  using rt::InstrKind;
  auto e = std::make_shared<rt::Executable>();
  e->function = "step";
  e->target = std::string(rt::kCudaTarget);
  e->slots.push_back(cuda_slot(x.dtype, x.shape, 0, 0));
  e->args = {{"x", ArgKind::input, 0, {}}};
  int64_t offset = 0;
  auto arena_slot = [&](const TensorType& t) {
    e->slots.push_back(cuda_slot(t.dtype, t.shape, -1, offset));
    const int64_t bytes = std::max<int64_t>(1, t.num_bytes());
    offset += (bytes + rt::kGpuArenaAlignment - 1) / rt::kGpuArenaAlignment * rt::kGpuArenaAlignment;
    return static_cast<int>(e->slots.size()) - 1;
  };
  int previous = arena_slot(x);
  e->instructions.push_back(cuda_instruction(InstrKind::copy, {0}, previous, "copy", 2));
  int line = 3;
  for (Link& l : links) {
    const int out = arena_slot(l.out);
    const bool recv = l.c.kind == rt::CollectiveKind::recv;
    rt::Instruction ins = cuda_instruction(InstrKind::collective, recv ? std::vector<int>{} : std::vector<int>{previous},
                                           out, std::string(rt::collective_kind_name(l.c.kind)), line);
    ins.loc.col = 5;
    if (l.c.axis.empty()) l.c.axis = "dp";
    l.c.tag = std::string(rt::collective_kind_name(l.c.kind)) + " at m.json:" + std::to_string(line) + ":5";
    ins.collective = l.c;
    e->instructions.push_back(std::move(ins));
    previous = out;
    ++line;
  }
  const TensorType last = e->slots[static_cast<size_t>(previous)].type;  // a copy: arena_slot grows the slots
  const int result = arena_slot(last);
  e->instructions.push_back(cuda_instruction(InstrKind::copy, {previous}, result, "copy", line));
  e->results = {{result, -1}};
  e->arena_bytes = offset;
  return e;
}

inline rt::CollectiveParams collective(rt::CollectiveKind kind) {
  rt::CollectiveParams c;
  c.kind = kind;
  return c;
}

// Rank r's x for run `run`: distinct values per rank, run and element,
// exact in every dtype.
inline rt::Tensor step_input(const TensorType& t, int rank, int run) {
  rt::Tensor x(t);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const double v = static_cast<double>((i * 7 + rank * 5 + run * 3) % 23) - 11 + 0.25 * rank;
    switch (t.dtype) {
      case DType::f32: x.data<float>()[i] = static_cast<float>(v); break;
      case DType::f64: x.data<double>()[i] = v; break;
      case DType::bf16: x.data<uint16_t>()[i] = rt::bf16::from_double(v).bits; break;
      case DType::f16: x.data<uint16_t>()[i] = rt::f16::from_double(v).bits; break;
      case DType::i32: x.data<int32_t>()[i] = static_cast<int32_t>(v * 4); break;
      case DType::i64: x.data<int64_t>()[i] = static_cast<int64_t>(v * 4) * (int64_t{1} << 33); break;
      case DType::boolean: x.data<uint8_t>()[i] = static_cast<uint8_t>(static_cast<int>(v) & 1); break;
    }
  }
  return x;
}

inline std::vector<std::byte> bytes_of(const rt::Tensor& t) { return {t.bytes(), t.bytes() + t.num_bytes()}; }

}  // namespace mlc::testing
