#include "compiler/cpu/llvm_jit.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include "compiler/cpu/llvm_half.h"
#include "compiler/cpu/reduce_strategy.h"
#include "compiler/kernel_ir_json.h"
#include "runtime/half.h"
#include "runtime/checksum.h"

namespace mlc {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string to_string(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return s;
}

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

// ---- the scalar handler of ir/scalar_math.h over IR values

template <bool kIsFloat>
struct IrScalar {
  using Value = llvm::Value*;
  using Bool = llvm::Value*;
  static constexpr bool kFloat = kIsFloat;
  llvm::IRBuilder<>& b;
  llvm::Module& m;
  llvm::Type* t;
  bool is_bool = false;

  Value constant(double c) {
    if constexpr (kFloat) return llvm::ConstantFP::get(t, c);
    else return llvm::ConstantInt::get(t, static_cast<uint64_t>(static_cast<int64_t>(c)), true);
  }
  Value add(Value x, Value y) { return kFloat ? b.CreateFAdd(x, y) : b.CreateAdd(x, y); }
  Value sub(Value x, Value y) { return kFloat ? b.CreateFSub(x, y) : b.CreateSub(x, y); }
  Value mul(Value x, Value y) { return kFloat ? b.CreateFMul(x, y) : b.CreateMul(x, y); }
  Value neg(Value x) { return kFloat ? b.CreateFNeg(x) : b.CreateNeg(x); }
  Value div(Value x, Value y) {
    if constexpr (kFloat) {
      return b.CreateFDiv(x, y);
    } else {
      // Never fused (fusion.h), but total: x / 0 = 0, INT_MIN / -1 wraps.
      Value zero = llvm::ConstantInt::get(t, 0), minus_one = llvm::ConstantInt::getSigned(t, -1);
      Value by_zero = b.CreateICmpEQ(y, zero), by_minus_one = b.CreateICmpEQ(y, minus_one);
      Value safe = b.CreateSelect(b.CreateOr(by_zero, by_minus_one), llvm::ConstantInt::get(t, 1), y);
      Value q = b.CreateSDiv(x, safe);
      return b.CreateSelect(by_zero, zero, b.CreateSelect(by_minus_one, b.CreateNeg(x), q));
    }
  }
  Value intrinsic(llvm::Intrinsic::ID id, Value x) { return b.CreateUnaryIntrinsic(id, x); }
  Value libm(const char* f32_name, const char* f64_name, Value x) {
    llvm::FunctionCallee f = m.getOrInsertFunction(t->isFloatTy() ? f32_name : f64_name,
                                                   llvm::FunctionType::get(t, {t}, false));
    if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
      fn->setDoesNotThrow();
      fn->setDoesNotAccessMemory();
      fn->setWillReturn();
    }
    llvm::CallInst* call = b.CreateCall(f, {x});
    call->setDoesNotAccessMemory();
    return call;
  }
  Value fabs(Value x) { return intrinsic(llvm::Intrinsic::fabs, x); }
  // libmvec's vector exp computes a lane whose result underflows by calling
  // the scalar exp (softmax's masked -inf lanes are such), so those lanes get
  // an argument in range instead and the result 0 that exp has there anyway:
  // below -104 (f32) or -746 (f64) exp(x) < half the smallest subnormal.
  Value exp(Value x) {
    Bool zero = b.CreateFCmpOLT(x, constant(t->isFloatTy() ? -104.0 : -746.0));
    Value safe = b.CreateSelect(zero, constant(0.0), x);
    return b.CreateSelect(zero, constant(0.0), intrinsic(llvm::Intrinsic::exp, safe));
  }
  Value log(Value x) { return intrinsic(llvm::Intrinsic::log, x); }
  Value sqrt(Value x) { return intrinsic(llvm::Intrinsic::sqrt, x); }
  Value sin(Value x) { return intrinsic(llvm::Intrinsic::sin, x); }
  Value cos(Value x) { return intrinsic(llvm::Intrinsic::cos, x); }
  Value tanh(Value x) { return libm("tanhf", "tanh", x); }
  Value erf(Value x) { return libm("erff", "erf", x); }
  Value pow(Value x, Value y) { return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y); }
  Bool is_nan(Value x) {
    if constexpr (kFloat) return b.CreateFCmpUNO(x, x);
    else return b.getFalse();
  }
  Bool cmp(scalar::CmpDir d, Value x, Value y) {
    using P = llvm::CmpInst::Predicate;
    P p;
    if constexpr (kFloat) {
      static constexpr P kF[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
      p = kF[static_cast<int>(d)];
    } else if (is_bool) {
      static constexpr P kU[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
      p = kU[static_cast<int>(d)];
    } else {
      static constexpr P kS[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE};
      p = kS[static_cast<int>(d)];
    }
    return b.CreateCmp(p, x, y);
  }
  Value select(Bool p, Value x, Value y) { return b.CreateSelect(p, x, y); }
};

// ---- one kernel

class KernelEmitter {
 public:
  KernelEmitter(llvm::Module& m, const kir::Kernel& k) : m_(m), ctx_(m.getContext()), b_(ctx_), k_(k) {}

  void emit(const std::string& cpu, const std::string& features) {
    llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
    llvm::Type* i64 = b_.getInt64Ty();
    // The body: buffers as noalias params, rows [begin, end). An output
    // written into an input's buffer is stored through that input's pointer
    // (its own parameter is unused), so the vectorizer sees a load and a store
    // of the same element, not two pointers it must test for overlap at run
    // time (and, since they are equal, fall back to its scalar loop).
    std::vector<llvm::Type*> params(k_.params.size(), ptr);
    params.push_back(i64);
    params.push_back(i64);
    auto* body_ty = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
    fn_ = llvm::Function::Create(body_ty, llvm::Function::InternalLinkage, k_.name + ".body", m_);
    fn_->addFnAttr("target-cpu", cpu);
    fn_->addFnAttr("target-features", features);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    const int out = k_.num_inputs();
    for (size_t p = 0; p < k_.params.size(); ++p) {
      fn_->addParamAttr(static_cast<unsigned>(p), llvm::Attribute::NoAlias);
      bufs_.push_back(fn_->getArg(static_cast<unsigned>(p)));
    }
    auto store_through = [&](int output, int alias) {
      if (alias >= 0) bufs_[static_cast<size_t>(out + output)] = bufs_[static_cast<size_t>(alias)];
    };
    store_through(0, k_.output_alias);
    for (size_t o = 0; o < k_.more_alias.size(); ++o) store_through(static_cast<int>(o) + 1, k_.more_alias[o]);
    llvm::Value* begin = fn_->getArg(static_cast<unsigned>(k_.params.size()));
    llvm::Value* end = fn_->getArg(static_cast<unsigned>(k_.params.size() + 1));
    entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry_);
    cache_.assign(k_.exprs.size(), nullptr);
    vars_.assign(static_cast<size_t>(k_.num_vars), nullptr);
    scopes_.emplace_back();

    const size_t rank = k_.domain.size();
    const int64_t inner = rank ? k_.domain[rank - 1] : 1;
    const std::vector<cpu::ReduceStrategy> strategy = cpu::reduce_strategies(k_);
    loop(begin, end, [&](llvm::Value* row) {
      llvm::Value* rem = row;
      for (size_t d = rank > 0 ? rank - 1 : 0; d-- > 0;) {
        llvm::Value* size = b_.getInt64(k_.domain[d]);
        vars_[d] = d == 0 ? rem : b_.CreateURem(rem, size);
        if (d > 0) rem = b_.CreateUDiv(rem, size);
      }
      llvm::Value* base = b_.CreateMul(row, b_.getInt64(inner));
      // Every output's value first, then the stores, so that an output written
      // into an input's buffer cannot change what another output reads (each
      // output is part of the root's value, so this holds anyway today).
      auto store = [&](llvm::Value* lin) {
        std::vector<llvm::Value*> v = {value(k_.root)};
        for (int r : k_.more_roots) v.push_back(value(r));
        for (size_t o = 0; o < v.size(); ++o)
          store_element(bufs_[static_cast<size_t>(out) + o], k_.params[static_cast<size_t>(out) + o], lin, v[o]);
      };
      if (rank == 0) {
        store(base);
        return;
      }
      // Reductions the whole row shares, then those accumulated across it
      // (cpu::ReduceStrategy); their values are read in the row's loop.
      std::vector<std::pair<int, llvm::AllocaInst*>> across;
      for (size_t id = 0; id < strategy.size(); ++id) {
        if (strategy[id] == cpu::ReduceStrategy::per_row) value(static_cast<int>(id));
        if (strategy[id] == cpu::ReduceStrategy::across_row || strategy[id] == cpu::ReduceStrategy::interleaved)
          across.emplace_back(static_cast<int>(id),
                              reduce_across_row(k_.exprs[id], inner, strategy[id] == cpu::ReduceStrategy::interleaved));
      }
      loop(b_.getInt64(0), b_.getInt64(inner), [&](llvm::Value* i) {
        vars_[rank - 1] = i;
        for (auto [id, acc] : across) {
          const kir::Expr& e = k_.exprs[static_cast<size_t>(id)];
          llvm::Type* acc_t = acc->getAllocatedType()->getArrayElementType();
          llvm::Value* sum = b_.CreateLoad(acc_t, b_.CreateInBoundsGEP(acc_t, acc, i));
          cache_[static_cast<size_t>(id)] = reduce_result(e, sum);
          scopes_.back().push_back(id);
        }
        store(b_.CreateAdd(base, i));
      }, /*vector_loop=*/true);
    });
    if (k_.scatters()) emit_scatter(begin, end);
    b_.CreateRet(b_.getInt32(0));

    // The entry point: int name(std::byte* const* buffers, int64 begin, int64 end).
    auto* entry_ty = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, i64, i64}, false);
    llvm::Function* f = llvm::Function::Create(entry_ty, llvm::Function::ExternalLinkage, k_.name, m_);
    f->addFnAttr("target-cpu", cpu);
    f->addFnAttr("target-features", features);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
    std::vector<llvm::Value*> args;
    for (size_t p = 0; p < k_.params.size(); ++p)
      args.push_back(b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, f->getArg(0), p)));
    args.push_back(f->getArg(1));
    args.push_back(f->getArg(2));
    b_.CreateRet(b_.CreateCall(fn_, args));
  }

 private:
  llvm::Type* type(DType t) {
    switch (t) {
      case DType::f32: return b_.getFloatTy();
      case DType::f64: return b_.getDoubleTy();
      case DType::i32: return b_.getInt32Ty();
      case DType::i64: return b_.getInt64Ty();
      case DType::boolean: return b_.getInt1Ty();
      case DType::bf16: case DType::f16: return b_.getInt16Ty();  // bit patterns (compiler/cpu/llvm_half.h)
    }
    return b_.getFloatTy();
  }
  llvm::Type* memory_type(DType t) { return t == DType::boolean ? b_.getInt8Ty() : type(t); }

  // Half precision (compiler/cpu/llvm_half.h): values are bit patterns,
  // computed in float and rounded once per op result.
  static DType compute_dtype(DType t) { return is_half(t) ? DType::f32 : t; }
  // Expression id's value as its compute dtype reads it (a half widened to float).
  llvm::Value* operand(int id) {
    llvm::Value* v = value(id);
    const DType t = k_.exprs[static_cast<size_t>(id)].dtype;
    return is_half(t) ? half_ir::widen(b_, v, t) : v;
  }
  // The result r of an op of dtype t computed in compute_dtype(t), as t holds it.
  llvm::Value* rounded(DType t, llvm::Value* r) { return is_half(t) ? half_ir::narrow(b_, r, t) : r; }
  // x of dtype `from` (not half) converted to half dtype `to` with one
  // rounding, as runtime/kernels/kernel_util.h's convert: floats directly,
  // integers through double.
  llvm::Value* to_half(llvm::Value* x, DType from, DType to) {
    if (from == DType::f32) return half_ir::narrow(b_, x, to);
    if (from == DType::boolean) return half_ir::narrow(b_, b_.CreateUIToFP(x, b_.getFloatTy()), to);
    if (from != DType::f64) x = b_.CreateSIToFP(x, b_.getDoubleTy());
    return half_ir::narrow_double(b_, x, to);
  }

  void store_element(llvm::Value* buf, DType t, llvm::Value* index, llvm::Value* v) {
    if (t == DType::boolean) v = b_.CreateZExt(v, b_.getInt8Ty());
    b_.CreateStore(v, b_.CreateInBoundsGEP(memory_type(t), buf, index));
  }

  // for (i = lo; i < hi; ++i) body(i). `vector_loop`: a loop meant for the
  // loop vectorizer, which the full unroller (it runs first, and turns a
  // short loop into straight-line code that only the SLP vectorizer sees, which
  // vectorizes no libmvec calls and fewer shapes) leaves alone. A loop of
  // fewer than kMinVectorTrip iterations (a 2x2 pooling window) fills no
  // vector: it is left to the unroller.
  static constexpr int64_t kMinVectorTrip = 8;
  template <class F>
  void loop(llvm::Value* lo, llvm::Value* hi, F body, bool vector_loop = false) {
    auto* lo_c = llvm::dyn_cast<llvm::ConstantInt>(lo);
    auto* hi_c = llvm::dyn_cast<llvm::ConstantInt>(hi);
    if (lo_c && hi_c && hi_c->getSExtValue() - lo_c->getSExtValue() < kMinVectorTrip) vector_loop = false;
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    auto* inside = llvm::BasicBlock::Create(ctx_, "body", fn_);
    auto* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2);
    i->addIncoming(lo, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, hi), inside, exit);
    b_.SetInsertPoint(inside);
    scoped([&] { body(i); });
    llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
    i->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* back = b_.CreateBr(header);
    if (vector_loop) {
      llvm::Metadata* no_unroll = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")});
      llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, {nullptr, no_unroll});
      id->replaceOperandWith(0, id);
      back->setMetadata(llvm::LLVMContext::MD_loop, id);
    }
    b_.SetInsertPoint(exit);
  }

  // Runs body with a fresh expression cache scope: what it emits is not
  // reused after it (its block need not dominate what follows).
  template <class F>
  void scoped(F body) {
    scopes_.emplace_back();
    body();
    for (int id : scopes_.back()) cache_[id] = nullptr;
    scopes_.pop_back();
  }

  // if (cond) body()
  template <class F>
  void when(llvm::Value* cond, F body) {
    auto* then = llvm::BasicBlock::Create(ctx_, "then", fn_);
    auto* join = llvm::BasicBlock::Create(ctx_, "join", fn_);
    b_.CreateCondBr(cond, then, join);
    b_.SetInsertPoint(then);
    scoped(body);
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
  }

  llvm::AllocaInst* slot(llvm::Type* t) {
    llvm::IRBuilder<> eb(entry_, entry_->begin());
    return eb.CreateAlloca(t);
  }

  llvm::Value* value(int id) {
    if (cache_[id]) return cache_[id];
    llvm::Value* v = compute(k_.exprs[id]);
    cache_[id] = v;
    scopes_.back().push_back(id);
    return v;
  }

  template <class F>
  llvm::Value* with_handler(DType t, F f) {
    if (is_float(t)) {
      IrScalar<true> h{b_, m_, type(compute_dtype(t))};
      return f(h);
    }
    IrScalar<false> h{b_, m_, type(t), t == DType::boolean};
    return f(h);
  }

  llvm::Value* convert(llvm::Value* x, DType from, DType to) {
    if (from == to) return x;
    if (is_half(from)) {
      x = half_ir::widen(b_, x, from);
      from = DType::f32;
      if (to == DType::f32) return x;
    }
    if (is_half(to)) return to_half(x, from, to);
    llvm::Type* t = type(to);
    if (to == DType::boolean) {
      if (is_float(from)) return b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
      return b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
    }
    if (is_float(to)) {
      if (is_float(from)) return b_.CreateFPCast(x, t);
      return from == DType::boolean ? b_.CreateUIToFP(x, t) : b_.CreateSIToFP(x, t);
    }
    if (from == DType::boolean) return b_.CreateZExt(x, t);
    return b_.CreateSExtOrTrunc(x, t);  // int -> int wraps; float -> int is never fused
  }

  llvm::Value* compute(const kir::Expr& e) {
    using K = kir::ExprKind;
    switch (e.kind) {
      case K::var: return vars_[static_cast<size_t>(e.i)];
      case K::iconst: return b_.getInt64(static_cast<uint64_t>(e.i));
      case K::iadd: return b_.CreateAdd(value(e.a), value(e.b));
      case K::imul: return b_.CreateMul(value(e.a), value(e.b));
      case K::idiv: return b_.CreateSDiv(value(e.a), value(e.b));
      case K::irem: return b_.CreateSRem(value(e.a), value(e.b));
      case K::imin: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, value(e.a), value(e.b));
      case K::imax: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, value(e.a), value(e.b));
      case K::ilt: return b_.CreateICmpSLT(value(e.a), value(e.b));
      case K::constant: {
        llvm::Type* t = type(e.dtype);
        if (e.dtype == DType::bf16) return b_.getInt16(rt::bf16::from_double(e.f).bits);
        if (e.dtype == DType::f16) return b_.getInt16(rt::f16::from_double(e.f).bits);
        if (is_float(e.dtype)) return llvm::ConstantFP::get(t, e.f);
        if (e.dtype == DType::boolean) return b_.getInt1(e.i != 0);
        return llvm::ConstantInt::get(t, static_cast<uint64_t>(e.i), true);
      }
      case K::load: {
        llvm::Value* p = b_.CreateInBoundsGEP(memory_type(e.dtype), bufs_[static_cast<size_t>(e.i)], value(e.a));
        llvm::Value* v = b_.CreateLoad(memory_type(e.dtype), p);
        return e.dtype == DType::boolean ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
      }
      case K::unary: {
        llvm::Value* x = operand(e.a);
        return rounded(e.dtype, with_handler(e.dtype, [&](auto& h) {
          llvm::Value* r = nullptr;
          scalar::unary_dispatch(h, e.op, x, r);
          return r;
        }));
      }
      case K::binary: {
        llvm::Value* x = operand(e.a);
        llvm::Value* y = operand(e.b);
        return rounded(e.dtype, with_handler(e.dtype, [&](auto& h) {
          llvm::Value* r = nullptr;
          scalar::binary_dispatch(h, e.op, x, y, r);
          return r;
        }));
      }
      case K::cmp: {
        llvm::Value* x = operand(e.a);
        llvm::Value* y = operand(e.b);
        return with_handler(k_.exprs[e.a].dtype, [&](auto& h) { return h.cmp(e.dir, x, y); });
      }
      case K::select: return b_.CreateSelect(value(e.a), value(e.b), value(e.c));
      case K::cast: return convert(value(e.a), k_.exprs[e.a].dtype, e.dtype);
      case K::index_value: return convert(value(e.a), DType::i64, e.dtype);
      case K::reduce: return reduce(e);
      case K::checked_index: return checked_index(e);
      case K::random: return philox_uniform(e);
    }
    return nullptr;
  }

  // kir::Kernel::scatter after the rows [begin, end) hold the operand: every
  // element of the scatter's domain in row-major order whose target row is
  // one of them adds its value to its target, in the output's dtype.
  void emit_scatter(llvm::Value* begin, llvm::Value* end) {
    const kir::Kernel::Scatter& sc = k_.scatter;
    const size_t out = static_cast<size_t>(k_.num_inputs());
    const DType t = k_.params[out];
    std::function<void(size_t)> nest = [&](size_t d) {
      if (d < sc.domain.size()) {
        loop(b_.getInt64(0), b_.getInt64(sc.domain[d]), [&](llvm::Value* i) {
          vars_[static_cast<size_t>(sc.var0) + d] = i;
          nest(d + 1);
        });
        return;
      }
      llvm::Value* row = value(sc.row);
      when(b_.CreateAnd(b_.CreateICmpSGE(row, begin), b_.CreateICmpSLT(row, end)), [&] {
        llvm::Value* p = b_.CreateInBoundsGEP(memory_type(t), bufs_[out], value(sc.at));
        llvm::Value* old = b_.CreateLoad(type(t), p);
        llvm::Value* v = value(sc.value);
        b_.CreateStore(is_float(t) ? b_.CreateFAdd(old, v) : b_.CreateAdd(old, v), p);
      });
    };
    scoped([&] { nest(0); });
  }

  // The value of e.a as an index, after a check that it lies in [0, e.i):
  // where it does not, the kernel returns kir::kIndexOutOfRange.
  llvm::Value* checked_index(const kir::Expr& e) {
    llvm::Value* v = b_.CreateSExt(value(e.a), b_.getInt64Ty());
    if (!stop_) {
      llvm::IRBuilderBase::InsertPointGuard keep(b_);
      stop_ = llvm::BasicBlock::Create(ctx_, "index_out_of_range", fn_);
      b_.SetInsertPoint(stop_);
      b_.CreateRet(b_.getInt32(kir::kIndexOutOfRange));
    }
    auto* in_range = llvm::BasicBlock::Create(ctx_, "index_in_range", fn_);
    b_.CreateCondBr(b_.CreateICmpULT(v, b_.getInt64(static_cast<uint64_t>(e.i))), in_range, stop_);
    b_.SetInsertPoint(in_range);
    return v;
  }

  // ir/random.h's uniform(index e.a, step e.b, seed e.i, stream e.f), the
  // same operations on the same bits: Philox4x32-10, the key's rounds folded.
  llvm::Value* philox_uniform(const kir::Expr& e) {
    llvm::Type* i32 = b_.getInt32Ty();
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Value* index = value(e.a);
    llvm::Value* step = value(e.b);
    auto hi = [&](llvm::Value* x) { return b_.CreateTrunc(b_.CreateLShr(x, 32), i32); };
    llvm::Value* c[4] = {b_.CreateTrunc(index, i32), hi(index), b_.CreateTrunc(step, i32),
                         b_.getInt32(static_cast<uint32_t>(e.f))};
    const uint64_t seed = static_cast<uint64_t>(e.i);
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
      }
      llvm::Value* p0 = b_.CreateMul(b_.CreateZExt(c[0], i64), b_.getInt64(0xD2511F53u));
      llvm::Value* p1 = b_.CreateMul(b_.CreateZExt(c[2], i64), b_.getInt64(0xCD9E8D57u));
      llvm::Value* next[4] = {b_.CreateXor(b_.CreateXor(hi(p1), c[1]), b_.getInt32(k0)), b_.CreateTrunc(p1, i32),
                              b_.CreateXor(b_.CreateXor(hi(p0), c[3]), b_.getInt32(k1)), b_.CreateTrunc(p0, i32)};
      std::copy(std::begin(next), std::end(next), std::begin(c));
    }
    llvm::Value* bits = b_.CreateUIToFP(b_.CreateLShr(c[0], 8), b_.getFloatTy());
    return b_.CreateFMul(bits, llvm::ConstantFP::get(b_.getFloatTy(), 0x1p-24));
  }

  // The row-major index of the current element of reduction e's loops.
  llvm::Value* linear_index(const kir::Expr& e) {
    llvm::Value* l = b_.getInt64(0);
    for (size_t j = 0; j < e.extents.size(); ++j)
      l = b_.CreateAdd(b_.CreateMul(l, b_.getInt64(e.extents[j])), vars_[static_cast<size_t>(e.var0) + j]);
    return l;
  }

  // The accumulator type of reduction e and its initial value.
  std::pair<llvm::Type*, llvm::Value*> reduce_init(const kir::Expr& e) {
    const DType in = k_.exprs[e.a].dtype;
    const bool fl = is_float(in);
    llvm::Type* acc_t = e.op == OpCode::ReduceSum ? (fl ? b_.getDoubleTy() : b_.getInt64Ty()) : type(compute_dtype(in));
    if (e.op == OpCode::ReduceSum) return {acc_t, fl ? llvm::ConstantFP::get(acc_t, 0.0) : b_.getInt64(0)};
    const bool high = e.op == OpCode::ReduceMin;
    if (fl) return {acc_t, llvm::ConstantFP::getInfinity(acc_t, !high)};
    unsigned bits = acc_t->getIntegerBitWidth();
    return {acc_t, high ? llvm::ConstantInt::get(acc_t, llvm::APInt::getSignedMaxValue(bits))
                        : llvm::ConstantInt::get(acc_t, llvm::APInt::getSignedMinValue(bits))};
  }

  // Accumulator a folded with term x by reduce_sum, _max or _min.
  // `reassociate`: float sums may be reordered (to vectorize a sum's own loop).
  llvm::Value* reduce_step(const kir::Expr& e, llvm::Value* a, llvm::Value* x, bool reassociate) {
    const bool fl = is_float(k_.exprs[e.a].dtype);
    if (e.op == OpCode::ReduceSum) {
      if (!fl) return b_.CreateAdd(a, b_.CreateSExt(x, a->getType()));
      llvm::Value* r = b_.CreateFAdd(a, b_.CreateFPExt(x, a->getType()));
      llvm::cast<llvm::Instruction>(r)->setHasAllowReassoc(reassociate);
      return r;
    }
    bool max = e.op == OpCode::ReduceMax;
    llvm::Value* better = fl ? (max ? b_.CreateFCmpOGT(x, a) : b_.CreateFCmpOLT(x, a))
                             : (max ? b_.CreateICmpSGT(x, a) : b_.CreateICmpSLT(x, a));
    llvm::Value* r = b_.CreateSelect(better, x, a);
    if (fl) r = b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);  // NaN sticks
    return r;
  }

  // The value of reduction e from its final accumulator.
  llvm::Value* reduce_result(const kir::Expr& e, llvm::Value* acc) {
    if (is_half(e.dtype))
      return e.op == OpCode::ReduceSum ? half_ir::narrow_double(b_, acc, e.dtype) : half_ir::narrow(b_, acc, e.dtype);
    if (e.op != OpCode::ReduceSum) return acc;
    return is_float(e.dtype) ? b_.CreateFPTrunc(acc, type(e.dtype)) : b_.CreateTrunc(acc, type(e.dtype));
  }

  // Calls body() inside e's loops (innermost last), its variables set.
  // `vector_innermost`: the innermost is a vector_loop (see loop()).
  void reduce_loops(const kir::Expr& e, size_t j, bool vector_innermost, const std::function<void()>& body) {
    reduce_loops(e, j, e.extents.size(), vector_innermost, body);
  }
  // Only e's loops [j, end).
  void reduce_loops(const kir::Expr& e, size_t j, size_t end, bool vector_innermost, const std::function<void()>& body) {
    if (j == end) {
      body();
      return;
    }
    loop(b_.getInt64(0), b_.getInt64(e.extents[j]), [&](llvm::Value* i) {
      vars_[static_cast<size_t>(e.var0) + j] = i;
      reduce_loops(e, j + 1, end, vector_innermost, body);
    }, vector_innermost && j + 1 == e.extents.size());
  }

  // Float max/min: the sequential fold (reduce_in_order) cannot be
  // vectorized, but its result is the first element that attains the extreme
  // value, or the last NaN: whatever the order, the same bits unless the
  // extreme is a zero (-0 and +0 tie) or a NaN (payloads). So first
  // llvm.maximum/minimum (order-free: NaN wins, -0 < +0), vectorized, and the
  // fold in order only where that gave a zero or a NaN.
  llvm::Value* reduce(const kir::Expr& e) {
    const bool max = e.op == OpCode::ReduceMax;
    if (!is_float(e.dtype) || (!max && e.op != OpCode::ReduceMin) || e.b >= 0) return reduce_in_order(e);
    llvm::Type* acc_t;  // named variables, not a structured binding: the lambdas below use them (clang 14)
    llvm::Value* init;
    std::tie(acc_t, init) = reduce_init(e);
    llvm::AllocaInst* acc = slot(acc_t);
    b_.CreateStore(init, acc);
    reduce_loops(e, 0, /*vector_innermost=*/true, [&] {
      llvm::Value* x = operand(e.a);
      llvm::Value* a = b_.CreateLoad(acc_t, acc);
      b_.CreateStore(b_.CreateBinaryIntrinsic(max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, a, x), acc);
    });
    llvm::Value* fast = b_.CreateLoad(acc_t, acc);
    llvm::Value* tie = b_.CreateFCmpUEQ(fast, llvm::ConstantFP::get(acc_t, 0.0));  // ±0 or NaN
    fast = reduce_result(e, fast);
    llvm::BasicBlock* from = b_.GetInsertBlock();
    auto* in_order = llvm::BasicBlock::Create(ctx_, "in_order", fn_);
    auto* join = llvm::BasicBlock::Create(ctx_, "join", fn_);
    b_.CreateCondBr(tie, in_order, join);
    b_.SetInsertPoint(in_order);
    llvm::Value* exact = reduce_in_order(e);
    llvm::BasicBlock* exact_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode* r = b_.CreatePHI(fast->getType(), 2);
    r->addIncoming(fast, from);
    r->addIncoming(exact, exact_end);
    return r;
  }

  // Folds e.a over the reduction's loops, in row-major order, where the mask
  // e.b (if any) holds.
  llvm::Value* reduce_in_order(const kir::Expr& e) {
    const bool fl = is_float(k_.exprs[e.a].dtype);
    llvm::Type* acc_t;  // named variables, not a structured binding: the lambdas below use them (clang 14)
    llvm::Value* init;
    std::tie(acc_t, init) = reduce_init(e);
    llvm::AllocaInst* acc = slot(acc_t);
    llvm::AllocaInst* best_index = e.op == OpCode::Argmax ? slot(b_.getInt64Ty()) : nullptr;
    b_.CreateStore(init, acc);
    // A masked argmax starts with none (-1) and takes its first unmasked
    // element; an unmasked one can start at its first element, index 0.
    const bool masked = e.b >= 0;
    if (best_index) b_.CreateStore(b_.getInt64(masked ? -1 : 0), best_index);
    auto fold = [&] {
      llvm::Value* x = operand(e.a);
      llvm::Value* a = b_.CreateLoad(acc_t, acc);
      llvm::Value* r;
      if (e.op == OpCode::Argmax) {
        llvm::Value* bi = b_.CreateLoad(b_.getInt64Ty(), best_index);
        llvm::Value* beats = fl ? b_.CreateSelect(b_.CreateFCmpUNO(x, x), b_.CreateFCmpORD(a, a), b_.CreateFCmpOGT(x, a))
                                : b_.CreateICmpSGT(x, a);
        if (masked) beats = b_.CreateOr(b_.CreateICmpSLT(bi, b_.getInt64(0)), beats);
        r = b_.CreateSelect(beats, x, a);
        b_.CreateStore(b_.CreateSelect(beats, linear_index(e), bi), best_index);
      } else {
        r = reduce_step(e, a, x, /*reassociate=*/true);
      }
      b_.CreateStore(r, acc);
    };
    reduce_loops(e, 0, /*vector_innermost=*/!masked, [&] {
      if (masked) when(value(e.b), fold);
      else fold();
    });
    if (best_index) return b_.CreateLoad(b_.getInt64Ty(), best_index);
    return reduce_result(e, b_.CreateLoad(acc_t, acc));
  }

  // Reduction e for every element of the current row (innermost domain
  // variable 0..inner-1) at once: its loops outside, the row inside, one
  // accumulator per element, each folded in row-major order as reduce() does.
  // `interleaved`: e's innermost loop runs inside the row's, per element
  // (cpu::ReduceStrategy::interleaved). Returns the accumulators.
  llvm::AllocaInst* reduce_across_row(const kir::Expr& e, int64_t inner, bool interleaved) {
    const size_t row_var = k_.domain.size() - 1;
    const size_t outside = e.extents.size() - (interleaved ? 1 : 0);
    llvm::Type* acc_t;  // named variables, not a structured binding: the lambdas below use them (clang 14)
    llvm::Value* init;
    std::tie(acc_t, init) = reduce_init(e);
    llvm::AllocaInst* acc = slot(llvm::ArrayType::get(acc_t, static_cast<uint64_t>(inner)));
    auto element = [&](llvm::Value* i) { return b_.CreateInBoundsGEP(acc_t, acc, i); };
    loop(b_.getInt64(0), b_.getInt64(inner), [&](llvm::Value* i) { b_.CreateStore(init, element(i)); }, true);
    reduce_loops(e, 0, outside, /*vector_innermost=*/false, [&] {
      loop(b_.getInt64(0), b_.getInt64(inner), [&](llvm::Value* i) {
        vars_[row_var] = i;
        reduce_loops(e, outside, e.extents.size(), /*vector_innermost=*/false, [&] {
          llvm::Value* a = b_.CreateLoad(acc_t, element(i));
          b_.CreateStore(reduce_step(e, a, operand(e.a), /*reassociate=*/false), element(i));
        });
      }, /*vector_loop=*/!interleaved);
    });
    return acc;
  }

  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const kir::Kernel& k_;
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::BasicBlock* stop_ = nullptr;  // returns kir::kIndexOutOfRange (checked_index)
  std::vector<llvm::Value*> bufs_, vars_, cache_;
  std::vector<std::vector<int>> scopes_;  // expressions emitted in each open loop body
};

// LLVM's libmvec table (LIBMVEC_X86) has the SSE and AVX2 variants only; on
// CPUs with AVX-512 the vectorizers pick 16 floats (8 doubles) and, finding no
// variant of that width, call the scalar function per element. glibc's
// AVX-512 variants of the same functions, with the same error bound (4 ulp):
void add_avx512_libmvec(llvm::TargetLibraryInfoImpl& tlii) {
  struct Variant {
    const char* scalar;
    const char* vector;
    unsigned lanes;
    const char* abi;
  };
  static constexpr Variant kVariants[] = {
      {"llvm.exp.f32", "_ZGVeN16v_expf", 16, "_ZGV_LLVM_N16v"}, {"expf", "_ZGVeN16v_expf", 16, "_ZGV_LLVM_N16v"},
      {"llvm.log.f32", "_ZGVeN16v_logf", 16, "_ZGV_LLVM_N16v"}, {"logf", "_ZGVeN16v_logf", 16, "_ZGV_LLVM_N16v"},
      {"llvm.sin.f32", "_ZGVeN16v_sinf", 16, "_ZGV_LLVM_N16v"}, {"sinf", "_ZGVeN16v_sinf", 16, "_ZGV_LLVM_N16v"},
      {"llvm.cos.f32", "_ZGVeN16v_cosf", 16, "_ZGV_LLVM_N16v"}, {"cosf", "_ZGVeN16v_cosf", 16, "_ZGV_LLVM_N16v"},
      {"llvm.pow.f32", "_ZGVeN16vv_powf", 16, "_ZGV_LLVM_N16vv"}, {"powf", "_ZGVeN16vv_powf", 16, "_ZGV_LLVM_N16vv"},
      {"llvm.exp.f64", "_ZGVeN8v_exp", 8, "_ZGV_LLVM_N8v"}, {"exp", "_ZGVeN8v_exp", 8, "_ZGV_LLVM_N8v"},
      {"llvm.log.f64", "_ZGVeN8v_log", 8, "_ZGV_LLVM_N8v"}, {"log", "_ZGVeN8v_log", 8, "_ZGV_LLVM_N8v"},
      {"llvm.sin.f64", "_ZGVeN8v_sin", 8, "_ZGV_LLVM_N8v"}, {"sin", "_ZGVeN8v_sin", 8, "_ZGV_LLVM_N8v"},
      {"llvm.cos.f64", "_ZGVeN8v_cos", 8, "_ZGV_LLVM_N8v"}, {"cos", "_ZGVeN8v_cos", 8, "_ZGV_LLVM_N8v"},
      {"llvm.pow.f64", "_ZGVeN8vv_pow", 8, "_ZGV_LLVM_N8vv"}, {"pow", "_ZGVeN8vv_pow", 8, "_ZGV_LLVM_N8vv"},
  };
  std::vector<llvm::VecDesc> descs;
  for (const Variant& v : kVariants)
    descs.emplace_back(v.scalar, v.vector, llvm::ElementCount::getFixed(v.lanes), false, v.abi);
  tlii.addVectorizableFunctions(descs);
}

// tanh and erf have libmvec variants since glibc 2.35 (the same 4 ulp bound)
// that LLVM 19's table lacks, so their loops called libm once per element (a
// fused add+tanh over 32x128 took 14x an exp kernel of that shape). The
// variants of each ISA the target has: xmm (b), AVX2 (d), AVX-512 (e), in
// place of the libm calls the kernels make (IrScalar::libm).
void add_libmvec_tanh_erf(llvm::TargetLibraryInfoImpl& tlii, llvm::StringRef features) {
  struct Variant {
    const char* feature;  // "": every x86-64 target
    const char* scalar;
    const char* vector;
    unsigned lanes;
    const char* abi;
  };
  static constexpr Variant kVariants[] = {
      {"", "tanhf", "_ZGVbN4v_tanhf", 4, "_ZGV_LLVM_N4v"},
      {"", "tanh", "_ZGVbN2v_tanh", 2, "_ZGV_LLVM_N2v"},
      {"", "erff", "_ZGVbN4v_erff", 4, "_ZGV_LLVM_N4v"},
      {"", "erf", "_ZGVbN2v_erf", 2, "_ZGV_LLVM_N2v"},
      {"+avx2", "tanhf", "_ZGVdN8v_tanhf", 8, "_ZGV_LLVM_N8v"},
      {"+avx2", "tanh", "_ZGVdN4v_tanh", 4, "_ZGV_LLVM_N4v"},
      {"+avx2", "erff", "_ZGVdN8v_erff", 8, "_ZGV_LLVM_N8v"},
      {"+avx2", "erf", "_ZGVdN4v_erf", 4, "_ZGV_LLVM_N4v"},
      {"+avx512f", "tanhf", "_ZGVeN16v_tanhf", 16, "_ZGV_LLVM_N16v"},
      {"+avx512f", "tanh", "_ZGVeN8v_tanh", 8, "_ZGV_LLVM_N8v"},
      {"+avx512f", "erff", "_ZGVeN16v_erff", 16, "_ZGV_LLVM_N16v"},
      {"+avx512f", "erf", "_ZGVeN8v_erf", 8, "_ZGV_LLVM_N8v"},
  };
  std::vector<llvm::VecDesc> descs;
  for (const Variant& v : kVariants)
    if (!*v.feature || features.contains(v.feature))
      descs.emplace_back(v.scalar, v.vector, llvm::ElementCount::getFixed(v.lanes), false, v.abi);
  tlii.addVectorizableFunctions(descs);
}

// Builds and optimizes the module of `kernels`.
Expected<std::unique_ptr<llvm::Module>> build_module(llvm::LLVMContext& ctx, const std::vector<const kir::Kernel*>& kernels,
                                                     llvm::TargetMachine& tm, double* ir_ms, double* optimize_ms) {
  auto t0 = Clock::now();
  auto m = std::make_unique<llvm::Module>("mlc_kernels", ctx);
  m->setDataLayout(tm.createDataLayout());
  m->setTargetTriple(tm.getTargetTriple().str());
  for (const kir::Kernel* k : kernels) KernelEmitter(*m, *k).emit(tm.getTargetCPU().str(), tm.getTargetFeatureString().str());
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os)) return make_error("mlc internal error: invalid kernel IR: " + err);
  if (ir_ms) *ir_ms += ms_since(t0);

  t0 = Clock::now();
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  llvm::Triple triple(m->getTargetTriple());
  llvm::TargetLibraryInfoImpl tlii(triple);
  tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
  if (tm.getTargetFeatureString().contains("+avx512f")) add_avx512_libmvec(tlii);
  add_libmvec_tanh_erf(tlii, tm.getTargetFeatureString());
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*m, mam);
  if (optimize_ms) *optimize_ms += ms_since(t0);
  return m;
}

// The host, or with `target` that CPU and feature string (the host's triple).
Expected<llvm::orc::JITTargetMachineBuilder> target_machine_builder(const std::optional<CodeTarget>& target) {
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return make_error("mlc internal error: LLVM: " + to_string(jtmb.takeError()));
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  if (target) {
    jtmb->setCPU(target->cpu);
    jtmb->getFeatures() = llvm::SubtargetFeatures(target->features);
  }
  return std::move(*jtmb);
}

Expected<std::unique_ptr<llvm::TargetMachine>> machine(llvm::orc::JITTargetMachineBuilder jtmb) {
  auto tm = jtmb.createTargetMachine();
  if (!tm) return make_error("mlc internal error: LLVM: " + to_string(tm.takeError()));
  return std::move(*tm);
}

// Bumped whenever the emitter's output for a given kernel changes, so that
// cached objects of older emitters are never reused.
constexpr char kEmitterVersion[] = "mlc-llvm-emitter 13";

// One thread's compiler: a context and target machine of its own.
struct Worker {
  std::unique_ptr<llvm::TargetMachine> tm;
  double ir_ms = 0, optimize_ms = 0, codegen_ms = 0;

  Expected<std::string> object(const kir::Kernel& k) {
    llvm::LLVMContext ctx;
    MLC_TRY(std::unique_ptr<llvm::Module> m, build_module(ctx, {&k}, *tm, &ir_ms, &optimize_ms));
    auto t0 = Clock::now();
    llvm::SmallVector<char, 0> bytes;
    llvm::raw_svector_ostream os(bytes);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      return make_error("mlc internal error: LLVM cannot emit object code for this CPU");
    pm.run(*m);
    codegen_ms += ms_since(t0);
    return std::string(bytes.data(), bytes.size());
  }
};

struct Generated {
  double ir_ms = 0, optimize_ms = 0, codegen_ms = 0;  // summed over threads
};

// The objects of kernels[i] for every i of `which`, each under its kernel's
// name, into objects[i], on `threads` threads (0: one per core, at most 8).
// Each kernel is its own module, so the order of work never changes an object.
Expected<Generated> generate(const std::vector<kir::Kernel>& kernels, const std::vector<int>& which,
                             const llvm::orc::JITTargetMachineBuilder& target, int threads,
                             std::vector<std::string>& objects) {
  Generated out;
  if (which.empty()) return out;
  threads = threads > 0 ? threads : static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
  threads = std::max(1, std::min<int>(threads, static_cast<int>(which.size())));
  std::vector<Worker> workers(static_cast<size_t>(threads));
  for (Worker& w : workers) {
    MLC_TRY(w.tm, machine(target));
  }
  std::vector<std::optional<Error>> errors(which.size());
  std::atomic<size_t> next{0};
  auto run = [&](Worker& w) {
    for (size_t j; (j = next++) < which.size();) {
      const size_t i = static_cast<size_t>(which[j]);
      auto obj = w.object(kernels[i]);
      if (!obj) {
        errors[j] = obj.error();
        continue;
      }
      objects[i] = std::move(*obj);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(run, std::ref(workers[static_cast<size_t>(t)]));
  run(workers[0]);
  for (std::thread& t : pool) t.join();
  for (auto& e : errors)
    if (e) return std::move(*e);
  for (const Worker& w : workers) {
    out.ir_ms += w.ir_ms;
    out.optimize_ms += w.optimize_ms;
    out.codegen_ms += w.codegen_ms;
  }
  return out;
}

}  // namespace

std::string code_generator() { return std::string("LLVM ") + LLVM_VERSION_STRING + ", " + kEmitterVersion; }

Expected<CompiledKernels> compile_kernels(const std::vector<kir::Kernel>& kernels, const CompileOptions& options) {
  initialize_llvm();
  const auto t_start = Clock::now();
  CompiledKernels out;
  if (kernels.empty()) return out;
  MLC_TRY(llvm::orc::JITTargetMachineBuilder target, target_machine_builder(options.target));
  out.code.arch = target.getCPU();
  out.code.features = target.getFeatures().getString();
  out.code.generator = code_generator();

  // One object per distinct kernel, named by its signature's hash.
  std::vector<kir::Kernel> distinct;
  std::vector<std::string> keys;
  std::unordered_map<std::string, int> by_signature;
  std::unordered_set<std::string> symbols;
  for (const kir::Kernel& k : kernels) {
    std::string sig = kir::signature(k);
    auto [it, added] = by_signature.emplace(sig, static_cast<int>(distinct.size()));
    out.object_of.push_back(it->second);
    if (!added) continue;
    std::string symbol = "mlc_kernel_" + rt::hex64(rt::fnv1a64(sig));
    while (!symbols.insert(symbol).second) symbol += "_";  // a 64-bit collision
    kir::Kernel copy = k;
    copy.name = symbol;
    distinct.push_back(std::move(copy));
    keys.push_back(sig + '\0' + symbol + '\0' + out.code.arch + '\0' + out.code.features + '\0' +
                   LLVM_VERSION_STRING + '\0' + kEmitterVersion);
  }
  out.code.objects.resize(distinct.size());
  std::vector<std::string> bytes(distinct.size());
  std::vector<int> misses;
  for (size_t i = 0; i < distinct.size(); ++i) {
    out.code.objects[i].symbol = distinct[i].name;
    out.code.objects[i].source = kir::kernel_to_json(distinct[i]);
    // A hit must define the function it is loaded for: an entry holding
    // another kernel's object is a miss, and the put below replaces it.
    if (options.cache)
      if (auto hit = options.cache->get(keys[i]); hit && rt::check_kernel_object({distinct[i].name, *hit}).ok()) {
        bytes[i] = std::move(*hit);
        ++out.cache_hits;
        continue;
      }
    misses.push_back(static_cast<int>(i));
  }
  MLC_TRY(Generated g, generate(distinct, misses, target, options.threads, bytes));
  out.ir_ms = g.ir_ms;
  out.optimize_ms = g.optimize_ms;
  out.codegen_ms = g.codegen_ms;
  for (size_t i = 0; i < distinct.size(); ++i) out.code.objects[i].bytes = std::move(bytes[i]);
  if (options.cache)
    for (int i : misses) options.cache->put(keys[static_cast<size_t>(i)], out.code.objects[static_cast<size_t>(i)].bytes);
  out.compiled = static_cast<int>(misses.size());
  out.wall_ms = ms_since(t_start);
  return out;
}

Expected<std::vector<std::string>> compile_named_kernels(const std::vector<kir::Kernel>& kernels,
                                                         const CompileOptions& options) {
  initialize_llvm();
  MLC_TRY(llvm::orc::JITTargetMachineBuilder target, target_machine_builder(options.target));
  std::vector<int> all(kernels.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  std::vector<std::string> objects(kernels.size());
  MLC_TRY(Generated g, generate(kernels, all, target, options.threads, objects));
  (void)g;
  return objects;
}

Expected<std::string> kernels_llvm_ir(const std::vector<kir::Kernel>& kernels) {
  initialize_llvm();
  MLC_TRY(llvm::orc::JITTargetMachineBuilder target, target_machine_builder(std::nullopt));
  MLC_TRY(std::unique_ptr<llvm::TargetMachine> tm, machine(target));
  llvm::LLVMContext ctx;
  std::vector<const kir::Kernel*> all;
  for (const kir::Kernel& k : kernels) all.push_back(&k);
  MLC_TRY(std::unique_ptr<llvm::Module> m, build_module(ctx, all, *tm, nullptr, nullptr));
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os, nullptr);
  return s;
}

}  // namespace mlc
