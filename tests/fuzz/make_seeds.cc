// Writes the generated seeds of the committed fuzz corpora:
//   <corpus>/checkpoint/*.safetensors   checkpoints of fuzz_checkpoint's fixed
//                                       model, written by write_checkpoint
//   <corpus>/checkpoint/index_*.json    indices of sharded checkpoints naming
//                                       the harness's shards
//                                       (tests/fuzz/fuzz_checkpoint_shards.h)
//   <corpus>/safetensors/gen_*          small safetensors files: every dtype,
//                                       __metadata__, empty and scalar tensors,
//                                       gaps, padding, odd names, and headers
//                                       with deeply nested JSON
//   <corpus>/artifact/gen_*.mlcx        the hand-built artifact of
//                                       tests/runtime/tiny_artifact.h and two
//                                       variants (no kernels; three functions)
//   <corpus>/artifact/model_*.mlcx      with arguments ARTIFACT.mlcx@FUNCTION:
//                                       that function of a compiled artifact
//                                       alone, with the kernel objects it uses
//                                       and their kernel IR cut to their first
//                                       64 bytes (the reader never looks inside
//                                       either)
//   <corpus>/kernel_ir/*.json           with arguments ARTIFACT.mlcx@kernel_ir:
//                                       the kernel IR of each of its objects
//   <corpus>/cubin/gen_*.cubin          synthetic cubins
//                                       (tests/runtime/synthetic_cubin.h): ABI
//                                       versions 7 and 8, arch-specific
//   <corpus>/cubin/*.cubin              with arguments FILE.cubin (nvcc's) and
//                                       ARTIFACT.mlcx@cubin (the smallest
//                                       kernel object of a cuda artifact,
//                                       NVRTC's): each whole, and cut after its
//                                       ELF header, in half, and before its
//                                       section headers
// Built by tests/fuzz/CMakeLists.txt as fuzz_make_seeds; run it once when the
// formats change (scripts/fuzz.sh does not run it), from the source root:
//   build-fuzz/bin/fuzz_make_seeds tests/fuzz/corpus [ARTIFACT.mlcx@FUNCTION ...]
//       [ARTIFACT.mlcx@kernel_ir ...] [ARTIFACT.mlcx@cubin ...] [FILE.cubin ...]
// (tests/fuzz/README.md lists the artifacts the committed seeds come from).
// The output is deterministic (model_* seeds: for one host CPU).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "runtime/artifact.h"
#include "runtime/checkpoint.h"
#include "runtime/safetensors.h"
#include "tests/fuzz/fuzz_checkpoint_shards.h"
#include "tests/runtime/synthetic_cubin.h"
#include "tests/runtime/tiny_artifact.h"

namespace {

using mlc::DType;
using mlc::rt::NamedTensor;
using mlc::rt::Tensor;
using mlc::rt::TrainState;

int g_failures = 0;

void check(const mlc::Status& s) {
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    ++g_failures;
  }
}

// Deterministic pseudo-random floats.
uint32_t g_rng = 12345;
float next_float() {
  g_rng = g_rng * 1664525u + 1013904223u;
  return static_cast<float>(static_cast<int32_t>(g_rng >> 8) - (1 << 23)) / static_cast<float>(1 << 23);
}

Tensor f32(mlc::Shape shape, bool random = true) {
  Tensor t(DType::f32, std::move(shape));
  if (random)
    for (float& x : t.span<float>()) x = next_float();
  return t;
}

TrainState fixed_model_state() {
  TrainState s;
  s.params = {{"fc.weight", f32({2, 3})}, {"fc.bias", f32({2})}};
  s.state = {{"fc.weight.momentum_buffer", f32({2, 3})}};
  return s;
}

void write_checkpoints(const std::string& dir) {
  std::filesystem::create_directories(dir);
  {
    TrainState s = fixed_model_state();
    for (auto* list : {&s.params, &s.state})
      for (NamedTensor& t : *list) t.tensor = Tensor(t.tensor.type());  // zeros
    check(mlc::rt::write_checkpoint(dir + "/step0_zeros.safetensors", "fuzz", s));
  }
  {
    TrainState s = fixed_model_state();
    s.step = 123;
    s.seed = 42;
    s.batch_size = 32;
    s.steps_per_epoch = 45;
    s.shuffle = true;
    check(mlc::rt::write_checkpoint(dir + "/step123_shuffle.safetensors", "fuzz", s));
  }
  {
    TrainState s = fixed_model_state();
    s.step = int64_t{1} << 62;
    s.seed = 9223372036854775807ull;
    s.batch_size = 1;
    s.steps_per_epoch = 1;
    float* w = s.params[0].tensor.data<float>();
    w[0] = std::numeric_limits<float>::quiet_NaN();
    w[1] = std::numeric_limits<float>::infinity();
    w[2] = -std::numeric_limits<float>::infinity();
    w[3] = -0.0f;
    w[4] = std::numeric_limits<float>::denorm_min();
    w[5] = std::numeric_limits<float>::max();
    check(mlc::rt::write_checkpoint(dir + "/special_values.safetensors", "fuzz", s));
  }
  {
    // Negative step and batch values are stored as written; the reader only
    // checks that they are integers.
    TrainState s = fixed_model_state();
    s.step = -7;
    s.batch_size = 0;
    s.steps_per_epoch = 0;
    check(mlc::rt::write_checkpoint(dir + "/negative_step.safetensors", "fuzz", s));
  }
  {
    // Near misses: another model's checkpoint, and one with an extra tensor.
    TrainState s = fixed_model_state();
    s.step = 5;
    check(mlc::rt::write_checkpoint(dir + "/other_model.safetensors", "other", s));
    s.state.push_back({"fc.bias.momentum_buffer", f32({2})});
    check(mlc::rt::write_checkpoint(dir + "/extra_tensor.safetensors", "fuzz", s));
  }
}

// `text` with its first `from` replaced by `to` (a failure if there is none).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) check(mlc::make_error("make_seeds: no '" + from + "' in the index"));
  else text.replace(at, from.size(), to);
  return text;
}

// The index of the harness's shards, and variants: tensors in another order,
// chunks swapped, another mesh of the same grid (all load); a shard that does
// not exist, a wrong checksum, a truncated text (rejected).
void write_index_seeds(const std::string& dir) {
  const std::string scratch = dir + "/.index_seeds";
  std::filesystem::create_directories(scratch);
  const std::string index = mlc::fuzz::write_checkpoint_shards(scratch);
  std::ifstream in(index, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(scratch);
  if (text.empty()) return check(mlc::make_error("make_seeds: cannot write the sharded checkpoint"));
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(dir + "/" + name, std::ios::binary) << content;
  };
  write("index_step7.json", text);
  const size_t bias = text.find("{\"name\":\"fc.bias\""), end = text.find('\n', bias);
  const std::string bias_line = text.substr(bias, end - bias);  // ends with ','
  write("index_reordered.json", replaced(text.substr(0, bias) + text.substr(end + 1), "\"tensors\":[\n",
                                          "\"tensors\":[\n" + bias_line + "\n"));
  std::string swapped = replaced(text, "\"index\":[0,0]", "\"index\":[9,9]");
  swapped = replaced(swapped, "\"index\":[1,0]", "\"index\":[0,0]");
  write("index_chunks_swapped.json", replaced(swapped, "\"index\":[9,9]", "\"index\":[1,0]"));
  std::string other_mesh = replaced(text, "\"mesh\":\"dp=2\"", "\"mesh\":\"dp=2,tp=1\"");
  for (const char* p : {"<S(0)>", "<R>", "<S(0)>"})
    other_mesh = replaced(other_mesh, std::string("\"placements\":\"") + p,
                          std::string("\"placements\":\"") + std::string(p).insert(strlen(p) - 1, ",R"));
  write("index_other_mesh.json", other_mesh);
  write("index_missing_shard.json", replaced(text, "rank00001", "rank00002"));
  std::string bad_checksum = text;
  bad_checksum.replace(text.find("\"checksum\":\"") + 12, 16, std::string(16, '0'));
  write("index_bad_checksum.json", bad_checksum);
  write("index_truncated.json", text.substr(0, text.size() / 2));
}

// A safetensors file from a header text and a data section, byte for byte.
void write_raw(const std::string& path, const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += header;
  out += data;
  std::ofstream(path, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
}

std::string bytes_of(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

std::string nested(const std::string& open, const std::string& close, const std::string& inner, int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

void write_safetensors_seeds(const std::string& dir) {
  std::filesystem::create_directories(dir);
  // One tensor of every supported dtype, with metadata, through the writer.
  {
    std::vector<Tensor> ts;
    ts.push_back(f32({2, 2}));
    ts.emplace_back(DType::f64, mlc::Shape{3});
    ts.emplace_back(DType::bf16, mlc::Shape{2});
    ts.emplace_back(DType::f16, mlc::Shape{2, 1});
    ts.emplace_back(DType::i32, mlc::Shape{2});
    ts.emplace_back(DType::i64, mlc::Shape{1});
    ts.emplace_back(DType::boolean, mlc::Shape{3});
    ts[1].data<double>()[0] = 1.5, ts[1].data<double>()[1] = -2.25, ts[1].data<double>()[2] = 1e300;
    ts[2].data<uint16_t>()[0] = 0x3f80, ts[2].data<uint16_t>()[1] = 0xff80;
    ts[3].data<uint16_t>()[0] = 0x3c00, ts[3].data<uint16_t>()[1] = 0x7e00;
    ts[4].data<int32_t>()[0] = -1, ts[4].data<int32_t>()[1] = 2147483647;
    ts[5].data<int64_t>()[0] = std::numeric_limits<int64_t>::min();
    ts[6].data<uint8_t>()[0] = 1, ts[6].data<uint8_t>()[2] = 1;
    const char* names[] = {"f32", "f64", "bf16", "f16", "i32", "i64", "bool"};
    std::vector<std::pair<std::string, const Tensor*>> list;
    for (size_t i = 0; i < ts.size(); ++i) list.emplace_back(names[i], &ts[i]);
    check(mlc::rt::write_safetensors(dir + "/gen_all_dtypes.safetensors", list,
                                     {{"format", "pt"}, {"note", "every dtype \"quoted\" \\ é"}}));
    // Descending element sizes in the given order (kept), and one that needs sorting.
    std::vector<std::pair<std::string, const Tensor*>> sorted = {
        {"b", &ts[6]}, {"i64", &ts[5]}, {"h", &ts[3]}, {"f", &ts[0]}};
    check(mlc::rt::write_safetensors(dir + "/gen_mixed_order.safetensors", sorted));
  }
  // Scalars, empty tensors and a lone empty tensor.
  {
    Tensor scalar = f32({}), empty = f32({0, 3}), empty2(DType::i64, mlc::Shape{4, 0});
    check(mlc::rt::write_safetensors(dir + "/gen_scalar_and_empty.safetensors",
                                     {{"s", &scalar}, {"e", &empty}, {"z", &empty2}}, {{"k", ""}}));
    check(mlc::rt::write_safetensors(dir + "/gen_no_tensors_metadata.safetensors", {},
                                     {{"only", "metadata"}, {"", "empty key"}}));
  }
  // Hand-written headers: gaps, trailing bytes, space padding, odd names,
  // unsupported dtypes, a smaller version of tiny_gpt_tokens' layout.
  {
    float v[4] = {1, 2, 3, 4};
    std::string d = bytes_of(v, sizeof v);
    write_raw(dir + "/gen_gap_and_trailing.safetensors",
              R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
              R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
              d + "trailing");
    write_raw(dir + "/gen_padded_header.safetensors",
              R"({"__metadata__":{"a":"b"},"x":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})"
              "          ",
              d);
    write_raw(dir + "/gen_odd_names.safetensors",
              R"({"q\"uote\\d":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
              R"("\u00e9\ud83d\ude00":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
              R"("":{"dtype":"F32","shape":[],"data_offsets":[8,12]},)"
              R"("__metadata__":{"\u0000":"nul","tab\t":"\n"}})",
              d);
    uint8_t u[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    write_raw(dir + "/gen_unsupported_dtypes.safetensors",
              R"({"u8":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
              R"("f8":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[2,3]},)"
              R"("f4":{"dtype":"F4","shape":[2],"data_offsets":[3,4]},)"
              R"("c64":{"dtype":"C64","shape":[1],"data_offsets":[4,12]}})",
              bytes_of(u, sizeof u));
    int64_t tok[6] = {1, 2, 3, 4, 5, 6};
    write_raw(dir + "/gen_tokens_like.safetensors",
              R"({"tokens":{"dtype":"I64","shape":[2,3],"data_offsets":[0,48]},)"
              R"("noise":{"dtype":"U8","shape":[2,3],"data_offsets":[48,54]},)"
              R"("__metadata__":{"description":"tokens I64 [2,3]; inputs = tokens[:, :2]"}})",
              bytes_of(tok, sizeof tok) + std::string(6, '\x07'));
  }
  // Deeply nested header JSON: at the reader's depth cap, just past it, far
  // past it, and nested objects in the tensor-entry and metadata positions.
  {
    const std::string entry = R"("x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
    float one = 1;
    std::string d = bytes_of(&one, sizeof one);
    write_raw(dir + "/gen_nested_arrays_7.safetensors",
              "{" + entry + R"(,"y":{"dtype":"F32","shape":)" + nested("[", "]", "1", 6) +
                  R"(,"data_offsets":[0,4]}})",
              d);
    write_raw(dir + "/gen_nested_arrays_9.safetensors",
              "{" + entry + R"(,"__metadata__":{"k":)" + nested("[", "]", "", 8) + "}}", d);
    write_raw(dir + "/gen_nested_arrays_200.safetensors",
              "{" + entry + R"(,"z":)" + nested("[", "]", "0", 200) + "}", d);
    write_raw(dir + "/gen_nested_objects_12.safetensors",
              "{" + entry + R"(,"__metadata__":)" + nested(R"({"a":)", "}", R"("v")", 12) + "}", d);
    write_raw(dir + "/gen_nested_mixed_64.safetensors",
              "{" + entry + R"(,"w":)" + nested(R"([{"k":)", "}]", "null", 32) + "}", d);
  }
}

// `function` of the artifact at `path` alone, its kernel objects cut short.
void write_trimmed_artifact(const std::string& dir, const std::string& path, const std::string& function) {
  auto a = mlc::rt::read_artifact(path);
  if (!a) return check(mlc::make_error(a.error().message));
  const mlc::rt::CompiledFunction* f = nullptr;
  for (const mlc::rt::CompiledFunction& c : a->functions)
    if (!f && c.name == function) f = &c;
  if (!f) return check(mlc::make_error(path + ": no @" + function));
  mlc::rt::Artifact out;
  out.mlc_version = a->mlc_version;
  out.module_hash = a->module_hash;
  out.mesh = a->mesh;
  out.zero = a->zero;
  out.config = a->config;
  out.num_classes = a->num_classes;
  auto code = std::make_shared<mlc::rt::CodeModule>();
  code->target = a->code->target;
  code->arch = a->code->arch;
  code->features = a->code->features;
  code->generator = a->code->generator;
  auto e = std::make_shared<mlc::rt::Executable>(*f->executable);
  std::map<int, int> object_of;  // a's object -> e's
  for (mlc::rt::KernelInfo& k : e->kernels) {
    auto [it, added] = object_of.emplace(k.object, static_cast<int>(code->objects.size()));
    if (added) {
      const mlc::rt::ObjectFile& o = a->code->objects[static_cast<size_t>(k.object)];
      code->objects.push_back({o.symbol, o.bytes.substr(0, 64), o.source.substr(0, 64)});
    }
    k.object = it->second;
  }
  e->code = code;
  out.functions = {{f->name, f->batch, e, f->sharded}};
  const std::string stem = std::filesystem::path(path).stem().string();
  check(mlc::rt::write_artifact(dir + "/model_" + stem + "_" + function + ".mlcx", out));
}

void write_artifact_seeds(const std::string& dir, const std::vector<std::string>& trims) {
  std::filesystem::create_directories(dir);
  // The data file is stored relative to the artifact's folder: "tiny.safetensors".
  const mlc::rt::Artifact tiny = mlc::testing::tiny_artifact(dir + "/tiny.safetensors");
  check(mlc::rt::write_artifact(dir + "/gen_tiny.mlcx", tiny));
  {
    // No kernels and no objects: transpose reads relu's result directly.
    mlc::rt::Artifact a = mlc::testing::tiny_artifact(dir + "/tiny.safetensors");
    auto e = std::make_shared<mlc::rt::Executable>(*a.functions[0].executable);
    e->kernels.clear();
    e->code = nullptr;
    e->instructions.erase(e->instructions.begin() + 3);
    e->instructions.back().operands = {4};
    a.functions[0].executable = e;
    check(mlc::rt::write_artifact(dir + "/gen_tiny_no_kernels.mlcx", a));
  }
  {
    // Three functions sharing one executable and its kernel object.
    mlc::rt::Artifact a = mlc::testing::tiny_artifact(dir + "/tiny.safetensors");
    a.functions.push_back({"eval", 8, a.functions[0].executable});
    a.functions.push_back({"loss", 4, a.functions[0].executable});
    check(mlc::rt::write_artifact(dir + "/gen_tiny_three_functions.mlcx", a));
  }
  {
    // On mesh dp=2 (ZeRO 1): its function sharded, every argument replicated.
    mlc::rt::Artifact a = mlc::testing::tiny_artifact(dir + "/tiny.safetensors");
    a.mesh = mlc::Mesh::parse("dp=2").value();
    a.zero = 1;
    auto e = std::make_shared<mlc::rt::Executable>(*a.functions[0].executable);
    for (mlc::rt::ArgSpec& arg : e->args) arg.placements = mlc::replicated(1);
    a.functions[0].executable = e;
    a.functions[0].sharded = true;
    check(mlc::rt::write_artifact(dir + "/gen_tiny_mesh.mlcx", a));
  }
  {
    // A pipeline on pp=2: its stage function unsharded, the schedule in parallel.pipeline.
    mlc::rt::Artifact a = mlc::testing::tiny_artifact(dir + "/tiny.safetensors");
    a.mesh = mlc::Mesh::parse("pp=2").value();
    a.pipeline = {2, mlc::PipelineScheduleKind::one_f_one_b, 1};
    a.functions[0].name = "stage0.loss_grad";
    check(mlc::rt::write_artifact(dir + "/gen_tiny_pipeline.mlcx", a));
  }
  for (const std::string& t : trims) {
    if (t.ends_with(".cubin")) continue;  // write_cubin_seeds's
    const size_t at = t.rfind('@');
    if (at == std::string::npos) {
      check(mlc::make_error(t + ": expected ARTIFACT.mlcx@FUNCTION, ARTIFACT.mlcx@kernel_ir, ARTIFACT.mlcx@cubin or FILE.cubin"));
      continue;
    }
    if (t.substr(at + 1) != "kernel_ir" && t.substr(at + 1) != "cubin")
      write_trimmed_artifact(dir, t.substr(0, at), t.substr(at + 1));
  }
}

// ARTIFACT.mlcx@kernel_ir: the kernel IR of each of its objects, whole.
void write_kernel_ir_seeds(const std::string& dir, const std::vector<std::string>& args) {
  std::filesystem::create_directories(dir);
  for (const std::string& t : args) {
    const size_t at = t.rfind('@');
    if (at == std::string::npos || t.substr(at + 1) != "kernel_ir") continue;
    auto a = mlc::rt::read_artifact(t.substr(0, at));
    if (!a) {
      check(mlc::make_error(a.error().message));
      continue;
    }
    const std::string stem = std::filesystem::path(t.substr(0, at)).stem().string();
    for (size_t i = 0; i < a->code->objects.size(); ++i)
      std::ofstream(dir + "/" + stem + "_" + std::to_string(i) + ".json", std::ios::binary) << a->code->objects[i].source;
  }
}

// `cubin` as <stem>.cubin, and cut after its ELF header, in half and before
// its section headers (e_shoff, where that lies inside it).
void write_cubin_and_cuts(const std::string& dir, const std::string& stem, const std::string& cubin) {
  auto write = [&](const std::string& name, size_t size) {
    std::ofstream(dir + "/" + name + ".cubin", std::ios::binary) << cubin.substr(0, size);
  };
  write(stem, cubin.size());
  if (cubin.size() <= 64) return;
  write(stem + "_cut_64", 64);
  write(stem + "_cut_half", cubin.size() / 2);
  const uint64_t shoff = mlc::testing::get_le(cubin, 40, 8);
  if (shoff > 64 && shoff < cubin.size()) write(stem + "_cut_before_sections", static_cast<size_t>(shoff));
}

// Synthetic cubins, and FILE.cubin and ARTIFACT.mlcx@cubin arguments.
void write_cubin_seeds(const std::string& dir, const std::vector<std::string>& args) {
  std::filesystem::create_directories(dir);
  using mlc::testing::synthetic_cubin;
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name + ".cubin", std::ios::binary) << bytes;
  };
  write("gen_sm_90", synthetic_cubin(90));
  write("gen_sm_90a", synthetic_cubin(90, {"fusion_0", "fusion_1"}, 8, true));
  write("gen_abi7_sm_86", synthetic_cubin(86, {"k"}, 7));
  write("gen_abi7_sm_90a", synthetic_cubin(90, {"gather", ""}, 7, true));
  write("gen_no_symbols_sm_80", synthetic_cubin(80, {}));
  for (const std::string& t : args) {
    if (t.ends_with(".cubin")) {
      std::ifstream in(t, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (bytes.empty()) {
        check(mlc::make_error(t + ": empty or unreadable"));
        continue;
      }
      write_cubin_and_cuts(dir, std::filesystem::path(t).stem().string(), bytes);
      continue;
    }
    const size_t at = t.rfind('@');
    if (at == std::string::npos || t.substr(at + 1) != "cubin") continue;
    auto a = mlc::rt::read_artifact(t.substr(0, at));
    if (!a) {
      check(mlc::make_error(a.error().message));
      continue;
    }
    if (a->code->target != mlc::rt::kCudaTarget || a->code->objects.empty()) {
      check(mlc::make_error(t + ": not a cuda artifact with kernel objects"));
      continue;
    }
    const mlc::rt::ObjectFile* smallest = &a->code->objects[0];
    for (const mlc::rt::ObjectFile& o : a->code->objects)
      if (o.bytes.size() < smallest->bytes.size()) smallest = &o;
    const std::string stem = std::filesystem::path(t.substr(0, at)).stem().string();
    write_cubin_and_cuts(dir, stem + "_" + smallest->symbol, smallest->bytes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s CORPUS_DIR [ARTIFACT.mlcx@FUNCTION|ARTIFACT.mlcx@kernel_ir|ARTIFACT.mlcx@cubin|FILE.cubin ...]"
                 "   (tests/fuzz/corpus)\n",
                 argv[0]);
    return 2;
  }
  std::string root = argv[1];
  write_checkpoints(root + "/checkpoint");
  write_index_seeds(root + "/checkpoint");
  write_safetensors_seeds(root + "/safetensors");
  write_artifact_seeds(root + "/artifact", std::vector<std::string>(argv + 2, argv + argc));
  write_kernel_ir_seeds(root + "/kernel_ir", std::vector<std::string>(argv + 2, argv + argc));
  write_cubin_seeds(root + "/cubin", std::vector<std::string>(argv + 2, argv + argc));
  return g_failures ? 1 : 0;
}
