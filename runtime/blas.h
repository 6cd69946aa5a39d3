// A thin wrapper over CBLAS (OpenBLAS) general matrix multiply.
//
// Contract: row-major C[m,n] = alpha * op(A) * op(B) + beta * C, where op(X)
// is X or X^T as asked; A is [m,k] (or [k,m] when trans_a) with row stride
// lda, B is [k,n] (or [n,k] when trans_b) with row stride ldb, C has row
// stride ldc. With beta = 0 (the default) C is overwritten, never read.
// Handles empty sizes (m, n or k == 0: C becomes beta * C where it has
// elements) and sizes beyond the 32-bit BLAS interface (split into blocks of
// rows, or a plain loop).
#pragma once

#include <cstdint>

namespace mlc::rt::blas {

// Threads BLAS may use (OpenBLAS's pool). The runtime keeps it at 1 and
// splits GEMMs over its own pool (dot_part), so that two pools of spinning
// threads never compete for the same cores.
void set_num_threads(int n);

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
          int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, double alpha = 1, double beta = 0);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
          int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc, double alpha = 1, double beta = 0);

// A batched matmul as `dot` defines it (ir/ops.def): for each batch b,
// C[b] = op(A[b]) op(B[b]), C[b] [m, n], with B shared by every batch when
// b_shared (b is rank 2). Row-major, contiguous operands.
struct DotShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false, b_shared = false;
};
void dot(const DotShape& d, const float* a, const float* b, float* c);
void dot(const DotShape& d, const double* a, const double* b, double* c);

// The part of dot(d) that share t of `parts` computes, in elements of the
// row-major operands. When B is shared and A is not transposed, the batch
// folds into the rows (one product of batch*m rows). A share is a range of
// the (folded) batches when there are at least `parts` of them, else the same
// range of C's rows or columns (whichever dim is longer) of every batch.
// Batch i of the share reads A at a_offset + i * a_stride, B at b_offset +
// i * b_stride, and writes C at c_offset + i * c_stride, with leading
// dimensions lda, ldb, ldc; it is a rows x cols product over k.
struct DotShare {
  int64_t batches = 0, rows = 0, cols = 0;
  int64_t a_offset = 0, b_offset = 0, c_offset = 0;
  int64_t a_stride = 0, b_stride = 0, c_stride = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool empty() const { return batches == 0 || rows == 0 || cols == 0; }
};
DotShare dot_share(const DotShape& d, int parts, int t);

// Share t of `parts` of dot(d, ...): the batches [batch*t/parts,
// batch*(t+1)/parts) when there are at least `parts` of them, else the same
// range of C's rows or columns (whichever dim is longer) of every batch. The
// shares write disjoint parts of C; together they are dot(d, ...).
// alpha, beta: as gemm's, for every batch.
void dot_part(const DotShape& d, int parts, int t, const float* a, const float* b, float* c, double alpha = 1,
              double beta = 0);
void dot_part(const DotShape& d, int parts, int t, const double* a, const double* b, double* c, double alpha = 1,
              double beta = 0);
// How many of `threads` to give dot(d): a function of d, threads and
// min_work only. Each thread gets at least min_work multiply-adds (the
// default suits sgemm; faster kernels need more to pay for a worker).
inline constexpr int64_t kMinThreadWork = int64_t{1} << 18;
int dot_threads(const DotShape& d, int threads, int64_t min_work = kMinThreadWork);

}  // namespace mlc::rt::blas
