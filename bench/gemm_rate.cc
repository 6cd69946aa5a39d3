// The GEMMs of a compiled step against oneDNN's own rate on the same shapes:
// reads the JSON profile that `mlc run MODEL --profile=FILE` writes (every
// gemm instruction's dtype, shape, alpha, beta, calls and time;
// driver/profile.h) and times
// oneDNN's matmul primitive alone on each distinct shape, in this process,
// with contiguous operands and the same transposes.
//
//   gemm_rate PROFILE.json [--function train_step] [--threads 1] [--reps 7] [--min-ms 20]
//
// A shape's oneDNN time is the median over `reps` repetitions of a loop of
// calls lasting at least min-ms (two warm-up calls first; the same operands
// every call). A batched product with B shared (a weight) folds the batch into
// A's rows, as mlc's shares do; other batches are a batched matmul. The
// primitive is made outside the timing; its implementation name is printed.
// oneDNN's threads are limited with omp_set_num_threads, as mlc's are.
//
// Output: a Markdown table, one row per distinct shape (calls per run, mlc's
// and oneDNN's microseconds per call and GFLOP/s, their ratio), then the
// totals: the step's GEMM time under mlc and what oneDNN alone takes for the
// same calls, and the fraction of oneDNN's rate that mlc's GEMMs reach.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>

namespace {

struct Gemm {
  std::string dtype;
  int64_t batch, m, n, k;
  bool ta, tb, shared;
  double alpha, beta;
  auto key() const { return std::tie(dtype, batch, m, n, k, ta, tb, shared, alpha, beta); }
  bool operator<(const Gemm& o) const { return key() < o.key(); }
  double flop() const { return 2.0 * static_cast<double>(batch * m) * static_cast<double>(n * k); }
};

struct Measured {
  int64_t calls = 0;
  double ns = 0;  // mlc's, summed over calls
};

std::string arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], name)) return argv[i + 1];
  return fallback;
}

double now_ns() {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

dnnl::memory::data_type data_type(const std::string& dtype) {
  if (dtype == "bf16") return dnnl::memory::data_type::bf16;
  if (dtype == "f16") return dnnl::memory::data_type::f16;
  if (dtype == "f32") return dnnl::memory::data_type::f32;
  std::fprintf(stderr, "gemm_rate: oneDNN has no matmul for %s\n", dtype.c_str());
  std::exit(2);
}

// oneDNN's time per call of `g` (ns) and its implementation's name.
std::pair<double, std::string> time_onednn(const Gemm& g, int reps, double min_ms) {
  using dims = dnnl::memory::dims;
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const auto type = data_type(g.dtype);
  // B shared: one product of batch*m rows when A is not transposed.
  const bool fold = g.shared && !g.ta;
  const int64_t nb = fold ? 1 : g.batch, m = fold ? g.batch * g.m : g.m, nbb = g.shared ? 1 : nb;
  const dnnl::memory::desc a(dims{nb, m, g.k}, type, g.ta ? dims{m * g.k, 1, m} : dims{m * g.k, g.k, 1});
  const dnnl::memory::desc b(dims{nbb, g.k, g.n}, type, g.tb ? dims{g.k * g.n, 1, g.k} : dims{g.k * g.n, g.n, 1});
  const dnnl::memory::desc c(dims{nb, m, g.n}, type, dims{m * g.n, g.n, 1});
  // alpha scales the product, a sum post-op adds beta times C (mlc's gemm updates).
  dnnl::primitive_attr attr;
  if (g.alpha != 1) attr.set_output_scales(0, {static_cast<float>(g.alpha)});
  if (g.beta != 0) {
    dnnl::post_ops post;
    post.append_sum(static_cast<float>(g.beta));
    attr.set_post_ops(post);
  }
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, engine);
  const dnnl::matmul mm(pd);
  dnnl::memory am(a, engine), bm(b, engine), cm(c, engine);
  // Zeros: the kernels' speed does not depend on the values.
  std::memset(am.get_data_handle(), 0, a.get_size());
  std::memset(bm.get_data_handle(), 0, b.get_size());
  auto call = [&] {
    mm.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream.wait();
  };
  call();
  const double t0 = now_ns();
  call();
  const int64_t loop = std::max<int64_t>(1, static_cast<int64_t>(min_ms * 1e6 / std::max(now_ns() - t0, 1.0)));
  std::vector<double> per_call;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ns();
    for (int64_t i = 0; i < loop; ++i) call();
    per_call.push_back((now_ns() - t0) / static_cast<double>(loop));
  }
  std::nth_element(per_call.begin(), per_call.begin() + reps / 2, per_call.end());
  return {per_call[static_cast<size_t>(reps / 2)], pd.impl_info_str()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: gemm_rate PROFILE.json [--function train_step] [--threads 1] [--reps 7] [--min-ms 20]\n");
    return 2;
  }
  const std::string function = arg(argc, argv, "--function", "train_step");
  const int threads = std::max(1, std::atoi(arg(argc, argv, "--threads", "1").c_str()));
  const int reps = std::max(3, std::atoi(arg(argc, argv, "--reps", "7").c_str()));
  const double min_ms = std::atof(arg(argc, argv, "--min-ms", "20").c_str());
  omp_set_num_threads(threads);

  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "%s: error: cannot open\n", argv[1]);
    return 2;
  }
  const nlohmann::json profile = nlohmann::json::parse(in);
  const nlohmann::json* f = nullptr;
  for (const nlohmann::json& candidate : profile["functions"])
    if (candidate["function"] == function) {
      f = &candidate;
      break;
    }
  if (!f) {
    std::fprintf(stderr, "%s: error: no profile of @%s\n", argv[1], function.c_str());
    return 2;
  }
  const int64_t runs = (*f)["runs"];
  std::map<Gemm, Measured> gemms;
  for (const nlohmann::json& row : (*f)["instructions"]) {
    if (row["kind"] != "gemm") continue;
    if (!row.contains("gemm")) {
      std::fprintf(stderr, "%s: error: instruction %d is a gemm without its \"gemm\" shape (a profile of an older mlc?)\n",
                   argv[1], row.value("index", -1));
      return 2;
    }
    const nlohmann::json& g = row["gemm"];
    Measured& m = gemms[Gemm{g["dtype"], g["batch"], g["m"], g["n"], g["k"], g["transpose_a"], g["transpose_b"],
                             g["b_shared"], g["alpha"], g["beta"]}];
    m.calls += row["calls"].get<int64_t>();
    m.ns += row["total_ms"].get<double>() * 1e6;
  }

  std::printf("@%s, %lld runs, %d thread%s; oneDNN %d.%d.%d\n\n", function.c_str(), static_cast<long long>(runs),
              threads, threads == 1 ? "" : "s", dnnl_version()->major, dnnl_version()->minor, dnnl_version()->patch);
  std::printf("| dtype | batch x M x N x K | ta tb shared | alpha beta | calls/run | mlc us | oneDNN us | mlc GFLOP/s | oneDNN GFLOP/s | "
              "mlc/oneDNN rate | oneDNN kernel |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  double mlc_ns = 0, dnnl_ns = 0;
  for (const auto& [g, m] : gemms) {
    const auto [ns, impl] = time_onednn(g, reps, min_ms);
    const double mlc_per_call = m.ns / static_cast<double>(m.calls);
    mlc_ns += m.ns;
    dnnl_ns += ns * static_cast<double>(m.calls);
    std::printf("| %s | %lldx%lldx%lldx%lld | %c %c %c | %g %g | %lld | %.1f | %.1f | %.1f | %.1f | %.2f | %s |\n",
                g.dtype.c_str(), static_cast<long long>(g.batch), static_cast<long long>(g.m),
                static_cast<long long>(g.n), static_cast<long long>(g.k), g.ta ? 'T' : 'N', g.tb ? 'T' : 'N',
                g.shared ? 'S' : '-', g.alpha, g.beta, static_cast<long long>(m.calls / std::max<int64_t>(runs, 1)), mlc_per_call / 1e3,
                ns / 1e3, g.flop() / mlc_per_call, g.flop() / ns, ns / mlc_per_call, impl.c_str());
  }
  const double r = static_cast<double>(std::max<int64_t>(runs, 1));
  std::printf("\nGEMM time per run: mlc %.2f ms, oneDNN alone %.2f ms for the same calls: mlc's GEMMs at %.0f %% "
              "of oneDNN's rate\n",
              mlc_ns / r / 1e6, dnnl_ns / r / 1e6, 100 * dnnl_ns / std::max(mlc_ns, 1.0));
  return 0;
}
