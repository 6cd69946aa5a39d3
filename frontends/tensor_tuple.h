// What a forward passes to a layer call and gets back: a tensor, or a tuple of
// them (PyTorch's `(h, c)` state of an LSTM, `(output, h_n)` of an RNN).
#pragma once

#include <vector>

#include "ir/graph.h"

namespace mlc {

struct TensorTuple {
  Value* tensor = nullptr;          // set: a tensor
  std::vector<TensorTuple> items;   // else: a tuple of these
  bool is_tensor() const { return tensor != nullptr; }
  static TensorTuple of(Value* v) { return TensorTuple{v, {}}; }
  static TensorTuple tuple(std::vector<TensorTuple> items) { return TensorTuple{nullptr, std::move(items)}; }
};

}  // namespace mlc
