#include "runtime/blas.h"

#include <cblas.h>

#include <algorithm>
#include <climits>

namespace mlc::rt::blas {

void set_num_threads(int n) { openblas_set_num_threads(n); }

namespace {

void call(bool ta, bool tb, blasint m, blasint n, blasint k, const float* a, blasint lda,
          const float* b, blasint ldb, float* c, blasint ldc, double alpha, double beta) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, static_cast<float>(alpha), a, lda, b, ldb, static_cast<float>(beta), c, ldc);
}
void call(bool ta, bool tb, blasint m, blasint n, blasint k, const double* a, blasint lda,
          const double* b, blasint ldb, double* c, blasint ldc, double alpha, double beta) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}

bool fits(int64_t v) { return v <= static_cast<int64_t>(INT_MAX); }

// Reference loop for shapes the 32-bit interface cannot express.
template <class T>
void naive(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
           int64_t ldb, T* c, int64_t ldc, double alpha, double beta) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      T& out = c[i * ldc + j];
      out = static_cast<T>(alpha) * acc + (beta == 0 ? T(0) : static_cast<T>(beta) * out);
    }
}

template <class T>
void gemm_impl(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               const T* b, int64_t ldb, T* c, int64_t ldc, double alpha, double beta) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0 ? T(0) : static_cast<T>(beta) * c[i * ldc + j];
    return;
  }
  // BLAS requires leading dimensions >= 1 and >= the row length.
  lda = std::max<int64_t>(lda, std::max<int64_t>(1, ta ? m : k));
  ldb = std::max<int64_t>(ldb, std::max<int64_t>(1, tb ? k : n));
  if (!fits(n) || !fits(k) || !fits(lda) || !fits(ldb) || !fits(ldc) || (ta && !fits(m)))
    return naive(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, alpha, beta);
  // Split rows of C so that m fits (only possible without trans_a).
  for (int64_t r = 0; r < m; r += INT_MAX) {
    int64_t rows = std::min<int64_t>(m - r, INT_MAX);
    call(ta, tb, static_cast<blasint>(rows), static_cast<blasint>(n), static_cast<blasint>(k),
         a + r * lda, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), c + r * ldc,
         static_cast<blasint>(ldc), alpha, beta);
  }
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
          int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, double alpha, double beta) {
  gemm_impl(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, alpha, beta);
}
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
          int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc, double alpha, double beta) {
  gemm_impl(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, alpha, beta);
}

DotShare dot_share(const DotShape& d, int parts, int t) {
  const bool fold = d.b_shared && !d.trans_a;
  const int64_t batch = fold ? 1 : d.batch, m = fold ? d.batch * d.m : d.m;
  int64_t b0 = 0, b1 = batch, r0 = 0, r1 = m, c0 = 0, c1 = d.n;
  if (batch >= parts) {
    b0 = batch * t / parts;
    b1 = batch * (t + 1) / parts;
  } else if (m >= d.n) {
    r0 = m * t / parts;
    r1 = m * (t + 1) / parts;
  } else {
    c0 = d.n * t / parts;
    c1 = d.n * (t + 1) / parts;
  }
  DotShare s;
  s.batches = b1 - b0;
  s.rows = r1 - r0;
  s.cols = c1 - c0;
  s.a_stride = d.m * d.k;
  s.b_stride = d.b_shared ? 0 : d.k * d.n;
  s.c_stride = d.m * d.n;
  s.lda = d.trans_a ? d.m : d.k;
  s.ldb = d.trans_b ? d.k : d.n;
  s.ldc = d.n;
  s.a_offset = b0 * s.a_stride + (d.trans_a ? r0 : r0 * s.lda);
  s.b_offset = b0 * s.b_stride + (d.trans_b ? c0 * s.ldb : c0);
  s.c_offset = b0 * s.c_stride + r0 * s.ldc + c0;
  return s;
}

namespace {
template <class T>
void dot_impl(const DotShape& d, int parts, int t, const T* a, const T* b, T* c, double alpha, double beta) {
  const DotShare s = dot_share(d, parts, t);
  if (s.empty()) return;
  for (int64_t i = 0; i < s.batches; ++i)
    gemm(d.trans_a, d.trans_b, s.rows, s.cols, d.k, a + s.a_offset + i * s.a_stride, s.lda,
         b + s.b_offset + i * s.b_stride, s.ldb, c + s.c_offset + i * s.c_stride, s.ldc, alpha, beta);
}
}  // namespace

void dot(const DotShape& d, const float* a, const float* b, float* c) { dot_impl(d, 1, 0, a, b, c, 1, 0); }
void dot(const DotShape& d, const double* a, const double* b, double* c) { dot_impl(d, 1, 0, a, b, c, 1, 0); }
void dot_part(const DotShape& d, int parts, int t, const float* a, const float* b, float* c, double alpha,
              double beta) {
  dot_impl(d, parts, t, a, b, c, alpha, beta);
}
void dot_part(const DotShape& d, int parts, int t, const double* a, const double* b, double* c, double alpha,
              double beta) {
  dot_impl(d, parts, t, a, b, c, alpha, beta);
}

int dot_threads(const DotShape& d, int threads, int64_t min_work) {
  // kMinThreadWork, ~256K multiply-adds per thread: a worker's wake-up and
  // the duplicated packing of the shared operand stay small against its share.
  const int64_t work = d.batch * d.m * d.n * d.k;
  const int64_t rows = (d.b_shared && !d.trans_a) ? d.batch * d.m : d.m;
  const int64_t split = std::max<int64_t>(d.b_shared && !d.trans_a ? 1 : d.batch, std::max(rows, d.n));
  int64_t parts = std::min<int64_t>({threads, work / std::max<int64_t>(min_work, 1), split});
  return parts < 1 ? 1 : static_cast<int>(parts);
}

}  // namespace mlc::rt::blas
