// A host tensor: dtype, shape and a 64-byte aligned, row-major buffer, owned
// (the default) or borrowed (`view`: memory of an arena or of another tensor,
// which must outlive the view). Copying a Tensor copies its data into an owned
// buffer; moving is cheap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "ir/types.h"

namespace mlc::rt {

namespace detail {
// Frees an owned buffer (std::aligned_alloc); leaves a borrowed one alone.
struct AlignedFree {
  bool owned = true;
  void operator()(std::byte* p) const;
};
}  // namespace detail

class Tensor {
 public:
  Tensor() = default;
  // Zero-initialized tensor of the given type. The type must be valid
  // (checked_num_elements succeeds).
  explicit Tensor(TensorType type);
  Tensor(DType dtype, Shape shape) : Tensor(TensorType{dtype, std::move(shape)}) {}
  // A tensor whose elements are left unset: for results that a kernel
  // overwrites entirely (the kernel contract), saving a memset per op.
  static Tensor uninitialized(TensorType type);
  // A tensor over `data` (num_bytes of `type`, suitably aligned), not owned:
  // nothing is allocated or freed.
  static Tensor view(TensorType type, std::byte* data);
  // Points a view at other memory (no allocation). Only for views.
  void rebind(std::byte* data);
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;

  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  int64_t rank() const { return type_.rank(); }
  int64_t num_elements() const { return num_elements_; }
  int64_t num_bytes() const { return num_elements_ * dtype_size(type_.dtype); }

  std::byte* bytes() { return data_.get(); }
  const std::byte* bytes() const { return data_.get(); }
  template <class T> T* data() { return reinterpret_cast<T*>(data_.get()); }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(data_.get()); }
  template <class T> std::span<T> span() { return {data<T>(), static_cast<size_t>(num_elements_)}; }
  template <class T> std::span<const T> span() const {
    return {data<T>(), static_cast<size_t>(num_elements_)};
  }

  // Same data viewed with another shape of equal element count.
  Tensor reshaped(Shape shape) const;

 private:
  Tensor(TensorType type, bool zero);
  using AlignedFree = detail::AlignedFree;
  TensorType type_;
  int64_t num_elements_ = 0;
  std::unique_ptr<std::byte[], AlignedFree> data_;
};

}  // namespace mlc::rt
