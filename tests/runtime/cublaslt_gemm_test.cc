// cuBLASLt's GEMM (runtime/cuda/cublaslt_gemm.h) without a GPU: the
// row-major to column-major mapping against a row-major matmul on the fake
// library (tests/runtime/fake_cuda.h), every dtype, every epilogue in
// cuBLASLt's terms, and the real library's acceptance of every descriptor
// attribute where the toolkit's libcublasLt is found.
#include "runtime/cuda/cublaslt_gemm.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "runtime/cuda/cuda_executor.h"
#include "runtime/cuda/cuda_target.h"
#include "runtime/gemm_epilogue.h"
#include "runtime/shared_library.h"
#include "tests/runtime/fake_cuda.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::rt {
namespace {

using namespace mlc::testing;
// The mapping, checked by evaluating cuBLAS's column-major definition on the
// row-major operands' bytes against the row-major matmul, for every
// transpose, batch and b_shared combination.
TEST(CublasLtGemm, ColumnMajorLayoutComputesTheRowMajorDot) {
  struct Dims {
    int64_t m, n, k;
  };
  for (Dims dims : {Dims{2, 3, 4}, Dims{5, 1, 3}, Dims{1, 1, 1}, Dims{4, 6, 2}, Dims{3, 3, 7}})
    for (int64_t batch : {1, 3})
      for (int bits = 0; bits < 8; ++bits) {
        blas::DotShape d{batch, dims.m, dims.n, dims.k, (bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
        const std::string what = "batch " + std::to_string(batch) + " m " + std::to_string(d.m) + " n " +
                                 std::to_string(d.n) + " k " + std::to_string(d.k) + " trans_a " +
                                 std::to_string(d.trans_a) + " trans_b " + std::to_string(d.trans_b) + " b_shared " +
                                 std::to_string(d.b_shared);
        const int64_t b_batches = d.b_shared ? 1 : batch;
        std::vector<double> a(static_cast<size_t>(batch * d.m * d.k)), b(static_cast<size_t>(b_batches * d.k * d.n));
        for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>((i * 7) % 11) - 5;
        for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>((i * 5) % 13) - 6;
        // The row-major dot (ir/ops.def): op(A[p]) op(B[p or 0]).
        std::vector<double> want(static_cast<size_t>(batch * d.m * d.n));
        for (int64_t p = 0; p < batch; ++p)
          for (int64_t i = 0; i < d.m; ++i)
            for (int64_t j = 0; j < d.n; ++j) {
              double s = 0;
              for (int64_t l = 0; l < d.k; ++l) {
                const double av = a[static_cast<size_t>(p * d.m * d.k + (d.trans_a ? l * d.m + i : i * d.k + l))];
                const int64_t pb = d.b_shared ? 0 : p;
                const double bv = b[static_cast<size_t>(pb * d.k * d.n + (d.trans_b ? j * d.k + l : l * d.n + j))];
                s += av * bv;
              }
              want[static_cast<size_t>(p * d.m * d.n + i * d.n + j)] = s;
            }
        const cuda::LtGemmLayout L = cuda::lt_gemm_layout(d);
        EXPECT_GE(L.a.ld, L.a.rows) << what;
        EXPECT_GE(L.b.ld, L.b.rows) << what;
        EXPECT_GE(L.c.ld, L.c.rows) << what;
        std::vector<double> got(want.size(), -1e9);
        bool in_bounds = true;
        auto at = [&](const std::vector<double>& v, int64_t e) {
          if (e < 0 || e >= static_cast<int64_t>(v.size())) return in_bounds = false, 0.0;
          return v[static_cast<size_t>(e)];
        };
        // cuBLAS's A is the dot's b, its B the dot's a.
        column_major_gemm(
            L, 1, 0, [&](int64_t e) { return at(b, e); }, [&](int64_t e) { return at(a, e); },
            [&](int64_t e) { return at(got, e); },
            [&](int64_t e, double v) {
              if (e < 0 || e >= static_cast<int64_t>(got.size())) in_bounds = false;
              else got[static_cast<size_t>(e)] = v;
            });
        EXPECT_TRUE(in_bounds) << what;
        EXPECT_EQ(got, want) << what;
        // A shared B with A not transposed folds the batches into the rows.
        EXPECT_EQ(L.batch, d.b_shared && !d.trans_a ? 1 : batch) << what;
      }
}

TEST(CublasLtGemm, RunsEveryDtypeOnTheFakeLibrary) {
  fake_cuda().reset();
  const cuda::CublasLt& lt = fake_cublaslt();
  cuda::cublasLtHandle_t handle = nullptr;
  ASSERT_EQ(lt.cublasLtCreate(&handle), 0);
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    const blas::DotShape d{2, 3, 4, 5, true, false, false};
    const double alpha = is_half(t) ? 1 : 0.5, beta = is_half(t) ? 0 : 2;
    const size_t es = static_cast<size_t>(dtype_size(t));
    std::vector<double> a(2 * 3 * 5), b(2 * 5 * 4), c(2 * 3 * 4);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 5) - 2;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(i % 3) - 1;
    for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<double>(i % 4);
    auto bytes = [&](const std::vector<double>& v) {
      std::vector<std::byte> out(v.size() * es);
      const int32_t type = t == DType::f32 ? cuda::kCudaR32F : t == DType::f64 ? cuda::kCudaR64F
                           : t == DType::bf16 ? cuda::kCudaR16BF : cuda::kCudaR16F;
      for (size_t i = 0; i < v.size(); ++i) fake_detail::store(type, out.data(), static_cast<int64_t>(i), v[i]);
      return out;
    };
    std::vector<std::byte> A = bytes(a), B = bytes(b), C = bytes(c);
    const auto addr = [](std::vector<std::byte>& v) { return static_cast<cuda::CUdeviceptr>(reinterpret_cast<uintptr_t>(v.data())); };
    auto g = cuda::CublasLtGemm::create(fake_driver(), lt, handle, GemmParams{t, d, alpha, beta},
                                        {addr(A), addr(B), addr(C)}, cuda::kGemmWorkspaceBytes, false);
    ASSERT_TRUE(g.ok()) << g.error().message;
    EXPECT_EQ((*g)->library(), "cuBLASLt");
    ASSERT_TRUE((*g)->run(nullptr, addr(A), addr(B), addr(C), 0).ok());
    std::vector<double> want(c.size());
    blas::dot(d, a.data(), b.data(), want.data());
    const int32_t type = t == DType::f32 ? cuda::kCudaR32F : t == DType::f64 ? cuda::kCudaR64F
                         : t == DType::bf16 ? cuda::kCudaR16BF : cuda::kCudaR16F;
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(fake_detail::load(type, C.data(), static_cast<int64_t>(i)), alpha * want[i] + beta * c[i])
          << dtype_name(t) << " element " << i;
  }
  lt.cublasLtDestroy(handle);
  EXPECT_EQ(fake_cuda().allocations, 0);
}

constexpr GemmEpilogue kEpilogues[] = {GemmEpilogue::bias,          GemmEpilogue::relu,
                                       GemmEpilogue::bias_relu,     GemmEpilogue::gelu,
                                       GemmEpilogue::bias_gelu,     GemmEpilogue::gelu_aux,
                                       GemmEpilogue::bias_gelu_aux, GemmEpilogue::dgelu,
                                       GemmEpilogue::dgelu_bgrad,   GemmEpilogue::bgradb};
static_assert(std::size(kEpilogues) == kGemmEpilogues - 1, "every epilogue but none");

// Each epilogue through create(): the descriptor gets cuBLASLt's epilogue,
// the bias (or bgradb's gradient) pointer and type, the aux pointer and ld;
// the fake evaluates cuBLASLt's column-major definition, which gives the
// row-major epilogue of runtime/executable.h (the host's,
// runtime/gemm_epilogue.h) for every transpose and a batch folded into rows.
TEST(CublasLtGemm, EpiloguesAreTheRowMajorOnesInCublasLtsTerms) {
  fake_cuda().reset();
  const cuda::CublasLt& lt = fake_cublaslt();
  cuda::cublasLtHandle_t handle = nullptr;
  ASSERT_EQ(lt.cublasLtCreate(&handle), 0);
  for (GemmEpilogue ep : kEpilogues)
    for (int bits = 0; bits < 5; ++bits) {
      // bits 0-3: trans_a, trans_b of one product; 4: two batches folded into rows.
      const bool fold = bits == 4;
      if (fold && ep == GemmEpilogue::bgradb) continue;
      const blas::DotShape d{fold ? 2 : 1, 3, 4, 5, !fold && (bits & 1) != 0, (bits & 2) != 0, fold};
      const std::string what = std::string(gemm_epilogue_name(ep)) + " bits " + std::to_string(bits);
      const int64_t rows = d.batch * d.m;
      std::vector<float> a(static_cast<size_t>(rows * d.k)), b(static_cast<size_t>(d.k * d.n)),
          c(static_cast<size_t>(rows * d.n)), bias(static_cast<size_t>(d.n)), aux(c.size()),
          more(ep == GemmEpilogue::bgradb        ? static_cast<size_t>(d.m)
               : ep == GemmEpilogue::dgelu_bgrad ? static_cast<size_t>(d.n)
                                                 : c.size());
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 11) * 0.25f - 1.25f;
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5) % 13) * 0.125f - 0.75f;
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) * 0.5f - 0.75f;
      for (size_t i = 0; i < aux.size(); ++i) aux[i] = static_cast<float>((i * 3) % 7) * 0.5f - 1.5f;
      const GemmParams g{DType::f32, d, 1, 0, ep};
      // The row-major reference: the product rounded to f32, then the host's epilogue.
      std::vector<double> A(a.begin(), a.end()), B(b.begin(), b.end()), P(c.size());
      blas::dot(d, A.data(), B.data(), P.data());
      std::vector<float> want(P.begin(), P.end()), want_more(more.size());
      const bool takes_aux = epilogue_has_dgelu(ep);
      apply_gemm_epilogue(g, reinterpret_cast<const std::byte*>(a.data()),
                          reinterpret_cast<const std::byte*>(takes_aux ? aux.data() : bias.data()), want.data(),
                          reinterpret_cast<std::byte*>(want.data()), reinterpret_cast<std::byte*>(want_more.data()));
      auto addr = [](auto& v) { return static_cast<cuda::CUdeviceptr>(reinterpret_cast<uintptr_t>(v.data())); };
      cuda::GemmAddresses at{addr(a), addr(b), addr(c)};
      if (epilogue_operands(ep)) at.extra = takes_aux ? addr(aux) : addr(bias);
      if (epilogue_results(ep)) at.more = addr(more);
      auto x = cuda::CublasLtGemm::create(fake_driver(), lt, handle, g, at, cuda::kGemmWorkspaceBytes, false);
      ASSERT_TRUE(x.ok()) << what << ": " << x.error().message;
      ASSERT_TRUE((*x)->run(nullptr, addr(a), addr(b), addr(c), 0).ok()) << what;
      const LtEpilogueAttrs& set = fake_cuda().epilogues.back();
      EXPECT_EQ(set.epilogue, cuda::lt_epilogue(ep)) << what;
      const bool bias_ptr = epilogue_has_bias(ep) || epilogue_has_bias_gradient(ep);
      EXPECT_EQ(set.bias, bias_ptr ? reinterpret_cast<void*>(epilogue_has_bias_gradient(ep) ? at.more : at.extra)
                                   : nullptr)
          << what;
      EXPECT_EQ(set.bias_type, bias_ptr ? cuda::kCudaR32F : -1) << what;
      const bool aux_ptr = epilogue_stores_aux(ep) || takes_aux;
      EXPECT_EQ(set.aux, aux_ptr ? reinterpret_cast<void*>(takes_aux ? at.extra : at.more) : nullptr) << what;
      EXPECT_EQ(set.aux_ld, aux_ptr ? d.n : 0) << what;
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(c[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << what << " element " << i;
      if (epilogue_results(ep))
        for (size_t i = 0; i < want_more.size(); ++i)
          EXPECT_NEAR(more[i], want_more[i], 1e-5 * (1 + std::fabs(want_more[i]))) << what << " more " << i;
    }
  lt.cublasLtDestroy(handle);
}

// The real library (where the toolkit's libcublasLt is found) accepts every
// descriptor attribute as create() sets it, for every dtype and layout: it
// refuses a value of the wrong size, naming it. Without a GPU there is no
// handle, so the heuristic, which comes after, fails.
TEST(CublasLtGemm, TheRealLibraryAcceptsEveryAttribute) {
  auto lt = cuda::cublaslt();
  if (!lt.ok()) GTEST_SKIP() << lt.error().message;
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16})
    for (int bits = 0; bits < 8; ++bits)
      for (bool tf32 : {false, true}) {
        const blas::DotShape d{3, 64, 32, 16, (bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
        auto g = cuda::CublasLtGemm::create(fake_driver(), **lt, nullptr, GemmParams{t, d, 1, 0}, {256, 4096, 65536},
                                            cuda::kGemmWorkspaceBytes, tf32);
        ASSERT_FALSE(g.ok());
        EXPECT_NE(g.error().message.find(": cublasLtMatmulAlgoGetHeuristic failed: CUBLAS_STATUS_NOT_INITIALIZED"),
                  std::string::npos)
            << g.error().message;
      }
  // Every epilogue's attributes, on every dtype that takes one.
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    for (GemmEpilogue ep : kEpilogues) {
      const blas::DotShape d{1, 64, 32, 16, ep == GemmEpilogue::bgradb, false, true};
      auto g = cuda::CublasLtGemm::create(fake_driver(), **lt, nullptr, GemmParams{t, d, 1, 0, ep},
                                          {256, 4096, 65536, 1 << 20, 1 << 21}, cuda::kGemmWorkspaceBytes, false);
      ASSERT_FALSE(g.ok());
      EXPECT_NE(g.error().message.find(": cublasLtMatmulAlgoGetHeuristic failed: CUBLAS_STATUS_NOT_INITIALIZED"),
                std::string::npos)
          << g.error().message;
    }
}

}  // namespace
}  // namespace mlc::rt
