// The two dialects' preludes (compiler/gpu/kernel_source.h): everything in
// which CUDA C and OpenCL C differ, as macros and small functions, so that the
// kernel functions after them are the same text in both.
#include "compiler/gpu/kernel_source.h"

namespace mlc::gpu {

namespace {

// What both dialects share, written against the macros each defines first:
// runtime/half.h's conversions of bf16 and f16 bit patterns, bit for bit,
// on integers only (no conversion instructions: some flush subnormals).
constexpr std::string_view kCommon = R"(
MLC_FN float mlc_bf16_to_f32(u16 h) { return MLC_BITS_F32(((u32)h) << 16); }
MLC_FN u16 mlc_f32_to_bf16(float f) {
  u32 x = MLC_F32_BITS(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (u16)((x >> 16) | 0x0040u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return (u16)(x >> 16);
}
MLC_FN float mlc_f16_to_f32(u16 h) {
  u32 sign = ((u32)(h & 0x8000u)) << 16;
  u32 e = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (e == 0x1Fu) return MLC_BITS_F32(sign | 0x7F800000u | (mant << 13));
  if (e == 0u) return MLC_BITS_F32(sign | MLC_F32_BITS((float)mant * 5.9604644775390625e-8f));
  return MLC_BITS_F32(sign | ((e - 15u + 127u) << 23) | (mant << 13));
}
MLC_FN u16 mlc_f32_to_f16(float f) {
  u32 x = MLC_F32_BITS(f);
  u32 sign = (x >> 16) & 0x8000u;
  u32 ex = (x >> 23) & 0xFFu;
  u32 mant = x & 0x7FFFFFu;
  if (ex == 0xFFu) return (u16)(sign | 0x7C00u | (mant ? (0x0200u | (mant >> 13)) : 0u));
  int e = (int)ex - 127 + 15;
  if (e >= 31) return (u16)(sign | 0x7C00u);
  if (e <= 0) {
    if (e < -10) return (u16)sign;
    u32 m = mant | 0x800000u;
    u32 shift = (u32)(14 - e);
    u32 q = m >> shift, rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    return (u16)(sign | q);
  }
  u32 hb = (((u32)e) << 10) | (mant >> 13), rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (hb & 1u))) ++hb;
  return (u16)(sign | hb);
}
/* d rounded to float with round-to-odd: rounding that once more to bf16 or f16
   rounds d correctly (one rounding). */
MLC_FN float mlc_f64_to_f32_odd(double d) {
  float f = (float)d;
  if (d != d || MLC_FABS_F32(f) == MLC_BITS_F32(0x7F800000u) || (double)f == d) return f;
  u32 b = MLC_F32_BITS(f);
  if ((b & 1u) == 0u) b = MLC_FABS_F64((double)f) > MLC_FABS_F64(d) ? b - 1u : b + 1u;
  return MLC_BITS_F32(b);
}
MLC_FN u16 mlc_f64_to_bf16(double d) { return mlc_f32_to_bf16(mlc_f64_to_f32_odd(d)); }
MLC_FN u16 mlc_f64_to_f16(double d) { return mlc_f32_to_f16(mlc_f64_to_f32_odd(d)); }
/* ir/random.h's uniform(index, step, seed, stream): Philox4x32-10. */
MLC_FN float mlc_uniform(i64 index, i64 step, u64 seed, u32 stream) {
  u32 c0 = (u32)(u64)index, c1 = (u32)(((u64)index) >> 32), c2 = (u32)(u64)step, c3 = stream;
  u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    u64 p0 = (u64)0xD2511F53u * (u64)c0, p1 = (u64)0xCD9E8D57u * (u64)c2;
    u32 n0 = ((u32)(p1 >> 32)) ^ c1 ^ k0, n1 = (u32)p1, n2 = ((u32)(p0 >> 32)) ^ c3 ^ k1, n3 = (u32)p0;
    c0 = n0; c1 = n1; c2 = n2; c3 = n3;
  }
  return (float)(c0 >> 8) * 5.9604644775390625e-8f;
}
)";

constexpr std::string_view kCuda = R"(/* mlc GPU kernel prelude: CUDA C (NVRTC) */
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;
#define MLC_KERNEL(block) extern "C" __global__ void __launch_bounds__(block, 4)
#define MLC_PARAM(T, p) T* __restrict__ p
#define MLC_BIND(T, p)
#define MLC_STATUS_PARAM int* __restrict__ mlc_status
#define MLC_SHARED __shared__
#define MLC_BARRIER() __syncthreads()
#define MLC_THREAD ((i64)threadIdx.x)
#define MLC_BLOCK ((i64)blockIdx.x)
#define MLC_BLOCKS ((i64)gridDim.x)
/* A block tree's levels within one warp (kernel_source.cc): the partner's
   value by a register shuffle, nothing stored, no barrier. */
#define MLC_WARP_DOWN(arr, v, s) __shfl_down_sync(0xffffffffu, (v), (s))
#define MLC_WARP_PUT(arr, v)
#define MLC_WARP_FENCE()
/* The elementwise schedule's vector form: group i of four elements of a
   buffer as one vector V (float4, int4, ushort4, uchar4); kernel buffers are
   256-byte aligned (runtime/executable.h's kGpuArenaAlignment). */
#define MLC_LOAD4(V, p, i) (((const V*)(p))[i])
#define MLC_STORE4(V, p, i, v) (((V*)(p))[i] = (v))
#define MLC_VEC4(V, a, b, c, d) make_##V((a), (b), (c), (d))
#define MLC_FN static __device__ __forceinline__
#define MLC_F32_BITS(x) __float_as_uint(x)
#define MLC_BITS_F32(x) __uint_as_float(x)
#define MLC_BITS_F64(x) __longlong_as_double((i64)(x))
#define MLC_F64_BITS(x) ((u64)__double_as_longlong(x))
#define MLC_FABS_F32 fabsf
#define MLC_FABS_F64 fabs
#define MLC_EXP_F32 expf
#define MLC_EXP_F64 exp
#define MLC_LOG_F32 logf
#define MLC_LOG_F64 log
#define MLC_SQRT_F32 sqrtf
#define MLC_SQRT_F64 sqrt
#define MLC_TANH_F32 tanhf
#define MLC_TANH_F64 tanh
#define MLC_ERF_F32 erff
#define MLC_ERF_F64 erf
#define MLC_SIN_F32 sinf
#define MLC_SIN_F64 sin
#define MLC_COS_F32 cosf
#define MLC_COS_F64 cos
#define MLC_POW_F32 powf
#define MLC_POW_F64 pow
)";

constexpr std::string_view kOpenCl = R"(/* mlc GPU kernel prelude: OpenCL C 1.2 */
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef long i64;
typedef ulong u64;
typedef uint u32;
typedef ushort u16;
typedef uchar u8;
#define MLC_KERNEL(block) __kernel __attribute__((reqd_work_group_size(block, 1, 1))) void
#define MLC_PARAM(T, p) __global T* p##_base, long p##_off
#define MLC_BIND(T, p) __global T* restrict p = (__global T*)((__global char*)p##_base + p##_off)
#define MLC_STATUS_PARAM __global int* mlc_status
#define MLC_SHARED __local
#define MLC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define MLC_THREAD ((i64)get_local_id(0))
#define MLC_BLOCK ((i64)get_group_id(0))
#define MLC_BLOCKS ((i64)get_num_groups(0))
/* A block tree's levels within one warp (kernel_source.cc) through the
   shared array, as its other levels: no sub-group shuffles (PoCL's are not
   dependable), the same tree and so the same bits as CUDA's shuffles. Only
   the threads that combine (t < s) read their partner's slot. */
#define MLC_WARP_DOWN(arr, v, s) (arr)[MLC_THREAD < (s) ? MLC_THREAD + (s) : MLC_THREAD]
#define MLC_WARP_PUT(arr, v) ((arr)[MLC_THREAD] = (v))
#define MLC_WARP_FENCE() barrier(CLK_LOCAL_MEM_FENCE)
/* The elementwise schedule's vector form (vload4 and vstore4 need only the
   element's alignment). */
#define MLC_LOAD4(V, p, i) vload4((size_t)(i), (p))
#define MLC_STORE4(V, p, i, v) vstore4((v), (size_t)(i), (p))
#define MLC_VEC4(V, a, b, c, d) ((V)((a), (b), (c), (d)))
#define MLC_FN static inline
#define MLC_F32_BITS(x) as_uint(x)
#define MLC_BITS_F32(x) as_float((u32)(x))
#define MLC_BITS_F64(x) as_double((u64)(x))
#define MLC_F64_BITS(x) as_ulong(x)
#define MLC_FABS_F32 fabs
#define MLC_FABS_F64 fabs
#define MLC_EXP_F32 exp
#define MLC_EXP_F64 exp
#define MLC_LOG_F32 log
#define MLC_LOG_F64 log
#define MLC_SQRT_F32 sqrt
#define MLC_SQRT_F64 sqrt
#define MLC_TANH_F32 tanh
#define MLC_TANH_F64 tanh
#define MLC_ERF_F32 erf
#define MLC_ERF_F64 erf
#define MLC_SIN_F32 sin
#define MLC_SIN_F64 sin
#define MLC_COS_F32 cos
#define MLC_COS_F64 cos
#define MLC_POW_F32 pow
#define MLC_POW_F64 pow
)";

std::string make(std::string_view dialect) {
  std::string s(dialect);
  s += kCommon;
  return s;
}

}  // namespace

std::string_view prelude(Dialect d) {
  static const std::string cuda = make(kCuda), opencl = make(kOpenCl);
  return d == Dialect::cuda ? cuda : opencl;
}

}  // namespace mlc::gpu
