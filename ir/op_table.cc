#include "ir/op_table.h"

#include <array>

#include "ir/diagnostics.h"
#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc {

namespace {
using namespace rules;

const std::array<OpInfo, kNumOps>& table() {
  static const std::array<OpInfo, kNumOps> rows = {{
#define OP(Enum, text, arity, traits, attrs, infer, cost, decompose) \
  OpInfo{OpCode::Enum, text, arity, traits, attrs(), infer, cost, decompose},
#include "ir/ops.def"
#undef OP
  }};
  return rows;
}
}  // namespace

const OpInfo& op_info(OpCode code) { return table()[static_cast<size_t>(code)]; }
std::span<const OpInfo> all_ops() { return table(); }

std::optional<OpCode> find_op(std::string_view name) {
  for (const OpInfo& info : table())
    if (info.name == name) return info.code;
  return std::nullopt;
}

Status complete_attrs(const OpInfo& info, Attrs& attrs) {
  for (const NamedAttr& a : attrs.list()) {
    bool known = false;
    for (const AttrSpec& spec : info.attrs) known |= spec.name == a.name;
    if (!known) {
      std::string expected;
      for (const AttrSpec& spec : info.attrs) expected += (expected.empty() ? "" : ", ") + spec.name;
      return make_error(std::string(info.name) + ": unknown attribute " + squote(a.name) +
                        (expected.empty() ? " (the op takes none)" : " (expected: " + expected + ")"));
    }
  }
  Attrs ordered;
  for (const AttrSpec& spec : info.attrs) {
    const AttrValue* v = attrs.find(spec.name);
    if (!v) {
      if (!spec.default_value)
        return make_error(std::string(info.name) + ": missing attribute " + squote(spec.name) + " (" +
                          std::string(attr_kind_name(spec.kind)) + ")");
      ordered.set(spec.name, *spec.default_value);
      continue;
    }
    AttrValue value = *v;
    if (spec.kind == AttrKind::Float && std::holds_alternative<int64_t>(value))
      value = static_cast<double>(std::get<int64_t>(value));
    if (!attr_has_kind(value, spec.kind))
      return make_error(std::string(info.name) + ": attribute " + squote(spec.name) + " must be " +
                        std::string(attr_kind_name(spec.kind)) + ", got " +
                        attr_value_to_string(value));
    ordered.set(spec.name, std::move(value));
  }
  attrs = std::move(ordered);
  return {};
}

Expected<std::vector<TensorType>> InferRule::operator()(const InferContext& ctx) const {
  if (many) return many(ctx);
  auto type = one(ctx);
  if (!type) return type.take_error();
  return std::vector<TensorType>{std::move(type).value()};
}

std::vector<Value*> DecomposeRule::operator()(Builder& b, const Op& op) const {
  if (many) return many(b, op);
  return {one(b, op)};
}

Expected<std::vector<TensorType>> infer_result_types(OpCode code, std::span<const TensorType* const> operands,
                                                     const Attrs& attrs, std::span<const TensorType> declared) {
  const OpInfo& info = op_info(code);
  if (info.arity >= 0 && static_cast<int>(operands.size()) != info.arity)
    return make_error(std::string(info.name) + ": expected " + std::to_string(info.arity) +
                      " operand" + (info.arity == 1 ? "" : "s") + ", got " +
                      std::to_string(operands.size()));
  if (info.arity < 0 && operands.empty())
    return make_error(std::string(info.name) + ": expected at least one operand, got 0");
  InferContext ctx{info.name, operands, attrs, declared.size() == 1 ? &declared[0] : nullptr, declared};
  MLC_TRY(std::vector<TensorType> types, info.infer(ctx));
  for (const TensorType& type : types) {
    if (type.shape.size() > kMaxRank)
      return make_error(std::string(info.name) + ": result rank " + std::to_string(type.rank()) +
                        " is more than the limit of " + std::to_string(kMaxRank));
    if (!checked_num_elements(type.shape))
      return make_error(std::string(info.name) + ": result shape " + shape_to_string(type.shape) +
                        " is negative or has more than 2^40 elements");
  }
  if (declared.empty()) return types;
  if (declared.size() != types.size())
    return make_error(std::string(info.name) + ": " + std::to_string(declared.size()) + " result" +
                      (declared.size() == 1 ? "" : "s") + " declared, but the op has " +
                      std::to_string(types.size()));
  for (size_t k = 0; k < types.size(); ++k)
    if (declared[k] != types[k])
      return make_error(std::string(info.name) + ": declared " +
                        (types.size() == 1 ? std::string("result") : "result #" + std::to_string(k)) +
                        " type " + declared[k].str() + " does not match the inferred " + types[k].str());
  return types;
}

Expected<TensorType> infer_type(OpCode code, std::span<const TensorType* const> operands,
                                const Attrs& attrs, const TensorType* declared) {
  std::span<const TensorType> decl;
  if (declared) decl = std::span<const TensorType>(declared, 1);
  MLC_TRY(std::vector<TensorType> types, infer_result_types(code, operands, attrs, decl));
  if (types.size() != 1)
    return make_error(std::string(op_name(code)) + ": has " + std::to_string(types.size()) +
                      " results where one was expected");
  return std::move(types.front());
}

std::vector<TensorType> result_types(const Op& op) {
  std::vector<TensorType> types;
  for (const Value* r : op.results) types.push_back(r->type);
  return types;
}

Cost op_cost(const Op& op) { return op_info(op.code).cost(op); }

Status complete_and_check(Op& op) {
  Status attrs = complete_attrs(op_info(op.code), op.attrs);
  if (!attrs) return error_at(op.loc, attrs.error().message);
  std::vector<const TensorType*> types;
  for (const Value* v : op.operands) types.push_back(&v->type);
  auto inferred = infer_result_types(op.code, types, op.attrs, result_types(op));
  if (!inferred) return error_at(op.loc, inferred.error().message);
  return {};
}

}  // namespace mlc
