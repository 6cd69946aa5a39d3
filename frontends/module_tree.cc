#include "frontends/module_tree.h"

#include <algorithm>
#include <unordered_set>

#include "ir/diagnostics.h"
#include "support/suggest.h"

namespace mlc {

namespace {

// Counts saturate far above every budget, so a count that exceeds one is exact
// in the message (the first node over budget multiplies counts within budget
// by at most a repeat or a number of calls).
constexpr int64_t kSaturated = int64_t{1} << 62;
int64_t sat_add(int64_t a, int64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}
Work times(const Work& w, int64_t n) {
  return {sat_mul(w.modules, n), sat_mul(w.forward_ops, n), sat_mul(w.ir_ops, n)};
}
void add_to(Work& total, const Work& w) {
  total.modules = sat_add(total.modules, w.modules);
  total.forward_ops = sat_add(total.forward_ops, w.forward_ops);
  total.ir_ops = sat_add(total.ir_ops, w.ir_ops);
}

std::string display(const std::string& name) { return name.empty() ? "the model" : squote(name); }

std::string count_text(int64_t n) {
  return n >= kSaturated ? "more than 2^62" : std::to_string(n);
}

Error over_budget(const JsonDoc& doc, const Node& node, const std::string& name,
                  const std::string& what, int64_t count, int64_t limit) {
  std::string who = name.empty() ? "the model" : "module " + squote(name);
  return doc.error(node, "over budget: " + who + " expands to " + count_text(count) + " " + what +
                             ", more than the limit of " + std::to_string(limit) +
                             " (docs/limits.md)");
}

Status check_totals(const JsonDoc& doc, const Node& node, const std::string& name,
                    const ModuleNode& m, const ModelLimits& limits) {
  if (m.param_elements > kMaxElements)
    return doc.error(node, "too many parameters: more than 2^40 elements");
  if (m.param_tensors > limits.max_param_tensors)
    return over_budget(doc, node, name, "parameter tensors", m.param_tensors,
                       limits.max_param_tensors);
  if (m.work.modules > limits.max_modules)
    return over_budget(doc, node, name, "modules (layers, containers and repeats)",
                       m.work.modules, limits.max_modules);
  if (m.work.forward_ops > limits.max_forward_ops)
    return over_budget(doc, node, name, "forward operations", m.work.forward_ops,
                       limits.max_forward_ops);
  if (m.work.ir_ops > limits.max_ir_ops)
    return over_budget(doc, node, name, "IR operations", m.work.ir_ops, limits.max_ir_ops);
  return {};
}

// A state_dict index of nn.Sequential: "0", "1", ... (no leading zeros).
bool is_sequential_index(const std::string& s) {
  if (s.empty() || s.size() > 9 || (s.size() > 1 && s[0] == '0')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(path.substr(start, dot - start));
  parts.push_back(path.substr(start));
  return parts;
}

// What `path` ("a.b.c") names below the container `root` (forward_expr.h's PathInfo).
PathInfo resolve_path(const ModuleNode& root, const std::string& path) {
  std::vector<std::string> parts = split_path(path);
  const ModuleNode* m = &root;
  PathInfo info;
  size_t i = 0;
  for (; i < parts.size() && m->kind != ModuleNode::Kind::layer; ++i) {
    const ModuleNode* next = nullptr;
    if (m->kind == ModuleNode::Kind::container) {
      next = m->child(parts[i]);
    } else if (is_sequential_index(parts[i]) && std::stoll(parts[i]) < m->repeat) {
      next = m->block.get();
    }
    if (!next) break;
    info.reached += (info.reached.empty() ? "" : ".") + parts[i];
    m = next;
  }
  auto members = [&](const std::string& prefix) {
    std::vector<std::string> out;
    if (m->kind == ModuleNode::Kind::container) {
      for (const auto& [name, c] : m->children) out.push_back(name);
    } else if (m->kind == ModuleNode::Kind::repeat) {
      out.push_back("0 to " + std::to_string(m->repeat - 1));
    } else {
      if (prefix.empty())
        for (const TiedParam& t : m->layer->ties()) out.push_back(t.param);
      for (const ParamDecl& p : m->layer->params()) {
        if (p.name.compare(0, prefix.size(), prefix) != 0) continue;
        std::string next = p.name.substr(prefix.size(), p.name.find('.', prefix.size()) - prefix.size());
        if (std::find(out.begin(), out.end(), next) == out.end()) out.push_back(next);
      }
    }
    return out;
  };
  if (i == parts.size()) {  // a module
    info.kind = PathInfo::Kind::module;
    info.members = members("");
    return info;
  }
  if (m->kind != ModuleNode::Kind::layer) {
    info.members = members("");
    return info;
  }
  std::string rest, prefix;
  for (size_t j = i; j < parts.size(); ++j) rest += (j > i ? "." : "") + parts[j];
  for (size_t j = i; j + 1 < parts.size(); ++j) prefix += parts[j] + ".";
  for (const TiedParam& t : m->layer->ties())
    if (t.param == rest) {
      info.kind = PathInfo::Kind::param;
      info.tied_to = t.target;
      return info;
    }
  for (const ParamDecl& p : m->layer->params()) {
    if (p.name == rest) {
      info.kind = PathInfo::Kind::param;
      return info;
    }
    if (p.name.compare(0, rest.size() + 1, rest + ".") == 0) info.kind = PathInfo::Kind::module;
  }
  info.members = members(info.kind == PathInfo::Kind::module ? rest + "." : prefix);
  return info;
}

Expected<std::unique_ptr<ModuleNode>> parse_layer_node(const Fields& f, const std::string& name) {
  MLC_TRY(Node type_node, f.require("type"));
  MLC_TRY(std::string type, f.doc().as_string(type_node));
  if (!is_layer_type(type)) return f.doc().error(type_node, unknown_layer_type(type));
  Fields lf(f.doc(), f.node(), "layer " + display(name) + " (" + type + ")");
  auto m = std::make_unique<ModuleNode>();
  m->kind = ModuleNode::Kind::layer;
  MLC_TRY(m->layer, parse_layer(lf, type));
  std::vector<ParamDecl> tensors = m->layer->params();
  for (ParamDecl& p : m->layer->buffers()) tensors.push_back(std::move(p));
  for (const ParamDecl& p : tensors) {
    auto n = checked_num_elements(p.shape);
    if (!n)
      return f.doc().error(f.node(), type + " " + display(name) + ": parameter " + squote(p.name) +
                                         " " + shape_to_string(p.shape) +
                                         " has more than 2^40 elements");
    m->param_elements = sat_add(m->param_elements, *n);
    ++m->param_tensors;
  }
  m->work = {1, 0, m->layer->max_ops()};
  return m;
}

Expected<std::vector<std::string>> parse_input_names(const JsonDoc& doc, const Node& n) {
  MLC_CHECK_OK(doc.expect_array(n));
  if (n.json->empty()) return doc.error(n, "'inputs': needs at least one name");
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < n.json->size(); ++i) {
    Node e = n.element(i);
    MLC_TRY(std::string s, doc.as_string(e));
    if (!is_identifier(s)) return doc.error(e, "input name " + squote(s) + " is not an identifier");
    if (!seen.insert(s).second) return doc.error(e, "input " + squote(s) + " is listed twice");
    names.push_back(s);
  }
  return names;
}

}  // namespace

ForwardScope forward_scope(const ModuleNode& m, std::vector<std::string> inputs, const CustomOps* custom) {
  ForwardScope scope;
  scope.inputs = std::move(inputs);
  scope.layer_arity = [&m, custom](const std::string& n) -> std::optional<int> {
    if (const ModuleNode* c = m.child(n)) return c->arity();
    if (const CustomOp* op = custom ? custom->find(n) : nullptr) return static_cast<int>(op->inputs.size());
    return std::nullopt;
  };
  scope.layer_spec = [&m](const std::string& n) -> const BuiltinSpec* {
    const ModuleNode* c = m.child(n);
    return c && c->kind == ModuleNode::Kind::layer ? c->layer->call_spec() : nullptr;
  };
  scope.resolve_path = [&m](const std::string& path) { return resolve_path(m, path); };
  return scope;
}

Work forward_work(const ModuleNode& m, const ForwardProgram& program, const CustomOps* custom) {
  Work total;
  for (const auto& [callee, n] : program.calls) {
    if (const ModuleNode* c = m.child(callee)) {
      add_to(total, times(c->work, n));
    } else {  // a custom op: the call, and at most one specialisation per call
      Work w;
      w.ir_ops = sat_add(1, custom->find(callee)->ops());
      add_to(total, times(w, n));
    }
  }
  return total;
}

namespace {

Expected<std::unique_ptr<ModuleNode>> parse_container(const Fields& f, const std::string& name,
                                                      const ModelLimits& limits, const CustomOps* custom) {
  const JsonDoc& doc = f.doc();
  MLC_CHECK_OK(f.allow({"layers", "forward", "inputs", "trainable"}));
  auto m = std::make_unique<ModuleNode>();
  m->kind = ModuleNode::Kind::container;
  if (auto in = f.get("inputs")) {
    MLC_TRY(m->inputs, parse_input_names(doc, *in));
  }
  Node layers = f.node().child("layers");
  std::unordered_set<std::string> input_names(m->inputs.begin(), m->inputs.end());
  // One child: `c` named `key` (an object member, or the index of a list element).
  auto add_child = [&](const Node& c, const std::string& key, bool listed) -> Status {
    auto name_error = [&](const std::string& message) {
      return listed ? doc.error(c, message) : doc.key_error(c, message);
    };
    if (!is_identifier(key) && (f.has("forward") || !is_sequential_index(key)))
      return name_error("layer name " + squote(key) + " is not an identifier (letters, digits and _)" +
                        (is_sequential_index(key) ? "; integer names (nn.Sequential's 0, 1, ...) are "
                                                    "only allowed in a container without \"forward\""
                                                  : ""));
    if (input_names.count(key)) return name_error("layer name " + squote(key) + " is also an input name");
    if (custom && custom->find(key))
      return name_error("layer name " + squote(key) + " is also the name of a custom op");
    MLC_TRY(auto child, parse_module(doc, c, key, limits, custom));
    if (!f.has("forward") && child->arity() != 1)
      return name_error(squote(key) + " takes " + std::to_string(child->arity()) +
                        " inputs; a container without \"forward\" passes one value");
    m->param_tensors = sat_add(m->param_tensors, child->param_tensors);
    m->param_elements = sat_add(m->param_elements, child->param_elements);
    m->child_index.emplace(key, m->children.size());
    m->children.emplace_back(key, std::move(child));
    return {};
  };
  if (layers.json->is_array()) {  // nn.Sequential: children named 0, 1, ...
    if (f.has("forward"))
      return doc.error(layers, "'layers': a list of layers (named 0, 1, ...) is only allowed in a "
                               "container without \"forward\"; name them in an object");
    for (size_t i = 0; i < layers.json->size(); ++i)
      MLC_CHECK_OK(add_child(layers.element(i), std::to_string(i), true));
  } else {
    MLC_CHECK_OK(doc.expect_object(layers));
    for (auto it = layers.json->begin(); it != layers.json->end(); ++it)
      MLC_CHECK_OK(add_child(layers.member(it), it.key(), false));
  }
  m->work.modules = 1;
  if (auto fwd = f.get("forward")) {
    MLC_TRY(m->forward, parse_forward(doc, *fwd, forward_scope(*m, m->inputs, custom)));
    m->work.forward_ops = m->forward->ops;
    m->work.ir_ops = m->forward->ops;
    add_to(m->work, forward_work(*m, *m->forward, custom));
  } else if (m->inputs.size() != 1) {
    return doc.error(*f.get("inputs"), "a container without \"forward\" takes exactly one input");
  } else {
    for (const auto& [child_name, c] : m->children) add_to(m->work, c->work);
  }
  MLC_CHECK_OK(check_totals(doc, f.node(), name, *m, limits));
  return m;
}

Expected<std::unique_ptr<ModuleNode>> parse_repeat(const Fields& f, const std::string& name,
                                                   const ModelLimits& limits, const CustomOps* custom) {
  const JsonDoc& doc = f.doc();
  MLC_CHECK_OK(f.allow({"repeat", "block", "trainable"}));
  auto m = std::make_unique<ModuleNode>();
  m->kind = ModuleNode::Kind::repeat;
  MLC_TRY(m->repeat, f.positive("repeat"));
  if (m->repeat > limits.max_repeat)
    return doc.error(*f.get("repeat"), "'repeat': " + std::to_string(m->repeat) +
                                           " is too large (at most " +
                                           std::to_string(limits.max_repeat) + ")");
  MLC_TRY(Node block, f.require("block"));
  MLC_TRY(m->block, parse_module(doc, block, name.empty() ? "block" : name + ".block", limits, custom));
  if (m->block->arity() != 1)
    return doc.error(block, "a repeated block must take one input, this one takes " +
                                std::to_string(m->block->arity()));
  m->param_tensors = sat_mul(m->block->param_tensors, m->repeat);
  m->param_elements = sat_mul(m->block->param_elements, m->repeat);
  m->work = times(m->block->work, m->repeat);
  m->work.modules = sat_add(m->work.modules, 1);
  MLC_CHECK_OK(check_totals(doc, f.node(), name, *m, limits));
  return m;
}

}  // namespace

std::string unknown_layer_type(std::string_view type) {
  if (std::string hint = did_you_mean(type, layer_types()); !hint.empty())
    return "unknown layer type " + squote(type) + hint;
  std::string known;
  for (const auto& t : layer_types()) known += (known.empty() ? "" : ", ") + t;
  return "unknown layer type " + squote(type) + " (known: " + known + ")";
}

const ModuleNode* ModuleNode::child(const std::string& name) const {
  auto it = child_index.find(name);
  return it == child_index.end() ? nullptr : children[it->second].second.get();
}

Expected<std::unique_ptr<ModuleNode>> parse_module(const JsonDoc& doc, const Node& node,
                                                   const std::string& name,
                                                   const ModelLimits& limits, const CustomOps* custom) {
  std::string what = name.empty() ? "the model" : "module " + squote(name);
  MLC_TRY(Fields f, Fields::of(doc, node, what));
  std::unique_ptr<ModuleNode> m;
  if (f.has("type")) {
    MLC_TRY(m, parse_layer_node(f, name));
  } else if (f.has("layers")) {
    MLC_TRY(m, parse_container(f, name, limits, custom));
  } else if (f.has("repeat")) {
    MLC_TRY(m, parse_repeat(f, name, limits, custom));
  } else {
    return doc.error(node, what + " needs \"type\" (a layer), \"layers\" (a container) or "
                                  "\"repeat\" (a repeated block)");
  }
  m->loc = doc.loc(node);
  MLC_TRY(m->trainable, f.boolean("trainable", true));
  return m;
}

void collect_params(const ModuleNode& m, const std::string& prefix, bool trainable,
                    std::vector<ParamInfo>& out) {
  trainable = trainable && m.trainable;
  switch (m.kind) {
    case ModuleNode::Kind::layer: {
      const int64_t base = static_cast<int64_t>(out.size());
      const std::vector<ParamDecl> params = m.layer->params();
      for (size_t i = 0; i < params.size(); ++i) {
        const ParamDecl& p = params[i];
        out.push_back({prefix + p.name, TensorType{p.dtype, p.shape}, p.init, trainable, false, m.loc, m.layer->type()});
        if (!p.init.same_as.empty()) out.back().init.same_as = prefix + p.init.same_as;
        out.back().draw_index = base + (p.draw >= 0 ? p.draw : static_cast<int64_t>(i));
      }
      for (const ParamDecl& p : m.layer->buffers())
        out.push_back({prefix + p.name, TensorType{p.dtype, p.shape}, p.init, false, true, m.loc, m.layer->type()});
      break;
    }
    case ModuleNode::Kind::container:
      for (const auto& [name, c] : m.children) collect_params(*c, prefix + name + ".", trainable, out);
      break;
    case ModuleNode::Kind::repeat:
      for (int64_t i = 0; i < m.repeat; ++i)
        collect_params(*m.block, prefix + std::to_string(i) + ".", trainable, out);
      break;
  }
}

std::vector<TopLayer> collect_top_layers(const ModuleNode& root) {
  std::vector<TopLayer> out;
  auto add = [&](const ModuleNode& m, const std::string& name) {
    if (m.kind != ModuleNode::Kind::repeat) {
      out.push_back({name, false, m.loc});
      return;
    }
    for (int64_t i = 0; i < m.repeat; ++i)
      out.push_back({name.empty() ? std::to_string(i) : name + "." + std::to_string(i), true, m.block->loc});
  };
  if (root.kind == ModuleNode::Kind::container) {
    for (const auto& [name, c] : root.children) add(*c, name);
  } else {
    add(root, "");
  }
  return out;
}

void collect_unsynced_batch_norms(const ModuleNode& m, const std::string& prefix,
                                  std::vector<std::pair<std::string, Loc>>& out) {
  switch (m.kind) {
    case ModuleNode::Kind::layer:
      if (is_unsynced_batch_norm(*m.layer)) out.emplace_back(prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1), m.loc);
      break;
    case ModuleNode::Kind::container:
      for (const auto& [name, c] : m.children) collect_unsynced_batch_norms(*c, prefix + name + ".", out);
      break;
    case ModuleNode::Kind::repeat:
      for (int64_t i = 0; i < m.repeat; ++i) collect_unsynced_batch_norms(*m.block, prefix + std::to_string(i) + ".", out);
      break;
  }
}

namespace {
// 32-bit FNV-1a: a layer call's random stream from its path and call number.
uint32_t stream_of(const std::string& path, int64_t call) {
  uint32_t h = 2166136261u;
  for (char c : path + "#" + std::to_string(call)) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}
}  // namespace

namespace {
Status check_ties_in(const ModuleNode& m, const std::string& prefix,
                     const std::unordered_map<std::string, ParamInfo*>& by_name) {
  switch (m.kind) {
    case ModuleNode::Kind::layer:
      for (const TiedParam& t : m.layer->ties()) {
        auto it = by_name.find(t.target);
        if (it == by_name.end())
          return error_at(t.loc, "tie: the model has no parameter " + squote(t.target) +
                                     " (a full state_dict name, e.g. 'tok_emb.weight')");
        if (it->second->type.shape != t.shape)
          return error_at(t.loc, "tie: " + squote(t.target) + " is " + it->second->type.str() +
                                     " but this " + m.layer->type() + "'s " + t.param + " is f32" +
                                     shape_to_string(t.shape));
        it->second->aliases.push_back(prefix + t.param);
      }
      return {};
    case ModuleNode::Kind::container:
      for (const auto& [name, c] : m.children) MLC_CHECK_OK(check_ties_in(*c, prefix + name + ".", by_name));
      return {};
    case ModuleNode::Kind::repeat:
      for (int64_t i = 0; i < m.repeat; ++i)
        MLC_CHECK_OK(check_ties_in(*m.block, prefix + std::to_string(i) + ".", by_name));
      return {};
  }
  return {};
}
}  // namespace

Status check_ties(const ModuleNode& root, std::vector<ParamInfo>& params) {
  std::unordered_map<std::string, ParamInfo*> by_name;
  for (ParamInfo& p : params) by_name.emplace(p.name, &p);
  return check_ties_in(root, "", by_name);
}

namespace {
Expected<Value*> emit_module_body(const ModuleNode& m, Builder& b, EmitState& state, const std::string& prefix,
                                  const std::vector<Value*>& args, CustomOpEmitter* custom);

// Records a call of the module at `path` returning `out` (EmitState::capture_path).
void note_call(EmitState& state, const std::string& path, Value* out) {
  if (state.capture_path.empty()) return;
  if (!state.captured && out && path == state.capture_path) state.captured = out;
  if (std::find(state.called.begin(), state.called.end(), path) == state.called.end()) state.called.push_back(path);
}

// Emits layer `m` under `prefix` ("layers.0.attn."): `emit` gets its context.
template <typename Emit>
auto emit_layer(const ModuleNode& m, Builder& b, EmitState& state, const std::string& prefix,
                const std::string& path, Emit&& emit) {
  LayerContext ctx{b, path, [&](const std::string& n) {
                     for (const TiedParam& t : m.layer->ties())
                       if (t.param == n) return state.values.at(t.target);
                     return state.values.at(prefix + n);
                   }};
  ctx.training = state.training;
  ctx.training_batch = state.training_batch;
  ctx.update_buffer = [&](const std::string& n, Value* v) {
    Value*& slot = state.values.at(prefix + n);
    if (!slot->producer) state.updated.push_back(prefix + n);  // first update: still the argument
    slot = v;
  };
  ctx.step = state.step;
  ctx.seed = state.seed;
  ctx.stream = stream_of(path, state.calls[path]++);
  ctx.decode = state.decode;
  ctx.float_dtype = state.float_dtype;
  b.set_loc(m.layer->loc());
  return emit(ctx);
}

// A call of child `name` of container `m` from its forward.
Expected<Val> call_child(const ModuleNode& m, Builder& b, EmitState& state, const std::string& prefix,
                         const std::string& name, std::vector<Val> args, const Loc& at,
                         CustomOpEmitter* custom) {
  const ModuleNode* c = m.child(name);
  if (c && c->kind == ModuleNode::Kind::layer && c->layer->call_spec()) {
    struct ScopeGuard {
      Builder& b;
      std::string saved;
      ~ScopeGuard() { b.set_scope(std::move(saved)); }
    } guard{b, b.scope()};
    const std::string path = prefix + name;
    b.set_scope(path);
    Expected<Val> y = emit_layer(*c, b, state, path + ".", path,
                                 [&](LayerContext& ctx) { return c->layer->apply_call(ctx, args, at); });
    if (!y) return y;
    // A tuple's first tensor (MultiheadAttention's attention output).
    const Val* first = y->kind == Val::Kind::list && !y->items.empty() ? &y->items[0] : &*y;
    note_call(state, path, first->is_tensor() ? first->v : nullptr);
    return y;
  }
  std::vector<Value*> tensors;
  for (const Val& v : args) tensors.push_back(v.v);  // run_forward checked they are tensors
  Expected<Value*> y = c ? emit_module(*c, b, state, prefix + name + ".", tensors, custom)
                         : (b.set_loc(at), custom->call(b, name, tensors));
  if (!y) return y.take_error();
  return Val::tensor(*y, at);
}
}  // namespace

Expected<Value*> emit_module(const ModuleNode& m, Builder& b, EmitState& state,
                             const std::string& prefix, const std::vector<Value*>& args,
                             CustomOpEmitter* custom) {
  MLC_TRY(Value* out, emit_module_body(m, b, state, prefix, args, custom));
  if (!prefix.empty()) note_call(state, prefix.substr(0, prefix.size() - 1), out);
  return out;
}

namespace {
// `program` run as the forward of container `m` at `prefix`; its random
// built-ins draw on the streams of `site`.
Expected<Value*> run_container_forward(const ModuleNode& m, const ForwardProgram& program, Builder& b,
                                       EmitState& state, const std::string& prefix, const std::string& site,
                                       const std::vector<Value*>& args, CustomOpEmitter* custom) {
  LayerCall call = [&](const std::string& name, std::vector<Val> call_args, const Loc& at) {
    return call_child(m, b, state, prefix, name, std::move(call_args), at, custom);
  };
  ParamLookup param = [&](const std::string& path, bool full) {
    return state.values.at(full ? path : prefix + path);
  };
  // The k-th random built-in of this run draws on stream "<site>/k" of
  // the container's call (docs/model-format.md, "Randomness in forward").
  ForwardRandom random{state.training, state.seed, state.step, [&](int64_t k) {
                         const std::string at = site + "/" + std::to_string(k);
                         return stream_of(at, state.calls[at]++);
                       }};
  return run_forward(program, args, b, call, param, state.decode, &random);
}

Expected<Value*> emit_module_body(const ModuleNode& m, Builder& b, EmitState& state, const std::string& prefix,
                                  const std::vector<Value*>& args, CustomOpEmitter* custom) {
  // Ops emitted for this module carry its state_dict path as their scope.
  struct ScopeGuard {
    Builder& b;
    std::string saved;
    ~ScopeGuard() { b.set_scope(std::move(saved)); }
  } guard{b, b.scope()};
  const std::string path = prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1);
  b.set_scope(path);
  switch (m.kind) {
    case ModuleNode::Kind::layer:
      return emit_layer(m, b, state, prefix, path,
                        [&](LayerContext& ctx) { return m.layer->apply(ctx, args.at(0)); });
    case ModuleNode::Kind::container: {
      if (m.forward) return run_container_forward(m, *m.forward, b, state, prefix, path, args, custom);
      Value* v = args.at(0);
      for (const auto& [name, c] : m.children) {
        MLC_TRY(v, emit_module(*c, b, state, prefix + name + ".", {v}, custom));
      }
      return v;
    }
    case ModuleNode::Kind::repeat: {
      Value* v = args.at(0);
      for (int64_t i = 0; i < m.repeat; ++i) {
        MLC_TRY(v, emit_module(*m.block, b, state, prefix + std::to_string(i) + ".", {v}, custom));
      }
      return v;
    }
  }
  return args.at(0);
}
}  // namespace

Expected<Value*> emit_forward(const ModuleNode& m, const ForwardProgram& program, Builder& b, EmitState& state,
                              const std::string& site, const std::vector<Value*>& args, CustomOpEmitter* custom) {
  return run_container_forward(m, program, b, state, "", site, args, custom);
}

}  // namespace mlc
