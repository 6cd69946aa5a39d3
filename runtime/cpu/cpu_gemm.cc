#include "runtime/cpu/cpu_gemm.h"

#include <optional>

#include "runtime/half_gemm.h"
#include "runtime/onednn_gemm.h"
#include "runtime/thread_pool.h"
#include "runtime/xsmm_gemm.h"

namespace mlc::rt {

namespace {

// libxsmm's f32 shares (runtime/xsmm_gemm.h).
class LibxsmmGemm final : public GemmKernel {
 public:
  explicit LibxsmmGemm(XsmmGemm lib) : lib_(std::move(lib)) {}
  std::string_view library() const override { return "libxsmm"; }
  int parts() const override { return lib_.parts(); }
  void run(int part, const std::byte* a, const std::byte* b, std::byte* c) const override {
    lib_.run(part, reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b), reinterpret_cast<float*>(c));
  }

 private:
  XsmmGemm lib_;
};

// oneDNN's shares, f32, bf16 or f16 (runtime/onednn_gemm.h).
class DnnlGemm final : public GemmKernel {
 public:
  explicit DnnlGemm(OneDnnGemm lib) : lib_(std::move(lib)) {}
  std::string_view library() const override { return "oneDNN"; }
  int parts() const override { return lib_.parts(); }
  void run(int part, const std::byte* a, const std::byte* b, std::byte* c) const override { lib_.run(part, a, b, c); }

 private:
  OneDnnGemm lib_;
};

// A bf16 or f16 gemm on the interpreter's f32 path (runtime/half_gemm.h),
// one part that runs its own shares on the thread pool: where oneDNN has no
// kernel for the dtype on this CPU (c of the dtype), and with an epilogue
// (`f32_product`: c is the f32 product, which the epilogue rounds,
// runtime/gemm_epilogue.h). Its f32 buffers are its own: an executor's
// instructions run one at a time.
class HalfFallbackGemm final : public GemmKernel {
 public:
  HalfFallbackGemm(const blas::DotShape& d, DType dtype, bool f32_product)
      : half_(d, dtype), f32_product_(f32_product) {}
  std::string_view library() const override { return f32_product_ ? "OpenBLAS (f32)" : "OpenBLAS (f32, rounded)"; }
  int parts() const override { return 1; }
  void run(int, const std::byte* a, const std::byte* b, std::byte* c) const override {
    if (f32_product_) half_.product(a, b, reinterpret_cast<float*>(c), thread_pool());
    else half_.run(a, b, c, thread_pool());
  }

 private:
  mutable HalfGemm half_;
  bool f32_product_;
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
  if (is_half(p.dtype) && p.epilogue != GemmEpilogue::none)
    return std::unique_ptr<GemmKernel>(std::make_unique<HalfFallbackGemm>(d, p.dtype, true));
  const int parts = blas::dot_threads(d, threads, OneDnnGemm::min_thread_work(p.dtype));
  // libxsmm 1.17's kernels take alpha = 1 and beta = 0 or 1 only.
  if (XsmmGemm::preferred(d, p.dtype) && !p.updates())
    if (std::optional<XsmmGemm> x = XsmmGemm::create(d, parts))
      return std::unique_ptr<GemmKernel>(std::make_unique<LibxsmmGemm>(std::move(*x)));
  if (OneDnnGemm::preferred(d, p.dtype)) {
    Expected<OneDnnGemm> g = OneDnnGemm::create(d, parts, p.alpha, p.beta, p.dtype);
    if (g) return std::unique_ptr<GemmKernel>(std::make_unique<DnnlGemm>(std::move(*g)));
    if (!is_half(p.dtype)) return g.error();
    return std::unique_ptr<GemmKernel>(std::make_unique<HalfFallbackGemm>(d, p.dtype, false));
  }
  return std::unique_ptr<GemmKernel>(std::make_unique<OpenBlasGemm>(p, parts));
}

}  // namespace mlc::rt
