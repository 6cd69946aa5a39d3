// Reading artifacts (runtime/artifact.h): every field of the container and
// the manifest validated before use, then every executable's meaning
// (runtime/verify_executable.h), each failure an Error naming the field.
#include "runtime/artifact.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "ir/dtype.h"
#include "ir/op_table.h"
#include "runtime/artifact_field.h"
#include "runtime/artifact_format.h"
#include "runtime/checksum.h"
#include "runtime/file_io.h"
#include "runtime/kernel_imports.h"
#include "runtime/target.h"
#include "runtime/verify_executable.h"

namespace mlc::rt {

using namespace artifact_format;
using artifact_field::Field;
using artifact_field::read_dtype;
using artifact_field::read_shape;
using artifact_field::read_type;

namespace {

Expected<Loc> read_loc(const Field& f) {
  MLC_TRY(Field l, f.get("loc"));
  if (l.json().is_null()) return Loc{};
  Loc loc;
  MLC_TRY(loc.file, l.string("file"));
  MLC_TRY(int64_t line, l.integer("line", 1, std::numeric_limits<int>::max()));
  MLC_TRY(int64_t col, l.integer("col", 0, std::numeric_limits<int>::max()));
  loc.line = static_cast<int>(line);
  loc.col = static_cast<int>(col);
  return loc;
}

Expected<double> parse_float_text(const Field& f) {
  MLC_TRY(std::string text, f.as_string());
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return f.error("expected a float's text, found \"" + text + "\"");
  return v;
}

Expected<NamedAttr> read_attr(const Field& f) {
  NamedAttr a;
  MLC_TRY(a.name, f.string("name"));
  if (!f.json().is_object() || f.json().size() != 2) return f.error("expected {\"name\": ..., <kind>: value}");
  for (auto it = f.json().begin(); it != f.json().end(); ++it) {
    if (it.key() == "name") continue;
    Field v(&it.value(), f.path() + "." + it.key());
    if (it.key() == "int") {
      MLC_TRY(int64_t x, v.as_integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
      a.value = x;
    } else if (it.key() == "float") {
      MLC_TRY(double x, parse_float_text(v));
      a.value = x;
    } else if (it.key() == "bool") {
      if (!v.json().is_boolean()) return v.error("expected true or false, found " + Field::found(v.json()));
      a.value = v.json().get<bool>();
    } else if (it.key() == "string") {
      MLC_TRY(std::string x, v.as_string());
      a.value = x;
    } else if (it.key() == "ints") {
      MLC_TRY(std::vector<Field> xs, v.as_list());
      std::vector<int64_t> out;
      for (const Field& x : xs) {
        MLC_TRY(int64_t i, x.as_integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
        out.push_back(i);
      }
      a.value = out;
    } else if (it.key() == "floats") {
      MLC_TRY(std::vector<Field> xs, v.as_list());
      std::vector<double> out;
      for (const Field& x : xs) {
        MLC_TRY(double d, parse_float_text(x));
        out.push_back(d);
      }
      a.value = out;
    } else {
      return v.error("expected one of int, float, bool, string, ints, floats");
    }
  }
  return a;
}

Expected<std::vector<InputMapping>> read_mappings(const Field& f, std::string_view key) {
  MLC_TRY(std::vector<Field> list, f.list(key, 4096));
  std::vector<InputMapping> out;
  for (const Field& m : list) {
    InputMapping im;
    MLC_TRY(im.input, m.string("input"));
    MLC_TRY(im.tensor, m.string("tensor"));
    MLC_TRY(std::vector<Field> slices, m.list("slices", 64));
    for (const Field& s : slices) {
      MLC_TRY(std::vector<Field> ends, s.as_list(2));
      if (ends.size() != 2) return s.error("expected [start, stop]");
      SliceRange r;
      for (int e = 0; e < 2; ++e) {
        if (ends[e].json().is_null()) continue;
        MLC_TRY(int64_t v, ends[e].as_integer(-kMaxElements, kMaxElements));
        (e ? r.stop : r.start) = v;
      }
      im.slices.push_back(r);
    }
    out.push_back(std::move(im));
  }
  return out;
}

// A ParamInit as init_json (artifact_writer.cc) writes it.
Expected<ParamInit> read_init(const Field& init) {
  ParamInit out;
  MLC_TRY(std::string kind, init.string("kind"));
  bool known = false;
  for (auto k : {ParamInit::Kind::kaiming_uniform, ParamInit::Kind::uniform, ParamInit::Kind::normal,
                 ParamInit::Kind::ones, ParamInit::Kind::zeros, ParamInit::Kind::constant,
                 ParamInit::Kind::uniform_range, ParamInit::Kind::trunc_normal, ParamInit::Kind::orthogonal})
    if (kind == init_kind_name(k)) {
      out.kind = k;
      known = true;
    }
  if (!known) return init.error("unknown initialization \"" + kind + "\"");
  MLC_TRY(out.fan_in, init.number("fan_in"));
  MLC_TRY(out.bound, init.number("bound"));
  MLC_TRY(out.stddev, init.number("stddev"));
  if (out.kind == ParamInit::Kind::constant) {
    MLC_TRY(out.value, init.number("value"));
  }
  if (init.json().contains("mean")) {
    MLC_TRY(out.mean, init.number("mean"));
  }
  if (out.kind == ParamInit::Kind::uniform_range || out.kind == ParamInit::Kind::trunc_normal) {
    MLC_TRY(out.low, init.number("low"));
    MLC_TRY(out.high, init.number("high"));
  }
  if (out.kind == ParamInit::Kind::orthogonal) {
    MLC_TRY(out.gain, init.number("gain"));
  }
  if (init.json().contains("zero_after_draw")) {
    MLC_TRY(out.zero_after_draw, init.boolean("zero_after_draw"));
  }
  if (init.json().contains("same_as")) {
    MLC_TRY(out.same_as, init.string("same_as"));
  }
  return out;
}

// The params' draw indices are a permutation of their indices, and a copy
// (ParamInit::same_as) names another drawn parameter of its type.
Status check_init_references(const Field& m, const std::vector<ParamInfo>& params) {
  std::unordered_map<std::string, const ParamInfo*> by_name;
  for (const ParamInfo& p : params) by_name.emplace(p.name, &p);
  std::vector<bool> seen(params.size(), false);
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t d = params[i].draw_index >= 0 ? params[i].draw_index : static_cast<int64_t>(i);
    if (seen[static_cast<size_t>(d)])
      return m.error("params: draw_index " + std::to_string(d) + " is given twice (parameter \"" + params[i].name + "\")");
    seen[static_cast<size_t>(d)] = true;
    const std::string& from = params[i].init.same_as;
    if (from.empty()) continue;
    const auto it = by_name.find(from);
    if (it == by_name.end() || it->second->type != params[i].type || !it->second->init.same_as.empty())
      return m.error("params: \"" + params[i].name + "\" is a copy of \"" + from +
                     "\", which is not a drawn parameter of its type");
  }
  return {};
}

Expected<ModelConfig> read_model(const Field& m, const std::string& artifact_dir, std::optional<int64_t>& num_classes) {
  ModelConfig c;
  MLC_TRY(c.name, m.string("name"));
  MLC_TRY(std::vector<Field> inputs, m.list("inputs", 4096));
  for (const Field& f : inputs) {
    InputInfo i;
    MLC_TRY(i.name, f.string("name"));
    MLC_TRY(i.dtype, read_dtype(f, "dtype"));
    MLC_TRY(i.shape, read_shape(f, "shape", true));
    MLC_TRY(i.batched, f.boolean("batched"));
    MLC_TRY(int64_t bd, f.integer("batch_dim", -1, static_cast<int64_t>(i.shape.size()) - 1));
    i.batch_dim = static_cast<int>(bd);
    if (i.batched != (bd >= 0) || (i.batched && i.shape[static_cast<size_t>(bd)] != -1))
      return f.error("batch_dim does not match batched and shape");
    for (size_t d = 0; d < i.shape.size(); ++d)
      if (i.shape[d] < 0 && static_cast<int>(d) != i.batch_dim) return f.error("only the batch dim may be -1");
    c.inputs.push_back(std::move(i));
  }
  MLC_TRY(std::vector<Field> params, m.list("params"));
  for (const Field& f : params) {
    ParamInfo p;
    MLC_TRY(p.name, f.string("name"));
    MLC_TRY(p.type, read_type(f, "type"));
    MLC_TRY(Field init, f.get("init"));
    MLC_TRY(p.init, read_init(init));
    if (f.json().contains("explicit_init")) {
      MLC_TRY(Field explicit_init, f.get("explicit_init"));
      MLC_TRY(p.explicit_init, read_init(explicit_init));
    }
    MLC_TRY(p.trainable, f.boolean("trainable"));
    if (f.json().contains("buffer")) {
      MLC_TRY(p.buffer, f.boolean("buffer"));
    }
    if (f.json().contains("draw_index")) {
      MLC_TRY(p.draw_index, f.integer("draw_index", 0, static_cast<int64_t>(params.size()) - 1));
    }
    c.params.push_back(std::move(p));
  }
  MLC_CHECK_OK(check_init_references(m, c.params));
  MLC_TRY(c.loss_type, m.string("loss_type"));
  MLC_TRY(c.loss_targets, m.string("loss_targets"));
  MLC_TRY(c.classifier, m.boolean("classifier"));
  if (m.json().contains("loss_ignore_index")) {
    MLC_TRY(Field ignore, m.get("loss_ignore_index"));
    MLC_TRY(int64_t v, ignore.as_integer(-kMaxElements, kMaxElements));
    c.loss_ignore_index = v;
  }
  MLC_TRY(Field classes, m.get("num_classes"));
  if (!classes.json().is_null()) {
    MLC_TRY(int64_t n, classes.as_integer(1, kMaxElements));
    num_classes = n;
  }
  MLC_TRY(Field data, m.get("data"));
  MLC_TRY(c.data.file, data.string("file"));
  if (!c.data.file.empty() && !std::filesystem::path(c.data.file).is_absolute() && !artifact_dir.empty())
    c.data.file = (std::filesystem::path(artifact_dir) / c.data.file).lexically_normal().string();
  MLC_TRY(c.data.train, read_mappings(data, "train"));
  MLC_TRY(c.data.eval, read_mappings(data, "eval"));
  MLC_TRY(Field t, m.get("train"));
  TrainConfig& tc = c.train;
  MLC_TRY(tc.batch_size, t.integer("batch_size", 1, kMaxElements));
  MLC_TRY(tc.epochs, t.integer("epochs", 0, kMaxElements));
  MLC_TRY(tc.steps, t.integer("steps", 0, kMaxElements));
  MLC_TRY(tc.shuffle, t.boolean("shuffle"));
  MLC_TRY(tc.drop_last, t.boolean("drop_last"));
  MLC_TRY(int64_t seed, t.integer("seed", 0, std::numeric_limits<int64_t>::max()));
  tc.seed = static_cast<uint64_t>(seed);
  MLC_TRY(tc.eval_batch_size, t.integer("eval_batch_size", 0, kMaxElements));
  // Observability settings, absent from artifacts written before they existed.
  for (auto [key, out] : {std::pair<const char*, int64_t*>{"eval_every", &tc.eval_every},
                          {"grad_stats_every", &tc.grad_stats_every}})
    if (t.json().is_object() && t.json().contains(key)) {
      MLC_TRY(*out, t.integer(key, 0, kMaxElements));
    }
  if (t.json().is_object() && t.json().contains("grad_accumulation_steps")) {
    MLC_TRY(tc.grad_accumulation_steps, t.integer("grad_accumulation_steps", 1, tc.batch_size));
  }
  MLC_TRY(Field o, t.get("optimizer"));
  OptimizerConfig& oc = tc.optimizer;
  MLC_TRY(oc.type, o.string("type"));
  if (oc.type != "sgd" && oc.type != "adam" && oc.type != "adamw" && oc.type != "rmsprop" && oc.type != "adagrad")
    return Error{"manifest field '" + o.path() + ".type': unknown optimizer \"" + oc.type + "\""};
  for (auto [key, out] : {std::pair<const char*, double*>{"lr", &oc.lr}, {"momentum", &oc.momentum},
                          {"dampening", &oc.dampening}, {"weight_decay", &oc.weight_decay}, {"beta1", &oc.beta1},
                          {"beta2", &oc.beta2}, {"eps", &oc.eps}, {"alpha", &oc.alpha}, {"lr_decay", &oc.lr_decay},
                          {"initial_accumulator_value", &oc.initial_accumulator_value},
                          {"clip_grad_norm", &oc.clip_grad_norm}}) {
    MLC_TRY(*out, o.number(key));
  }
  MLC_TRY(oc.nesterov, o.boolean("nesterov"));
  MLC_TRY(oc.centered, o.boolean("centered"));
  MLC_TRY(oc.decay, o.string("decay"));
  MLC_TRY(Field s, o.get("schedule"));
  ScheduleConfig& sc = oc.schedule;
  MLC_TRY(sc.type, s.string("type"));
  MLC_TRY(sc.warmup_steps, s.integer("warmup_steps", 0, kMaxElements));
  MLC_TRY(sc.start_factor, s.number("start_factor"));
  MLC_TRY(sc.total_steps, s.integer("total_steps", 0, kMaxElements));
  MLC_TRY(sc.min_lr, s.number("min_lr"));
  MLC_TRY(sc.step_size, s.integer("step_size", 1, kMaxElements));
  MLC_TRY(sc.gamma, s.number("gamma"));
  return c;
}

struct BlobRange {
  int64_t offset = 0, size = 0;
};

// A range of the blobs section. Every object and constant copies its bytes,
// and a valid artifact's ranges are disjoint: `unclaimed` (the blobs' size at
// first) bounds what they copy together, so that overlapping ranges cannot
// make a small file allocate many times its size.
Expected<BlobRange> read_blob(const Field& f, int64_t blobs_size, int64_t& unclaimed) {
  BlobRange r;
  MLC_TRY(r.offset, f.integer("offset", 0, kMaxElements));
  MLC_TRY(r.size, f.integer("size", 0, kMaxElements));
  const std::string range = "bytes [" + std::to_string(r.offset) + ", +" + std::to_string(r.size) + ")";
  if (r.offset > blobs_size || r.size > blobs_size - r.offset)
    return f.error(range + " lie outside the blobs section's " + std::to_string(blobs_size) + " bytes");
  if (r.size > unclaimed)
    return f.error(range + " overlap other objects' or constants' bytes: together they claim more than the blobs "
                   "section's " + std::to_string(blobs_size) + " bytes");
  unclaimed -= r.size;
  return r;
}

Expected<InstrKind> read_kind(const Field& f) {
  MLC_TRY(Field k, f.get("kind"));
  MLC_TRY(std::string name, k.as_string());
  for (InstrKind kind : {InstrKind::kernel, InstrKind::gemm, InstrKind::reference, InstrKind::copy, InstrKind::collective})
    if (name == instr_kind_name(kind)) return kind;
  return k.error("expected kernel, gemm, reference, copy or collective, found \"" + name + "\"");
}

// A collective instruction's parameters (runtime/executable.h
// CollectiveParams); the executor checks them against the mesh when it runs
// (runtime/collective_run.h).
Expected<CollectiveParams> read_collective(const Field& i) {
  MLC_TRY(Field c, i.get("collective"));
  CollectiveParams p;
  MLC_TRY(Field kind, c.get("kind"));
  MLC_TRY(std::string name, kind.as_string());
  bool known = false;
  std::string names;
  for (int k = 0; k <= static_cast<int>(CollectiveKind::shard_slice); ++k) {
    const auto ck = static_cast<CollectiveKind>(k);
    names += std::string(names.empty() ? "" : ", ") + std::string(collective_kind_name(ck));
    if (name == collective_kind_name(ck)) {
      p.kind = ck;
      known = true;
    }
  }
  if (!known) return kind.error("expected one of " + names + ", found \"" + name + "\"");
  MLC_TRY(p.axis, c.string("axis"));
  if (p.axis.empty()) return c.error("has an empty mesh axis");
  MLC_TRY(p.reduce_max, c.boolean("reduce_max"));
  MLC_TRY(p.dim, c.integer("dim", 0, kMaxRank - 1));
  MLC_TRY(p.split_dim, c.integer("split_dim", 0, kMaxRank - 1));
  MLC_TRY(p.concat_dim, c.integer("concat_dim", 0, kMaxRank - 1));
  MLC_TRY(p.peer, c.integer("peer", 0, int64_t{1} << 30));
  MLC_TRY(int64_t ledger, c.integer("ledger", -1, int64_t{1} << 30));
  p.ledger = static_cast<int>(ledger);
  MLC_TRY(p.tag, c.string("tag"));
  return p;
}

// An argument's placements: none in an unsharded function (`mesh` null), else
// one per axis of `mesh`, each valid for the argument's rank.
Expected<Placements> read_placements(const Field& arg, const Mesh* mesh, const TensorType& type) {
  MLC_TRY(std::vector<Field> list, arg.list("placements", 64));
  Placements p;
  for (const Field& item : list) {
    MLC_TRY(std::string text, item.as_string());
    auto placement = Placement::parse(text);
    if (!placement) return item.error(placement.error().message);
    p.push_back(*placement);
  }
  MLC_TRY(Field field, arg.get("placements"));
  if (!mesh) {
    if (!p.empty()) return field.error("placements " + placements_str(p) + " on an argument of an unsharded function");
    return p;
  }
  if (std::string problem = check_placements(p, type.rank(), *mesh); !problem.empty()) return field.error(problem);
  return p;
}

Expected<std::shared_ptr<Executable>> read_executable(const Field& f, std::string_view blobs,
                                                      const std::shared_ptr<const CodeModule>& code,
                                                      int64_t& unclaimed_blob_bytes, const Mesh* mesh) {
  const int64_t num_objects = static_cast<int64_t>(code->objects.size());
  auto e = std::make_shared<Executable>();
  e->target = code->target;
  if (num_objects) e->code = code;
  MLC_TRY(e->function, f.string("function"));
  MLC_TRY(e->arena_bytes, f.integer("arena_bytes", 0, kMaxElements));
  if (f.json().contains("scratch_bytes")) {  // absent: none (two-phase GPU kernels' region)
    MLC_TRY(e->scratch_bytes, f.integer("scratch_bytes", 0, kMaxElements));
    MLC_TRY(e->scratch_offset, f.integer("scratch_offset", 0, kMaxElements));
  }
  MLC_TRY(std::vector<Field> args, f.list("args", 1 << 20));
  MLC_TRY(std::vector<Field> slots, f.list("slots"));
  const int64_t num_slots = static_cast<int64_t>(slots.size()), num_args = static_cast<int64_t>(args.size());
  for (const Field& s : slots) {
    Slot slot;
    MLC_TRY(slot.type, read_type(s, "type"));
    MLC_TRY(int64_t arg, s.integer("arg", -1, num_args - 1));
    slot.arg = static_cast<int>(arg);
    MLC_TRY(slot.offset, s.integer("offset", 0, kMaxElements));
    e->slots.push_back(std::move(slot));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    ArgSpec a;
    MLC_TRY(a.name, args[i].string("name"));
    MLC_TRY(Field kind, args[i].get("kind"));
    MLC_TRY(std::string kind_name, kind.as_string());
    bool known = false;
    for (ArgKind k : kAllArgKinds)
      if (kind_name == arg_kind_name(k)) {
        a.kind = k;
        known = true;
      }
    if (!known) return kind.error("expected input, param, frozen, state or step, found \"" + kind_name + "\"");
    MLC_TRY(int64_t slot, args[i].integer("slot", 0, num_slots - 1));
    a.slot = static_cast<int>(slot);
    MLC_TRY(a.placements, read_placements(args[i], mesh, e->slots[a.slot].type));
    e->args.push_back(std::move(a));
  }
  MLC_TRY(std::vector<Field> results, f.list("results", 1 << 20));
  for (const Field& r : results) {
    ResultSpec spec;
    MLC_TRY(int64_t slot, r.integer("slot", 0, num_slots - 1));
    MLC_TRY(int64_t updates, r.integer("updates", -1, num_args - 1));
    spec.slot = static_cast<int>(slot);
    spec.updates = static_cast<int>(updates);
    e->results.push_back(spec);
  }
  MLC_TRY(std::vector<Field> kernels, f.list("kernels"));
  for (const Field& k : kernels) {
    KernelInfo info;
    MLC_TRY(info.name, k.string("name"));
    MLC_TRY(int64_t object, k.integer("object", 0, num_objects - 1));
    info.object = static_cast<int>(object);
    MLC_TRY(info.cpu.rows, k.integer("rows", 0, kMaxElements));
    MLC_TRY(info.cpu.row_cost, k.integer("row_cost", 0, kMaxElements));
    MLC_TRY(info.origin, k.string("origin"));
    MLC_TRY(std::vector<Field> types, k.list("types", 1 << 16));
    for (const Field& t : types) {
      MLC_TRY(DType dtype, read_dtype(t, "dtype"));
      MLC_TRY(Shape shape, read_shape(t, "shape"));
      info.types.push_back({dtype, std::move(shape)});
    }
    if (k.json().contains("outputs")) {  // absent: one
      MLC_TRY(int64_t outputs, k.integer("outputs", 1, 1 << 16));
      info.outputs = static_cast<int>(outputs);
    }
    if (k.json().contains("index_checks")) {  // absent: none
      MLC_TRY(std::vector<Field> checks, k.list("index_checks", 1 << 16));
      for (const Field& c : checks) {
        IndexCheck check;
        MLC_TRY(int64_t input, c.integer("input", 0, 1 << 16));
        check.input = static_cast<int>(input);
        MLC_TRY(check.bound, c.integer("bound", 1, kMaxElements));
        MLC_TRY(check.axis, c.integer("axis", 0, 1 << 16));
        MLC_TRY(check.op, c.string("op"));
        MLC_TRY(check.loc, read_loc(c));
        info.index_checks.push_back(std::move(check));
      }
    }
    if (k.json().contains("launch")) {  // GPU targets only (rt::GpuLaunch)
      MLC_TRY(Field launch, k.get("launch"));
      MLC_TRY(info.launch.grid, launch.integer("grid", 1, kMaxGpuGrid));
      MLC_TRY(int64_t block, launch.integer("block", 1, kMaxGpuBlock));
      MLC_TRY(int64_t shared, launch.integer("shared_bytes", 0, kMaxGpuSharedBytes));
      info.launch.block = static_cast<int>(block);
      info.launch.shared_bytes = static_cast<int>(shared);
      if (launch.json().contains("scratch_bytes")) {  // absent: one launch
        MLC_TRY(info.launch.scratch_bytes, launch.integer("scratch_bytes", 1, kMaxElements));
        MLC_TRY(info.launch.combine_grid, launch.integer("combine_grid", 1, kMaxGpuGrid));
      }
    }
    e->kernels.push_back(std::move(info));
  }
  MLC_TRY(std::vector<Field> constants, f.list("constants"));
  for (const Field& c : constants) {
    ConstantData data;
    MLC_TRY(int64_t slot, c.integer("slot", 0, num_slots - 1));
    data.slot = static_cast<int>(slot);
    MLC_TRY(BlobRange r, read_blob(c, static_cast<int64_t>(blobs.size()), unclaimed_blob_bytes));
    const auto* p = reinterpret_cast<const std::byte*>(blobs.data() + r.offset);
    data.bytes.assign(p, p + r.size);
    e->constants.push_back(std::move(data));
  }
  MLC_TRY(std::vector<Field> instructions, f.list("instructions"));
  for (const Field& i : instructions) {
    Instruction ins;
    MLC_TRY(ins.kind, read_kind(i));
    MLC_TRY(ins.name, i.string("name"));
    MLC_TRY(ins.loc, read_loc(i));
    if (i.json().contains("origin")) {  // optional: for listings and profiles
      MLC_TRY(ins.origin, i.string("origin"));
    }
    MLC_TRY(std::vector<Field> operands, i.list("operands", 1 << 16));
    for (const Field& o : operands) {
      MLC_TRY(int64_t s, o.as_integer(0, num_slots - 1));
      ins.operands.push_back(static_cast<int>(s));
    }
    MLC_TRY(int64_t result, i.integer("result", 0, num_slots - 1));
    ins.result = static_cast<int>(result);
    const TensorType& rt = e->slots[ins.result].type;
    if (i.json().contains("more_results")) {  // absent: none
      MLC_TRY(std::vector<Field> more, i.list("more_results", 1 << 16));
      for (const Field& m : more) {
        MLC_TRY(int64_t s, m.as_integer(0, num_slots - 1));
        ins.more_results.push_back(static_cast<int>(s));
      }
    }
    // The operands' and results' types are verify_executable's (below).
    switch (ins.kind) {
      case InstrKind::kernel: {
        MLC_TRY(int64_t k, i.integer("kernel", 0, static_cast<int64_t>(e->kernels.size()) - 1));
        ins.kernel = static_cast<int>(k);
        break;
      }
      case InstrKind::gemm: {
        MLC_TRY(Field g, i.get("gemm"));
        // A gemm update (alpha, beta, and the addend as a third operand).
        if (g.json().contains("alpha") || g.json().contains("beta")) {
          MLC_TRY(ins.gemm.alpha, g.number("alpha"));
          MLC_TRY(ins.gemm.beta, g.number("beta"));
          if (ins.gemm.beta == 0) return g.error("beta must not be 0 (a gemm with an addend adds it)");
        }
        MLC_TRY(ins.gemm.dtype, read_dtype(g, "dtype"));
        blas::DotShape& d = ins.gemm.shape;
        MLC_TRY(d.batch, g.integer("batch", 0, kMaxElements));
        MLC_TRY(d.m, g.integer("m", 0, kMaxElements));
        MLC_TRY(d.n, g.integer("n", 0, kMaxElements));
        MLC_TRY(d.k, g.integer("k", 0, kMaxElements));
        MLC_TRY(d.trans_a, g.boolean("trans_a"));
        MLC_TRY(d.trans_b, g.boolean("trans_b"));
        MLC_TRY(d.b_shared, g.boolean("b_shared"));
        if (g.json().contains("epilogue")) {  // absent: none
          MLC_TRY(Field ep, g.get("epilogue"));
          MLC_TRY(std::string name, ep.as_string());
          bool known = false;
          for (size_t k = 0; k < kGemmEpilogues && !known; ++k)
            if (gemm_epilogue_name(static_cast<GemmEpilogue>(k)) == name) {
              ins.gemm.epilogue = static_cast<GemmEpilogue>(k);
              known = true;
            }
          if (!known) return ep.error("unknown gemm epilogue \"" + name + "\"");
        }
        break;
      }
      case InstrKind::reference: {
        MLC_TRY(Field op, i.get("op"));
        MLC_TRY(Field code_field, op.get("code"));
        MLC_TRY(std::string code_name, code_field.as_string());
        auto code = find_op(code_name);
        if (!code) return code_field.error("unknown op \"" + code_name + "\"");
        // Composites have no reference kernel: lowering decomposes them.
        if (op_info(*code).is_composite())
          return code_field.error("\"" + code_name + "\" is a composite op, which no instruction runs (compiled code decomposes it)");
        auto o = std::make_shared<Op>();
        o->code = *code;
        o->loc = ins.loc;
        MLC_TRY(std::vector<Field> attrs, op.list("attrs", 64));
        for (const Field& a : attrs) {
          MLC_TRY(NamedAttr attr, read_attr(a));
          o->attrs.list().push_back(std::move(attr));
        }
        Status schema = complete_attrs(op_info(o->code), o->attrs);
        // Messages of the op table start with the op's name: said once.
        auto invalid = [&](std::string why) {
          if (why.rfind(code_name + ": ", 0) == 0) why.erase(0, code_name.size() + 2);
          return op.error("is not a valid " + code_name + ": " + why);
        };
        if (!schema) return invalid(schema.error().message);
        // The reference kernel trusts its op: re-infer the result from the
        // operand types and attributes, as the verifier did when compiling.
        std::vector<const TensorType*> types;
        for (int k : ins.operands) types.push_back(&e->slots[static_cast<size_t>(k)].type);
        auto inferred = infer_type(o->code, types, o->attrs, &rt);
        if (!inferred) return invalid(inferred.error().message);
        if (*inferred != rt) return op.error("infers " + inferred->str() + ", its result slot is " + rt.str());
        ins.op = std::move(o);
        break;
      }
      case InstrKind::collective: {
        MLC_TRY(ins.collective, read_collective(i));
        break;
      }
      case InstrKind::copy:
        break;
    }
    e->instructions.push_back(std::move(ins));
  }
  // What the executable means (runtime/verify_executable.h), named as the
  // manifest's field and the function.
  if (auto problem = find_executable_problem(*e))
    return Error{"manifest field '" + f.path() + (problem->field.empty() ? "" : "." + problem->field) + "' (@" +
                 e->function + "): " + problem->what};
  return e;
}

Expected<ArtifactSections> decode_container_impl(std::string_view bytes) {
  if (bytes.size() < kHeaderBytes) return Error{"truncated: " + std::to_string(bytes.size()) + " bytes, not even a header"};
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return Error{"not an mlc artifact (bad magic)"};
  const uint32_t version = static_cast<uint32_t>(get_u(bytes, 8, 4));
  if (version != kArtifactVersion)
    return Error{"format version " + std::to_string(version) + ", this mlc reads version " +
                 std::to_string(kArtifactVersion)};
  const uint32_t n = static_cast<uint32_t>(get_u(bytes, 12, 4));
  if (n < 1 || n > kMaxSections)
    return Error{"section count " + std::to_string(n) + " is not in [1, " + std::to_string(kMaxSections) + "]"};
  const size_t table_end = kHeaderBytes + kEntryBytes * n;
  if (bytes.size() < table_end) return Error{"truncated: the section table ends at byte " + std::to_string(table_end) +
                                             ", the file has " + std::to_string(bytes.size())};
  if (fnv1a64(bytes.substr(kHeaderBytes, kEntryBytes * n)) != get_u(bytes, 16, 8))
    return Error{"section table checksum mismatch (the file is corrupt)"};
  std::unordered_map<std::string, std::string_view> sections;
  uint64_t previous_end = table_end;
  for (uint32_t s = 0; s < n; ++s) {
    const size_t at = kHeaderBytes + kEntryBytes * s;
    std::string name(bytes.substr(at, kNameBytes).data(), strnlen(bytes.data() + at, kNameBytes));
    const uint64_t offset = get_u(bytes, at + 16, 8), size = get_u(bytes, at + 24, 8), sum = get_u(bytes, at + 32, 8);
    if (offset < previous_end || offset > bytes.size() || size > bytes.size() - offset)
      return Error{"section '" + name + "' [" + std::to_string(offset) + ", +" + std::to_string(size) +
                   ") lies outside the file's " + std::to_string(bytes.size()) + " bytes or overlaps another"};
    previous_end = offset + size;
    std::string_view data = bytes.substr(offset, size);
    if (fnv1a64(data) != sum) return Error{"section '" + name + "' checksum mismatch (the file is corrupt)"};
    if (!sections.emplace(name, data).second) return Error{"section '" + name + "' appears twice"};
  }
  if (previous_end != bytes.size())
    return Error{std::to_string(bytes.size() - previous_end) + " bytes after the last section"};
  for (const char* required : {"manifest", "blobs"})
    if (!sections.count(required)) return Error{std::string("no '") + required + "' section"};
  return ArtifactSections{sections["manifest"], sections["blobs"]};
}

// Everything parse_artifact does but naming the file.
Expected<Artifact> parse_unnamed(std::string_view bytes, const std::string& artifact_dir) {
  MLC_TRY(ArtifactSections sections, decode_container_impl(bytes));
  const std::string_view blobs = sections.blobs;

  Json manifest;
  if (auto failure = json::parse(sections.manifest, kManifestJsonLimits, manifest)) {
    if (failure->kind == json::Failure::Kind::syntax)
      return Error{"the manifest is not valid JSON: " +
                   (failure->detail.size() > 200 ? failure->detail.substr(0, 197) + "..." : failure->detail)};
    return Error{"the manifest's JSON at byte " + std::to_string(failure->offset) + ": " +
                 json::describe(*failure, kManifestJsonLimits)};
  }
  Field root(&manifest, "");
  Artifact a;
  MLC_TRY(std::string format, root.string("format"));
  if (format != "mlcx") return Error{"manifest field 'format': expected \"mlcx\", found \"" + format + "\""};
  MLC_TRY(a.mlc_version, root.string("mlc_version"));
  if (a.mlc_version != mlc_version())
    return Error{"compiled by mlc " + a.mlc_version + ", this is mlc " + std::string(mlc_version()) +
                 ": compile it again with this mlc"};
  MLC_TRY(a.module_hash, root.string("module_hash"));
  MLC_TRY(Field parallel, root.get("parallel"));
  MLC_TRY(Field mesh, parallel.get("mesh"));
  MLC_TRY(std::string mesh_text, mesh.as_string());
  if (!mesh_text.empty()) {
    auto parsed = Mesh::parse(mesh_text);
    if (!parsed) return mesh.error(parsed.error().message);
    a.mesh = std::move(*parsed);
  }
  MLC_TRY(int64_t zero, parallel.integer("zero", 0, a.mesh.empty() ? 0 : 3));
  a.zero = static_cast<int>(zero);
  if (a.mesh.find("pp")) {
    MLC_TRY(Field pipeline, parallel.get("pipeline"));
    MLC_TRY(int64_t microbatches, pipeline.integer("microbatches", 1, 1 << 20));
    MLC_TRY(int64_t virtual_stages, pipeline.integer("virtual_stages", 1, 4096));
    MLC_TRY(Field schedule, pipeline.get("schedule"));
    MLC_TRY(std::string schedule_text, schedule.as_string());
    auto kind = parse_pipeline_schedule_kind(schedule_text);
    if (!kind) return schedule.error("expected gpipe, 1f1b, interleaved or zb1p, found " + Field::found(schedule.json()));
    a.pipeline = {static_cast<int>(microbatches), *kind, static_cast<int>(virtual_stages)};
  }
  auto code = std::make_shared<CodeModule>();
  MLC_TRY(Field target, root.get("target"));
  MLC_TRY(Field target_name, target.get("name"));
  MLC_TRY(code->target, target_name.as_string());
  if (!find_target(code->target))
    return target_name.error("expected a target of this runtime (" + target_names() + "), found " +
                             Field::found(target_name.json()));
  MLC_TRY(code->arch, target.string("arch"));
  MLC_TRY(code->features, target.string("features"));
  MLC_TRY(code->generator, target.string("generator"));
  MLC_TRY(Field model, root.get("model"));
  MLC_TRY(a.config, read_model(model, artifact_dir, a.num_classes));
  int64_t unclaimed_blob_bytes = static_cast<int64_t>(blobs.size());
  MLC_TRY(std::vector<Field> objects, root.list("objects", 1 << 20));
  std::unordered_map<std::string, size_t> object_of_symbol;  // one object per symbol (write_artifact)
  for (const Field& o : objects) {
    ObjectFile obj;
    MLC_TRY(Field symbol, o.get("symbol"));
    MLC_TRY(obj.symbol, symbol.as_string());
    // Only a kernel's name: never a function of this process (abort, system).
    if (!is_kernel_symbol(obj.symbol))
      return symbol.error("expected a kernel's name (mlc_kernel_ and 16 lowercase hex digits), found " +
                          Field::found(symbol.json()));
    if (auto [it, added] = object_of_symbol.emplace(obj.symbol, code->objects.size()); !added)
      return o.error("symbol \"" + obj.symbol + "\" is also the symbol of objects[" + std::to_string(it->second) +
                     "]");
    MLC_TRY(BlobRange r, read_blob(o, static_cast<int64_t>(blobs.size()), unclaimed_blob_bytes));
    obj.bytes.assign(blobs.substr(static_cast<size_t>(r.offset), static_cast<size_t>(r.size)));
    // Its kernel IR: opaque text here (driver/verify_code.h reads it).
    MLC_TRY(Field source, o.get("source"));
    MLC_TRY(BlobRange text, read_blob(source, static_cast<int64_t>(blobs.size()), unclaimed_blob_bytes));
    obj.source.assign(blobs.substr(static_cast<size_t>(text.offset), static_cast<size_t>(text.size)));
    code->objects.push_back(std::move(obj));
  }
  a.code = code;
  MLC_TRY(std::vector<Field> functions, root.list("functions", 1024));
  if (functions.empty()) return Error{"manifest field 'functions': the artifact has no functions"};
  for (const Field& f : functions) {
    CompiledFunction c;
    MLC_TRY(c.name, f.string("name"));
    MLC_TRY(c.batch, f.integer("batch", 1, kMaxElements));
    MLC_TRY(c.sharded, f.boolean("sharded"));
    if (c.sharded && a.mesh.empty()) return f.error("is sharded, but the artifact has no mesh (parallel.mesh is \"\")");
    MLC_TRY(Field exe, f.get("executable"));
    MLC_TRY(c.executable, read_executable(exe, blobs, a.code, unclaimed_blob_bytes, c.sharded ? &a.mesh : nullptr));
    if (a.find(c.name, c.batch, c.sharded))
      return f.error(std::string(c.sharded ? "sharded " : "") + "@" + c.name + " for batch " +
                     std::to_string(c.batch) + " appears twice");
    a.functions.push_back(std::move(c));
  }
  return a;
}

}  // namespace

Expected<ArtifactSections> decode_container(std::string_view bytes) { return decode_container_impl(bytes); }

Expected<Artifact> parse_artifact(std::string_view bytes, const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  try {
    auto a = parse_unnamed(bytes, dir);
    if (!a) return make_error(path + ": error: " + a.error().message);
    return a;
  } catch (const std::bad_alloc&) {
    return make_error(path + ": error: out of memory while reading the artifact");
  }
}

Expected<Artifact> read_artifact(const std::string& path) {
  MLC_TRY(std::string bytes, read_file(path));
  return parse_artifact(bytes, path);
}

}  // namespace mlc::rt
