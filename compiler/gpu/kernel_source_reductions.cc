// The Emitter's reductions: a thread's fold in the reference order, a
// block's fold and fixed tree (gpu_schedule.h's row and columns schedules),
// and the two phases' partial results in the scratch words.
#include "compiler/gpu/kernel_emitter.h"

#include <cmath>

namespace mlc::gpu::emit {

Emitter::Acc Emitter::accumulator(const kir::Expr& e) const {
  const DType in = k_.exprs[static_cast<size_t>(e.a)].dtype;
  Acc a;
  a.fl = is_float(in);
  a.indexed = e.op != OpCode::ReduceSum;
  if (e.op == OpCode::ReduceSum) {
    a.type = a.fl ? DType::f64 : DType::i64;
    a.init = a.fl ? "0.0" : i64_literal(0);
    return a;
  }
  a.type = compute_dtype(in);
  if (a.type == DType::boolean || a.type == DType::i32) a.type = DType::i64;  // held wide; narrowed at the end
  const bool high = e.op == OpCode::ReduceMin;
  if (a.fl) {
    a.init = a.type == DType::f64 ? f64_literal(high ? INFINITY : -INFINITY) : f32_literal(high ? INFINITY : -INFINITY);
  } else {
    const int64_t lo = in == DType::i32 ? INT32_MIN : in == DType::boolean ? 0 : INT64_MIN;
    const int64_t hi = in == DType::i32 ? INT32_MAX : in == DType::boolean ? 1 : INT64_MAX;
    a.init = i64_literal(high ? hi : lo);
  }
  return a;
}

void Emitter::fold_step(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index,
                        const std::string& x, const std::string& at) {
  if (e.op == OpCode::ReduceSum) {
    if (a.fl) line(acc + " += (double)" + x + ";");
    else line(acc + " = (i64)((u64)" + acc + " + (u64)(i64)" + x + ");");
    return;
  }
  const std::string xv = fresh(value_type(a.type), "(" + std::string(value_type(a.type)) + ")" + x);
  std::string beats;
  if (e.op == OpCode::Argmax) {
    beats = a.fl ? "(" + xv + " != " + xv + " ? " + acc + " == " + acc + " : " + xv + " > " + acc + ")" : "(" + xv + " > " + acc + ")";
    beats = "(" + index + " < 0 || " + beats + ")";
  } else {
    const char* cmp = e.op == OpCode::ReduceMax ? " > " : " < ";
    // Strictly better, or a NaN (which sticks: the last NaN wins).
    beats = "(" + index + " < 0 || " + xv + cmp + acc + (a.fl ? " || " + xv + " != " + xv : "") + ")";
  }
  scoped("if " + beats, [&] {
    line(acc + " = " + xv + ";");
    line(index + " = " + at + ";");
  });
}

std::string Emitter::reduce_result(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index) {
  if (e.op == OpCode::Argmax) return index;
  if (is_half(e.dtype)) {
    const char* name = e.dtype == DType::bf16 ? "bf16" : "f16";
    if (a.type == DType::f64) return fresh("u16", "mlc_f64_to_" + std::string(name) + "(" + acc + ")");
    return fresh("u16", "mlc_f32_to_" + std::string(name) + "(" + acc + ")");
  }
  return fresh(value_type(e.dtype), "(" + std::string(value_type(e.dtype)) + ")" + acc);
}

std::string Emitter::linear_index(const kir::Expr& e) {
  std::string l = i64_literal(0);
  for (size_t j = 0; j < e.extents.size(); ++j)
    l = "(" + l + " * " + i64_literal(e.extents[j]) + " + " + vars_[static_cast<size_t>(e.var0) + j] + ")";
  return l;
}

void Emitter::fold_element(const kir::Expr& e, const Acc& a, const std::string& acc, const std::string& index,
                           const std::string& at) {
  auto fold = [&] { fold_step(e, a, acc, index, operand(e.a), at); };
  if (e.b >= 0) scoped("if (" + value(e.b) + ")", fold);
  else fold();
}

std::string Emitter::thread_reduce(const kir::Expr& e) {
  const Acc a = accumulator(e);
  const std::string acc = fresh(value_type(a.type), a.init);
  // Max and min start with no element (index -1); an unmasked argmax starts at element 0.
  const std::string index = a.indexed ? fresh("i64", e.op == OpCode::Argmax && e.b < 0 ? "0" : "-1") : "";
  std::function<void(size_t)> nest = [&](size_t j) {
    if (j == e.extents.size()) {
      fold_element(e, a, acc, index, a.indexed ? linear_index(e) : "");
      return;
    }
    const std::string v = "v" + std::to_string(e.var0 + static_cast<int>(j));
    vars_[static_cast<size_t>(e.var0) + j] = v;
    scoped("for (i64 " + v + " = 0; " + v + " < " + i64_literal(e.extents[j]) + "; ++" + v + ")", [&] { nest(j + 1); });
  };
  nest(0);
  return reduce_result(e, a, acc, index);
}

std::string Emitter::block_reduce(const kir::Expr& e, int id) {
  const Acc a = accumulator(e);
  const Partial mine = fold_.from_scratch ? read_partials(e, a, id) : block_fold_terms(e, a);
  const Partial total = block_tree(e, a, mine);
  return reduce_result(e, a, total.value, total.index);
}

Emitter::Partial Emitter::block_fold_terms(const kir::Expr& e, const Acc& a) {
  int64_t n = 1;
  for (int64_t x : e.extents) n *= x;
  const Partial p{fresh(value_type(a.type), a.init), a.indexed ? fresh("i64", "-1") : ""};
  scoped("for (i64 rj = " + fold_.first + "; rj < " + i64_literal(n) + "; rj += " + fold_.stride + ")", [&] {
    split_index("rj", e.var0, e.extents);
    fold_element(e, a, p.value, p.index, "rj");
  });
  return p;
}

Emitter::Partial Emitter::block_tree(const kir::Expr& e, const Acc& a, const Partial& mine) {
  const int block = s_.launch.block;
  const std::string arr = shared_array(e, a);
  line(arr + "[tid] = " + mine.value + ";");
  if (a.indexed) line("mlc_sidx[tid] = " + mine.index + ";");
  line("MLC_BARRIER();");
  shared_tree_levels(e, a, arr, block, kWarpSize);
  const char* type = value_type(a.type);
  std::string result_slot = fold_.result_slot;
  if (fold_.warp_levels) {
    // The tree's last five levels (strides 16 to 1) within the first warp:
    // the partner's partial result through MLC_WARP_DOWN (CUDA: a register
    // shuffle; OpenCL: the shared array, MLC_WARP_PUT storing each level's
    // result and MLC_WARP_FENCE a barrier). Every thread of the block runs
    // them (a shuffle needs its whole warp, a barrier its whole block); the
    // threads at or past a level's stride combine nothing.
    const std::string w = fresh(type, arr + "[tid]");
    const std::string wi = a.indexed ? fresh("i64", "mlc_sidx[tid]") : "";
    scoped("for (int s = " + std::to_string(kWarpSize / 2) + "; s > 0; s >>= 1)", [&] {
      const std::string o = fresh(type, "MLC_WARP_DOWN(" + arr + ", " + w + ", s)");
      const std::string oi = a.indexed ? fresh("i64", "MLC_WARP_DOWN(mlc_sidx, " + wi + ", s)") : "";
      scoped("if (tid < s)", [&] {
        combine_partials(e, a, w, wi, o, oi);
        line("MLC_WARP_PUT(" + arr + ", " + w + ");");
        if (a.indexed) line("MLC_WARP_PUT(mlc_sidx, " + wi + ");");
      });
      line("MLC_WARP_FENCE();");
    });
    scoped("if (tid == 0)", [&] {
      line(arr + "[0] = " + w + ";");
      if (a.indexed) line("mlc_sidx[0] = " + wi + ";");
    });
    line("MLC_BARRIER();");
    result_slot = "0";
  }
  const Partial total{fresh(type, arr + "[" + result_slot + "]"),
                      a.indexed ? fresh("i64", "mlc_sidx[" + result_slot + "]") : ""};
  line("MLC_BARRIER();");  // before the arrays are used again
  return total;
}

void Emitter::store_partial(int id) {
  const kir::Expr& e = k_.exprs[static_cast<size_t>(id)];
  const Acc a = accumulator(e);
  const Partial total = block_tree(e, a, block_fold_terms(e, a));
  const int64_t word = s_.scratch_word[static_cast<size_t>(id)];
  scoped("if (tid == 0)", [&] {
    line("mlc_scratch[" + i64_literal(word) + " + partial] = " + scratch_bits(a.type, total.value) + ";");
    if (a.indexed)
      line("mlc_scratch[" + i64_literal(word + s_.partials) + " + partial] = (u64)" + total.index + ";");
  });
}

Emitter::Partial Emitter::read_partials(const kir::Expr& e, const Acc& a, int id) {
  const int64_t word = s_.scratch_word[static_cast<size_t>(id)];
  const Partial p{fresh(value_type(a.type), a.init), a.indexed ? fresh("i64", "-1") : ""};
  scoped("if (tid < " + i64_literal(s_.partials) + ")", [&] {
    line(p.value + " = " + scratch_value(a.type, "mlc_scratch[" + i64_literal(word) + " + tid]") + ";");
    if (a.indexed) line(p.index + " = (i64)mlc_scratch[" + i64_literal(word + s_.partials) + " + tid];");
  });
  return p;
}

std::string Emitter::scratch_bits(DType t, const std::string& v) {
  if (t == DType::f64) return "MLC_F64_BITS(" + v + ")";
  if (t == DType::f32) return "(u64)MLC_F32_BITS(" + v + ")";
  return "(u64)" + v;
}

std::string Emitter::scratch_value(DType t, const std::string& word) {
  if (t == DType::f64) return "MLC_BITS_F64(" + word + ")";
  if (t == DType::f32) return "MLC_BITS_F32((u32)" + word + ")";
  return "(i64)" + word;
}

std::string Emitter::shared_array(const kir::Expr& e, const Acc& a) {
  if (e.op == OpCode::ReduceSum) return a.fl ? "mlc_sf64" : "mlc_si64";
  return a.type == DType::f64 ? "mlc_sf64" : a.fl ? "mlc_sf32" : "mlc_si64";
}

void Emitter::shared_tree_levels(const kir::Expr& e, const Acc& a, const std::string& arr, int size, int last) {
  if (size / 2 < last) return;
  scoped("for (int s = " + std::to_string(size / 2) + "; s >= " + std::to_string(last) + "; s >>= 1)", [&] {
    scoped("if (tid < s)", [&] {
      const char* type = value_type(a.type);
      const std::string w = fresh(type, arr + "[tid]"), o = fresh(type, arr + "[tid + s]");
      const std::string wi = a.indexed ? fresh("i64", "mlc_sidx[tid]") : "";
      const std::string oi = a.indexed ? fresh("i64", "mlc_sidx[tid + s]") : "";
      combine_partials(e, a, w, wi, o, oi);
      line(arr + "[tid] = " + w + ";");
      if (a.indexed) line("mlc_sidx[tid] = " + wi + ";");
    });
    line("MLC_BARRIER();");
  });
}

void Emitter::combine_partials(const kir::Expr& e, const Acc& a, const std::string& w, const std::string& wi,
                               const std::string& o, const std::string& oi) {
  if (e.op == OpCode::ReduceSum) {
    if (a.fl) line(w + " = " + w + " + " + o + ";");
    else line(w + " = (i64)((u64)" + w + " + (u64)" + o + ");");
    return;
  }
  const std::string w_nan = a.fl ? "(" + w + " != " + w + ")" : "false";
  const std::string o_nan = a.fl ? "(" + o + " != " + o + ")" : "false";
  const char* cmp = e.op == OpCode::ReduceMin ? " < " : " > ";
  // Both NaN: argmax keeps the first, max and min take the last.
  const char* nan_order = e.op == OpCode::Argmax ? " < " : " > ";
  const std::string take_o = "(" + wi + " < 0 || (" + oi + " >= 0 && (" + w_nan + " ? (" + o_nan + " && " + oi + nan_order +
                             wi + ") : (" + o_nan + " || " + o + cmp + w + " || (" + o + " == " + w + " && " + oi + " < " +
                             wi + ")))))";
  scoped("if " + take_o, [&] {
    line(w + " = " + o + ";");
    line(wi + " = " + oi + ";");
  });
}

}  // namespace mlc::gpu::emit
