// A loop kernel (compiler/kernel_ir.h) under its GPU schedule
// (compiler/gpu/gpu_schedule.h) as source text, in one of two dialects that
// share every line but the prelude's: CUDA C, compiled by NVRTC for NVIDIA
// GPUs (compiler/gpu/nvrtc.h), and OpenCL C, which the host device
// (runtime/host_gpu/) runs on the CPU through PoCL. So the very text the GPU
// runs is executed in CI, grid mapping, shared memory and barriers included.
//
// The text: the dialect's prelude (types i64, u8, u16, f32/f64 conversions of
// bf16 and f16 bit patterns, math, thread indices, barriers, the parameter
// macros, a block tree's warp levels: MLC_WARP_DOWN/PUT/FENCE, the
// elementwise schedule's vector loads and stores: MLC_LOAD4, MLC_STORE4,
// MLC_VEC4, and the bits of floats as integers and back, which the two-phase
// schedule's scratch words hold: MLC_F32_BITS, MLC_F64_BITS, MLC_BITS_F32,
// MLC_BITS_F64), then one kernel function named `symbol`:
//
//   MLC_KERNEL void symbol(MLC_PARAM(T0, p0), ..., MLC_PARAM(Tn, pn), MLC_STATUS_PARAM)
//
// one MLC_PARAM per kernel buffer (inputs, then outputs), then the status
// word. A two-phase kernel (rt::GpuLaunch::two_phase(): gpu_schedule.h's row
// in two phases) takes its scratch words before the status word and its
// phase after it:
//
//   MLC_KERNEL void symbol(MLC_PARAM(T0, p0), ..., MLC_PARAM(u64, mlc_scratch), MLC_STATUS_PARAM, i64 mlc_phase)
//
// In CUDA C a parameter is one pointer; in OpenCL C it is a buffer and a
// byte offset into it (two kernel arguments: a cl_mem and a long), and the
// status word is a __global int* of its own. A kernel that finds a checked
// index out of range stores kir::kIndexOutOfRange into the status word and
// reads element 0 instead (every thread still reaches every barrier); the
// launcher resets the word and reads it after the kernel.
//
// Numerics: the scalar definitions of ir/scalar_math.h (the same sequence of
// roundings; compile without FMA contraction: NVRTC --fmad=false, OpenCL's
// FP_CONTRACT OFF, and correctly rounded division and square root); bf16 and
// f16 values are 16-bit patterns, widened to float per op and narrowed once
// per op result with runtime/half.h's rounding, bit for bit; exp, log, tanh,
// erf, sin, cos and pow are the platform's (CUDA's libdevice: within 2 ulp
// for f32; PoCL's: within OpenCL's bounds, 3-4 ulp), so such ops agree with
// the CPU within a few ulp, not bit for bit.
//
// The text is deterministic: it depends on the kernel's signature
// (kir::signature), its origin (the ops and model-file locations, in a
// comment), the symbol and the dialect only.
#pragma once

#include <string>
#include <string_view>

#include "compiler/gpu/gpu_schedule.h"
#include "compiler/kernel_ir.h"

namespace mlc::gpu {

enum class Dialect : uint8_t { cuda, opencl };

// The prelude of `d`'s kernels.
std::string_view prelude(Dialect d);

// The kernel function alone (no prelude).
std::string kernel_function(const kir::Kernel& k, const Schedule& s, const std::string& symbol);

// Prelude and kernel function: a self-contained translation unit.
std::string kernel_source(const kir::Kernel& k, const Schedule& s, const std::string& symbol, Dialect d);

// Bumped whenever the text for a given kernel changes (caches key on it).
inline constexpr std::string_view kSourceEmitterVersion = "mlc-gpu-emitter 8";

}  // namespace mlc::gpu
