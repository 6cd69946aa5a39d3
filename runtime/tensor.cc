#include "runtime/tensor.h"
#include "runtime/tensor_stats.h"

#include <malloc.h>

#include <atomic>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>

namespace mlc::rt {

void detail::AlignedFree::operator()(std::byte* p) const {
  if (owned) std::free(p);
}

namespace {
// Tensors come and go once per op: keep freed memory in the heap (no mmap /
// munmap and page faults per large tensor). Measured on tiny_gpt training:
// median step ~25 ms with this, ~35 ms without.
const bool kHeapTuned = [] {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  return true;
}();
std::atomic<int64_t> g_buffers_allocated{0};
}  // namespace

int64_t tensor_buffers_allocated() { return g_buffers_allocated.load(std::memory_order_relaxed); }

Tensor::Tensor(TensorType type) : Tensor(std::move(type), true) {}

Tensor Tensor::uninitialized(TensorType type) { return Tensor(std::move(type), false); }

Tensor Tensor::view(TensorType type, std::byte* data) {
  Tensor t;
  t.type_ = std::move(type);
  t.num_elements_ = mlc::num_elements(t.type_.shape);
  t.data_ = std::unique_ptr<std::byte[], AlignedFree>(data, AlignedFree{false});
  return t;
}

void Tensor::rebind(std::byte* data) {
  assert(!data_.get_deleter().owned);
  data_.release();
  data_.reset(data);
}

Tensor::Tensor(TensorType type, bool zero) : type_(std::move(type)) {
  num_elements_ = mlc::num_elements(type_.shape);
  size_t bytes = static_cast<size_t>(num_bytes());
  size_t alloc = (bytes + 63) / 64 * 64;
  if (alloc == 0) alloc = 64;
  void* p = std::aligned_alloc(64, alloc);
  if (!p) throw std::bad_alloc();
  g_buffers_allocated.fetch_add(1, std::memory_order_relaxed);
  if (zero) std::memset(p, 0, alloc);
  data_.reset(static_cast<std::byte*>(p));
}

Tensor::Tensor(const Tensor& other) : Tensor(other.type_) {
  if (other.num_bytes()) std::memcpy(bytes(), other.bytes(), num_bytes());
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

Tensor Tensor::reshaped(Shape shape) const {
  assert(mlc::num_elements(shape) == num_elements_);
  Tensor t(TensorType{type_.dtype, std::move(shape)});
  if (num_bytes()) std::memcpy(t.bytes(), bytes(), num_bytes());
  return t;
}

}  // namespace mlc::rt
