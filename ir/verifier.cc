// IR verifier; see ir/verifier.h for the checked invariants and message format.
#include "ir/verifier.h"

#include <optional>
#include <string>
#include <unordered_set>

#include "ir/collectives.h"
#include "ir/diagnostics.h"
#include "ir/op_table.h"

namespace mlc {

namespace {

bool is_symbol_name(std::string_view s) {
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Error function_error(const Function& f, const std::string& message) {
  return make_error(format_error(Loc{}, "verifier: function " + unquoted("@" + f.name) + ": " + message));
}

// Drops the "<op>: " prefix that op_table messages start with.
std::string strip_op_prefix(std::string message, std::string_view name) {
  std::string prefix = std::string(name) + ": ";
  if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  return message;
}

class FunctionVerifier {
 public:
  FunctionVerifier(const Function& f, const Mesh& mesh) : f_(f), mesh_(mesh) {}

  Status run() {
    MLC_CHECK_OK(check_args());
    for (const auto& op : f_.ops)
      if (op)
        for (const Value* r : op->results)
          if (r) all_results_.insert(r);
    for (size_t i = 0; i < f_.ops.size(); ++i) MLC_CHECK_OK(check_op(i));
    for (size_t i = 0; i < f_.results.size(); ++i)
      if (!defined_.count(f_.results[i]))
        return function_error(f_, "result #" + std::to_string(i) + " is not a value of the function");
    return check_result_updates();
  }

  // Placements: none anywhere, or on every value, valid for the mesh.
  std::string check_value_placements(const Value* v) {
    if (!v) return "";
    bool has = !v->placements.empty();
    if (has && mesh_.empty()) return "has placements " + placements_str(v->placements) + " but the module has no mesh";
    if (!sharded_) sharded_ = has;
    if (*sharded_ != has)
      return std::string(has ? "has" : "has no") + " placements, unlike the function's first value";
    return has ? check_placements(v->placements, v->type.rank(), mesh_) : "";
  }

  Status check_result_updates() {
    if (f_.result_updates.empty()) return {};
    if (f_.result_updates.size() != f_.results.size())
      return function_error(f_, std::to_string(f_.results.size()) + " results but " +
                                    std::to_string(f_.result_updates.size()) + " result update entries");
    std::unordered_set<int> updated;
    for (size_t k = 0; k < f_.results.size(); ++k) {
      int a = f_.result_updates[k];
      if (a < 0) continue;
      std::string what = "result #" + std::to_string(k);
      if (a >= static_cast<int>(f_.args.size()))
        return function_error(f_, what + " updates argument #" + std::to_string(a) + ", out of range");
      const Value* arg = f_.args[a];
      if (f_.arg_kinds[a] != ArgKind::param && f_.arg_kinds[a] != ArgKind::state &&
          f_.arg_kinds[a] != ArgKind::buffer)
        return function_error(f_, what + " updates " + squote("%" + arg->name) + ", which is {" +
                                      std::string(arg_kind_name(f_.arg_kinds[a])) +
                                      "}, not a {param}, {state} or {buffer} argument");
      if (arg->type != f_.results[k]->type)
        return function_error(f_, what + " has type " + f_.results[k]->type.str() + " but updates " +
                                      squote("%" + arg->name) + " of type " + arg->type.str());
      if (!updated.insert(a).second)
        return function_error(f_, what + " updates " + squote("%" + arg->name) + ", which an earlier result updates");
      if (arg->placements != f_.results[k]->placements)
        return function_error(f_, what + " has placements " + placements_str(f_.results[k]->placements) +
                                      " but updates " + squote("%" + arg->name) + " placed " + placements_str(arg->placements));
    }
    return {};
  }

 private:
  Status check_args() {
    if (f_.arg_kinds.size() != f_.args.size())
      return function_error(f_, std::to_string(f_.args.size()) + " arguments but " +
                                    std::to_string(f_.arg_kinds.size()) + " argument kinds");
    std::unordered_set<std::string_view> names;
    int step_args = 0;
    for (size_t i = 0; i < f_.args.size(); ++i) {
      const Value* a = f_.args[i];
      std::string what = "argument #" + std::to_string(i);
      if (!a) return function_error(f_, what + " is null");
      if (a->producer) return function_error(f_, what + " has a producer op");
      if (!is_arg_name(a->name))
        return function_error(f_, what + " has invalid name " + squote(a->name) +
                                      " (must be " + std::string(kArgNameRule) + ")");
      if (!names.insert(a->name).second)
        return function_error(f_, "duplicate argument name " + squote(a->name));
      if (!checked_num_elements(a->type.shape))
        return function_error(f_, what + " " + squote("%" + a->name) + " has shape " +
                                      shape_to_string(a->type.shape) +
                                      " that is negative or has more than 2^40 elements");
      if (!defined_.insert(a).second)
        return function_error(f_, what + " repeats an earlier argument");
      if (std::string problem = check_value_placements(a); !problem.empty())
        return function_error(f_, what + " " + squote("%" + a->name) + " " + problem);
      if (f_.arg_kinds[i] == ArgKind::step) {
        if (a->type != TensorType{DType::i64, {}})
          return function_error(f_, what + " " + squote("%" + a->name) + " is the step counter {step}, so it "
                                        "must be i64[], not " + a->type.str());
        if (++step_args > 1)
          return function_error(f_, what + " " + squote("%" + a->name) + " is a second {step} argument");
      }
    }
    return {};
  }

  Error op_error(size_t index, const Op& op, const std::string& message) const {
    return error_at(op.loc, "verifier: " + std::string(op_name(op.code)) + " (op #" +
                                std::to_string(index) + "): " + message);
  }

  Status check_meta(size_t index, const Op& op) const {
    if (std::string problem = check_scope(op.meta.scope); !problem.empty())
      return op_error(index, op, problem);
    return {};
  }

  Status check_operands(size_t index, const Op& op) const {
    for (size_t k = 0; k < op.operands.size(); ++k) {
      const Value* v = op.operands[k];
      std::string what = "operand #" + std::to_string(k);
      if (defined_.count(v)) continue;
      if (!v) return op_error(index, op, what + " is null");
      if (all_results_.count(v))
        return op_error(index, op, what + " is used before its definition");
      return op_error(index, op, what + " is not a value of this function");
    }
    return {};
  }

  Status check_attrs(size_t index, const Op& op) const {
    Attrs completed = op.attrs;
    Status st = complete_attrs(op_info(op.code), completed);
    if (!st) return op_error(index, op, strip_op_prefix(st.error().message, op_name(op.code)));
    if (!same_names_and_kinds(completed, op.attrs)) {
      return op_error(index, op, "attributes are not complete and in schema order (expected " +
                                     describe_attrs(completed) + ", found " +
                                     describe_attrs(op.attrs) + ")");
    }
    return {};
  }

  // complete_attrs only reorders, fills defaults and turns an Int into a Float, so
  // this is equality without comparing values (NaN != NaN).
  static bool same_names_and_kinds(const Attrs& a, const Attrs& b) {
    if (a.list().size() != b.list().size()) return false;
    for (size_t i = 0; i < a.list().size(); ++i)
      if (a.list()[i].name != b.list()[i].name ||
          a.list()[i].value.index() != b.list()[i].value.index())
        return false;
    return true;
  }

  static std::string describe_attrs(const Attrs& attrs) {
    std::string s = "{";
    for (size_t i = 0; i < attrs.list().size(); ++i)
      s += (i ? ", " : "") + attrs.list()[i].name + " = " +
           attr_value_to_string(attrs.list()[i].value);
    return s + "}";
  }

  Status check_op(size_t index) {
    const Op* op = f_.ops[index].get();
    if (!op) return function_error(f_, "op #" + std::to_string(index) + " is null");
    if (static_cast<int>(op->code) >= kNumOps)
      return function_error(f_, "op #" + std::to_string(index) + " has an invalid op code");
    if (op->results.empty()) return op_error(index, *op, "has no result value");
    for (size_t k = 0; k < op->results.size(); ++k) {
      const Value* r = op->results[k];
      std::string which = op->results.size() == 1 ? "result value" : "result #" + std::to_string(k);
      if (!r) return op_error(index, *op, which + " is null");
      if (r->producer != op || r->result_index != static_cast<int>(k))
        return op_error(index, *op, which + " is not produced by this op");
    }
    MLC_CHECK_OK(check_operands(index, *op));
    MLC_CHECK_OK(check_meta(index, *op));
    MLC_CHECK_OK(check_attrs(index, *op));
    std::vector<const TensorType*> types;
    for (const Value* v : op->operands) types.push_back(&v->type);
    auto inferred = infer_result_types(op->code, types, op->attrs, result_types(*op));
    if (!inferred) return op_error(index, *op, strip_op_prefix(inferred.error().message, op_name(op->code)));
    for (const Value* r : op->results) {
      if (!defined_.insert(r).second) return op_error(index, *op, "result value is defined twice");
      if (std::string problem = check_value_placements(r); !problem.empty())
        return op_error(index, *op, "result " + problem);
    }
    if (uses_mesh_axis(op->code))
      if (std::string problem = check_collective(*op, mesh_); !problem.empty()) return op_error(index, *op, problem);
    if (op->code == OpCode::Fusion) {
      if (!op->body) return op_error(index, *op, "has no body");
      Status body = verify_fusion_body(*op->body, types, result_types(*op));
      if (!body) return op_error(index, *op, body.error().message);
    } else if (op->body) {
      return op_error(index, *op, "has a body, which only fusion ops have");
    }
    return {};
  }

  const Function& f_;
  const Mesh& mesh_;
  std::optional<bool> sharded_;  // whether the values have placements (from the first one)
  std::unordered_set<const Value*> defined_;      // args and results of ops so far
  std::unordered_set<const Value*> all_results_;  // results of every op
};

// Every call op of `f` satisfies check_call.
Status verify_calls(const Module& m, const Function& f) {
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Op& op = *f.ops[i];
    if (op.code != OpCode::Call) continue;
    if (std::string problem = check_call(m, f, op); !problem.empty())
      return error_at(op.loc, "verifier: call (op #" + std::to_string(i) + " of @" + f.name + "): " + problem);
  }
  return {};
}

}  // namespace

Status verify_function(const Function& f, const Mesh& mesh) { return FunctionVerifier(f, mesh).run(); }

Status verify_fusion_body(const Function& body, std::span<const TensorType* const> operand_types,
                          std::span<const TensorType> result_types) {
  if (body.args.size() != operand_types.size() || body.arg_kinds.size() != body.args.size())
    return make_error("the body has " + std::to_string(body.args.size()) + " argument" +
                      (body.args.size() == 1 ? "" : "s") + " for " + std::to_string(operand_types.size()) +
                      " operand" + (operand_types.size() == 1 ? "" : "s"));
  for (size_t i = 0; i < body.args.size(); ++i) {
    if (!body.args[i]) return make_error("body argument #" + std::to_string(i) + " is null");
    if (body.args[i]->type != *operand_types[i])
      return make_error("body argument #" + std::to_string(i) + " is " + body.args[i]->type.str() +
                        ", operand #" + std::to_string(i) + " is " + operand_types[i]->str());
    if (body.arg_kinds[i] != ArgKind::input)
      return make_error("body argument #" + std::to_string(i) + " is {" +
                        std::string(arg_kind_name(body.arg_kinds[i])) + "}, not {input}");
  }
  for (const auto& inner : body.ops)
    if (inner && inner->code == OpCode::Fusion) return make_error("the body holds a fusion op");
  if (body.results.empty()) return make_error("the body returns nothing");
  if (!result_types.empty()) {
    if (body.results.size() != result_types.size())
      return make_error("the body returns " + std::to_string(body.results.size()) + " values for " +
                        std::to_string(result_types.size()) + " results");
    for (size_t k = 0; k < result_types.size(); ++k)
      if (body.results[k] && body.results[k]->type != result_types[k])
        return make_error("the body returns " + body.results[k]->type.str() + " as result #" +
                          std::to_string(k) + ", declared " + result_types[k].str());
  }
  if (!body.result_updates.empty()) return make_error("the body declares result updates");
  Status inner = verify_function(body);
  if (!inner) return make_error("in its body: " + inner.error().message);
  return {};
}

std::string check_call(const Module& m, const Function& caller, const Op& op) {
  const std::string& name = op.attrs.get_string("callee");
  const Function* callee = m.find(name);
  const std::string shown = unquoted("@" + name);
  if (!callee) return "callee " + shown + " is not a function of the module";
  if (callee == &caller) return shown + " calls itself";
  for (const auto& inner : callee->ops)
    if (inner->code == OpCode::Call) return "callee " + shown + " holds a call (calls do not nest)";
  if (callee->args.size() != op.operands.size())
    return shown + " takes " + std::to_string(callee->args.size()) + " arguments, the call passes " +
           std::to_string(op.operands.size());
  for (size_t k = 0; k < op.operands.size(); ++k)
    if (callee->args[k]->type != op.operands[k]->type)
      return "operand #" + std::to_string(k) + " is " + op.operands[k]->type.str() + ", " + shown + "'s argument " +
             unquoted("%" + callee->args[k]->name) + " is " + callee->args[k]->type.str();
  if (callee->results.size() != op.results.size())
    return shown + " returns " + std::to_string(callee->results.size()) + " values, the call has " +
           std::to_string(op.results.size()) + " results";
  for (size_t k = 0; k < op.results.size(); ++k)
    if (callee->results[k]->type != op.results[k]->type)
      return "result #" + std::to_string(k) + " is " + op.results[k]->type.str() + ", " + shown + " returns " +
             callee->results[k]->type.str();
  return "";
}

Status verify_module(const Module& m) {
  if (!is_symbol_name(m.name))
    return error_at(Loc{}, "verifier: invalid module name " + squote(m.name) +
                               " (must match [A-Za-z0-9_.-]*)");
  std::unordered_set<std::string_view> attr_names;
  for (const NamedAttr& a : m.attrs.list()) {
    if (std::string problem = check_module_attr(a); !problem.empty())
      return error_at(Loc{}, "verifier: " + problem);
    if (!attr_names.insert(a.name).second)
      return error_at(Loc{}, "verifier: duplicate module attribute " + squote(a.name));
  }
  std::unordered_set<std::string_view> names;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const Function* f = m.functions[i].get();
    if (!f) return error_at(Loc{}, "verifier: function #" + std::to_string(i) + " is null");
    if (f->name.empty() || !is_symbol_name(f->name))
      return function_error(*f, "invalid function name (must match [A-Za-z0-9_.-]+)");
    if (!names.insert(f->name).second)
      return error_at(Loc{}, "verifier: duplicate function name " + squote("@" + f->name));
    MLC_CHECK_OK(verify_function(*f, m.mesh()));
  }
  for (const auto& f : m.functions) MLC_CHECK_OK(verify_calls(m, *f));
  return {};
}

}  // namespace mlc
