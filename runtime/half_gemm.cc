#include "runtime/half_gemm.h"

#include "runtime/half.h"

namespace mlc::rt {

namespace {

template <class H>
void widen(const void* in, std::vector<float>& out) {
  const H* p = static_cast<const H*>(in);
  for (size_t i = 0; i < out.size(); ++i) out[i] = p[i].to_float();
}

template <class H>
void narrow(const std::vector<float>& in, void* out) {
  H* p = static_cast<H*>(out);
  for (size_t i = 0; i < in.size(); ++i) p[i] = H::from_float(in[i]);
}

}  // namespace

HalfGemm::HalfGemm(const blas::DotShape& d, DType dtype)
    : d_(d),
      dtype_(dtype),
      a_(static_cast<size_t>(d.batch * d.m * d.k)),
      b_(static_cast<size_t>((d.b_shared ? 1 : d.batch) * d.k * d.n)),
      c_(static_cast<size_t>(d.batch * d.m * d.n)) {}

void HalfGemm::product(const void* a, const void* b, float* c, ThreadPool& pool) {
  const bool bf = dtype_ == DType::bf16;
  bf ? widen<bf16>(a, a_) : widen<f16>(a, a_);
  bf ? widen<bf16>(b, b_) : widen<f16>(b, b_);
  const int parts = blas::dot_threads(d_, pool.threads());
  auto share = [&](int t) { blas::dot_part(d_, parts, t, a_.data(), b_.data(), c); };
  pool.parallel(parts, share);
}

void HalfGemm::run(const void* a, const void* b, void* c, ThreadPool& pool) {
  product(a, b, c_.data(), pool);
  dtype_ == DType::bf16 ? narrow<bf16>(c_, c) : narrow<f16>(c_, c);
}

}  // namespace mlc::rt
