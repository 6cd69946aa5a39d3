// Writing artifacts (runtime/artifact.h): the manifest as JSON, the blobs,
// and the container around them.
#include "runtime/artifact.h"

#include <filesystem>
#include <unordered_map>

#include "ir/dtype.h"
#include "ir/op_table.h"
#include "ir/printer.h"
#include "runtime/artifact_format.h"
#include "runtime/checksum.h"
#include "runtime/file_io.h"

namespace mlc::rt {

using namespace artifact_format;

namespace {

Json type_json(const TensorType& t) { return {{"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}}; }

Json loc_json(const Loc& l) {
  if (!l.known()) return nullptr;
  return {{"file", l.file}, {"line", l.line}, {"col", l.col}};
}

Json attr_json(const NamedAttr& a) {
  Json j = {{"name", a.name}};
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) j["int"] = v;
        else if constexpr (std::is_same_v<T, double>) j["float"] = float_to_string(v);
        else if constexpr (std::is_same_v<T, bool>) j["bool"] = v;
        else if constexpr (std::is_same_v<T, std::string>) j["string"] = v;
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) j["ints"] = v;
        else {
          Json list = Json::array();
          for (double x : v) list.push_back(float_to_string(x));
          j["floats"] = list;
        }
      },
      a.value);
  return j;
}

Json slices_json(const std::vector<InputMapping>& list) {
  Json out = Json::array();
  for (const InputMapping& m : list) {
    Json slices = Json::array();
    for (const SliceRange& r : m.slices)
      slices.push_back({r.start ? Json(*r.start) : Json(nullptr), r.stop ? Json(*r.stop) : Json(nullptr)});
    out.push_back({{"input", m.input}, {"tensor", m.tensor}, {"slices", slices}});
  }
  return out;
}


// A ParamInit in the manifest: the fields its kind reads.
Json init_json(const ParamInit& i) {
  Json j = {{"kind", std::string(init_kind_name(i.kind))}, {"fan_in", i.fan_in}, {"bound", i.bound},
            {"stddev", i.stddev}};
  if (i.kind == ParamInit::Kind::constant) j["value"] = i.value;
  if (i.mean != 0) j["mean"] = i.mean;
  if (i.kind == ParamInit::Kind::uniform_range || i.kind == ParamInit::Kind::trunc_normal) {
    j["low"] = i.low;
    j["high"] = i.high;
  }
  if (i.kind == ParamInit::Kind::orthogonal) j["gain"] = i.gain;
  if (i.zero_after_draw) j["zero_after_draw"] = true;
  if (!i.same_as.empty()) j["same_as"] = i.same_as;
  return j;
}

Json model_json(const Artifact& a, const std::string& artifact_dir) {
  const ModelConfig& c = a.config;
  Json inputs = Json::array(), params = Json::array();
  for (const InputInfo& i : c.inputs)
    inputs.push_back({{"name", i.name}, {"dtype", std::string(dtype_name(i.dtype))}, {"shape", i.shape},
                      {"batched", i.batched}, {"batch_dim", i.batch_dim}});
  for (const ParamInfo& p : c.params)
    params.push_back({{"name", p.name}, {"type", type_json(p.type)}, {"init", init_json(p.init)},
                      {"trainable", p.trainable}});
  for (size_t i = 0; i < c.params.size(); ++i) {
    if (c.params[i].buffer) params[i]["buffer"] = true;  // absent: a parameter
    if (c.params[i].explicit_init) params[i]["explicit_init"] = init_json(*c.params[i].explicit_init);
    if (c.params[i].draw_index >= 0 && c.params[i].draw_index != static_cast<int64_t>(i))
      params[i]["draw_index"] = c.params[i].draw_index;
  }
  // The data file, relative to the artifact's folder when it can be.
  std::string data_file = c.data.file;
  if (!data_file.empty() && !std::filesystem::path(data_file).is_absolute()) {
    std::error_code ec;
    auto rel = std::filesystem::relative(std::filesystem::absolute(data_file, ec),
                                         std::filesystem::absolute(artifact_dir.empty() ? "." : artifact_dir, ec), ec);
    if (!ec && !rel.empty()) data_file = rel.string();
  }
  const OptimizerConfig& o = c.train.optimizer;
  const ScheduleConfig& s = o.schedule;
  Json optimizer = {{"type", o.type}, {"lr", o.lr}, {"momentum", o.momentum}, {"dampening", o.dampening},
                    {"weight_decay", o.weight_decay}, {"nesterov", o.nesterov}, {"beta1", o.beta1},
                    {"beta2", o.beta2}, {"eps", o.eps}, {"alpha", o.alpha}, {"centered", o.centered},
                    {"lr_decay", o.lr_decay}, {"initial_accumulator_value", o.initial_accumulator_value},
                    {"decay", o.decay}, {"clip_grad_norm", o.clip_grad_norm},
                    {"schedule", {{"type", s.type}, {"warmup_steps", s.warmup_steps}, {"start_factor", s.start_factor},
                                  {"total_steps", s.total_steps}, {"min_lr", s.min_lr}, {"step_size", s.step_size},
                                  {"gamma", s.gamma}}}};
  const TrainConfig& t = c.train;
  Json train = {{"batch_size", t.batch_size}, {"epochs", t.epochs}, {"steps", t.steps}, {"shuffle", t.shuffle},
                {"drop_last", t.drop_last}, {"seed", t.seed}, {"eval_batch_size", t.eval_batch_size},
                {"optimizer", optimizer}, {"eval_every", t.eval_every}, {"grad_stats_every", t.grad_stats_every}};
  // Written only when set, so that artifacts without it stay byte-identical.
  if (t.grad_accumulation_steps != 1) train["grad_accumulation_steps"] = t.grad_accumulation_steps;
  Json model = {{"name", c.name},
          {"inputs", inputs},
          {"params", params},
          {"loss_type", c.loss_type},
          {"loss_targets", c.loss_targets},
          {"classifier", c.classifier},
          {"num_classes", a.num_classes ? Json(*a.num_classes) : Json(nullptr)},
          {"data", {{"file", data_file}, {"train", slices_json(c.data.train)}, {"eval", slices_json(c.data.eval)}}},
          {"train", train}};
  if (c.loss_ignore_index) model["loss_ignore_index"] = *c.loss_ignore_index;  // only when set, as above
  return model;
}

// Appends bytes to the blobs, 64-byte aligned; returns [offset, size].
Json add_blob(std::string& blobs, std::string_view bytes) {
  blobs.append((64 - blobs.size() % 64) % 64, '\0');
  Json r = {{"offset", blobs.size()}, {"size", bytes.size()}};
  blobs.append(bytes);
  return r;
}

Json executable_json(const Executable& e, const std::vector<int>& global_object, std::string& blobs) {
  Json slots = Json::array(), args = Json::array(), results = Json::array(), kernels = Json::array(),
       constants = Json::array(), instructions = Json::array();
  for (const Slot& s : e.slots) slots.push_back({{"type", type_json(s.type)}, {"arg", s.arg}, {"offset", s.offset}});
  for (const ArgSpec& a : e.args) {
    Json placements = Json::array();
    for (const Placement& p : a.placements) placements.push_back(p.str());
    args.push_back({{"name", a.name}, {"kind", std::string(arg_kind_name(a.kind))}, {"slot", a.slot},
                    {"placements", placements}});
  }
  for (const ResultSpec& r : e.results) results.push_back({{"slot", r.slot}, {"updates", r.updates}});
  for (const KernelInfo& k : e.kernels) {
    Json types = Json::array();
    for (const TensorType& t : k.types) types.push_back(type_json(t));
    Json kernel = {{"name", k.name}, {"object", global_object[static_cast<size_t>(k.object)]}, {"rows", k.cpu.rows},
                   {"row_cost", k.cpu.row_cost}, {"origin", k.origin}, {"outputs", k.outputs}, {"types", types}};
    if (!k.index_checks.empty()) {
      Json checks = Json::array();
      for (const IndexCheck& c : k.index_checks)
        checks.push_back({{"input", c.input}, {"bound", c.bound}, {"axis", c.axis}, {"op", c.op}, {"loc", loc_json(c.loc)}});
      kernel["index_checks"] = checks;
    }
    if (k.launch != GpuLaunch{}) {
      kernel["launch"] = {{"grid", k.launch.grid}, {"block", k.launch.block}, {"shared_bytes", k.launch.shared_bytes}};
      if (k.launch.two_phase()) {  // absent: one launch
        kernel["launch"]["scratch_bytes"] = k.launch.scratch_bytes;
        kernel["launch"]["combine_grid"] = k.launch.combine_grid;
      }
    }
    kernels.push_back(std::move(kernel));
  }
  for (const ConstantData& c : e.constants) {
    Json j = add_blob(blobs, std::string_view(reinterpret_cast<const char*>(c.bytes.data()), c.bytes.size()));
    j["slot"] = c.slot;
    constants.push_back(j);
  }
  for (const Instruction& ins : e.instructions) {
    Json j = {{"kind", std::string(instr_kind_name(ins.kind))}, {"name", ins.name}, {"operands", ins.operands},
              {"result", ins.result}, {"loc", loc_json(ins.loc)}, {"origin", ins.origin}};
    if (ins.kind == InstrKind::kernel) j["kernel"] = ins.kernel;
    if (!ins.more_results.empty()) j["more_results"] = ins.more_results;
    if (ins.kind == InstrKind::gemm) {
      const blas::DotShape& d = ins.gemm.shape;
      j["gemm"] = {{"dtype", std::string(dtype_name(ins.gemm.dtype))}, {"batch", d.batch}, {"m", d.m}, {"n", d.n},
                   {"k", d.k}, {"trans_a", d.trans_a}, {"trans_b", d.trans_b}, {"b_shared", d.b_shared}};
      if (ins.gemm.updates()) {
        j["gemm"]["alpha"] = ins.gemm.alpha;
        j["gemm"]["beta"] = ins.gemm.beta;
      }
      // Absent: none (artifacts written before epilogues existed read the same).
      if (ins.gemm.epilogue != GemmEpilogue::none)
        j["gemm"]["epilogue"] = std::string(gemm_epilogue_name(ins.gemm.epilogue));
    }
    if (ins.kind == InstrKind::collective) {
      const CollectiveParams& c = ins.collective;
      j["collective"] = {{"kind", std::string(collective_kind_name(c.kind))}, {"axis", c.axis}, {"reduce_max", c.reduce_max},
                         {"dim", c.dim}, {"split_dim", c.split_dim}, {"concat_dim", c.concat_dim}, {"peer", c.peer},
                         {"ledger", c.ledger}, {"tag", c.tag}};
    }
    if (ins.kind == InstrKind::reference) {
      Json attrs = Json::array();
      for (const NamedAttr& a : ins.op->attrs.list()) attrs.push_back(attr_json(a));
      j["op"] = {{"code", std::string(op_name(ins.op->code))}, {"attrs", attrs}};
    }
    instructions.push_back(j);
  }
  Json j = {{"function", e.function}, {"arena_bytes", e.arena_bytes}, {"slots", slots}, {"args", args},
            {"results", results}, {"kernels", kernels}, {"constants", constants}, {"instructions", instructions}};
  if (e.scratch_bytes > 0) {  // absent: no scratch region
    j["scratch_offset"] = e.scratch_offset;
    j["scratch_bytes"] = e.scratch_bytes;
  }
  return j;
}

}  // namespace

Status write_artifact(const std::string& path, const Artifact& a) {
  std::string blobs;
  // Kernel objects, once each across the functions (by symbol: equal symbols
  // are equal code, compiler/cpu/llvm_jit.h).
  Json objects = Json::array();
  std::unordered_map<std::string, int> object_of_symbol;
  std::vector<std::vector<int>> global_object(a.functions.size());
  // One target for every function: the first function's code module's (an
  // artifact as read shares one, `code`).
  const CodeModule* target = a.code.get();
  for (const CompiledFunction& c : a.functions) {
    const CodeModule* m = c.executable->code.get();
    if (!m) continue;
    if (!target) target = m;
    if (m->target != target->target || m->arch != target->arch || m->features != target->features ||
        m->generator != target->generator)
      return make_error(path + ": @" + c.name + " was compiled for " + m->target + " '" + m->arch + "' (" +
                        m->features + "), another function for " + target->target + " '" + target->arch + "' (" +
                        target->features + "): an artifact has one target");
  }
  const CodeModule none;
  if (!target) target = &none;
  for (size_t f = 0; f < a.functions.size(); ++f) {
    if (!a.functions[f].executable->code) continue;
    for (const ObjectFile& o : a.functions[f].executable->code->objects) {
      auto [it, added] = object_of_symbol.emplace(o.symbol, static_cast<int>(objects.size()));
      if (added) {
        Json j = add_blob(blobs, o.bytes);
        j["symbol"] = o.symbol;
        j["source"] = add_blob(blobs, o.source);
        objects.push_back(j);
      }
      global_object[f].push_back(it->second);
    }
  }
  Json functions = Json::array();
  for (size_t f = 0; f < a.functions.size(); ++f) {
    const CompiledFunction& c = a.functions[f];
    functions.push_back({{"name", c.name}, {"batch", c.batch}, {"sharded", c.sharded},
                         {"executable", executable_json(*c.executable, global_object[f], blobs)}});
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  Json parallel = {{"mesh", a.mesh.str()}, {"zero", a.zero}};
  if (a.mesh.find("pp"))
    parallel["pipeline"] = {{"microbatches", a.pipeline.microbatches},
                            {"schedule", std::string(pipeline_schedule_kind_name(a.pipeline.schedule))},
                            {"virtual_stages", a.pipeline.virtual_stages}};
  Json manifest = {{"format", "mlcx"},
                   {"mlc_version", std::string(mlc_version())},
                   {"module_hash", a.module_hash},
                   {"parallel", parallel},
                   {"target", {{"name", target->target}, {"arch", target->arch}, {"features", target->features},
                               {"generator", target->generator}}},
                   {"model", model_json(a, dir)},
                   {"functions", functions},
                   {"objects", objects}};
  const std::string manifest_text = manifest.dump(1);
  return write_file_atomically(path, {encode_container(manifest_text, blobs)});
}

std::string encode_container(std::string_view manifest, std::string_view blobs) {
  const std::vector<std::pair<std::string, std::string_view>> sections = {{"manifest", manifest}, {"blobs", blobs}};
  std::string table;
  uint64_t offset = kHeaderBytes + kEntryBytes * sections.size();
  for (const auto& [name, data] : sections) {
    std::string padded = name;
    padded.resize(kNameBytes, '\0');
    table += padded;
    put_u64(table, offset);
    put_u64(table, data.size());
    put_u64(table, fnv1a64(data));
    offset += data.size();
  }
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, kArtifactVersion);
  put_u32(out, static_cast<uint32_t>(sections.size()));
  put_u64(out, fnv1a64(table));
  out += table;
  out += manifest;
  out += blobs;
  return out;
}

}  // namespace mlc::rt
