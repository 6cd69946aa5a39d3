#include "frontends/model_file.h"

#include <algorithm>
#include <unordered_set>

#include "frontends/custom_ops.h"
#include "frontends/dsl_parse.h"
#include "frontends/emit_util.h"
#include "frontends/init_section.h"
#include "frontends/json_doc.h"
#include "frontends/losses.h"
#include "frontends/model_settings.h"
#include "frontends/parallel_section.h"
#include "frontends/phases_section.h"
#include "frontends/module_tree.h"
#include "ir/diagnostics.h"
#include "ir/source_file.h"

namespace mlc {

namespace {

bool is_symbol_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(is_identifier(std::string(1, c)) || (c >= '0' && c <= '9') || c == '.' || c == '-'))
      return false;
  return true;
}

std::string names_of(const std::vector<InputInfo>& inputs) {
  std::string s;
  for (const auto& in : inputs) s += (s.empty() ? "" : ", ") + in.name;
  return s;
}

const InputInfo* find_input(const std::vector<InputInfo>& inputs, const std::string& name) {
  for (const auto& in : inputs)
    if (in.name == name) return &in;
  return nullptr;
}

// The top-level model's inputs must be declared in "inputs".
Status check_model_inputs(const JsonDoc& doc, const Node& model, const ModuleNode& m,
                          const std::vector<InputInfo>& inputs) {
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    if (find_input(inputs, m.inputs[i])) continue;
    bool listed = model.json->contains("inputs");
    Node at = listed ? model.child("inputs").element(i) : model;
    return doc.error(at, "the model reads input " + squote(m.inputs[i]) +
                             (listed ? "" : " (the default)") +
                             ", which is not declared in \"inputs\" (inputs: " + names_of(inputs) +
                             ")");
  }
  return {};
}

std::vector<int64_t> all_dims(const Value* v) {
  std::vector<int64_t> dims(static_cast<size_t>(v->type.rank()));
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(i);
  return dims;
}

// A constant f32 tensor [n] of the section's numbers.
Expected<Value*> section_constant(Builder& b, const std::vector<double>& values, DType dtype) {
  Attrs attrs;
  attrs.set("value", values);
  return b.try_create(OpCode::Constant, {}, std::move(attrs),
                      TensorType{dtype, {static_cast<int64_t>(values.size())}});
}

// The "loss" section's loss of the model's output `out`: in @eval summed
// (the evaluation divides by the positions), in @loss with its reduction.
Expected<Value*> emit_section_loss(Builder& b, const LossSpec& spec, const ModelConfig& c, Value* out,
                                   const std::vector<Value*>& inputs, bool eval, int64_t batch) {
  if (spec.type == "output") {
    if (out->type.rank() != 0 || !is_float(out->type.dtype))
      return error_at(spec.loc, "with \"type\": \"output\" the model's output is the loss, so it must be a 0-d "
                                "float tensor (e.g. F.mse_loss(y, t) + 0.1 * kl), found " + out->type.str());
    if (!eval) return out;
    MLC_TRY(Value* n, emit_scalar(b, static_cast<double>(batch), out->type.dtype));
    return emit_op(b, OpCode::Mul, {out, n});
  }
  Value* targets = inputs[static_cast<size_t>(find_input(c.inputs, spec.targets) - c.inputs.data())];
  if (c.classifier && !is_integer(targets->type.dtype))
    return error_at(spec.loc, spec.type + " targets " + squote(spec.targets) +
                                  " must be class indices (i32 or i64), found " + targets->type.str());
  // Float targets promote to the output's dtype, as torch promotes f32 targets
  // of an f64 model's output (model.double()).
  if (is_float(targets->type.dtype) && is_float(out->type.dtype) && targets->type.dtype != out->type.dtype &&
      dtype_size(out->type.dtype) > dtype_size(targets->type.dtype)) {
    MLC_TRY(targets, emit_cast(b, targets, out->type.dtype));
  }
  LossArgs args;
  args.reduction = eval ? "sum" : spec.reduction;
  args.ignore_index = spec.ignore_index;
  args.label_smoothing = spec.label_smoothing;
  args.beta = spec.beta;
  args.delta = spec.delta;
  args.log_target = spec.log_target;
  const DType dtype = is_float(out->type.dtype) ? out->type.dtype : DType::f32;
  if (!spec.weight.empty()) {
    const auto classes = static_cast<size_t>(out->type.rank() ? out->type.shape.back() : 0);
    if (c.classifier && spec.weight.size() != classes)
      return error_at(spec.weight_loc, spec.type + ": 'weight' needs one number per class, " + std::to_string(classes) +
                                           " for the output " + out->type.str() + ", found " +
                                           std::to_string(spec.weight.size()));
    MLC_TRY(args.weight, section_constant(b, spec.weight, dtype));
  }
  if (!spec.pos_weight.empty()) {
    MLC_TRY(args.pos_weight, section_constant(b, spec.pos_weight, dtype));
  }
  const std::string name = spec.type == "mse" ? "mse_loss" : spec.type;
  return emit_loss(b, name, {out, targets}, args, spec.type, spec.loc);
}

}  // namespace

bool reads_as_model_language(std::string_view text, std::string_view path) {
  if (is_model_language_path(path)) return true;
  if (path.size() >= 5 && path.substr(path.size() - 5) == ".json") return false;
  // Another name (standard input): JSON starts with '{' after blanks.
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] != '{' && text[first] != '[';
}

Expected<ModelFile> ModelFile::load(const std::string& path, const ModelLimits& limits) {
  MLC_TRY(SourceFile file, read_source_file(path, kMaxModelFileBytes, "model file"));
  return parse(file.text, file.name, limits);
}

Expected<ModelFile> ModelFile::parse(std::string_view text, const std::string& path,
                                     const ModelLimits& limits) {
  return catch_out_of_memory([&] { return parse_unguarded(text, path, limits); },
                             path + ": error: out of memory while reading the model file");
}

Expected<Module> ModelFile::build(int64_t batch) const {
  return catch_out_of_memory([&] { return build_unguarded(batch); },
                             config_.path + ": error: out of memory while building the IR");
}

Expected<ModelFile> ModelFile::parse_unguarded(std::string_view text, const std::string& path,
                                               const ModelLimits& limits) {
  MLC_TRY(JsonDoc doc, reads_as_model_language(text, path) ? parse_model_language(text, path)
                                                            : JsonDoc::parse(text, path));
  if (!doc.root().json->is_object())
    return doc.error(doc.root(), "a model file must be a JSON object, found " +
                                     json_kind(*doc.root().json));
  Fields top(doc, doc.root(), "the model file");
  MLC_CHECK_OK(top.allow({"name", "inputs", "custom_ops", "model", "loss", "data", "train", "parallel", "init", "dtype"}));
  ModelFile mf;
  ModelConfig& c = mf.config_;
  c.path = path;
  MLC_TRY(Node name, top.require("name"));
  MLC_TRY(c.name, doc.as_string(name));
  if (!is_symbol_name(c.name))
    return doc.error(name, "'name': " + squote(c.name) +
                               " must use only letters, digits, '_', '.' and '-'");
  MLC_TRY(Node inputs, top.require("inputs"));
  MLC_TRY(c.inputs, parse_inputs(doc, inputs));
  auto custom = std::make_shared<CustomOps>();
  if (auto section = top.get("custom_ops")) {
    MLC_TRY(*custom, parse_custom_ops(doc, *section));
  }
  mf.custom_ops_ = custom;
  MLC_TRY(Node model, top.require("model"));
  MLC_TRY(std::unique_ptr<ModuleNode> tree, parse_module(doc, model, "", limits, custom.get()));
  // Trained in phases (frontends/phases_section.h): each phase's loss calls
  // the model's modules; the model itself is never called.
  std::optional<Node> train_node = top.get("train");
  std::optional<Node> phases_node;
  if (train_node && train_node->json->is_object() && train_node->json->contains("phases"))
    phases_node = train_node->child("phases");
  if (!phases_node) MLC_CHECK_OK(check_model_inputs(doc, model, *tree, c.inputs));
  mf.model_inputs_ = tree->kind == ModuleNode::Kind::container ? tree->inputs
                                                                : std::vector<std::string>{"x"};
  LossSpec loss;
  if (phases_node) {
    if (auto given = top.get("loss"))
      return doc.key_error(*given, "'loss': with train.phases each phase has its own 'loss'; remove this section");
    loss.type = "output";
    loss.loc = doc.key_loc(*phases_node);
  } else {
    MLC_TRY(Node loss_node, top.require("loss"));
    MLC_TRY(loss, parse_loss(doc, loss_node, c.inputs));
  }
  c.loss_type = loss.type;
  c.loss_targets = loss.targets;
  c.classifier = is_class_index_loss(loss.type);
  c.loss_ignore_index = loss.ignore_index;
  mf.loss_ = std::make_shared<const LossSpec>(std::move(loss));
  if (auto data = top.get("data")) {
    MLC_TRY(c.data, parse_data(doc, *data, c.inputs, path));
  }
  if (train_node) {
    MLC_TRY(c.train, parse_train(doc, *train_node));
  }
  collect_params(*tree, "", true, c.params);
  if (auto dtype = top.get("dtype")) {  // model.double()
    MLC_TRY(std::string name, doc.as_string(*dtype));
    if (name != "f32" && name != "f64" && name != "float32" && name != "float64")
      return doc.error(*dtype, "'dtype': the parameters' dtype is \"f32\" (the default) or \"f64\" (model.double()), "
                               "found " + squote(name));
    c.dtype = name == "f64" || name == "float64" ? DType::f64 : DType::f32;
    if (c.dtype == DType::f64 && c.train.mixed_precision.enabled())
      return doc.error(*dtype, "'dtype': an f64 model has no mixed precision (train.mixed_precision works on f32 "
                               "models)");
    for (ParamInfo& p : c.params)
      if (p.type.dtype == DType::f32) p.type.dtype = c.dtype;
  }
  collect_unsynced_batch_norms(*tree, "", c.unsynced_batch_norms);
  MLC_CHECK_OK(check_ties(*tree, c.params));
  if (phases_node) {
    MLC_TRY(PhasesSection phases, parse_phases(doc, *phases_node, *tree, c.inputs, c.params, custom.get(), limits));
    c.train.phases = std::move(phases.phases);
    mf.phase_losses_ = std::make_shared<const std::vector<ForwardProgram>>(std::move(phases.losses));
  }
  if (auto init = top.get("init")) MLC_CHECK_OK(parse_init_section(doc, *init, c.params));
  c.layers = collect_top_layers(*tree);
  if (auto parallel = top.get("parallel")) {
    MLC_TRY(c.parallel, parse_parallel(doc, *parallel, c.params, c.layers));
  }
  mf.model_ = std::move(tree);
  // Trial build: shape errors between layers are load errors too.
  MLC_TRY(Module trial, catch_out_of_memory([&] { return mf.build_unguarded(c.trial_batch(), true); },
                                            path + ": error: out of memory while building the IR"));
  (void)trial;
  return mf;
}

Expected<Module> ModelFile::build_phase(int64_t batch, size_t phase) const {
  if (phase >= config_.train.phases.size())
    return make_error("mlc internal error: the model has no phase " + std::to_string(phase));
  return catch_out_of_memory([&] { return build_unguarded(batch, false, static_cast<int>(phase)); },
                             config_.path + ": error: out of memory while building the IR");
}

Expected<Module> ModelFile::build_unguarded(int64_t batch, bool trial, int phase) const {
  const ModelConfig& c = config_;
  if (batch < 1) return error_at(Loc{c.path}, "batch must be positive, got " + std::to_string(batch));
  const std::vector<PhaseConfig>& phases = c.train.phases;
  // Per phase, the parameters it trains and the buffers it updates (hashed:
  // a model's parameter count is bounded only by docs/limits.md).
  std::vector<std::unordered_set<std::string>> phase_params, phase_buffers;
  for (const PhaseConfig& p : phases) {
    phase_params.emplace_back(p.params.begin(), p.params.end());
    phase_buffers.emplace_back(p.buffers.begin(), p.buffers.end());
  }
  // Whether `p` is a parameter trained here (a model trained in one loss: every trainable one).
  auto trained = [&](const ParamInfo& p) {
    if (p.buffer || !p.trainable) return false;
    return phase < 0 || phase_params[static_cast<size_t>(phase)].count(p.name) > 0;
  };
  Module module;
  module.name = c.name;
  CustomOpEmitter custom(module, *custom_ops_);
  for (const char* fn : {"loss", "eval"}) {
    Function& f = module.add_function(fn);
    std::vector<Value*> inputs;
    for (const InputInfo& in : c.inputs) {
      Shape shape = in.shape;
      std::replace(shape.begin(), shape.end(), int64_t{-1}, batch);
      if (!checked_num_elements(shape))
        return error_at(in.loc, "input " + squote(in.name) + " with batch " + std::to_string(batch) +
                                    ": shape " + shape_to_string(shape) + " has more than 2^40 elements");
      inputs.push_back(f.add_arg(in.name, TensorType{in.dtype, shape}, ArgKind::input));
    }
    const bool eval = std::string_view(fn) == "eval";
    EmitState state;
    std::unordered_map<std::string, int> arg_index;
    for (const ParamInfo& p : c.params) {
      arg_index[p.name] = static_cast<int>(f.args.size());
      state.values[p.name] = f.add_arg(p.name, p.type, p.buffer    ? ArgKind::buffer
                                                       : trained(p) ? ArgKind::param
                                                                    : ArgKind::frozen);
    }
    // @loss is the forward in training mode, @eval in evaluation mode.
    state.training = !eval;
    state.float_dtype = c.dtype;
    state.training_batch = trial && c.train.batch_size > 0;
    state.seed = c.train.seed;
    Value* step = nullptr;
    state.step = [&]() {
      if (!step) {
        std::string name = "step";
        while (find_input(c.inputs, name)) name += "_";
        step = f.add_arg(name, TensorType{DType::i64, {}}, ArgKind::step);
      }
      return step;
    };
    std::vector<Value*> model_args;
    for (const std::string& name : model_inputs_) {
      size_t i = static_cast<size_t>(find_input(c.inputs, name) - c.inputs.data());
      model_args.push_back(inputs[i]);
    }
    Builder b(f);
    Value* out = nullptr;
    if (phases.empty()) {
      MLC_TRY(out, emit_module(*model_, b, state, "", model_args, &custom));
    } else {  // the phase's loss, or (phase < 0) the sum of every phase's
      for (size_t i = 0; i < phases.size(); ++i) {
        if (phase >= 0 && i != static_cast<size_t>(phase)) continue;
        ParamMap before = state.values;
        MLC_TRY(Value* loss, emit_forward(*model_, (*phase_losses_)[i], b, state, "phase " + phases[i].name,
                                          inputs, &custom));
        if (loss->type.rank() != 0 || !is_float(loss->type.dtype))
          return error_at(phases[i].loc, "phase " + squote(phases[i].name) +
                                             ": its loss must be a 0-d float tensor, found " + loss->type.str());
        // Buffers this phase does not update keep their values.
        for (const ParamInfo& p : c.params)
          if (p.buffer && !phase_buffers[i].count(p.name)) state.values[p.name] = before.at(p.name);
        b.set_loc(phases[i].loc);
        if (out) {
          MLC_TRY(out, emit_op(b, OpCode::Add, {out, loss}));
        } else {
          out = loss;
        }
      }
    }
    b.set_loc(loss_->loc);
    MLC_TRY(Value* loss, emit_section_loss(b, *loss_, c, out, inputs, eval, batch));
    f.results.push_back(loss);
    // Training: the buffers' new values follow the loss, in state_dict order.
    for (const ParamInfo& p : c.params) {
      if (!p.buffer || std::find(state.updated.begin(), state.updated.end(), p.name) == state.updated.end()) continue;
      if (state.values.at(p.name) == f.args[static_cast<size_t>(arg_index.at(p.name))]) continue;  // left as it was
      f.result_updates.resize(f.results.size(), -1);
      f.results.push_back(state.values.at(p.name));
      f.result_updates.push_back(arg_index.at(p.name));
    }
    if (!eval || !c.classifier) continue;
    Value* targets = inputs[static_cast<size_t>(find_input(c.inputs, c.loss_targets) - c.inputs.data())];
    MLC_TRY(Value* pred, emit_op(b, OpCode::Argmax, {out}, {{"axis", out->type.rank() - 1}}));
    MLC_TRY(Value* t64, emit_cast(b, targets, DType::i64));
    MLC_TRY(Value* hit, emit_op(b, OpCode::Compare, {pred, t64}, {{"direction", std::string("eq")}}));
    MLC_TRY(Value* hits, emit_cast(b, hit, DType::i64));
    MLC_TRY(Value* correct, emit_op(b, OpCode::ReduceSum, {hits},
                                    {{"dims", all_dims(hits)}, {"keepdim", false}}));
    f.results.push_back(correct);
  }
  return module;
}

}  // namespace mlc
