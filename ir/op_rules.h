// Declarations of the rule functions named by the columns of ir/ops.def.
// Definitions: op_rules_elementwise.cc, op_rules_shape.cc, op_rules_nn.cc,
// op_rules_composite.cc. Internal to ir/; other code goes through op_table.h.
#pragma once

#include <vector>

#include "ir/builder.h"
#include "ir/op_table.h"

namespace mlc::rules {

// Attribute schemas.
const std::vector<AttrSpec>& attrs_none();
const std::vector<AttrSpec>& attrs_call();
const std::vector<AttrSpec>& attrs_compare();
const std::vector<AttrSpec>& attrs_random();
const std::vector<AttrSpec>& attrs_broadcast();
const std::vector<AttrSpec>& attrs_transpose();
const std::vector<AttrSpec>& attrs_slice();
const std::vector<AttrSpec>& attrs_concat();
const std::vector<AttrSpec>& attrs_split();
const std::vector<AttrSpec>& attrs_pad();
const std::vector<AttrSpec>& attrs_reduce();
const std::vector<AttrSpec>& attrs_axis();
const std::vector<AttrSpec>& attrs_dot();
const std::vector<AttrSpec>& attrs_conv2d();
const std::vector<AttrSpec>& attrs_pool();
const std::vector<AttrSpec>& attrs_avg_pool();
const std::vector<AttrSpec>& attrs_unfold();
const std::vector<AttrSpec>& attrs_fold();
const std::vector<AttrSpec>& attrs_iota();
const std::vector<AttrSpec>& attrs_constant();
const std::vector<AttrSpec>& attrs_gelu();
const std::vector<AttrSpec>& attrs_eps();
const std::vector<AttrSpec>& attrs_reduction();
const std::vector<AttrSpec>& attrs_leaky_relu();
const std::vector<AttrSpec>& attrs_elu();
const std::vector<AttrSpec>& attrs_softplus();
const std::vector<AttrSpec>& attrs_nll_loss();
const std::vector<AttrSpec>& attrs_smooth_l1();
const std::vector<AttrSpec>& attrs_huber();
const std::vector<AttrSpec>& attrs_kl_div();
const std::vector<AttrSpec>& attrs_cosine_embedding();
const std::vector<AttrSpec>& attrs_all_reduce();
const std::vector<AttrSpec>& attrs_comm_dim();
const std::vector<AttrSpec>& attrs_all_to_all();
const std::vector<AttrSpec>& attrs_comm_root();
const std::vector<AttrSpec>& attrs_comm_peer();

// Inference.
Expected<TensorType> infer_unary(const InferContext&);
Expected<TensorType> infer_unary_float(const InferContext&);
Expected<TensorType> infer_binary(const InferContext&);
Expected<TensorType> infer_binary_float(const InferContext&);
Expected<TensorType> infer_compare(const InferContext&);
Expected<TensorType> infer_random_uniform(const InferContext&);
Expected<TensorType> infer_select(const InferContext&);
Expected<TensorType> infer_cast(const InferContext&);
Expected<TensorType> infer_broadcast(const InferContext&);
Expected<TensorType> infer_reshape(const InferContext&);
Expected<TensorType> infer_transpose(const InferContext&);
Expected<TensorType> infer_slice(const InferContext&);
Expected<TensorType> infer_concat(const InferContext&);
Expected<std::vector<TensorType>> infer_split(const InferContext&);
Expected<TensorType> infer_pad(const InferContext&);
Expected<TensorType> infer_reduce(const InferContext&);
Expected<TensorType> infer_reduce_nonempty(const InferContext&);
Expected<TensorType> infer_argmax(const InferContext&);
Expected<TensorType> infer_dot(const InferContext&);
Expected<TensorType> infer_conv2d(const InferContext&);
Expected<TensorType> infer_pool2d(const InferContext&);
Expected<TensorType> infer_conv2d_input_grad(const InferContext&);
Expected<TensorType> infer_conv2d_weight_grad(const InferContext&);
Expected<TensorType> infer_max_pool2d_grad(const InferContext&);
Expected<TensorType> infer_max_pool2d_indices(const InferContext&);
Expected<TensorType> infer_max_pool2d_scatter(const InferContext&);
Expected<TensorType> infer_avg_pool2d_grad(const InferContext&);
Expected<TensorType> infer_unfold(const InferContext&);
Expected<TensorType> infer_fold(const InferContext&);
Expected<TensorType> infer_gather(const InferContext&);
Expected<TensorType> infer_scatter_add(const InferContext&);
Expected<TensorType> infer_iota(const InferContext&);
Expected<TensorType> infer_constant(const InferContext&);
Expected<TensorType> infer_gelu(const InferContext&);
Expected<TensorType> infer_softmax(const InferContext&);
Expected<TensorType> infer_layer_norm(const InferContext&);
Expected<TensorType> infer_rms_norm(const InferContext&);
Expected<TensorType> infer_cross_entropy(const InferContext&);
Expected<TensorType> infer_cumsum(const InferContext&);
Expected<TensorType> infer_nll_loss(const InferContext&);
Expected<TensorType> infer_pointwise_loss(const InferContext&);
Expected<TensorType> infer_bce_with_logits(const InferContext&);
Expected<TensorType> infer_kl_div(const InferContext&);
Expected<TensorType> infer_cosine_embedding(const InferContext&);
Expected<std::vector<TensorType>> infer_fusion(const InferContext&);
Expected<std::vector<TensorType>> infer_call(const InferContext&);
Expected<TensorType> infer_all_reduce(const InferContext&);
Expected<TensorType> infer_all_gather(const InferContext&);
Expected<TensorType> infer_reduce_scatter(const InferContext&);
Expected<TensorType> infer_all_to_all(const InferContext&);
Expected<TensorType> infer_comm_identity(const InferContext&);
Expected<TensorType> infer_recv(const InferContext&);
Expected<TensorType> infer_shard_slice(const InferContext&);

// Costs.
Cost cost_elementwise(const Op&);
Cost cost_movement(const Op&);
Cost cost_reduce(const Op&);
Cost cost_dot(const Op&);
Cost cost_conv2d(const Op&);
Cost cost_pool2d(const Op&);
Cost cost_conv2d_grad(const Op&);
Cost cost_pool2d_grad(const Op&);
Cost cost_composite(const Op&);  // sum over the op's decomposition
Cost cost_call(const Op&);       // the bytes of operands and results (the callee is not seen)
Cost cost_collective(const Op&);  // bytes of the local operand and result; no FLOPs

// Decompositions.
Value* decompose_relu(Builder&, const Op&);
Value* decompose_silu(Builder&, const Op&);
Value* decompose_gelu(Builder&, const Op&);
Value* decompose_softmax(Builder&, const Op&);
Value* decompose_log_softmax(Builder&, const Op&);
Value* decompose_layer_norm(Builder&, const Op&);
Value* decompose_rms_norm(Builder&, const Op&);
Value* decompose_cross_entropy(Builder&, const Op&);
Value* decompose_log1p(Builder&, const Op&);
Value* decompose_leaky_relu(Builder&, const Op&);
Value* decompose_elu(Builder&, const Op&);
Value* decompose_softplus(Builder&, const Op&);
Value* decompose_hardswish(Builder&, const Op&);
Value* decompose_mish(Builder&, const Op&);
Value* decompose_cumsum(Builder&, const Op&);
Value* decompose_nll_loss(Builder&, const Op&);
Value* decompose_mse(Builder&, const Op&);
Value* decompose_l1_loss(Builder&, const Op&);
Value* decompose_smooth_l1_loss(Builder&, const Op&);
Value* decompose_huber_loss(Builder&, const Op&);
Value* decompose_binary_cross_entropy(Builder&, const Op&);
Value* decompose_bce_with_logits(Builder&, const Op&);
Value* decompose_kl_div(Builder&, const Op&);
Value* decompose_cosine_embedding(Builder&, const Op&);
std::vector<Value*> decompose_split(Builder&, const Op&);
std::vector<Value*> decompose_fusion(Builder&, const Op&);

// Shared helpers for rule files.
Error infer_error(const InferContext& ctx, const std::string& message);  // "<op>: message"
// The declared result type, or the error that the op needs one.
Expected<TensorType> require_declared(const InferContext& ctx);
// Normalizes a possibly negative axis against `rank`; nullopt if out of range.
std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank);
// "operand i must be a float tensor, got ..." unless operand i is float.
Status require_float_operand(const InferContext& ctx, size_t i);
// The last dim of v (-1 for a scalar).
inline int64_t last_axis(const Value* v) { return v->type.rank() - 1; }

}  // namespace mlc::rules
