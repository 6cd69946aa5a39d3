// nn.MultiheadAttention's parameters and computation (layers_multihead.cc),
// for the MultiheadAttention layer and the Transformer layers that hold one
// (self_attn, multihead_attn). docs/model-format.md, "Attention".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "frontends/attention.h"
#include "frontends/layers.h"

namespace mlc {

struct MhaConfig {
  int64_t embed_dim = 0, num_heads = 0, kdim = 0, vdim = 0;
  double dropout = 0;  // on the attention weights, in training mode
  bool bias = true, batch_first = false;
  bool same_dims() const { return kdim == embed_dim && vdim == embed_dim; }
};

// The parameters under `prefix` in PyTorch's registration order: in_proj_weight
// [3E, E] (or q_proj_weight, k_proj_weight, v_proj_weight when kdim or vdim
// differs from E), in_proj_bias [3E], out_proj.weight [E, E], out_proj.bias [E];
// PyTorch's inits: xavier_uniform_ projections, zero biases, out_proj.weight
// as Linear's; drawn in torch's order (ParamDecl::draw, from `base`, the
// position of the first of them in the layer's params()): out_proj.weight,
// out_proj.bias (drawn as Linear's, then zeroed), then the projections.
std::vector<ParamDecl> mha_params(const MhaConfig& c, const std::string& prefix, int64_t base);

struct MhaCall {
  Value *query = nullptr, *key = nullptr, *value = nullptr;
  Value* key_padding_mask = nullptr;  // [N, S] ([S] unbatched): bool True = ignored, or float added
  Value* attn_mask = nullptr;         // [L, S] or [N * num_heads, L, S]: bool True = masked, or float added
  bool is_causal = false;             // adds the causal mask [L, S]
  bool need_weights = false;
  bool average_attn_weights = true;
};

// nn.MultiheadAttention.forward: (attn_output, attn_weights) with weights
// null unless need_weights ([N, L, S] averaged over heads, else [N, h, L, S];
// the batch dim dropped for an unbatched query). Shapes are checked first;
// `fail` words the error (the calling layer's name and location).
Expected<Attention> emit_mha(LayerContext& ctx, const MhaConfig& c, const std::string& prefix,
                             const MhaCall& call, uint32_t stream,
                             const std::function<Error(const std::string&)>& fail);
// Ops emit_mha emits at most.
int64_t mha_max_ops();

// The MultiheadAttention layer (embed_dim, num_heads, dropout, bias, kdim,
// vdim, batch_first).
Expected<std::unique_ptr<Layer>> parse_multihead(const Fields& f);
// Field checks shared with the Transformer layers: `heads_key` divides
// `dim_key`; "dropout" in [0, 1).
Status check_heads(const Fields& f, std::string_view dim_key, int64_t dim, std::string_view heads_key,
                   int64_t heads);
Expected<double> dropout_field(const Fields& f, double dflt);

// A random stream of its own for dropout site `site` of a layer call.
uint32_t sub_stream(uint32_t stream, uint32_t site);

}  // namespace mlc
