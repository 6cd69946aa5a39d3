#include "runtime/onednn_gemm.h"

#include <algorithm>
#include <mutex>
#include <utility>

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
  std::string implementation;
  dnnl::matmul primitive;
  dnnl::memory a, b, c;
  dnnl::stream stream;
};

bool OneDnnGemm::preferred(const blas::DotShape& d, DType dtype) {
  if (is_half(dtype)) return true;
  return dtype == DType::f32 && d.batch * d.m * d.n * d.k >= kMinWork;
}

int64_t OneDnnGemm::min_thread_work(DType dtype) {
  if (!is_half(dtype)) return blas::kMinThreadWork;
  static const bool amx = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core_amx;
  return amx ? 16 * blas::kMinThreadWork : blas::kMinThreadWork;
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
      // the original row-major buffers (strides in elements). A batch of one
      // gets the dense batch stride: the share's may be smaller than one
      // matrix (a batch folded into the rows), and oneDNN's brgemm kernels
      // (AMX, AVX512-BF16) refuse such a descriptor, leaving bf16 to its
      // gemm:jit kernel at a small fraction of their rate. Any batch stride
      // is right for a batch of one; it is never applied.
      auto matrices = [](int64_t batches, int64_t batch_stride, int64_t r, int64_t c, bool trans, int64_t ld) {
        const dims inner = trans ? dims{1, ld} : dims{ld, 1};
        if (batches == 1) batch_stride = std::max(r * inner[0], c * inner[1]);
        return std::make_pair(dims{batches, r, c}, dims{batch_stride, inner[0], inner[1]});
      };
      const auto [a_dims, a_strides] = matrices(nb, share.a_stride, rows, d.k, d.trans_a, share.lda);
      const auto [b_dims, b_strides] = matrices(d.b_shared ? 1 : nb, share.b_stride, d.k, cols, d.trans_b, share.ldb);
      const auto [c_dims, c_strides] = matrices(nb, share.c_stride, rows, cols, false, share.ldc);
      dnnl::memory::desc a_md(a_dims, type, a_strides);
      dnnl::memory::desc b_md(b_dims, type, b_strides);
      dnnl::memory::desc c_md(c_dims, type, c_strides);
      // alpha scales the product, the sum post-op adds beta times C's old value.
      dnnl::primitive_attr attr;
      if (alpha != 1) attr.set_output_scales(0, {static_cast<float>(alpha)});
      if (beta != 0) {
        dnnl::post_ops post;
        post.append_sum(static_cast<float>(beta));
        attr.set_post_ops(post);
      }
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, cpu_engine());
      s->implementation = pd.impl_info_str();
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

std::string OneDnnGemm::implementation(int t) const { return shares_[static_cast<size_t>(t)]->implementation; }

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
