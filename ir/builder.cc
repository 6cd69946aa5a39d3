#include "ir/builder.h"

#include <cstdio>
#include <cstdlib>

#include "ir/diagnostics.h"
#include "ir/verifier.h"

namespace mlc {

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Expected<Op*> Builder::try_create_op(OpCode code, std::vector<Value*> operands, Attrs attrs,
                                     std::span<const TensorType> declared, bool single) {
  const OpInfo& info = op_info(code);
  Status attrs_ok = complete_attrs(info, attrs);
  if (!attrs_ok) return error_at(loc_, attrs_ok.error().message);
  std::vector<const TensorType*> types;
  for (Value* v : operands) types.push_back(&v->type);
  auto inferred = infer_result_types(code, types, attrs, declared);
  if (!inferred) return error_at(loc_, inferred.error().message);
  if (single && inferred->size() != 1)
    return error_at(loc_, std::string(op_name(code)) + ": has " + std::to_string(inferred->size()) +
                              " results; create it with create_results");
  Op* op = f_->insert_op(position(), code, std::move(operands), std::move(attrs),
                         std::move(inferred).value(), loc_);
  op->meta.scope = scope_;
  if (!at_end_) ++position_;
  return op;
}

Expected<Value*> Builder::try_create(OpCode code, std::vector<Value*> operands, Attrs attrs,
                                     std::optional<TensorType> declared) {
  std::span<const TensorType> decl;
  if (declared) decl = std::span<const TensorType>(&*declared, 1);
  MLC_TRY(Op* op, try_create_op(code, std::move(operands), std::move(attrs), decl, true));
  return op->result();
}

Expected<std::vector<Value*>> Builder::try_create_results(OpCode code, std::vector<Value*> operands, Attrs attrs,
                                                          std::vector<TensorType> declared) {
  MLC_TRY(Op* op, try_create_op(code, std::move(operands), std::move(attrs), declared, false));
  return op->results;
}

Expected<std::vector<Value*>> Builder::try_create_fusion(std::vector<Value*> operands,
                                                         std::shared_ptr<const Function> body) {
  std::vector<const TensorType*> types;
  for (Value* v : operands) types.push_back(&v->type);
  Status ok = verify_fusion_body(*body, types, {});
  if (!ok) return error_at(loc_, "fusion: " + ok.error().message);
  std::vector<TensorType> declared;
  for (const Value* r : body->results) declared.push_back(r->type);
  MLC_TRY(Op* op, try_create_op(OpCode::Fusion, std::move(operands), {}, declared, false));
  op->body = std::move(body);
  return op->results;
}

namespace {
template <class T>
T or_abort(Expected<T> v) {
  if (!v) {
    std::fprintf(stderr, "mlc internal error: building invalid IR: %s\n", v.error().message.c_str());
    std::abort();
  }
  return std::move(v).value();
}
}  // namespace

Value* Builder::create(OpCode code, std::vector<Value*> operands, Attrs attrs,
                       std::optional<TensorType> declared) {
  return or_abort(try_create(code, std::move(operands), std::move(attrs), std::move(declared)));
}

std::vector<Value*> Builder::create_results(OpCode code, std::vector<Value*> operands, Attrs attrs,
                                            std::vector<TensorType> declared) {
  return or_abort(try_create_results(code, std::move(operands), std::move(attrs), std::move(declared)));
}

Value* Builder::compare(Value* a, Value* b, std::string direction) {
  return create(OpCode::Compare, {a, b}, {{"direction", std::move(direction)}});
}

Value* Builder::cast(Value* x, DType to) {
  if (x->type.dtype == to) return x;
  return create(OpCode::Cast, {x}, {}, TensorType{to, x->type.shape});
}

Value* Builder::scalar(double value, DType dtype) {
  AttrValue v = is_float(dtype) ? AttrValue{value} : AttrValue{static_cast<int64_t>(value)};
  return create(OpCode::Constant, {}, {{"value", v}}, TensorType{dtype, {}});
}

Value* Builder::constant(std::vector<double> values, TensorType type) {
  AttrValue v;
  if (is_float(type.dtype)) {
    v = values.size() == 1 ? AttrValue{values[0]} : AttrValue{std::move(values)};
  } else {
    std::vector<int64_t> ints(values.begin(), values.end());
    v = ints.size() == 1 ? AttrValue{ints[0]} : AttrValue{std::move(ints)};
  }
  return create(OpCode::Constant, {}, {{"value", std::move(v)}}, std::move(type));
}

Value* Builder::iota(TensorType type, int64_t dim) {
  return create(OpCode::Iota, {}, {{"dim", dim}}, std::move(type));
}

Value* Builder::reshape(Value* x, Shape shape) {
  if (x->type.shape == shape) return x;
  return create(OpCode::Reshape, {x}, {}, TensorType{x->type.dtype, std::move(shape)});
}

Value* Builder::transpose(Value* x, std::vector<int64_t> perm) {
  return create(OpCode::Transpose, {x}, {{"perm", std::move(perm)}});
}

Value* Builder::broadcast(Value* x, Shape shape, std::vector<int64_t> dims) {
  return create(OpCode::Broadcast, {x}, {{"dims", std::move(dims)}},
                TensorType{x->type.dtype, std::move(shape)});
}

Value* Builder::broadcast_to(Value* x, Shape shape) {
  if (x->type.shape == shape) return x;
  std::vector<int64_t> dims;
  int64_t offset = static_cast<int64_t>(shape.size()) - x->type.rank();
  for (int64_t i = 0; i < x->type.rank(); ++i) dims.push_back(offset + i);
  return broadcast(x, std::move(shape), std::move(dims));
}

Value* Builder::reduce(OpCode code, Value* x, std::vector<int64_t> dims, bool keepdim) {
  return create(code, {x}, {{"dims", std::move(dims)}, {"keepdim", keepdim}});
}

bool rewrite_ops(Function& f, const std::function<Value*(Builder&, Op&)>& rewrite) {
  bool changed = false;
  for (size_t i = 0; i < f.ops.size(); ++i) {
    Op& op = *f.ops[i];
    Builder b(f, i);
    b.set_loc(op.loc);
    b.set_scope(op.meta.scope);
    Value* replacement = rewrite(b, op);
    if (!replacement) continue;
    i = b.position();  // the original op, now after its replacement
    f.replace_all_uses(op.result(), replacement);
    f.ops.erase(f.ops.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
    changed = true;
  }
  return changed;
}

}  // namespace mlc
