// Positional arguments of the model language's calls: `Linear(64, 10)` is
// `{"type": "Linear", "in_features": 64, "out_features": 10}`, in the order of
// the PyTorch constructor's parameters (torch.nn.Linear(in_features,
// out_features, bias)). Types not listed take keyword arguments only.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace mlc {

struct CallSignature {
  // Fields in positional order; a call may give any prefix of them positionally.
  std::span<const std::string_view> positional;
  // How many of them the printer writes positionally (the sizes a PyTorch user
  // writes without names: Linear(64, 10), Conv2d(1, 16, 3)).
  size_t printed = 0;
};

// The signature of a call of `type` ("Linear", "Conv2d", ...); empty for
// keyword-only types.
CallSignature call_signature(std::string_view type);

}  // namespace mlc
