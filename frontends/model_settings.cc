#include "frontends/model_settings.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "frontends/forward_expr.h"
#include "frontends/losses.h"
#include "frontends/mixed_precision.h"
#include "frontends/optimizer_settings.h"
#include "ir/diagnostics.h"
#include "ir/dtype_names.h"
#include "support/suggest.h"

namespace mlc {

namespace {

std::string input_names(const std::vector<InputInfo>& inputs) {
  std::string s;
  for (const auto& in : inputs) s += (s.empty() ? "" : ", ") + in.name;
  return s;
}

bool has_input(const std::vector<InputInfo>& inputs, const std::string& name) {
  return std::any_of(inputs.begin(), inputs.end(), [&](const InputInfo& i) { return i.name == name; });
}

// "; did you mean 'i64'?" or " (dtypes: f32, ..., or PyTorch's float32, ...)".
std::string unknown_dtype_hint(const std::string& dtype) {
  std::vector<std::string> names;
  for (DType t : kAllDTypes) names.emplace_back(dtype_name(t));
  if (std::string hint = did_you_mean(dtype, names); !hint.empty()) return hint;
  return " (dtypes: " + accepted_dtype_names() + ")";
}

Expected<InputInfo> parse_input(const JsonDoc& doc, const Node& n) {
  InputInfo info;
  info.name = n.key;
  info.loc = doc.key_loc(n);
  if (!is_identifier(n.key))
    return doc.key_error(n, "input name " + squote(n.key) + " is not an identifier");
  // The model language's `x: uint8[batch, 4]` reads as a string when uint8 is no dtype.
  if (const std::string* s = n.json->get_ptr<const std::string*>(); s && s->ends_with("]"))
    if (const size_t open = s->find('['); open != std::string::npos && open > 0)
      return doc.error(n, "unknown dtype " + squote(s->substr(0, open)) + unknown_dtype_hint(s->substr(0, open)));
  MLC_TRY(Fields f, Fields::of(doc, n, "input " + squote(n.key)));
  MLC_CHECK_OK(f.allow({"dtype", "shape"}));
  MLC_TRY(Node dt, f.require("dtype"));
  MLC_TRY(std::string dtype, doc.as_string(dt));
  auto parsed = parse_dtype_or_torch_name(dtype);
  if (!parsed)
    return doc.error(dt, "unknown dtype " + squote(dtype) + unknown_dtype_hint(dtype));
  info.dtype = *parsed;
  MLC_TRY(Node shape, f.require("shape"));
  MLC_CHECK_OK(doc.expect_array(shape));
  if (shape.json->size() > kMaxRank)
    return doc.error(shape, "input " + squote(info.name) + ": shape has " +
                                std::to_string(shape.json->size()) + " dims, more than the limit of " +
                                std::to_string(kMaxRank));
  for (size_t i = 0; i < shape.json->size(); ++i) {
    Node d = shape.element(i);
    if (d.json->is_string()) {
      std::string sym = d.json->get<std::string>();
      if (sym != "batch")
        return doc.error(d, "unknown symbol " + squote(sym) + " in a shape (the only symbol is \"batch\")");
      if (info.batched) return doc.error(d, "\"batch\" appears twice in this shape");
      info.batched = true;
      info.batch_dim = static_cast<int>(i);
      info.shape.push_back(-1);
      continue;
    }
    MLC_TRY(int64_t v, doc.as_positive(d));
    info.shape.push_back(v);
  }
  Shape one = info.shape;
  std::replace(one.begin(), one.end(), int64_t{-1}, int64_t{1});
  if (!checked_num_elements(one)) {
    std::string text = shape_to_string(info.shape);
    if (info.batched) text.replace(text.find("-1"), 2, "batch");
    return doc.error(shape, "input " + squote(info.name) + ": shape " + text +
                                " has more than 2^40 elements");
  }
  return info;
}

// Python integer of a slice bound.
struct SliceParser {
  const JsonDoc& doc;
  const Node& node;
  std::string_view s;
  size_t i = 0;

  Error error(size_t at, const std::string& message) const {
    return error_at(doc.locs().string_loc(node.json, at), "bad tensor slice: " + message);
  }
  void ws() {
    while (i < s.size() && s[i] == ' ') ++i;
  }
  std::string found() const {
    return i < s.size() ? "found " + squote(s.substr(i, 1)) : "found the end of the string";
  }
  Expected<std::optional<int64_t>> bound() {
    ws();
    size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    size_t digits = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == digits) {
      if (i != start) return error(start, "expected digits after '-'");
      return std::optional<int64_t>();
    }
    if (i - digits > 15) return error(start, "index is too large");
    return std::optional<int64_t>(std::stoll(std::string(s.substr(start, i - start))));
  }
  Expected<SliceRange> range() {
    size_t start = i;
    MLC_TRY(auto lo, bound());
    ws();
    if (i >= s.size() || s[i] != ':') {
      if (lo) return error(start, "integer indexing is not supported; use a range such as 0:1");
      return error(i, "expected an integer or ':', " + found());
    }
    ++i;
    MLC_TRY(auto hi, bound());
    ws();
    if (i < s.size() && s[i] == ':') return error(i, "slice steps are not supported");
    return SliceRange{lo, hi};
  }
};

}  // namespace

Expected<std::vector<InputInfo>> parse_inputs(const JsonDoc& doc, const Node& node) {
  MLC_CHECK_OK(doc.expect_object(node));
  if (node.json->empty()) return doc.error(node, "'inputs': needs at least one input");
  std::vector<InputInfo> inputs;
  for (auto it = node.json->begin(); it != node.json->end(); ++it) {
    MLC_TRY(InputInfo info, parse_input(doc, node.member(it)));
    inputs.push_back(std::move(info));
  }
  return inputs;
}

namespace {

constexpr size_t kMaxListedNumbers = size_t{1} << 20;

// A number or a list of numbers (a constant tensor along the last dim).
Expected<std::vector<double>> number_list(const JsonDoc& doc, const Node& n) {
  std::vector<double> out;
  if (!n.json->is_array()) {
    MLC_TRY(double v, doc.as_number(n));
    return std::vector<double>{v};
  }
  if (n.json->empty() || n.json->size() > kMaxListedNumbers)
    return doc.error(n, field_prefix(n) + "expected 1 to " + std::to_string(kMaxListedNumbers) +
                            " numbers, found " + std::to_string(n.json->size()));
  for (size_t i = 0; i < n.json->size(); ++i) {
    MLC_TRY(double v, doc.as_number(n.element(i)));
    out.push_back(v);
  }
  return out;
}

// The fields a loss type takes besides "type", "targets" and "reduction".
std::vector<std::string> loss_options(const std::string& type) {
  if (type == "cross_entropy") return {"weight", "ignore_index", "label_smoothing"};
  if (type == "nll_loss") return {"weight", "ignore_index"};
  if (type == "binary_cross_entropy") return {"weight"};
  if (type == "binary_cross_entropy_with_logits") return {"weight", "pos_weight"};
  if (type == "smooth_l1_loss") return {"beta"};
  if (type == "huber_loss") return {"delta"};
  if (type == "kl_div") return {"log_target"};
  return {};
}

}  // namespace

Expected<LossSpec> parse_loss(const JsonDoc& doc, const Node& node,
                              const std::vector<InputInfo>& inputs) {
  MLC_TRY(Fields f, Fields::of(doc, node, "'loss'"));
  LossSpec loss;
  loss.loc = doc.loc(node);
  if (!f.has("type")) return f.missing("type");
  MLC_TRY(Node type, f.require("type"));
  MLC_TRY(loss.type, doc.as_string(type));
  std::vector<std::string> types = loss_names();
  types.erase(std::remove(types.begin(), types.end(), "cosine_embedding_loss"), types.end());
  types.insert(types.begin() + 2, "mse");
  types.push_back("output");
  if (std::find(types.begin(), types.end(), loss.type) == types.end()) {
    std::string list;
    for (const std::string& t : types) list += (list.empty() ? "\"" : ", \"") + t + "\"";
    std::string hint = loss.type == "cosine_embedding_loss"
                           ? " (cosine_embedding_loss compares two embeddings: compute it in the forward, "
                             "F.cosine_embedding_loss(a, b, y), and use \"type\": \"output\")"
                           : "";
    return doc.error(type, "'type': must be one of " + list + ", found " + squote(loss.type) + hint);
  }
  if (loss.type == "output") {
    MLC_CHECK_OK(f.allow({"type"}));
    loss.reduction = "mean";
    return loss;
  }
  std::vector<std::string> allowed{"type", "targets", "reduction"};
  for (std::string& o : loss_options(loss.type)) allowed.push_back(std::move(o));
  MLC_CHECK_OK(f.allow(allowed));
  MLC_TRY(Node targets, f.require("targets"));
  MLC_TRY(loss.targets, doc.as_string(targets));
  if (!has_input(inputs, loss.targets))
    return doc.error(targets, "loss targets " + squote(loss.targets) +
                                  " is not an input (inputs: " + input_names(inputs) + ")");
  loss.reduction = "mean";
  if (f.has("reduction")) {
    MLC_TRY(loss.reduction, f.string("reduction"));
  }
  const bool batchmean = loss.type == "kl_div";
  if (loss.reduction != "mean" && loss.reduction != "sum" && !(batchmean && loss.reduction == "batchmean")) {
    Node r = *f.get("reduction");
    if (loss.reduction == "none")
      return doc.error(r, "'reduction': \"none\" keeps one loss per element, but the training loss is one "
                          "number: use \"mean\" or \"sum\" (reduction='none' is for the functional form in a "
                          "forward, e.g. F.mse_loss(a, b, reduction='none'))");
    return doc.error(r, std::string("'reduction': must be one of \"mean\", \"sum\"") +
                            (batchmean ? ", \"batchmean\"" : "") + ", found " + squote(loss.reduction));
  }
  for (auto [key, out, at] : {std::tuple{"weight", &loss.weight, &loss.weight_loc},
                              std::tuple{"pos_weight", &loss.pos_weight, &loss.pos_weight_loc}})
    if (auto n = f.get(key)) {
      MLC_TRY(*out, number_list(doc, *n));
      *at = doc.loc(*n);
    }
  if (f.has("ignore_index")) {
    MLC_TRY(loss.ignore_index, f.integer("ignore_index", -100));
  }
  MLC_TRY(loss.label_smoothing, f.number("label_smoothing", 0));
  if (loss.label_smoothing < 0 || loss.label_smoothing > 1)
    return doc.error(*f.get("label_smoothing"), "'label_smoothing': must be in [0, 1], found " +
                                                    float_to_string(loss.label_smoothing));
  MLC_TRY(loss.beta, f.number("beta", 1));
  if (loss.beta < 0) return doc.error(*f.get("beta"), "'beta': must be >= 0");
  MLC_TRY(loss.delta, f.number("delta", 1));
  if (loss.delta <= 0) return doc.error(*f.get("delta"), "'delta': must be > 0");
  MLC_TRY(loss.log_target, f.boolean("log_target", false));
  return loss;
}

Expected<InputMapping> parse_tensor_spec(const JsonDoc& doc, const Node& node) {
  MLC_TRY(std::string text, doc.as_string(node));
  InputMapping m;
  m.input = node.key;
  m.loc = doc.loc(node);
  SliceParser p{doc, node, text};
  size_t bracket = std::min(text.find('['), text.size());
  size_t b = text.find_first_not_of(' '), e = text.find_last_not_of(' ', bracket - 1);
  if (bracket == 0 || b >= bracket || e == std::string::npos)
    return p.error(0, "expected a tensor name before '['");
  m.tensor = text.substr(b, e - b + 1);
  if (m.tensor.find(']') != std::string::npos) return p.error(m.tensor.find(']'), "unexpected ']'");
  if (bracket == text.size()) return m;
  p.i = bracket + 1;
  while (true) {
    MLC_TRY(SliceRange r, p.range());
    m.slices.push_back(r);
    if (p.i < text.size() && text[p.i] == ',') {
      ++p.i;
      continue;
    }
    if (p.i < text.size() && text[p.i] == ']') break;
    return p.error(p.i, "expected ',' or ']', " + p.found());
  }
  ++p.i;
  p.ws();
  if (p.i < text.size()) return p.error(p.i, "unexpected text after ']'");
  return m;
}

namespace {

Expected<std::vector<InputMapping>> parse_split(const JsonDoc& doc, const Node& node,
                                                const std::vector<InputInfo>& inputs) {
  MLC_CHECK_OK(doc.expect_object(node));
  std::vector<InputMapping> maps;
  for (auto it = node.json->begin(); it != node.json->end(); ++it) {
    Node n = node.member(it);
    if (!has_input(inputs, it.key()))
      return doc.key_error(n, "data." + node.key + " maps " + squote(it.key()) +
                                  ", which is not an input (inputs: " + input_names(inputs) + ")");
    MLC_TRY(InputMapping m, parse_tensor_spec(doc, n));
    maps.push_back(std::move(m));
  }
  for (const auto& in : inputs)
    if (std::none_of(maps.begin(), maps.end(), [&](const InputMapping& m) { return m.input == in.name; }))
      return doc.error(node, "data." + node.key + " does not map input " + squote(in.name));
  return maps;
}

}  // namespace

Expected<DataConfig> parse_data(const JsonDoc& doc, const Node& node,
                                const std::vector<InputInfo>& inputs,
                                const std::string& model_path) {
  MLC_TRY(Fields f, Fields::of(doc, node, "'data'"));
  MLC_CHECK_OK(f.allow({"file", "train", "eval"}));
  DataConfig data;
  MLC_TRY(Node file, f.require("file"));
  MLC_TRY(std::string name, doc.as_string(file));
  if (name.empty()) return doc.error(file, "'file': must not be empty");
  data.file_loc = doc.loc(file);
  std::filesystem::path p(name);
  if (p.is_relative()) p = std::filesystem::path(model_path).parent_path() / p;
  data.file = p.lexically_normal().generic_string();
  MLC_TRY(Node train, f.require("train"));
  MLC_TRY(data.train, parse_split(doc, train, inputs));
  if (auto eval = f.get("eval")) {
    MLC_TRY(data.eval, parse_split(doc, *eval, inputs));
  } else {
    data.eval = data.train;
  }
  return data;
}

Expected<TrainConfig> parse_train(const JsonDoc& doc, const Node& node) {
  MLC_TRY(Fields f, Fields::of(doc, node, "'train'"));
  MLC_CHECK_OK(f.allow({"batch_size", "epochs", "steps", "shuffle", "drop_last", "seed",
                        "eval_batch_size", "optimizer", "schedule", "clip_grad_norm", "eval_every",
                        "grad_stats_every", "grad_accumulation_steps", "accumulate", "mixed_precision", "phases"}));
  TrainConfig t;
  // Training in phases (frontends/phases_section.h, parsed with the model):
  // each phase has its own optimizer; what is not implemented with phases is
  // refused at its field.
  if (f.has("phases")) {
    for (const char* key : {"optimizer", "schedule", "clip_grad_norm"})
      if (auto n = f.get(key))
        return doc.key_error(*n, "'" + std::string(key) + "': with 'phases' each phase has its own optimizer, "
                                 "schedule and clip_grad_norm");
    for (const char* key : {"grad_accumulation_steps", "accumulate", "mixed_precision", "grad_stats_every"})
      if (auto n = f.get(key))
        return doc.key_error(*n, "'" + std::string(key) + "' is not supported with 'phases'");
  }
  MLC_TRY(t.batch_size, f.positive("batch_size"));
  if (f.has("epochs") && f.has("steps"))
    return doc.key_error(*f.get("steps"), "give either 'epochs' or 'steps', not both");
  if (!f.has("epochs") && !f.has("steps"))
    return doc.error(node, "'train' needs 'epochs' or 'steps'");
  MLC_TRY(t.epochs, f.positive("epochs", 0));
  MLC_TRY(t.steps, f.positive("steps", 0));
  MLC_TRY(t.shuffle, f.boolean("shuffle", false));
  MLC_TRY(t.drop_last, f.boolean("drop_last", true));
  MLC_TRY(int64_t seed, f.integer("seed", 0));
  if (seed < 0) return doc.error(*f.get("seed"), "'seed': must be >= 0");
  t.seed = static_cast<uint64_t>(seed);
  MLC_TRY(t.eval_batch_size, f.positive("eval_batch_size", 0));
  if (!f.has("phases")) {
    MLC_TRY(Node opt, f.require("optimizer"));
    MLC_TRY(t.optimizer, parse_optimizer(doc, opt));
  }
  if (auto schedule = f.get("schedule")) MLC_CHECK_OK(parse_schedule(doc, *schedule, t.optimizer));
  MLC_TRY(t.optimizer.clip_grad_norm, non_negative(f, "clip_grad_norm", 0));
  MLC_TRY(t.eval_every, f.positive("eval_every", 0));
  MLC_TRY(t.grad_stats_every, f.positive("grad_stats_every", 0));
  MLC_TRY(t.grad_accumulation_steps, f.positive("grad_accumulation_steps", 1));
  if (t.batch_size % t.grad_accumulation_steps)
    return doc.error(*f.get("grad_accumulation_steps"),
                     "'grad_accumulation_steps': must divide batch_size " + std::to_string(t.batch_size) +
                         " (each step takes " + std::to_string(t.grad_accumulation_steps) +
                         " micro-batches of equal size), got " + std::to_string(t.grad_accumulation_steps));
  MLC_TRY(t.accumulate, f.positive("accumulate", 1));
  if (t.accumulate > 1 && t.grad_accumulation_steps > 1)
    return doc.key_error(*f.get("accumulate"),
                         "give either 'accumulate' (K batches of batch_size per optimizer step) or "
                         "'grad_accumulation_steps' (each batch split into micro-batches), not both");
  if (auto mp = f.get("mixed_precision")) {  // mixed precision
    MLC_TRY(t.mixed_precision, parse_mixed_precision(doc, *mp));
  }
  return t;
}

}  // namespace mlc
