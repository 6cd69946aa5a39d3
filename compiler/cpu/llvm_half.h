// Half-precision (bf16, f16) conversions as LLVM IR, for the kernel emitter
// (compiler/cpu/llvm_jit.cc, the only file that includes this header: it brings
// LLVM's include path).
//
// Contracts:
//  - A bf16 or f16 value in a kernel is its 16-bit pattern (i16); arithmetic
//    widens the operands to float, computes in float and narrows the result
//    once per op, as the reference kernels do (runtime/kernels/kernels.h,
//    "Numerics"). Movement and select move the bit patterns unchanged.
//  - Each conversion here is runtime/half.h's, bit for bit, written on the
//    bit patterns with integer operations (shifts, masks, selects) that the
//    loop vectorizer widens: no libcalls (__truncsfbf2 and kin), and none of
//    the target's conversion instructions, some of which differ from
//    runtime/half.h (vcvtneps2bf16 flushes subnormals to zero; vcvtph2ps
//    quiets a signaling NaN).
//  - Narrowing rounds to nearest, ties to even; overflow gives +-inf; a NaN
//    stays a quiet NaN with its sign. From double, one rounding step: a
//    round-to-odd step to float first (exact for these narrower formats).
//  - Where PyTorch's CPU kernels differ: PyTorch fuses some bf16 ops (its
//    vectorized GELU, softmax, layer norm and the like) and rounds only the
//    fused result, where mlc rounds every primitive's result as the
//    interpreter does; so compiled and interpreted mlc agree bit for bit, and
//    both can differ from PyTorch by a bf16 rounding per intermediate.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "ir/dtype.h"

namespace mlc::half_ir {

// The float value of the 16-bit pattern `h` of dtype t (exact).
inline llvm::Value* widen(llvm::IRBuilder<>& b, llvm::Value* h, DType t) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* x = b.CreateZExt(h, i32);
  if (t == DType::bf16) return b.CreateBitCast(b.CreateShl(x, 16), b.getFloatTy());
  auto c = [&](uint32_t v) { return b.getInt32(v); };
  llvm::Value* sign = b.CreateShl(b.CreateAnd(x, c(0x8000u)), 16);
  llvm::Value* exp = b.CreateAnd(b.CreateLShr(x, 10), c(0x1Fu));
  llvm::Value* mant = b.CreateAnd(x, c(0x3FFu));
  llvm::Value* mant_bits = b.CreateShl(mant, 13);
  llvm::Value* special = b.CreateOr(b.CreateOr(sign, c(0x7F800000u)), mant_bits);  // inf, NaN
  llvm::Value* normal = b.CreateOr(b.CreateOr(sign, b.CreateShl(b.CreateAdd(exp, c(112)), 23)), mant_bits);
  // Subnormal (and zero): mant * 2^-24, exact in float, with the sign.
  llvm::Value* scaled = b.CreateFMul(b.CreateUIToFP(mant, b.getFloatTy()), llvm::ConstantFP::get(b.getFloatTy(), 0x1p-24));
  llvm::Value* subnormal = b.CreateOr(sign, b.CreateBitCast(scaled, i32));
  llvm::Value* r = b.CreateSelect(b.CreateICmpEQ(exp, c(0x1Fu)), special,
                                  b.CreateSelect(b.CreateICmpEQ(exp, c(0)), subnormal, normal));
  return b.CreateBitCast(r, b.getFloatTy());
}

// The 16-bit pattern of float f rounded to dtype t.
inline llvm::Value* narrow(llvm::IRBuilder<>& b, llvm::Value* f, DType t) {
  llvm::Type* i16 = b.getInt16Ty();
  auto c = [&](uint32_t v) { return b.getInt32(v); };
  llvm::Value* x = b.CreateBitCast(f, b.getInt32Ty());
  if (t == DType::bf16) {
    llvm::Value* high = b.CreateLShr(x, 16);
    llvm::Value* nan = b.CreateICmpUGT(b.CreateAnd(x, c(0x7FFFFFFFu)), c(0x7F800000u));
    llvm::Value* quiet = b.CreateOr(high, c(0x40u));
    llvm::Value* rounded = b.CreateLShr(b.CreateAdd(x, b.CreateAdd(c(0x7FFFu), b.CreateAnd(high, c(1)))), 16);
    return b.CreateTrunc(b.CreateSelect(nan, quiet, rounded), i16);
  }
  llvm::Value* sign = b.CreateAnd(b.CreateLShr(x, 16), c(0x8000u));
  llvm::Value* exp = b.CreateAnd(b.CreateLShr(x, 23), c(0xFFu));
  llvm::Value* mant = b.CreateAnd(x, c(0x7FFFFFu));
  // Round-to-nearest-even of q with remainder rem against half: q + 1 where rem > half, or rem == half and q is odd.
  auto round = [&](llvm::Value* q, llvm::Value* rem, llvm::Value* half) {
    llvm::Value* up = b.CreateOr(b.CreateICmpUGT(rem, half),
                                 b.CreateAnd(b.CreateICmpEQ(rem, half), b.CreateICmpNE(b.CreateAnd(q, c(1)), c(0))));
    return b.CreateAdd(q, b.CreateZExt(up, b.getInt32Ty()));
  };
  llvm::Value* nan_mant = b.CreateSelect(b.CreateICmpNE(mant, c(0)), b.CreateOr(c(0x200u), b.CreateLShr(mant, 13)), c(0));
  llvm::Value* special = b.CreateOr(b.CreateOr(sign, c(0x7C00u)), nan_mant);  // inf, NaN
  llvm::Value* e = b.CreateSub(exp, c(112));                                  // binary16 biased exponent (signed)
  llvm::Value* overflow = b.CreateOr(sign, c(0x7C00u));
  // Normal: (e << 10 | mant >> 13), rounded on the 13 bits dropped (may carry up to inf).
  llvm::Value* normal = b.CreateOr(sign, round(b.CreateOr(b.CreateShl(e, 10), b.CreateLShr(mant, 13)),
                                               b.CreateAnd(mant, c(0x1FFFu)), c(0x1000u)));
  // Subnormal: (mant | 2^23) >> (14 - e) for e in [-10, 0], rounded; the
  // shift clamped into [14, 24] so that it is defined where not selected.
  llvm::Value* shift = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                               b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b.CreateSub(c(14), e), c(14)), c(24));
  llvm::Value* m = b.CreateOr(mant, c(0x800000u));
  llvm::Value* rem = b.CreateAnd(m, b.CreateSub(b.CreateShl(c(1), shift), c(1)));
  llvm::Value* subnormal = b.CreateOr(sign, round(b.CreateLShr(m, shift), rem, b.CreateShl(c(1), b.CreateSub(shift, c(1)))));
  llvm::Value* r = b.CreateSelect(
      b.CreateICmpEQ(exp, c(0xFFu)), special,
      b.CreateSelect(b.CreateICmpSGE(e, c(31)), overflow,
                     b.CreateSelect(b.CreateICmpSGT(e, c(0)), normal,
                                    b.CreateSelect(b.CreateICmpSLT(e, b.getInt32(static_cast<uint32_t>(-10))), sign,
                                                   subnormal))));
  return b.CreateTrunc(r, i16);
}

// double d rounded to float with round-to-odd (runtime/half.h
// double_to_float_round_odd): rounding that once more to bf16 or f16 rounds d
// correctly.
inline llvm::Value* round_to_odd_float(llvm::IRBuilder<>& b, llvm::Value* d) {
  llvm::Type* f32 = b.getFloatTy();
  llvm::Value* f = b.CreateFPTrunc(d, f32);
  llvm::Value* back = b.CreateFPExt(f, d->getType());
  llvm::Value* keep = b.CreateOr(b.CreateOr(b.CreateFCmpUNO(d, d), b.CreateFCmpOEQ(back, d)),
                                 b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, f),
                                                 llvm::ConstantFP::getInfinity(f32)));
  llvm::Value* bits = b.CreateBitCast(f, b.getInt32Ty());
  llvm::Value* even = b.CreateICmpEQ(b.CreateAnd(bits, b.getInt32(1)), b.getInt32(0));
  llvm::Value* away = b.CreateFCmpOGT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                                      b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d));
  llvm::Value* odd = b.CreateSelect(away, b.CreateSub(bits, b.getInt32(1)), b.CreateAdd(bits, b.getInt32(1)));
  llvm::Value* r = b.CreateSelect(b.CreateOr(keep, b.CreateNot(even)), bits, odd);
  return b.CreateBitCast(r, f32);
}

// The 16-bit pattern of double d rounded to dtype t (one rounding).
inline llvm::Value* narrow_double(llvm::IRBuilder<>& b, llvm::Value* d, DType t) {
  return narrow(b, round_to_odd_float(b, d), t);
}

}  // namespace mlc::half_ir
