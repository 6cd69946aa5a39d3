#include "runtime/cuda/cublaslt_gemm.h"

#include <limits>

namespace mlc::rt::cuda {

namespace {

// The largest power of two, at most 256 (cuBLASLt's default assumption), that
// divides the address and the batch stride in bytes: the alignment every
// matrix of the batch has.
uint32_t alignment_of(CUdeviceptr address, int64_t stride_bytes) {
  uint32_t a = 256;
  while (a > 1 && (address % a != 0 || stride_bytes % a != 0)) a /= 2;
  return a;
}

bool fits_int32(int64_t v) { return v >= 0 && v <= std::numeric_limits<int32_t>::max(); }
bool fits_int32(const LtMatrix& x) {
  return fits_int32(x.rows) && fits_int32(x.cols) && fits_int32(x.ld) && fits_int32(x.batch);
}

}  // namespace

LtGemmLayout lt_gemm_layout(const blas::DotShape& d) {
  LtGemmLayout L;
  // A shared B and an A not transposed: the batches are the rows of one product.
  const bool fold = d.b_shared && !d.trans_a && d.batch > 1;
  const int64_t rows = fold ? d.batch * d.m : d.m;  // the dot's rows per product
  L.batch = fold ? 1 : d.batch;
  L.m = d.n;
  L.n = rows;
  L.k = d.k;
  // cuBLAS's A: the dot's B, row-major [k, n] (or [n, k] transposed), which is
  // column-major [n, k] (or [k, n]); op(A) must be the (n x k) B^T.
  L.trans_a = d.trans_b ? kOpT : kOpN;
  L.a = d.trans_b ? LtMatrix{d.k, d.n, d.k} : LtMatrix{d.n, d.k, d.n};
  L.a.stride = d.b_shared ? 0 : d.k * d.n;
  // cuBLAS's B: the dot's A, row-major [m, k] (or [k, m]), which is
  // column-major [k, m] (or [m, k]); op(B) must be the (k x m) A^T.
  L.trans_b = d.trans_a ? kOpT : kOpN;
  L.b = d.trans_a ? LtMatrix{rows, d.k, rows} : LtMatrix{d.k, rows, d.k};
  L.b.stride = d.m * d.k;
  // C: row-major [m, n], column-major [n, m].
  L.c = LtMatrix{d.n, rows, d.n};
  L.c.stride = d.m * d.n;
  for (LtMatrix* x : {&L.a, &L.b, &L.c}) {
    x->batch = L.batch;
    if (x->ld < 1) x->ld = 1;
  }
  return L;
}

uint32_t lt_epilogue(GemmEpilogue e) {
  switch (e) {
    case GemmEpilogue::none: return kEpilogueDefault;
    case GemmEpilogue::bias: return kEpilogueBias;
    case GemmEpilogue::relu: return kEpilogueRelu;
    case GemmEpilogue::bias_relu: return kEpilogueReluBias;
    case GemmEpilogue::gelu: return kEpilogueGelu;
    case GemmEpilogue::bias_gelu: return kEpilogueGeluBias;
    case GemmEpilogue::gelu_aux: return kEpilogueGeluAux;
    case GemmEpilogue::bias_gelu_aux: return kEpilogueGeluAuxBias;
    case GemmEpilogue::dgelu: return kEpilogueDgelu;
    case GemmEpilogue::dgelu_bgrad: return kEpilogueDgeluBgrad;
    case GemmEpilogue::bgradb: return kEpilogueBgradb;
  }
  return kEpilogueDefault;
}

std::string gemm_shape_name(const GemmParams& g) {
  const blas::DotShape& d = g.shape;
  std::string s = "gemm " + std::string(dtype_name(g.dtype)) + " batch " + std::to_string(d.batch) + ", m " +
                  std::to_string(d.m) + ", n " + std::to_string(d.n) + ", k " + std::to_string(d.k);
  std::string flags;
  if (d.trans_a) flags += "trans_a";
  if (d.trans_b) flags += std::string(flags.empty() ? "" : ", ") + "trans_b";
  if (d.b_shared) flags += std::string(flags.empty() ? "" : ", ") + "b_shared";
  if (g.epilogue != GemmEpilogue::none)
    flags += std::string(flags.empty() ? "" : ", ") + "epilogue " + std::string(gemm_epilogue_name(g.epilogue));
  return flags.empty() ? s : s + " (" + flags + ")";
}

Expected<std::unique_ptr<CublasLtGemm>> CublasLtGemm::create(const CudaDriver& cu, const CublasLt& lt,
                                                               cublasLtHandle_t handle, const GemmParams& g,
                                                               GemmAddresses at, size_t workspace_bytes,
                                                               bool allow_tf32) {
  std::unique_ptr<CublasLtGemm> x(new CublasLtGemm(cu, lt));
  x->handle_ = handle;
  x->params_ = g;
  x->layout_ = lt_gemm_layout(g.shape);
  x->workspace_bytes_ = workspace_bytes;
  const LtGemmLayout& L = x->layout_;
  const int64_t esize = dtype_size(g.dtype);
  x->result_bytes_ = L.batch * L.m * L.n * esize;
  const std::string what = "cuda: " + gemm_shape_name(g);
  if (!fits_int32(L.m) || !fits_int32(L.n) || !fits_int32(L.k) || !fits_int32(L.a) || !fits_int32(L.b) ||
      !fits_int32(L.c))
    return make_error(what + ": a dimension exceeds cuBLASLt's int32 range");
  if (L.empty()) return x;
  if (L.k == 0) {
    if (g.beta != 0 && g.beta != 1)
      return make_error(what + ": an empty sum (k = 0) scaled by beta = " + std::to_string(g.beta) +
                        " has no CUDA form (only beta 0 or 1)");
    return x;
  }
  int32_t type, compute, scale = kCudaR32F;
  switch (g.dtype) {
    case DType::f32: type = kCudaR32F, compute = allow_tf32 ? kComputeF32FastTf32 : kComputeF32; break;
    case DType::f64: type = kCudaR64F, compute = kComputeF64, scale = kCudaR64F; break;
    case DType::bf16: type = kCudaR16BF, compute = kComputeF32; break;
    case DType::f16: type = kCudaR16F, compute = kComputeF32; break;
    default: return make_error(what + ": cuBLASLt has no " + std::string(dtype_name(g.dtype)) + " GEMM here");
  }
  x->alpha_f32_ = static_cast<float>(g.alpha);
  x->beta_f32_ = static_cast<float>(g.beta);
  x->alpha_f64_ = g.alpha;
  x->beta_f64_ = g.beta;

  MLC_CHECK_OK(lt.check(lt.cublasLtMatmulDescCreate(&x->desc_, compute, scale), what + ": cublasLtMatmulDescCreate"));
  MLC_CHECK_OK(lt.check(lt.cublasLtMatmulDescSetAttribute(x->desc_, kMatmulDescTransA, &L.trans_a, sizeof(int32_t)),
                        what + ": cublasLtMatmulDescSetAttribute(TRANSA)"));
  MLC_CHECK_OK(lt.check(lt.cublasLtMatmulDescSetAttribute(x->desc_, kMatmulDescTransB, &L.trans_b, sizeof(int32_t)),
                        what + ": cublasLtMatmulDescSetAttribute(TRANSB)"));
  if (g.epilogue != GemmEpilogue::none) {
    // Its attributes in cuBLAS's terms (lt_epilogue in the header).
    auto set = [&](int attribute, const void* value, size_t bytes, const char* name) {
      return lt.check(lt.cublasLtMatmulDescSetAttribute(x->desc_, attribute, value, bytes),
                      what + ": cublasLtMatmulDescSetAttribute(" + name + ")");
    };
    const uint32_t epilogue = lt_epilogue(g.epilogue);
    MLC_CHECK_OK(set(kMatmulDescEpilogue, &epilogue, sizeof epilogue, "EPILOGUE"));
    // The bias is read (the operand), a bias gradient written (the result).
    if (epilogue_has_bias(g.epilogue) || epilogue_has_bias_gradient(g.epilogue)) {
      const void* p = reinterpret_cast<const void*>(epilogue_has_bias(g.epilogue) ? at.extra : at.more);
      MLC_CHECK_OK(set(kMatmulDescBiasPointer, &p, sizeof p, "BIAS_POINTER"));
      MLC_CHECK_OK(set(kMatmulDescBiasDataType, &type, sizeof type, "BIAS_DATA_TYPE"));
    }
    // The aux is written (gelu_aux: the result) or read (dgelu: the operand).
    if (epilogue_stores_aux(g.epilogue) || epilogue_has_dgelu(g.epilogue)) {
      const void* p = reinterpret_cast<const void*>(epilogue_has_dgelu(g.epilogue) ? at.extra : at.more);
      const int64_t ld = L.c.ld;
      MLC_CHECK_OK(set(kMatmulDescEpilogueAuxPointer, &p, sizeof p, "EPILOGUE_AUX_POINTER"));
      MLC_CHECK_OK(set(kMatmulDescEpilogueAuxLd, &ld, sizeof ld, "EPILOGUE_AUX_LD"));
    }
  }
  auto make_layout = [&](const LtMatrix& m, cublasLtMatrixLayout_t& out) -> Status {
    MLC_CHECK_OK(lt.check(lt.cublasLtMatrixLayoutCreate(&out, type, static_cast<uint64_t>(m.rows),
                                                         static_cast<uint64_t>(m.cols), m.ld),
                          what + ": cublasLtMatrixLayoutCreate"));
    const int32_t batch = static_cast<int32_t>(m.batch);
    const int64_t stride = m.stride;
    MLC_CHECK_OK(lt.check(lt.cublasLtMatrixLayoutSetAttribute(out, kLayoutBatchCount, &batch, sizeof batch),
                          what + ": cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)"));
    MLC_CHECK_OK(lt.check(lt.cublasLtMatrixLayoutSetAttribute(out, kLayoutStridedBatchOffset, &stride, sizeof stride),
                          what + ": cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)"));
    return {};
  };
  MLC_CHECK_OK(make_layout(L.a, x->a_));
  MLC_CHECK_OK(make_layout(L.b, x->b_));
  MLC_CHECK_OK(make_layout(L.c, x->c_));

  cublasLtMatmulPreference_t pref = nullptr;
  MLC_CHECK_OK(lt.check(lt.cublasLtMatmulPreferenceCreate(&pref), what + ": cublasLtMatmulPreferenceCreate"));
  struct PrefFree {
    const CublasLt& lt;
    cublasLtMatmulPreference_t p;
    ~PrefFree() { lt.cublasLtMatmulPreferenceDestroy(p); }
  } pref_free{lt, pref};
  const uint64_t max_workspace = workspace_bytes;
  MLC_CHECK_OK(lt.check(lt.cublasLtMatmulPreferenceSetAttribute(pref, kPrefMaxWorkspaceBytes, &max_workspace,
                                                                sizeof max_workspace),
                        what + ": cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)"));
  // cuBLAS's A is the dot's b, its B the dot's a; C and D are the result.
  const int64_t batches = L.batch > 1 ? esize : 0;  // a batch stride counts only where there are batches
  const uint32_t align[4] = {alignment_of(at.b, L.a.stride * batches), alignment_of(at.a, L.b.stride * batches),
                             alignment_of(at.c, L.c.stride * batches), alignment_of(at.c, L.c.stride * batches)};
  const int align_attr[4] = {kPrefMinAlignmentA, kPrefMinAlignmentB, kPrefMinAlignmentC, kPrefMinAlignmentD};
  for (int i = 0; i < 4; ++i)
    MLC_CHECK_OK(lt.check(lt.cublasLtMatmulPreferenceSetAttribute(pref, align_attr[i], &align[i], sizeof align[i]),
                          what + ": cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)"));
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  MLC_CHECK_OK(lt.check(lt.cublasLtMatmulAlgoGetHeuristic(handle, x->desc_, x->a_, x->b_, x->c_, x->c_, pref, 1,
                                                           &result, &returned),
                        what + ": cublasLtMatmulAlgoGetHeuristic"));
  if (returned < 1 || result.state != kCublasSuccess || result.workspaceSize > workspace_bytes)
    return make_error(what + ": cuBLASLt (" + lt.library + ") has no algorithm for it on this GPU" +
                      (g.epilogue != GemmEpilogue::none ? " (mlc run --no-gemm-epilogues computes the "
                                                               "epilogue's ops as kernels instead)"
                                                             : ""));
  x->algo_ = result.algo;
  return x;
}

CublasLtGemm::~CublasLtGemm() {
  if (desc_) lt_.cublasLtMatmulDescDestroy(desc_);
  for (cublasLtMatrixLayout_t l : {a_, b_, c_})
    if (l) lt_.cublasLtMatrixLayoutDestroy(l);
}

Status CublasLtGemm::run(CUstream stream, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace) const {
  const LtGemmLayout& L = layout_;
  if (L.empty()) return {};
  if (L.k == 0) {
    // beta * c with beta 0 or 1 (create refused others): zeros, or c as it is.
    if (params_.beta != 0) return {};
    return cu_.check(cu_.cuMemsetD8Async(c, 0, static_cast<size_t>(result_bytes_), stream),
                     "cuda: " + gemm_shape_name(params_) + ": cuMemsetD8Async");
  }
  const bool f64 = params_.dtype == DType::f64;
  const void* alpha = f64 ? static_cast<const void*>(&alpha_f64_) : &alpha_f32_;
  const void* beta = f64 ? static_cast<const void*>(&beta_f64_) : &beta_f32_;
  // cuBLAS's A is the dot's b, its B the dot's a (see the header).
  const cublasStatus_t s = lt_.cublasLtMatmul(
      handle_, desc_, alpha, reinterpret_cast<const void*>(b), a_, reinterpret_cast<const void*>(a), b_, beta,
      reinterpret_cast<const void*>(c), c_, reinterpret_cast<void*>(c), c_, &algo_, reinterpret_cast<void*>(workspace),
      workspace_bytes_, stream);
  if (s == kCublasSuccess) return {};
  return make_error(lt_.error_text("cuda: " + gemm_shape_name(params_) + ": cublasLtMatmul", s));
}

}  // namespace mlc::rt::cuda
