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
  int64_t a_offset = 0, b_offset = 0, c_offset = 0;  // bytes
  bool empty = false;
  dnnl::matmul primitive;
  dnnl::memory a, b, c;
  dnnl::stream stream;
};

bool OneDnnGemm::preferred(const blas::DotShape& d, DType dtype) {
  if (dtype == DType::bf16 || dtype == DType::f16) return true;
  return dtype == DType::f32 && d.batch * d.m * d.n * d.k >= kMinWork;
}

Expected<OneDnnGemm> OneDnnGemm::create(const blas::DotShape& d, int parts, double alpha, double beta, DType dtype) {
  using dims = dnnl::memory::dims;
  using dt = dnnl::memory::data_type;
  const dt type = dtype == DType::bf16 ? dt::bf16 : dtype == DType::f16 ? dt::f16 : dt::f32;
  const int64_t bytes = dtype_size(dtype);
  OneDnnGemm g;
  try {
    for (int t = 0; t < parts; ++t) {
      auto s = std::make_shared<Share>();
      const blas::DotShare share = blas::dot_share(d, parts, t);
      const int64_t nb = share.batches, rows = share.rows, cols = share.cols;
      s->empty = share.empty() || d.k == 0;
      s->a_offset = share.a_offset * bytes;
      s->b_offset = share.b_offset * bytes;
      s->c_offset = share.c_offset * bytes;
      if (s->empty) {
        g.shares_.push_back(std::move(s));
        continue;
      }
      // Logical A [nb, rows, k], B [1 or nb, k, cols], C [nb, rows, cols] over
      // the original row-major buffers (strides in elements).
      const int64_t b_stride = d.b_shared ? d.k * d.n : share.b_stride;
      dnnl::memory::desc a_md(dims{nb, rows, d.k}, type,
                              d.trans_a ? dims{share.a_stride, 1, share.lda} : dims{share.a_stride, share.lda, 1});
      dnnl::memory::desc b_md(dims{d.b_shared ? 1 : nb, d.k, cols}, type,
                              d.trans_b ? dims{b_stride, 1, share.ldb} : dims{b_stride, share.ldb, 1});
      dnnl::memory::desc c_md(dims{nb, rows, cols}, type, dims{share.c_stride, share.ldc, 1});
      // alpha scales the product, the sum post-op adds beta times C's old value.
      dnnl::primitive_attr attr;
      if (alpha != 1) attr.set_output_scales(0, {static_cast<float>(alpha)});
      if (beta != 0) {
        dnnl::post_ops post;
        post.append_sum(static_cast<float>(beta));
        attr.set_post_ops(post);
      }
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, cpu_engine());
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

void OneDnnGemm::run(int t, const void* a, const void* b, void* c) const {
  Share& s = *shares_[static_cast<size_t>(t)];
  if (s.empty) return;
  single_threaded();
  s.a.set_data_handle(static_cast<char*>(const_cast<void*>(a)) + s.a_offset);
  s.b.set_data_handle(static_cast<char*>(const_cast<void*>(b)) + s.b_offset);
  s.c.set_data_handle(static_cast<char*>(c) + s.c_offset);
  const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, s.a.get()}, {DNNL_ARG_WEIGHTS, s.b.get()}, {DNNL_ARG_DST, s.c.get()}};
  dnnl_primitive_execute(s.primitive.get(), s.stream.get(), 3, args);
  dnnl_stream_wait(s.stream.get());
}

}  // namespace mlc::rt
