// Times single-precision GEMM in OpenBLAS (cblas_sgemm), oneDNN (the matmul
// primitive) and libxsmm (JIT kernels from libxsmm_smmdispatch) on a list of
// shapes, one library and one thread count per process.
//
//   gemm_libs --lib openblas|onednn|libxsmm --shapes FILE [--threads N]
//             [--reps 7] [--min-ms 10] [--tag TEXT]
//   gemm_libs --list      (the libraries built in)
//
// FILE holds lines `model ta tb M N K calls labels` (bench/gemm_shapes.py; `#`
// starts a comment): row-major C[M,N] = op(A) op(B), A [M,K] ([K,M] when
// ta = T), B [K,N] ([N,K] when tb = T), alpha 1, beta 0, operands contiguous.
// A `peak N N 1024 1024 1024 1 sgemm-1024` line is always measured first.
//
// Per shape: two warm-up calls, then `reps` repetitions of a loop of as many
// calls as make one repetition last at least min-ms (the same operands every
// call, so small shapes run from cache); the result is the median time per call
// over the repetitions. 64 entries of C are checked against a double-precision
// dot product (relative error to the largest |C| entry checked).
//
// Library details: OpenBLAS reads OPENBLAS_CORETYPE when it loads (the kernel
// in use is printed); oneDNN's primitive is created once per shape outside the
// timing (its implementation name is printed); libxsmm's kernels are
// single-threaded and column-major, so C^T = op(B)^T op(A)^T is dispatched;
// where no kernel with the needed transpose exists the operand is transposed
// with libxsmm_otrans inside the timed loop (reported as "otrans+kernel").
//
// Output: one tab-separated line per shape on stdout:
//   tag lib threads model ta tb M N K calls us_per_call gflops rel_err impl
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifdef MLC_BENCH_ONEDNN
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef MLC_BENCH_LIBXSMM
#include <libxsmm.h>
#endif

namespace {

struct Shape {
  std::string model;
  bool ta = false, tb = false;
  long m = 0, n = 0, k = 0, calls = 1;
  std::string labels;
};

struct Buffer {
  float* p = nullptr;
  size_t n = 0;
  explicit Buffer(size_t count) : n(count) {
    p = static_cast<float*>(std::aligned_alloc(64, ((count * sizeof(float) + 63) / 64) * 64 + 64));
    if (!p) {
      std::fprintf(stderr, "out of memory\n");
      std::exit(1);
    }
  }
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

std::vector<Shape> read_shapes(const std::string& path) {
  std::vector<Shape> out;
  out.push_back({"peak", false, false, 1024, 1024, 1024, 1, "sgemm-1024"});
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot open\n", path.c_str());
    std::exit(2);
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Shape sh;
    std::string ta, tb;
    if (!(s >> sh.model >> ta >> tb >> sh.m >> sh.n >> sh.k >> sh.calls)) {
      std::fprintf(stderr, "%s: bad line: %s\n", path.c_str(), line.c_str());
      std::exit(2);
    }
    s >> sh.labels;
    sh.ta = ta == "T";
    sh.tb = tb == "T";
    out.push_back(sh);
  }
  return out;
}

// Relative error of 64 sampled entries of C against a double-precision product.
double check(const Shape& s, const float* a, const float* b, const float* c) {
  std::mt19937 rng(1);
  double worst = 0, scale = 1e-30;
  for (int t = 0; t < 64; ++t) {
    long i = rng() % s.m, j = rng() % s.n;
    double ref = 0;
    for (long p = 0; p < s.k; ++p)
      ref += double(s.ta ? a[p * s.m + i] : a[i * s.k + p]) * double(s.tb ? b[j * s.k + p] : b[p * s.n + j]);
    worst = std::max(worst, std::fabs(ref - c[i * s.n + j]));
    scale = std::max(scale, std::fabs(ref));
  }
  return worst / scale;
}

// Median seconds per call of fn.
double time_per_call(const std::function<void()>& fn, int reps, double min_ms) {
  using Clock = std::chrono::steady_clock;
  fn();
  fn();
  auto t0 = Clock::now();
  fn();
  double one = std::chrono::duration<double>(Clock::now() - t0).count();
  long iters = std::max(1L, static_cast<long>(std::ceil(min_ms * 1e-3 / std::max(one, 1e-9))));
  std::vector<double> per_call;
  for (int r = 0; r < reps; ++r) {
    auto s = Clock::now();
    for (long i = 0; i < iters; ++i) fn();
    per_call.push_back(std::chrono::duration<double>(Clock::now() - s).count() / iters);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

// A prepared call of one library on one shape: run() computes C; impl names it.
struct Prepared {
  std::function<void()> run;
  std::string impl;
};

Prepared prepare_openblas(const Shape& s, const float* a, const float* b, float* c) {
  const int lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n;
  return {[=] {
            cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, s.m, s.n,
                        s.k, 1.0f, a, lda, b, ldb, 0.0f, c, s.n);
          },
          std::string("cblas_sgemm ") + openblas_get_corename()};
}

#ifdef MLC_BENCH_ONEDNN
struct OneDnn {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Prepared prepare_onednn(OneDnn& d, const Shape& s, const float* a, const float* b, float* c) {
  using dnnl::memory;
  using dims = memory::dims;
  memory::desc a_md({s.m, s.k}, memory::data_type::f32, s.ta ? dims{1, s.m} : dims{s.k, 1});
  memory::desc b_md({s.k, s.n}, memory::data_type::f32, s.tb ? dims{1, s.k} : dims{s.n, 1});
  memory::desc c_md({s.m, s.n}, memory::data_type::f32, dims{s.n, 1});
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), d.engine);
  auto prim = std::make_shared<dnnl::matmul>(pd);
  auto ma = std::make_shared<memory>(a_md, d.engine, const_cast<float*>(a));
  auto mb = std::make_shared<memory>(b_md, d.engine, const_cast<float*>(b));
  auto mc = std::make_shared<memory>(c_md, d.engine, c);
  OneDnn* dp = &d;
  return {[=] {
            prim->execute(dp->stream, {{DNNL_ARG_SRC, *ma}, {DNNL_ARG_WEIGHTS, *mb}, {DNNL_ARG_DST, *mc}});
            dp->stream.wait();
          },
          std::string("matmul ") + pd.impl_info_str()};
}
#endif

#ifdef MLC_BENCH_LIBXSMM
// Column-major view: C^T [N x M] = X [N x K] * Y [K x M] with X = op(B)^T, Y = op(A)^T.
// B's memory is X as is (ld N) unless tb (then it is X^T, ld K); A's memory is
// Y as is (ld K) unless ta (then Y^T, ld M).
Prepared prepare_libxsmm(const Shape& s, const float* a, const float* b, float* c,
                         std::vector<std::unique_ptr<Buffer>>& scratch) {
  const float alpha = 1.0f, beta = 0.0f;
  const int prefetch = LIBXSMM_PREFETCH_NONE;
  const libxsmm_blasint m = s.n, n = s.m, k = s.k, ldc = s.n;
  libxsmm_blasint ldx = s.tb ? s.k : s.n, ldy = s.ta ? s.m : s.k;
  int flags = (s.tb ? LIBXSMM_GEMM_FLAG_TRANS_A : 0) | (s.ta ? LIBXSMM_GEMM_FLAG_TRANS_B : 0);
  libxsmm_smmfunction f = libxsmm_smmdispatch(m, n, k, &ldx, &ldy, &ldc, &alpha, &beta, &flags, &prefetch);
  if (f) return {[=] { f(b, a, c); }, flags ? "kernel (transpose flags)" : "kernel"};
  // No kernel with the transpose: transpose the operand(s) with libxsmm_otrans first.
  const float* x = b;
  const float* y = a;
  float* xt = nullptr;
  float* yt = nullptr;
  if (s.tb) {
    scratch.push_back(std::make_unique<Buffer>(size_t(s.n) * s.k));
    xt = scratch.back()->p;
    ldx = s.n;
  }
  if (s.ta) {
    scratch.push_back(std::make_unique<Buffer>(size_t(s.k) * s.m));
    yt = scratch.back()->p;
    ldy = s.k;
  }
  int plain = 0;
  f = libxsmm_smmdispatch(m, n, k, &ldx, &ldy, &ldc, &alpha, &beta, &plain, &prefetch);
  if (!f) return {nullptr, "no kernel"};
  const long sm = s.m, sn = s.n, sk = s.k;
  return {[=] {
            // memory of B when tb: col-major K x N (ld K) -> X: N x K (ld N)
            if (xt) libxsmm_otrans(xt, x, sizeof(float), sk, sn, sk, sn);
            // memory of A when ta: col-major M x K (ld M) -> Y: K x M (ld K)
            if (yt) libxsmm_otrans(yt, y, sizeof(float), sm, sk, sm, sk);
            f(xt ? xt : x, yt ? yt : y, c);
          },
          "otrans+kernel"};
}
#endif

std::string arg(int argc, char** argv, const char* name, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], name)) return argv[i + 1];
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && !std::strcmp(argv[1], "--list")) {
    std::printf("openblas"
#ifdef MLC_BENCH_ONEDNN
                " onednn"
#endif
#ifdef MLC_BENCH_LIBXSMM
                " libxsmm"
#endif
                "\n");
    return 0;
  }
  const std::string lib = arg(argc, argv, "--lib", "");
  const std::string shapes_path = arg(argc, argv, "--shapes", "");
  const std::string tag = arg(argc, argv, "--tag", "-");
  const int threads = std::max(1, std::atoi(arg(argc, argv, "--threads", "1").c_str()));
  const int reps = std::max(5, std::atoi(arg(argc, argv, "--reps", "7").c_str()));
  const double min_ms = std::atof(arg(argc, argv, "--min-ms", "10").c_str());
  if (lib.empty() || shapes_path.empty()) {
    std::fprintf(stderr,
                 "usage: gemm_libs --lib openblas|onednn|libxsmm --shapes FILE [--threads N] [--reps 7] "
                 "[--min-ms 10] [--tag TEXT]\n");
    return 2;
  }
  openblas_set_num_threads(lib == "openblas" ? threads : 1);
#ifdef MLC_BENCH_ONEDNN
  omp_set_num_threads(threads);
  std::unique_ptr<OneDnn> dnn;
  if (lib == "onednn") dnn = std::make_unique<OneDnn>();
#endif
#ifdef MLC_BENCH_LIBXSMM
  if (lib == "libxsmm") {
    if (threads != 1) {
      std::fprintf(stderr, "libxsmm kernels are single-threaded: use --threads 1\n");
      return 2;
    }
    libxsmm_init();
  }
#endif
  if (lib != "openblas"
#ifdef MLC_BENCH_ONEDNN
      && lib != "onednn"
#endif
#ifdef MLC_BENCH_LIBXSMM
      && lib != "libxsmm"
#endif
  ) {
    std::fprintf(stderr, "library '%s' is not built in\n", lib.c_str());
    return 2;
  }
  std::vector<Shape> shapes = read_shapes(shapes_path);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const Shape& s : shapes) {
    Buffer a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
    for (size_t i = 0; i < a.n; ++i) a.p[i] = dist(rng);
    for (size_t i = 0; i < b.n; ++i) b.p[i] = dist(rng);
    std::fill(c.p, c.p + c.n, std::nanf(""));
    std::vector<std::unique_ptr<Buffer>> scratch;
    Prepared prep;
    if (lib == "openblas") prep = prepare_openblas(s, a.p, b.p, c.p);
#ifdef MLC_BENCH_ONEDNN
    if (lib == "onednn") prep = prepare_onednn(*dnn, s, a.p, b.p, c.p);
#endif
#ifdef MLC_BENCH_LIBXSMM
    if (lib == "libxsmm") prep = prepare_libxsmm(s, a.p, b.p, c.p, scratch);
#endif
    double sec = NAN, err = NAN;
    if (prep.run) {
      prep.run();
      err = check(s, a.p, b.p, c.p);
      sec = time_per_call(prep.run, reps, min_ms);
    }
    std::printf("%s\t%s\t%d\t%s\t%c\t%c\t%ld\t%ld\t%ld\t%ld\t%.3f\t%.2f\t%.1e\t%s\n", tag.c_str(), lib.c_str(),
                threads, s.model.c_str(), s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.m, s.n, s.k, s.calls, sec * 1e6,
                2.0 * s.m * s.n * s.k / sec / 1e9, err, prep.impl.c_str());
    std::fflush(stdout);
  }
  return 0;
}
