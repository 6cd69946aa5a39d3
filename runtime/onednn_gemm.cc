#include "runtime/onednn_gemm.h"

#include <mutex>

#include <dnnl.hpp>

// libgomp's: oneDNN's Debian build threads with OpenMP; mlc's pool does the
// threading, so every thread that calls oneDNN asks it for one thread.
extern "C" void omp_set_num_threads(int);

namespace mlc::rt {

namespace {

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// One thread per oneDNN call, once per calling thread.
void single_threaded() {
  thread_local bool done = false;
  if (!done) {
    omp_set_num_threads(1);
    done = true;
  }
}

}  // namespace

struct OneDnnGemm::Share {
  int64_t a_offset = 0, b_offset = 0, c_offset = 0;  // elements
  bool empty = false;
  dnnl::matmul primitive;
  dnnl::memory a, b, c;
  dnnl::stream stream;
};

bool OneDnnGemm::preferred(const blas::DotShape& d, DType dtype) {
  return dtype == DType::f32 && d.batch * d.m * d.n * d.k >= kMinWork;
}

Expected<OneDnnGemm> OneDnnGemm::create(const blas::DotShape& d, int parts) {
  using dims = dnnl::memory::dims;
  using dt = dnnl::memory::data_type;
  const bool fold = d.b_shared && !d.trans_a;
  const int64_t batch = fold ? 1 : d.batch, m = fold ? d.batch * d.m : d.m;
  const bool by_batch = batch >= parts;
  OneDnnGemm g;
  try {
    for (int t = 0; t < parts; ++t) {
      auto s = std::make_shared<Share>();
      int64_t b0 = 0, b1 = batch, r0 = 0, r1 = m, c0 = 0, c1 = d.n;
      if (by_batch) {
        b0 = batch * t / parts;
        b1 = batch * (t + 1) / parts;
      } else if (parts > 1 && m >= d.n) {
        r0 = m * t / parts;
        r1 = m * (t + 1) / parts;
      } else if (parts > 1) {
        c0 = d.n * t / parts;
        c1 = d.n * (t + 1) / parts;
      }
      const int64_t nb = b1 - b0, rows = r1 - r0, cols = c1 - c0;
      s->empty = nb == 0 || rows == 0 || cols == 0 || d.k == 0;
      s->a_offset = b0 * d.m * d.k + (d.trans_a ? r0 : r0 * d.k);
      s->b_offset = (d.b_shared ? 0 : b0 * d.k * d.n) + (d.trans_b ? c0 * d.k : c0);
      s->c_offset = b0 * d.m * d.n + r0 * d.n + c0;
      if (s->empty) {
        g.shares_.push_back(std::move(s));
        continue;
      }
      // Logical A [nb, rows, k], B [1 or nb, k, cols], C [nb, rows, cols] over
      // the original row-major buffers (strides in elements).
      dnnl::memory::desc a_md(dims{nb, rows, d.k}, dt::f32,
                              d.trans_a ? dims{d.m * d.k, 1, d.m} : dims{d.m * d.k, d.k, 1});
      dnnl::memory::desc b_md(dims{d.b_shared ? 1 : nb, d.k, cols}, dt::f32,
                              d.trans_b ? dims{d.k * d.n, 1, d.k} : dims{d.k * d.n, d.n, 1});
      dnnl::memory::desc c_md(dims{nb, rows, cols}, dt::f32, dims{d.m * d.n, d.n, 1});
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), cpu_engine());
      s->primitive = dnnl::matmul(pd);
      s->a = dnnl::memory(a_md, cpu_engine(), DNNL_MEMORY_NONE);
      s->b = dnnl::memory(b_md, cpu_engine(), DNNL_MEMORY_NONE);
      s->c = dnnl::memory(c_md, cpu_engine(), DNNL_MEMORY_NONE);
      s->stream = dnnl::stream(cpu_engine());
      g.shares_.push_back(std::move(s));
    }
  } catch (const dnnl::error& e) {
    return make_error(std::string("mlc internal error: oneDNN matmul: ") + e.what());
  }
  return g;
}

void OneDnnGemm::run(int t, const float* a, const float* b, float* c) const {
  Share& s = *shares_[static_cast<size_t>(t)];
  if (s.empty) return;
  single_threaded();
  s.a.set_data_handle(const_cast<float*>(a) + s.a_offset);
  s.b.set_data_handle(const_cast<float*>(b) + s.b_offset);
  s.c.set_data_handle(c + s.c_offset);
  const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, s.a.get()}, {DNNL_ARG_WEIGHTS, s.b.get()}, {DNNL_ARG_DST, s.c.get()}};
  dnnl_primitive_execute(s.primitive.get(), s.stream.get(), 3, args);
  dnnl_stream_wait(s.stream.get());
}

}  // namespace mlc::rt
