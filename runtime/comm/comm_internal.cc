#include "runtime/comm/comm_internal.h"

#include <cmath>
#include <cstring>

#include "runtime/half.h"

namespace mlc::rt::comm {
namespace {

template <class T>
T load(const std::byte* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <class T>
void store(std::byte* p, int64_t i, T v) {
  std::memcpy(p + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

template <class T>
T float_max(T acc, T x) {
  return (std::isnan(acc) || acc >= x) ? acc : x;  // a NaN x replaces acc
}

template <class T>
T int_sum(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));  // wraps, never UB
}

// Storage type S, accumulated in A; to_acc and from_acc convert.
template <class S, class A, class ToAcc, class FromAcc, class Op>
void fold(std::span<const std::byte* const> parts, std::byte* out, int64_t count, ToAcc to_acc, FromAcc from_acc,
          Op op) {
  for (int64_t i = 0; i < count; ++i) {
    A acc = to_acc(load<S>(parts[0], i));
    for (size_t k = 1; k < parts.size(); ++k) acc = op(acc, to_acc(load<S>(parts[k], i)));
    store<S>(out, i, from_acc(acc));
  }
}

template <class T>
void fold_plain(std::span<const std::byte* const> parts, std::byte* out, int64_t count, ReduceOp op) {
  auto same = [](T v) { return v; };
  if constexpr (std::is_floating_point_v<T>) {
    if (op == ReduceOp::sum) return fold<T, T>(parts, out, count, same, same, [](T a, T b) { return a + b; });
    return fold<T, T>(parts, out, count, same, same, float_max<T>);
  } else {
    if (op == ReduceOp::sum) return fold<T, T>(parts, out, count, same, same, int_sum<T>);
    return fold<T, T>(parts, out, count, same, same, [](T a, T b) { return a >= b ? a : b; });
  }
}

template <class H>
void fold_half(std::span<const std::byte* const> parts, std::byte* out, int64_t count, ReduceOp op) {
  auto to = [](H h) { return h.to_float(); };
  auto from = [](float f) { return H::from_float(f); };
  if (op == ReduceOp::sum) return fold<H, float>(parts, out, count, to, from, [](float a, float b) { return a + b; });
  fold<H, float>(parts, out, count, to, from, float_max<float>);
}

}  // namespace

void reduce_in_rank_order(std::span<const std::byte* const> parts, std::byte* out, int64_t count, DType dtype,
                          ReduceOp op) {
  if (parts.empty() || count <= 0) return;
  switch (dtype) {
    case DType::f32: return fold_plain<float>(parts, out, count, op);
    case DType::f64: return fold_plain<double>(parts, out, count, op);
    case DType::i32: return fold_plain<int32_t>(parts, out, count, op);
    case DType::i64: return fold_plain<int64_t>(parts, out, count, op);
    case DType::bf16: return fold_half<bf16>(parts, out, count, op);
    case DType::f16: return fold_half<f16>(parts, out, count, op);
    case DType::boolean: break;  // refused by check_reduction
  }
}

Status check_reduction(DType dtype, int64_t count) {
  if (dtype == DType::boolean) return make_error("cannot reduce bool tensors (reduce i32 instead)");
  if (count < 0) return make_error("negative element count " + std::to_string(count));
  return {};
}

Status check_bytes(int64_t bytes) {
  if (bytes < 0) return make_error("negative byte count " + std::to_string(bytes));
  return {};
}

Status check_rank(int r, int size, std::string_view what) {
  if (r < 0 || r >= size)
    return make_error(std::string(what) + " " + std::to_string(r) + " is not a rank of this group of " +
                      std::to_string(size));
  return {};
}

std::string format_duration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

std::string format_ranks(const std::vector<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

Error rank_error(int rank, std::string_view tag, std::string_view what) {
  return make_error("rank " + std::to_string(rank) + ": " + std::string(tag) + ": " + std::string(what));
}

std::string timeout_message(std::chrono::milliseconds timeout, const std::vector<int>& missing) {
  return "timed out after " + format_duration(timeout) + " waiting for " + format_ranks(missing);
}

const char* reduce_op_name(ReduceOp op) { return op == ReduceOp::sum ? "sum" : "max"; }

}  // namespace mlc::rt::comm
