// Kernels for the "cuda" target's tests (tests/runtime/cuda_test_executables.h),
// written to the contract of compiler/gpu/kernel_source.h: one pointer per
// buffer (operands, then results), then the status word, which a kernel sets
// to 1 where a checked index is out of range (reading element 0 instead).
// Sizes are the tests' own. kernels_sm_90.cubin is this file compiled by
//   nvcc -cubin -arch=sm_90 -o kernels_sm_90.cubin kernels.cu
// for GPU machines without nvcc; the tests compile it for the GPU's arch
// where nvcc is on PATH.

#define MLC_KERNEL extern "C" __global__ void __launch_bounds__(256)

__device__ long mlc_thread() { return (long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ long mlc_threads() { return (long)gridDim.x * blockDim.x; }

// y = x + 1, x and y f32[2,3]
MLC_KERNEL add_one(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ mlc_status) {
  for (long i = mlc_thread(); i < 6; i += mlc_threads()) y[i] = x[i] + 1.0f;
}

// y = x * 0.5 in place (x == y), f32[3,2]
MLC_KERNEL halve(const float* x, float* y, int* __restrict__ mlc_status) {
  for (long i = mlc_thread(); i < 6; i += mlc_threads()) y[i] = x[i] * 0.5f;
}

// y = x, i32[3]
MLC_KERNEL copy_idx(const int* __restrict__ x, int* __restrict__ y, int* __restrict__ mlc_status) {
  for (long i = mlc_thread(); i < 3; i += mlc_threads()) y[i] = x[i];
}

// out[i] = table[idx[i]], table f32[4], idx i32[3], indices checked against [0, 4)
MLC_KERNEL gather(const float* __restrict__ table, const int* __restrict__ idx, float* __restrict__ out,
                  int* __restrict__ mlc_status) {
  for (long i = mlc_thread(); i < 3; i += mlc_threads()) {
    int j = idx[i];
    if (j < 0 || j >= 4) {
      *mlc_status = 1;
      j = 0;
    }
    out[i] = table[j];
  }
}

// y = 0 (i32[3]), x f32[3] unread: overwrites the bytes gather's indices had
MLC_KERNEL zero_idx(const float* __restrict__ x, int* __restrict__ y, int* __restrict__ mlc_status) {
  for (long i = mlc_thread(); i < 3; i += mlc_threads()) y[i] = 0;
}
