// A small artifact built by hand, without the compiler: the valid input that
// tests/runtime/artifact_test.cc damages and a seed of the artifact fuzzer
// (tests/fuzz/make_seeds.cc). One function, @eval for batch 4, uses every
// instruction kind and every part of an executable:
//
//   slot 0  x     f32[4,3]  argument 0 (input)
//   slot 1  w     f32[3,2]  argument 1 (param)
//   slot 2        f32[4,3]  arena 0      = copy slot 8
//   slot 3        f32[4,2]  arena 64     = gemm(slot 2, slot 1)
//   slot 4        f32[4,2]  arena 128    = exp(slot 3)            (reference)
//   slot 5        f32[4,2]  arena 192    constant (blob)
//   slot 6        f32[4,2]  arena 256    = kernel 0 (slot 4, slot 5)
//   slot 7        f32[2,4]  arena 320    = transpose(slot 6)      (reference, perm [1, 0])
//   slot 8        f32[12]   view of argument 0
//   arena 384 bytes; results: slot 7, and slot 1 as the update of w.
//
// The kernel's object is not machine code ("not an object file"): the
// artifact parses everywhere; linking it fails (or, with features this CPU
// lacks, is refused before the bytes are looked at).
//
// Also: editing a container's bytes (runtime/artifact.h's layout) and making
// its checksums right again, so that the reader gets past them to the edit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/artifact.h"
#include "runtime/checksum.h"

namespace mlc::testing {

// The container's checksum (FNV-1a 64).
inline uint64_t artifact_checksum(std::string_view bytes) { return rt::fnv1a64(bytes); }
inline uint64_t get_le(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}
inline void put_le(std::string& s, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// The section table: 40-byte entries from byte 24 (name, then offset at +16,
// size at +24, checksum at +32); the table's checksum at byte 16.
inline constexpr size_t kSectionTable = 24, kSectionEntry = 40;
inline size_t section_field(size_t section, size_t field) { return kSectionTable + kSectionEntry * section + field; }

// Recomputes the checksum of every section that lies in the file and then the
// table's, as far as the header's section count and the file's size allow.
inline void refresh_checksums(std::string& s) {
  if (s.size() < kSectionTable) return;
  const uint64_t n = get_le(s, 12, 4);
  if (n < 1 || n > 16 || s.size() < kSectionTable + kSectionEntry * n) return;
  for (size_t k = 0; k < n; ++k) {
    const uint64_t offset = get_le(s, section_field(k, 16), 8), size = get_le(s, section_field(k, 24), 8);
    if (offset <= s.size() && size <= s.size() - offset)
      put_le(s, section_field(k, 32), artifact_checksum(std::string_view(s).substr(offset, size)), 8);
  }
  put_le(s, 16, artifact_checksum(std::string_view(s).substr(kSectionTable, kSectionEntry * n)), 8);
}

inline rt::Artifact tiny_artifact(const std::string& data_file) {
  using rt::InstrKind;
  rt::Artifact a;
  a.mlc_version = std::string(rt::mlc_version());
  a.module_hash = "0123456789abcdef";
  a.code = std::make_shared<rt::CodeModule>();
  a.code->arch = "x86-64";
  a.code->features = "+sse2,-avx512f";

  ModelConfig& c = a.config;
  c.name = "tiny";
  c.inputs = {{"x", DType::f32, {-1, 3}, true, 0, {}}, {"y", DType::f32, {-1, 2}, true, 0, {}}};
  ParamInfo w;
  w.name = "w";
  w.type = {DType::f32, {3, 2}};
  w.init.kind = ParamInit::Kind::kaiming_uniform;
  w.init.fan_in = 3;
  c.params = {w};
  c.loss_type = "mse";
  c.loss_targets = "y";
  c.classifier = false;
  c.data.file = data_file;
  c.data.train = {{"x", "train_x", {{0, 8}}, {}}, {"y", "train_y", {}, {}}};
  c.data.eval = {{"x", "train_x", {{8, std::nullopt}, {std::nullopt, -1}}, {}}, {"y", "train_y", {}, {}}};
  c.train.batch_size = 4;
  c.train.epochs = 2;
  c.train.shuffle = true;
  c.train.drop_last = false;
  c.train.seed = 7;
  c.train.optimizer.type = "adam";
  c.train.optimizer.lr = 0.01;
  c.train.optimizer.schedule.type = "cosine";
  c.train.optimizer.schedule.warmup_steps = 2;
  c.train.optimizer.schedule.total_steps = 10;

  auto e = std::make_shared<rt::Executable>();
  e->function = "eval";
  e->arena_bytes = 384;
  const TensorType x{DType::f32, {4, 3}}, wt{DType::f32, {3, 2}}, y{DType::f32, {4, 2}};
  e->slots = {{x, 0, 0},
              {wt, 1, 0},
              {x, -1, 0},
              {y, -1, 64},
              {y, -1, 128},
              {y, -1, 192},
              {y, -1, 256},
              {{DType::f32, {2, 4}}, -1, 320},
              {{DType::f32, {12}}, 0, 0}};
  e->args = {{"x", ArgKind::input, 0}, {"w", ArgKind::param, 1}};
  e->results = {{7, -1}, {1, 1}};
  rt::ConstantData bias;
  bias.slot = 5;
  bias.bytes.resize(32);
  for (size_t i = 0; i < bias.bytes.size(); ++i) bias.bytes[i] = static_cast<std::byte>(i * 7 + 1);
  e->constants = {bias};
  rt::KernelInfo k;
  k.name = "fusion_0";
  k.object = 0;
  k.cpu.rows = 4;
  k.cpu.row_cost = 2;
  k.origin = "add (tiny.json:4:5)";
  k.types = {y, y, y};
  e->kernels = {k};
  a.code->objects = {{"mlc_kernel_0123456789abcdef", "not an object file"}};
  e->code = a.code;

  auto instruction = [](InstrKind kind, std::string name, std::vector<int> operands, int result) {
    rt::Instruction i;
    i.kind = kind;
    i.name = std::move(name);
    i.operands = std::move(operands);
    i.result = result;
    return i;
  };
  auto op = [](OpCode code, Attrs attrs = {}) {
    auto o = std::make_shared<Op>();
    o->code = code;
    o->attrs = std::move(attrs);
    return o;
  };
  rt::Instruction gemm = instruction(InstrKind::gemm, "dot", {2, 1}, 3);
  gemm.gemm.shape.m = 4;
  gemm.gemm.shape.n = 2;
  gemm.gemm.shape.k = 3;
  gemm.loc = {"tiny.json", 3, 5};
  rt::Instruction exp = instruction(InstrKind::reference, "exp", {3}, 4);
  exp.op = op(OpCode::Exp);
  rt::Instruction kernel = instruction(InstrKind::kernel, "fusion_0", {4, 5}, 6);
  kernel.kernel = 0;
  rt::Instruction transpose = instruction(InstrKind::reference, "transpose", {6}, 7);
  transpose.op = op(OpCode::Transpose, {{"perm", std::vector<int64_t>{1, 0}}});
  e->instructions = {instruction(InstrKind::copy, "copy", {8}, 2), gemm, exp, kernel, transpose};

  a.functions = {{"eval", 4, e}};
  return a;
}

}  // namespace mlc::testing
