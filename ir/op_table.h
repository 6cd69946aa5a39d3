// The op table (ir/ops.def) as data: look up an op's name, arity, attribute
// schema, inference/verification rule, cost and decomposition.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/expected.h"
#include "ir/op_code.h"
#include "ir/types.h"

namespace mlc {

class Builder;
class Op;
struct Value;

struct AttrSpec {
  std::string name;
  AttrKind kind;
  std::optional<AttrValue> default_value;  // nullopt: required
};

// What inference sees: the op name, operand types, attributes (complete: the
// Builder has filled defaults and checked kinds) and, for ops whose result type
// is given rather than derived (reshape, broadcast, cast, iota, constant), the
// declared result type. When parsing, every op has a declared type; the verifier
// then checks that inference agrees with it.
struct InferContext {
  std::string_view op_name;
  std::span<const TensorType* const> operands;
  const Attrs& attrs;
  const TensorType* declared = nullptr;
  // Every declared result type (empty when none are given): for ops whose
  // several results are all declared (call).
  std::span<const TensorType> declared_all = {};

  const TensorType& operand(size_t i) const { return *operands[i]; }
};

// Inference failure messages name the op and say what was expected and found:
// "conv2d: input channels 3 do not match weight in_channels 1 x groups 1".
// The caller prefixes the location. A single-result op's rule returns its
// type; a multi-result op's rule (split) returns one type per result.
using InferFn = Expected<TensorType> (*)(const InferContext&);
using InferResultsFn = Expected<std::vector<TensorType>> (*)(const InferContext&);
struct InferRule {
  InferFn one = nullptr;
  InferResultsFn many = nullptr;
  constexpr InferRule(InferFn f) : one(f) {}          // NOLINT: the table names either kind
  constexpr InferRule(InferResultsFn f) : many(f) {}  // NOLINT
  bool defined() const { return one || many; }
  Expected<std::vector<TensorType>> operator()(const InferContext& ctx) const;
};

struct Cost {
  int64_t flops = 0;
  int64_t bytes = 0;  // bytes read (operands) + written (result)
  Cost& operator+=(const Cost& o) { flops += o.flops; bytes += o.bytes; return *this; }
};
using CostFn = Cost (*)(const Op&);

// Emits the composite `op` as primitives through `b` (whose insertion point is
// at `op`) and returns the value that replaces op's result, or (multi-result
// composites) the values that replace its results, in order.
using DecomposeFn = Value* (*)(Builder& b, const Op& op);
using DecomposeResultsFn = std::vector<Value*> (*)(Builder& b, const Op& op);
struct DecomposeRule {
  DecomposeFn one = nullptr;
  DecomposeResultsFn many = nullptr;
  constexpr DecomposeRule(std::nullptr_t) {}                  // NOLINT: primitives
  constexpr DecomposeRule(DecomposeFn f) : one(f) {}          // NOLINT
  constexpr DecomposeRule(DecomposeResultsFn f) : many(f) {}  // NOLINT
  bool defined() const { return one || many; }
  std::vector<Value*> operator()(Builder& b, const Op& op) const;
};

// Traits: what an op is, as bit flags (the `traits` column of ir/ops.def), for
// the passes that reason about families of ops (CSE, DCE, fusion, sharding).
inline constexpr uint32_t kElementwise = 1u << 0;  // result[i] = f(operands[i]) after broadcasting
inline constexpr uint32_t kReduction = 1u << 1;    // combines elements along dims or windows
inline constexpr uint32_t kMovement = 1u << 2;     // moves, copies or indexes elements, no arithmetic
inline constexpr uint32_t kContraction = 1u << 3;  // sums of products: dot, convolutions
inline constexpr uint32_t kWindow = 1u << 4;       // sliding windows (pooling and its gradients)
inline constexpr uint32_t kSource = 1u << 5;       // no operands: constant, iota
// An effect beyond the result (RNG state, communication): never merged by CSE
// or removed by DCE: the collectives (every device must take part in each one
// the plan inserted), later rng.
inline constexpr uint32_t kEffectful = 1u << 6;
inline constexpr uint32_t kCommutative = 1u << 7;  // binary, f(a, b) == f(b, a)
inline constexpr uint32_t kFused = 1u << 8;        // computes its body (Op::body): a fused kernel
inline constexpr uint32_t kCollective = 1u << 9;   // communicates over a mesh axis (attribute mesh_axis)

struct OpInfo {
  OpCode code;
  std::string_view name;
  int arity;  // -1: one or more
  uint32_t traits;
  const std::vector<AttrSpec>& attrs;
  InferRule infer;
  CostFn cost;
  DecomposeRule decompose;  // undefined for primitives

  bool is_composite() const { return decompose.defined(); }
  bool has(uint32_t trait) const { return (traits & trait) != 0; }
};

const OpInfo& op_info(OpCode code);
std::span<const OpInfo> all_ops();
std::optional<OpCode> find_op(std::string_view name);
inline std::string_view op_name(OpCode code) { return op_info(code).name; }

// Checks attribute names and kinds against the schema, converting an Int given
// for a Float attribute, and fills defaults. Error messages name the op and attribute.
Status complete_attrs(const OpInfo& info, Attrs& attrs);

// Fills `op`'s attribute defaults and re-runs its inference against its
// declared result type: what every consumer of built IR that relies on both
// (the interpreter, lowering) does first. Errors are located at the op.
Status complete_and_check(Op& op);

// Runs inference for an op given operand types (checks arity first) and
// returns its result types. `declared`: empty, or the declared type of every
// result (they must match the inferred ones, and ops whose result type is given
// rather than derived, like reshape, read it from there).
Expected<std::vector<TensorType>> infer_result_types(OpCode code, std::span<const TensorType* const> operands,
                                                     const Attrs& attrs, std::span<const TensorType> declared);
// The same for an op known to have one result (an error if it has several).
Expected<TensorType> infer_type(OpCode code, std::span<const TensorType* const> operands,
                                const Attrs& attrs, const TensorType* declared);
// The result types of `op` as they are, for infer_result_types's `declared`.
std::vector<TensorType> result_types(const Op& op);

// Cost of an op in a function.
Cost op_cost(const Op& op);

}  // namespace mlc
