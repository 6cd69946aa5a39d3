#include "runtime/xsmm_gemm.h"

#include <libxsmm.h>

namespace mlc::rt {

namespace {

// Once per process, before the first dispatch (libxsmm_init is idempotent
// but not meant to race).
void init_libxsmm() {
  static const bool done = [] {
    libxsmm_init();
    return true;
  }();
  (void)done;
}

}  // namespace

bool XsmmGemm::preferred(const blas::DotShape& d, DType dtype) {
  const blas::DotShare whole = blas::dot_share(d, 1, 0);  // rows after folding a shared B's batch
  return dtype == DType::f32 && d.k > 0 && whole.rows * whole.cols * d.k <= kMaxWork;
}

std::optional<XsmmGemm> XsmmGemm::create(const blas::DotShape& d, int parts) {
  init_libxsmm();
  XsmmGemm g;
  for (int t = 0; t < parts; ++t) {
    Share s;
    s.part = blas::dot_share(d, parts, t);
    if (!s.part.empty()) {
      // libxsmm is column-major: the row-major C [rows, cols] = op(A) op(B) is
      // the column-major C^T [cols, rows] = op(B)^T op(A)^T, i.e. libxsmm's
      // "A" is our B (transposed in its terms when ours is) and its "B" ours A.
      const float alpha = 1.0f, beta = 0.0f;
      const int prefetch = LIBXSMM_PREFETCH_NONE;
      const int flags = (d.trans_b ? LIBXSMM_GEMM_FLAG_TRANS_A : 0) | (d.trans_a ? LIBXSMM_GEMM_FLAG_TRANS_B : 0);
      const libxsmm_blasint lda = s.part.ldb, ldb = s.part.lda, ldc = s.part.ldc;
      libxsmm_smmfunction f = libxsmm_smmdispatch(s.part.cols, s.part.rows, d.k, &lda, &ldb, &ldc, &alpha, &beta,
                                                  &flags, &prefetch);
      if (!f) return std::nullopt;
      s.kernel = f;
    }
    g.shares_.push_back(s);
  }
  return g;
}

void XsmmGemm::run(int t, const float* a, const float* b, float* c) const {
  const Share& s = shares_[static_cast<size_t>(t)];
  if (!s.kernel) return;
  const blas::DotShare& p = s.part;
  for (int64_t i = 0; i < p.batches; ++i)
    s.kernel(b + p.b_offset + i * p.b_stride, a + p.a_offset + i * p.a_stride, c + p.c_offset + i * p.c_stride);
}

}  // namespace mlc::rt
