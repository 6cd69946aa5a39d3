#include "frontends/phases_section.h"

#include <algorithm>
#include <string>

#include "frontends/optimizer_settings.h"
#include "support/glob.h"
#include "support/quote.h"

namespace mlc {

namespace {

// "params" or "buffers": a glob pattern or a non-empty list of them.
Expected<std::vector<std::pair<std::string, Node>>> patterns_of(const JsonDoc& doc, const Node& n,
                                                                std::string_view key) {
  std::vector<std::pair<std::string, Node>> out;
  if (n.json->is_string()) {
    MLC_TRY(std::string p, doc.as_string(n));
    out.emplace_back(std::move(p), n);
  } else {
    MLC_CHECK_OK(doc.expect_array(n));
    for (size_t i = 0; i < n.json->size(); ++i) {
      MLC_TRY(std::string p, doc.as_string(n.element(i)));
      out.emplace_back(std::move(p), n.element(i));
    }
  }
  if (out.empty())
    return doc.error(n, "'" + std::string(key) + "': expected a name pattern or a non-empty list of them");
  for (const auto& [p, at] : out)
    if (p.empty()) return doc.error(at, "'" + std::string(key) + "': a pattern must not be empty");
  return out;
}

bool is_phase_name(const std::string& s) {
  if (s.empty() || s.size() > 64 || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

Expected<PhasesSection> parse_phases(const JsonDoc& doc, const Node& node, const ModuleNode& model,
                                     const std::vector<InputInfo>& inputs, const std::vector<ParamInfo>& params,
                                     const CustomOps* custom, const ModelLimits& limits) {
  MLC_CHECK_OK(doc.expect_object(node));
  if (node.json->empty()) return doc.error(node, "'phases': expected at least one phase");
  if (model.kind != ModuleNode::Kind::container || model.forward)
    return doc.key_error(node, "'phases': the phases' losses call the model's modules, so the model must be a "
                               "container of modules without a \"forward\" of its own");
  PhasesSection out;
  std::vector<std::string> input_names;
  for (const InputInfo& in : inputs) input_names.push_back(in.name);
  // The phase training each parameter so far, by parameter index.
  std::vector<int> owner(params.size(), -1);
  for (auto it = node.json->begin(); it != node.json->end(); ++it) {
    Node pn = node.member(it);
    const std::string name = it.key();
    if (!is_phase_name(name))
      return doc.key_error(pn, "phase name " + squote(name) + " is not an identifier (letters, digits and _)");
    MLC_TRY(Fields f, Fields::of(doc, pn, "phase " + squote(name)));
    MLC_CHECK_OK(f.allow({"params", "buffers", "optimizer", "schedule", "clip_grad_norm", "loss"}));
    PhaseConfig phase;
    phase.name = name;
    phase.loc = doc.key_loc(pn);
    const int index = static_cast<int>(out.phases.size());

    MLC_TRY(Node params_node, f.require("params"));
    MLC_TRY(auto param_patterns, patterns_of(doc, params_node, "params"));
    for (const auto& [pattern, at] : param_patterns) {
      bool matched = false;
      for (size_t i = 0; i < params.size(); ++i) {
        const ParamInfo& p = params[i];
        if (p.buffer || !glob_match(pattern, p.name)) continue;
        matched = true;
        if (!p.trainable) continue;  // frozen ("trainable": false): in no phase
        if (owner[i] >= 0 && owner[i] != index)
          return doc.error(at, "'params': " + squote(pattern) + " matches parameter " + squote(p.name) +
                                   ", which phase " + squote(out.phases[static_cast<size_t>(owner[i])].name) +
                                   " trains already; a parameter is trained by one phase");
        owner[i] = index;
      }
      if (!matched) return doc.error(at, "'params': " + squote(pattern) + " matches no parameter of the model");
    }
    for (size_t i = 0; i < params.size(); ++i)
      if (owner[i] == index) phase.params.push_back(params[i].name);

    // The buffers it updates, in model order: those a pattern matches, or all.
    std::vector<bool> updates(params.size(), !f.has("buffers"));
    if (auto buffers = f.get("buffers")) {
      MLC_TRY(auto buffer_patterns, patterns_of(doc, *buffers, "buffers"));
      for (const auto& [pattern, at] : buffer_patterns) {
        bool matched = false;
        for (size_t i = 0; i < params.size(); ++i)
          if (params[i].buffer && glob_match(pattern, params[i].name)) matched = updates[i] = true;
        if (!matched) return doc.error(at, "'buffers': " + squote(pattern) + " matches no buffer of the model");
      }
    }
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].buffer && updates[i]) phase.buffers.push_back(params[i].name);

    MLC_TRY(Node opt, f.require("optimizer"));
    MLC_TRY(phase.optimizer, parse_optimizer(doc, opt));
    if (phase.optimizer.type == "lbfgs")
      return doc.error(opt, "optimizer \"lbfgs\" re-evaluates its loss within a step and cannot be a phase's");
    if (auto schedule = f.get("schedule")) {
      MLC_CHECK_OK(parse_schedule(doc, *schedule, phase.optimizer));
      if (phase.optimizer.schedule.type == "plateau")
        return doc.error(*schedule, "schedule \"plateau\" is not supported in a phase");
    }
    MLC_TRY(phase.optimizer.clip_grad_norm, non_negative(f, "clip_grad_norm", 0));

    MLC_TRY(Node loss, f.require("loss"));
    if (loss.json->is_string())
      return doc.error(loss, "'loss': expected a list of forward statements ending in 'return' (the phase's "
                             "loss, e.g. [\"return F.mse_loss(net(x), y)\"]), found a string");
    MLC_TRY(ForwardProgram program, parse_forward(doc, loss, forward_scope(model, input_names, custom)));
    Work w = forward_work(model, program, custom);
    w.forward_ops += program.ops;
    w.ir_ops += program.ops;
    out.work.modules += w.modules;
    out.work.forward_ops += w.forward_ops;
    out.work.ir_ops += w.ir_ops;
    if (out.work.forward_ops > limits.max_forward_ops || out.work.ir_ops > limits.max_ir_ops)
      return doc.error(loss, "over budget: the phases' losses expand to more than the limit of " +
                                 std::to_string(limits.max_forward_ops) + " forward operations or " +
                                 std::to_string(limits.max_ir_ops) + " IR operations (docs/limits.md)");
    out.phases.push_back(std::move(phase));
    out.losses.push_back(std::move(program));
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i].buffer && params[i].trainable && owner[i] < 0)
      return doc.key_error(node, "parameter " + squote(params[i].name) + " is trained by no phase; add it to a "
                                 "phase's 'params', or mark its layer \"trainable\": false");
  return out;
}

}  // namespace mlc
