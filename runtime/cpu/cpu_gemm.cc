#include "runtime/cpu/cpu_gemm.h"

#include <optional>

#include "runtime/onednn_gemm.h"
#include "runtime/xsmm_gemm.h"

namespace mlc::rt {

namespace {

// oneDNN's and libxsmm's f32 shares (runtime/onednn_gemm.h, runtime/xsmm_gemm.h).
template <class Library>
class F32Gemm final : public GemmKernel {
 public:
  F32Gemm(Library lib, std::string_view name) : lib_(std::move(lib)), name_(name) {}
  std::string_view library() const override { return name_; }
  int parts() const override { return lib_.parts(); }
  void run(int part, const std::byte* a, const std::byte* b, std::byte* c) const override {
    lib_.run(part, reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b), reinterpret_cast<float*>(c));
  }

 private:
  Library lib_;
  std::string_view name_;
};

class OpenBlasGemm final : public GemmKernel {
 public:
  OpenBlasGemm(const GemmParams& p, int parts) : p_(p), parts_(parts) {}
  std::string_view library() const override { return "OpenBLAS"; }
  int parts() const override { return parts_; }
  void run(int part, const std::byte* a, const std::byte* b, std::byte* c) const override {
    if (p_.dtype == DType::f64)
      blas::dot_part(p_.shape, parts_, part, reinterpret_cast<const double*>(a), reinterpret_cast<const double*>(b),
                     reinterpret_cast<double*>(c), p_.alpha, p_.beta);
    else
      blas::dot_part(p_.shape, parts_, part, reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b),
                     reinterpret_cast<float*>(c), p_.alpha, p_.beta);
  }

 private:
  GemmParams p_;
  int parts_;
};

}  // namespace

Expected<std::unique_ptr<GemmKernel>> make_cpu_gemm(const GemmParams& p, int threads) {
  const blas::DotShape& d = p.shape;
  const int parts = blas::dot_threads(d, threads);
  // libxsmm 1.17's kernels take alpha = 1 and beta = 0 or 1 only.
  if (XsmmGemm::preferred(d, p.dtype) && !p.updates())
    if (std::optional<XsmmGemm> x = XsmmGemm::create(d, parts))
      return std::unique_ptr<GemmKernel>(std::make_unique<F32Gemm<XsmmGemm>>(std::move(*x), "libxsmm"));
  if (OneDnnGemm::preferred(d, p.dtype)) {
    MLC_TRY(OneDnnGemm g, OneDnnGemm::create(d, parts, p.alpha, p.beta));
    return std::unique_ptr<GemmKernel>(std::make_unique<F32Gemm<OneDnnGemm>>(std::move(g), "oneDNN"));
  }
  return std::unique_ptr<GemmKernel>(std::make_unique<OpenBlasGemm>(p, parts));
}

}  // namespace mlc::rt
