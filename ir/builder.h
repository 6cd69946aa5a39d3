// Builder: creates verified ops in a function at an insertion point.
//
// `try_create` fills attribute defaults, checks the schema, runs the op's
// inference rule and returns the result value or an Error located at the
// builder's current `loc`. `create` is for code that builds IR it knows to be
// valid (decompositions, passes, tests): an error there is a bug in mlc, so it
// prints the message and aborts.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ir/op_table.h"

namespace mlc {

class Builder {
 public:
  // Inserts at the end of `f`.
  explicit Builder(Function& f) : f_(&f), position_(f.ops.size()), at_end_(true) {}
  // Inserts before f.ops[position].
  Builder(Function& f, size_t position) : f_(&f), position_(position), at_end_(false) {}

  Function& function() { return *f_; }
  size_t position() const { return at_end_ ? f_->ops.size() : position_; }
  void set_loc(Loc loc) { loc_ = std::move(loc); }
  const Loc& loc() const { return loc_; }
  // The scope (OpMeta::scope) of the ops created from now on.
  void set_scope(std::string scope) { scope_ = std::move(scope); }
  const std::string& scope() const { return scope_; }

  // Single-result ops (an op with several results is an error here).
  Expected<Value*> try_create(OpCode code, std::vector<Value*> operands, Attrs attrs = {},
                              std::optional<TensorType> declared = std::nullopt);
  Value* create(OpCode code, std::vector<Value*> operands, Attrs attrs = {},
                std::optional<TensorType> declared = std::nullopt);
  // Any op: its results, in order. `declared`: empty, or every result's type.
  Expected<std::vector<Value*>> try_create_results(OpCode code, std::vector<Value*> operands, Attrs attrs = {},
                                                   std::vector<TensorType> declared = {});
  std::vector<Value*> create_results(OpCode code, std::vector<Value*> operands, Attrs attrs = {},
                                     std::vector<TensorType> declared = {});
  // A fusion op applying `body` (see Op::body) to `operands`; its result types
  // are the body's. Errors: as verify_fusion_body (ir/verifier.h).
  Expected<std::vector<Value*>> try_create_fusion(std::vector<Value*> operands, std::shared_ptr<const Function> body);

  // ---- conveniences over `create` (operands must be valid)
  Value* unary(OpCode code, Value* x) { return create(code, {x}); }
  Value* binary(OpCode code, Value* a, Value* b) { return create(code, {a, b}); }
  Value* add(Value* a, Value* b) { return binary(OpCode::Add, a, b); }
  Value* sub(Value* a, Value* b) { return binary(OpCode::Sub, a, b); }
  Value* mul(Value* a, Value* b) { return binary(OpCode::Mul, a, b); }
  Value* div(Value* a, Value* b) { return binary(OpCode::Div, a, b); }
  Value* max(Value* a, Value* b) { return binary(OpCode::Max, a, b); }
  Value* compare(Value* a, Value* b, std::string direction);
  Value* select(Value* pred, Value* a, Value* b) { return create(OpCode::Select, {pred, a, b}); }
  Value* cast(Value* x, DType to);
  // A 0-d constant.
  Value* scalar(double value, DType dtype);
  Value* constant(std::vector<double> values, TensorType type);
  Value* iota(TensorType type, int64_t dim);
  Value* reshape(Value* x, Shape shape);
  Value* transpose(Value* x, std::vector<int64_t> perm);
  // broadcast_in_dim with explicit dims.
  Value* broadcast(Value* x, Shape shape, std::vector<int64_t> dims);
  // numpy-style: align trailing dims of x with `shape`.
  Value* broadcast_to(Value* x, Shape shape);
  Value* reduce(OpCode code, Value* x, std::vector<int64_t> dims, bool keepdim);
  Value* reduce_sum(Value* x, std::vector<int64_t> dims, bool keepdim) {
    return reduce(OpCode::ReduceSum, x, std::move(dims), keepdim);
  }

 private:
  // Creates nothing on error (nor when `single` and the op has several results).
  Expected<Op*> try_create_op(OpCode code, std::vector<Value*> operands, Attrs attrs,
                              std::span<const TensorType> declared, bool single);
  Function* f_;
  size_t position_;
  bool at_end_;
  Loc loc_;
  std::string scope_;
};

// numpy broadcasting of two shapes, or nullopt if incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// Replaces ops of `f` one by one, in program order: for each op, `rewrite`
// gets a Builder inserting before it (at the op's location and scope) and
// returns the value that replaces the op's single result, or null to leave
// the op alone (having built nothing). A replaced op's uses read the new
// value and the op is erased; the walk goes on after it, so the new ops are
// not offered to `rewrite`. Values left dead are not erased (the caller's
// erase_dead_values or CSE does). Returns whether anything was replaced.
bool rewrite_ops(Function& f, const std::function<Value*(Builder&, Op&)>& rewrite);

}  // namespace mlc
