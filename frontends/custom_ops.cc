#include "frontends/custom_ops.h"

#include <unordered_set>

#include "frontends/json_locations.h"
#include "ir/builder.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

// Function names the IR gives meanings to (frontends/model_file.h, passes/).
bool reserved_function_name(const std::string& name) {
  static const std::unordered_set<std::string> reserved = {"loss", "eval", "train_step", "optimizer_init"};
  return reserved.count(name) || name.ends_with("_vjp") || name.ends_with("_grad");
}

// The forward language says "forward: ..."; inside a custom op, say which
// part of which op it is.
Error relabel(Error e, const std::string& what) {
  const std::string from = "error: forward: ";
  size_t at = e.message.find(from);
  if (at != std::string::npos) e.message.replace(at, from.size(), "error: " + what + ": ");
  return e;
}

Expected<ForwardProgram> parse_statements(const JsonDoc& doc, const Node& n, std::vector<std::string> names,
                                          const std::string& what) {
  ForwardScope scope;
  scope.inputs = std::move(names);
  scope.layer_arity = [](const std::string&) -> std::optional<int> { return std::nullopt; };
  scope.resolve_path = [](const std::string&) { return PathInfo{}; };  // a custom op has no parameters
  auto program = parse_forward(doc, n, scope);
  if (!program) return relabel(program.take_error(), what);
  return program;
}

Expected<std::vector<std::string>> parse_inputs(const JsonDoc& doc, const Node& n, const std::string& what) {
  MLC_CHECK_OK(doc.expect_array(n));
  if (n.json->empty()) return doc.error(n, what + " needs at least one input");
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < n.json->size(); ++i) {
    Node e = n.element(i);
    MLC_TRY(std::string s, doc.as_string(e));
    if (!is_identifier(s)) return doc.error(e, what + ": input name " + squote(s) + " is not an identifier");
    if (s == "out" || s == "grad")
      return doc.error(e, what + ": input name " + squote(s) + " is reserved (the backward reads the forward's result as "
                          "'out' and its gradient as 'grad')");
    if (!seen.insert(s).second) return doc.error(e, what + ": input " + squote(s) + " is listed twice");
    names.push_back(s);
  }
  return names;
}

Expected<CustomOp> parse_one(const JsonDoc& doc, const Node& n, const std::string& name) {
  const std::string what = "custom op " + squote(name);
  if (!is_identifier(name))
    return doc.key_error(n, "custom op name " + squote(name) + " is not an identifier (letters, digits and _)");
  if (is_forward_builtin(name))
    return doc.key_error(n, "custom op name " + squote(name) + " is the name of a built-in");
  if (reserved_function_name(name))
    return doc.key_error(n, "custom op name " + squote(name) +
                                " is reserved (loss, eval, train_step, optimizer_init and names ending in "
                                "_vjp or _grad name functions of the IR)");
  MLC_TRY(Fields f, Fields::of(doc, n, what));
  MLC_CHECK_OK(f.allow({"inputs", "forward", "backward"}));
  CustomOp op;
  op.name = name;
  op.loc = doc.key_loc(n);
  MLC_TRY(Node inputs, f.require("inputs"));
  MLC_TRY(op.inputs, parse_inputs(doc, inputs, what));
  MLC_TRY(Node forward, f.require("forward"));
  MLC_TRY(op.forward, parse_statements(doc, forward, op.inputs, what + " forward"));
  MLC_TRY(Node backward, f.require("backward"));
  MLC_CHECK_OK(doc.expect_object(backward));
  std::vector<std::string> names = op.inputs;
  names.push_back("out");
  names.push_back("grad");
  for (auto it = backward.json->begin(); it != backward.json->end(); ++it) {
    bool known = false;
    for (const std::string& in : op.inputs) known |= in == it.key();
    if (!known) {
      std::string list;
      for (const std::string& in : op.inputs) list += (list.empty() ? "" : ", ") + in;
      return doc.key_error(backward.member(it), what + ": backward gives a gradient for " + squote(it.key()) +
                                                    ", which is not an input (inputs: " + list + ")");
    }
  }
  for (const std::string& in : op.inputs) {
    if (!backward.json->contains(in))
      return doc.error(backward, what + ": backward gives no gradient for input " + squote(in) +
                                     " (one statement list per input)");
    MLC_TRY(ForwardProgram g, parse_statements(doc, backward.child(in), names,
                                               what + " backward of " + squote(in)));
    op.backward.push_back(std::move(g));
  }
  return op;
}

}  // namespace

int64_t CustomOp::ops() const {
  int64_t n = forward.ops;
  for (const ForwardProgram& g : backward) n += g.ops;
  return n;
}

const CustomOp* CustomOps::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &ops_[it->second];
}

Expected<CustomOps> parse_custom_ops(const JsonDoc& doc, const Node& section) {
  MLC_CHECK_OK(doc.expect_object(section));
  CustomOps ops;
  for (auto it = section.json->begin(); it != section.json->end(); ++it) {
    MLC_TRY(CustomOp op, parse_one(doc, section.member(it), it.key()));
    ops.index_.emplace(op.name, ops.ops_.size());
    ops.ops_.push_back(std::move(op));
  }
  return ops;
}

namespace {

// Custom ops call no layers: parse_statements gave them none, so this is never reached.
Expected<Val> no_layers(const std::string& name, std::vector<Val>, const Loc& loc) {
  return error_at(loc, "custom op statements call no layers, found " + squote(name));
}

// Nor parameters (parse_statements resolves no path, so this is never asked).
Value* no_params(const std::string&, bool) { return nullptr; }

}  // namespace

Expected<std::string> CustomOpEmitter::specialize(const CustomOp& op, const std::vector<TensorType>& types) {
  std::string key = op.name;
  for (const TensorType& t : types) key += " " + t.str();
  if (auto it = functions_.find(key); it != functions_.end()) return it->second;
  int& n = count_[op.name];
  const std::string name = n == 0 ? op.name : op.name + "." + std::to_string(n);
  const std::string what = "custom op " + squote(op.name);

  Function& f = module_.add_function(name);
  std::vector<Value*> args;
  for (size_t i = 0; i < types.size(); ++i) args.push_back(f.add_arg(op.inputs[i], types[i], ArgKind::input));
  Builder fb(f);
  auto out = run_forward(op.forward, args, fb, no_layers, no_params);
  if (!out) return relabel(out.take_error(), what + " forward");
  f.results = {*out};

  Function& g = module_.add_function(name + "_vjp");
  std::vector<Value*> gargs;
  for (size_t i = 0; i < types.size(); ++i) gargs.push_back(g.add_arg(op.inputs[i], types[i], ArgKind::input));
  gargs.push_back(g.add_arg("out", (*out)->type, ArgKind::input));
  gargs.push_back(g.add_arg("grad", (*out)->type, ArgKind::input));
  Builder gb(g);
  for (size_t i = 0; i < types.size(); ++i) {
    const ForwardProgram& program = op.backward[i];
    const std::string part = what + " backward of " + squote(op.inputs[i]);
    auto dx = run_forward(program, gargs, gb, no_layers, no_params);
    if (!dx) return relabel(dx.take_error(), part);
    if ((*dx)->type != types[i])
      return error_at(program.statements.back().loc,
                      part + ": the gradient is " + (*dx)->type.str() + ", but " + squote(op.inputs[i]) + " is " +
                          types[i].str() + " (a gradient has its input's shape and dtype)");
    g.results.push_back(*dx);
  }
  ++n;
  functions_.emplace(std::move(key), name);
  return name;
}

Expected<Value*> CustomOpEmitter::call(Builder& b, const std::string& name, const std::vector<Value*>& args) {
  const CustomOp* op = ops_.find(name);
  if (!op) return error_at(b.loc(), "unknown custom op " + squote(name));
  std::vector<TensorType> types;
  for (const Value* v : args) types.push_back(v->type);
  MLC_TRY(std::string callee, specialize(*op, types));
  const Function* f = module_.find(callee);
  MLC_TRY(std::vector<Value*> results,
          b.try_create_results(OpCode::Call, args, {{"callee", callee}}, {f->results[0]->type}));
  return results[0];
}

}  // namespace mlc
