#include "frontends/dsl_signatures.h"

#include <array>

namespace mlc {

namespace {

using namespace std::string_view_literals;

constexpr std::array kLinear{"in_features"sv, "out_features"sv, "bias"sv};
constexpr std::array kConv2d{"in_channels"sv, "out_channels"sv, "kernel_size"sv, "stride"sv,
                             "padding"sv,     "dilation"sv,     "groups"sv,      "bias"sv};
constexpr std::array kPool{"kernel_size"sv, "stride"sv, "padding"sv};
constexpr std::array kFlatten{"start_dim"sv, "end_dim"sv};
constexpr std::array kEmbedding{"num_embeddings"sv, "embedding_dim"sv};
constexpr std::array kLayerNorm{"normalized_shape"sv, "eps"sv};
constexpr std::array kRmsNorm{"dim"sv, "eps"sv};
constexpr std::array kGelu{"approximate"sv};
constexpr std::array kLeakyRelu{"negative_slope"sv};
constexpr std::array kElu{"alpha"sv};
constexpr std::array kSoftplus{"beta"sv, "threshold"sv};
constexpr std::array kPRelu{"num_parameters"sv, "init"sv};
constexpr std::array kSoftmax{"dim"sv};
constexpr std::array kBatchNorm{"num_features"sv, "eps"sv, "momentum"sv, "affine"sv,
                                "track_running_stats"sv};
constexpr std::array kDropout{"p"sv};
constexpr std::array kAttention{"dim"sv, "heads"sv};
constexpr std::array kSwiGlu{"dim"sv, "hidden"sv};
// nn.RNN/LSTM/GRU(*args): RNNBase's order (nonlinearity is a keyword of RNN).
constexpr std::array kRecurrent{"input_size"sv, "hidden_size"sv, "num_layers"sv, "bias"sv,
                                "batch_first"sv, "dropout"sv, "bidirectional"sv};
constexpr std::array kRnnCell{"input_size"sv, "hidden_size"sv, "bias"sv, "nonlinearity"sv};
constexpr std::array kCell{"input_size"sv, "hidden_size"sv, "bias"sv};
constexpr std::array kConvTranspose{"in_channels"sv, "out_channels"sv, "kernel_size"sv, "stride"sv, "padding"sv,
                                    "output_padding"sv, "groups"sv, "bias"sv, "dilation"sv};
constexpr std::array kAdaptivePool{"output_size"sv};
constexpr std::array kUpsample{"size"sv, "scale_factor"sv, "mode"sv, "align_corners"sv, "recompute_scale_factor"sv};
constexpr std::array kPixelShuffle{"upscale_factor"sv};
constexpr std::array kPixelUnshuffle{"downscale_factor"sv};
constexpr std::array kPad{"padding"sv};
constexpr std::array kConstantPad{"padding"sv, "value"sv};
constexpr std::array kGroupNorm{"num_groups"sv, "num_channels"sv, "eps"sv, "affine"sv};
constexpr std::array kMultihead{"embed_dim"sv, "num_heads"sv, "dropout"sv,  "bias"sv,       "add_bias_kv"sv,
                                "add_zero_attn"sv, "kdim"sv,    "vdim"sv, "batch_first"sv};
constexpr std::array kTransformerLayer{"d_model"sv,        "nhead"sv,       "dim_feedforward"sv,
                                       "dropout"sv,        "activation"sv,  "layer_norm_eps"sv,
                                       "batch_first"sv,    "norm_first"sv,  "bias"sv};
constexpr std::array kEncoder{"encoder_layer"sv, "num_layers"sv, "norm"sv};
constexpr std::array kDecoder{"decoder_layer"sv, "num_layers"sv, "norm"sv};

struct Entry {
  std::string_view type;
  std::span<const std::string_view> positional;
  size_t printed;
};

constexpr Entry kSignatures[] = {
    {"Linear", kLinear, 2},
    {"Conv2d", kConv2d, 3},
    {"MaxPool2d", kPool, 1},
    {"AvgPool2d", kPool, 1},
    {"Flatten", kFlatten, 0},
    {"Embedding", kEmbedding, 2},
    {"LayerNorm", kLayerNorm, 1},
    {"RMSNorm", kRmsNorm, 1},
    {"GELU", kGelu, 0},
    {"LeakyReLU", kLeakyRelu, 0},
    {"ELU", kElu, 0},
    {"Softplus", kSoftplus, 0},
    {"PReLU", kPRelu, 0},
    {"Softmax", kSoftmax, 0},
    {"LogSoftmax", kSoftmax, 0},
    {"BatchNorm1d", kBatchNorm, 1},
    {"BatchNorm2d", kBatchNorm, 1},
    {"Dropout", kDropout, 1},
    {"CausalSelfAttention", kAttention, 2},
    {"SwiGLU", kSwiGlu, 2},
    {"RNN", kRecurrent, 2},
    {"LSTM", kRecurrent, 2},
    {"GRU", kRecurrent, 2},
    {"RNNCell", kRnnCell, 2},
    {"LSTMCell", kCell, 2},
    {"GRUCell", kCell, 2},
    {"Conv1d", kConv2d, 3},
    {"ConvTranspose1d", kConvTranspose, 3},
    {"ConvTranspose2d", kConvTranspose, 3},
    {"AdaptiveAvgPool2d", kAdaptivePool, 1},
    {"AdaptiveMaxPool2d", kAdaptivePool, 1},
    {"Upsample", kUpsample, 0},
    {"PixelShuffle", kPixelShuffle, 1},
    {"PixelUnshuffle", kPixelUnshuffle, 1},
    {"ReflectionPad2d", kPad, 1},
    {"ReplicationPad2d", kPad, 1},
    {"ZeroPad2d", kPad, 1},
    {"ConstantPad2d", kConstantPad, 2},
    {"GroupNorm", kGroupNorm, 2},
    {"InstanceNorm2d", kBatchNorm, 1},
    {"MultiheadAttention", kMultihead, 2},
    {"TransformerEncoderLayer", kTransformerLayer, 2},
    {"TransformerDecoderLayer", kTransformerLayer, 2},
    {"TransformerEncoder", kEncoder, 2},
    {"TransformerDecoder", kDecoder, 2},
};

}  // namespace

CallSignature call_signature(std::string_view type) {
  for (const Entry& e : kSignatures)
    if (e.type == type) return CallSignature{e.positional, e.printed};
  return {};
}

}  // namespace mlc
