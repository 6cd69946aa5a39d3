// The rules are listed in runtime/verify_executable.h, numbered as below.
#include "runtime/verify_executable.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "runtime/target.h"

namespace mlc::rt {

namespace {

using Problem = std::optional<ExecutableProblem>;

std::string num(int64_t v) { return std::to_string(v); }
std::string item(std::string_view list, size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }
Problem problem(std::string field, std::string what) { return ExecutableProblem{std::move(field), std::move(what)}; }
std::string plural(int64_t n, const std::string& what) { return num(n) + " " + what + (n == 1 ? "" : "s"); }

class Verifier {
 public:
  explicit Verifier(const Executable& e)
      : e_(e), num_slots_(static_cast<int64_t>(e.slots.size())), n_(static_cast<int>(e.instructions.size())) {}

  Problem run() {
    using Check = Problem (Verifier::*)();
    for (Check check : {&Verifier::target, &Verifier::slots, &Verifier::scratch, &Verifier::args, &Verifier::views, &Verifier::results, &Verifier::constants,
                        &Verifier::kernels, &Verifier::instructions, &Verifier::writes, &Verifier::reads,
                        &Verifier::liveness, &Verifier::arena})
      if (Problem p = (this->*check)()) return p;
    return {};
  }

 private:
  // An arena value: a constant's slot or an instruction's arena result.
  struct Value {
    int slot = -1;
    int first = -1, last = -1;  // live over instructions [first, last]; -1 the start, n_ the end
    std::string field;          // where it is written: "constants[0]", "instructions[3].result"
  };

  const Slot& slot(int s) const { return e_.slots[static_cast<size_t>(s)]; }
  bool is_slot(int64_t s) const { return s >= 0 && s < num_slots_; }
  std::string no_slot(int64_t s) const {
    return "names slot " + num(s) + ", the function has " + plural(num_slots_, "slot");
  }
  std::string bytes_of(int s) const {
    return "bytes [" + num(slot(s).offset) + ", " + num(slot(s).offset + slot(s).type.num_bytes()) + ")";
  }
  std::string when(int t) const {
    return t < 0 ? std::string("the start") : t >= n_ ? std::string("the end") : "instruction " + num(t);
  }

  // Rule 0.
  Problem target() {
    const Target* t = find_target(e_.target);
    if (!t) return problem("target", "is '" + e_.target + "', not a target of this runtime (" + target_names() + ")");
    alignment_ = t->arena_alignment();
    if (e_.code && e_.code->target != e_.target)
      return problem("code", "is code for target '" + e_.code->target + "', the function is for '" + e_.target + "'");
    const int64_t objects = e_.code ? static_cast<int64_t>(e_.code->objects.size()) : 0;
    for (size_t k = 0; k < e_.kernels.size(); ++k)
      if (e_.kernels[k].object < 0 || e_.kernels[k].object >= objects)
        return problem(item("kernels", k) + ".object", "names code object " + num(e_.kernels[k].object) + ", the code has " +
                                                           plural(objects, "object"));
    return {};
  }

  // Rule 1, and that argument slots name arguments (for rule 2).
  Problem slots() {
    for (size_t s = 0; s < e_.slots.size(); ++s) {
      const Slot& sl = e_.slots[s];
      const int64_t bytes = sl.type.num_bytes();
      if (sl.arg >= static_cast<int64_t>(e_.args.size()))
        return problem(item("slots", s) + ".arg", "names argument " + num(sl.arg) + ", the function has " +
                                                      plural(static_cast<int64_t>(e_.args.size()), "argument"));
      if (sl.arg >= 0) continue;
      if (sl.offset < 0 || sl.offset > e_.arena_bytes - bytes)
        return problem(item("slots", s), sl.type.str() + " (" + num(bytes) + " bytes) at offset " + num(sl.offset) +
                                             " does not fit the arena of " + num(e_.arena_bytes) + " bytes");
      if (sl.offset % alignment_)
        return problem(item("slots", s), "offset " + num(sl.offset) + " is not " + num(alignment_) + "-byte aligned");
    }
    return {};
  }

  // Rule 2a.
  Problem scratch() {
    if (e_.scratch_bytes == 0) {
      if (e_.scratch_offset != 0)
        return problem("scratch_offset", "is " + num(e_.scratch_offset) + ", expected 0 without scratch bytes");
      return {};
    }
    if (!is_gpu_target(e_.target))
      return problem("scratch_bytes", "is " + num(e_.scratch_bytes) + ", but " + e_.target +
                                          " is not a GPU target (only two-phase GPU kernels use a scratch region)");
    const int64_t begin = e_.scratch_offset, end = begin + e_.scratch_bytes;
    if (e_.scratch_bytes < 0 || begin < 0 || begin > e_.arena_bytes - e_.scratch_bytes)
      return problem("scratch_offset", "the scratch region of " + num(e_.scratch_bytes) + " bytes at offset " + num(begin) +
                                           " does not fit the arena of " + num(e_.arena_bytes) + " bytes");
    if (begin % alignment_)
      return problem("scratch_offset", "is " + num(begin) + ", not " + num(alignment_) + "-byte aligned");
    for (size_t s = 0; s < e_.slots.size(); ++s) {
      const Slot& sl = e_.slots[s];
      if (sl.arg >= 0 || sl.type.num_bytes() == 0) continue;
      if (sl.offset < end && begin < sl.offset + sl.type.num_bytes())
        return problem(item("slots", s), bytes_of(static_cast<int>(s)) + " overlap the scratch region [" + num(begin) +
                                             ", " + num(end) + ")");
    }
    return {};
  }

  // Rule 3.
  Problem args() {
    for (size_t a = 0; a < e_.args.size(); ++a) {
      const int s = e_.args[a].slot;
      if (!is_slot(s) || slot(s).arg != static_cast<int>(a) || slot(s).offset != 0)
        return problem(item("args", a), "slot " + num(s) + " is not this argument's buffer");
    }
    return {};
  }

  // Rule 2.
  Problem views() {
    for (size_t s = 0; s < e_.slots.size(); ++s) {
      const Slot& sl = e_.slots[s];
      if (sl.arg < 0) continue;
      const int64_t buffer = slot(e_.args[static_cast<size_t>(sl.arg)].slot).type.num_bytes(),
                    bytes = sl.type.num_bytes();
      if (sl.offset < 0 || sl.offset > buffer - bytes)
        return problem(item("slots", s), sl.type.str() + " (" + num(bytes) + " bytes) at offset " + num(sl.offset) +
                                             " does not fit the " + num(buffer) + " bytes of argument " + num(sl.arg));
    }
    return {};
  }

  // Rule 4.
  Problem results() {
    updated_.assign(e_.args.size(), false);
    for (size_t k = 0; k < e_.results.size(); ++k) {
      const ResultSpec& r = e_.results[k];
      if (!is_slot(r.slot)) return problem(item("results", k) + ".slot", no_slot(r.slot));
      if (r.updates < 0) continue;
      if (r.updates >= static_cast<int>(e_.args.size()))
        return problem(item("results", k) + ".updates", "names argument " + num(r.updates) + ", the function has " +
                                                            plural(static_cast<int64_t>(e_.args.size()), "argument"));
      const TensorType& want = slot(e_.args[static_cast<size_t>(r.updates)].slot).type;
      if (slot(r.slot).type != want)
        return problem(item("results", k), "updates an argument of another type: slot " + num(r.slot) + " is " +
                                               slot(r.slot).type.str() + ", argument " + num(r.updates) + " " +
                                               want.str());
      if (slot(r.slot).arg != r.updates)
        return problem(item("results", k),
                       "updates argument " + num(r.updates) + ", but slot " + num(r.slot) +
                           " is not that argument's buffer (an updated argument's new value is in its buffer)");
      updated_[static_cast<size_t>(r.updates)] = true;
    }
    return {};
  }

  // Rule 5.
  Problem constants() {
    constant_of_.assign(e_.slots.size(), -1);
    for (size_t c = 0; c < e_.constants.size(); ++c) {
      const ConstantData& data = e_.constants[c];
      if (!is_slot(data.slot)) return problem(item("constants", c) + ".slot", no_slot(data.slot));
      const Slot& sl = slot(data.slot);
      if (sl.arg >= 0) return problem(item("constants", c), "names an argument's slot");
      if (static_cast<int64_t>(data.bytes.size()) != sl.type.num_bytes())
        return problem(item("constants", c), "has " + num(static_cast<int64_t>(data.bytes.size())) +
                                                 " bytes, its slot " + sl.type.str() + " has " +
                                                 num(sl.type.num_bytes()));
      int& filled = constant_of_[static_cast<size_t>(data.slot)];
      if (filled >= 0)
        return problem(item("constants", c),
                       "fills slot " + num(data.slot) + ", which constants[" + num(filled) + "] fills");
      filled = static_cast<int>(c);
    }
    return {};
  }

  // Rule 6.
  Problem kernels() {
    for (size_t k = 0; k < e_.kernels.size(); ++k) {
      const KernelInfo& info = e_.kernels[k];
      if (info.types.empty()) return problem(item("kernels", k), "has no result type");
      const int64_t buffers = static_cast<int64_t>(info.types.size());
      if (info.outputs < 1 || info.outputs > buffers)
        return problem(item("kernels", k) + ".outputs",
                       "is " + num(info.outputs) + ", expected 1 to the kernel's " + plural(buffers, "buffer"));
      const Shape& out = info.types.back().shape;
      int64_t rows = 1;
      for (size_t d = 0; d + 1 < out.size(); ++d) rows *= out[d];
      if (rows != info.cpu.rows)
        return problem(item("kernels", k),
                       "rows " + num(info.cpu.rows) + " do not match its result " + info.types.back().str());
      if (info.cpu.row_cost < 0)
        return problem(item("kernels", k) + ".row_cost", "is " + num(info.cpu.row_cost) + ", expected at least 0");
      for (size_t c = 0; c < info.index_checks.size(); ++c) {
        const IndexCheck& check = info.index_checks[c];
        const std::string at = item("kernels", k) + item(".index_checks", c);
        if (check.input < 0 || check.input >= buffers - info.outputs)
          return problem(at + ".input", "is " + num(check.input) + ", expected one of the kernel's " +
                                            plural(buffers - info.outputs, "input"));
        const DType t = info.types[static_cast<size_t>(check.input)].dtype;
        if (t != DType::i32 && t != DType::i64)
          return problem(at + ".input", "is " + std::string(dtype_name(t)) + ", expected i32 or i64 indices");
        if (check.bound < 1) return problem(at + ".bound", "is " + num(check.bound) + ", expected at least 1");
      }
      // GPU targets launch `grid` blocks of `block` threads (runtime/executable.h GpuLaunch).
      const GpuLaunch& l = info.launch;
      if (!is_gpu_target(e_.target)) {
        if (l != GpuLaunch{}) return problem(item("kernels", k) + ".launch", "is set, but " + e_.target + " is not a GPU target");
        continue;
      }
      if (l.block < 1 || l.block > kMaxGpuBlock)
        return problem(item("kernels", k) + ".launch.block", "is " + num(l.block) + ", expected 1 to " + num(kMaxGpuBlock));
      if (l.grid < 1 || l.grid > kMaxGpuGrid)
        return problem(item("kernels", k) + ".launch.grid", "is " + num(l.grid) + ", expected 1 to " + num(kMaxGpuGrid));
      if (l.shared_bytes < 0 || l.shared_bytes > kMaxGpuSharedBytes)
        return problem(item("kernels", k) + ".launch.shared_bytes",
                       "is " + num(l.shared_bytes) + ", expected 0 to " + num(kMaxGpuSharedBytes));
      if (l.scratch_bytes < 0 || l.scratch_bytes > e_.scratch_bytes)
        return problem(item("kernels", k) + ".launch.scratch_bytes",
                       "is " + num(l.scratch_bytes) + ", expected 0 to the scratch region's " + num(e_.scratch_bytes));
      if (l.two_phase() ? l.combine_grid < 1 || l.combine_grid > kMaxGpuGrid : l.combine_grid != 0)
        return problem(item("kernels", k) + ".launch.combine_grid",
                       "is " + num(l.combine_grid) + ", expected " +
                           (l.two_phase() ? "1 to " + num(kMaxGpuGrid) + " (a two-phase kernel)"
                                          : std::string("0 (a kernel of one launch)")));
    }
    return {};
  }

  // Rules 7 to 9.
  Problem instructions() {
    for (size_t i = 0; i < e_.instructions.size(); ++i) {
      const Instruction& ins = e_.instructions[i];
      const std::string at = item("instructions", i);
      for (size_t k = 0; k < ins.operands.size(); ++k)
        if (!is_slot(ins.operands[k])) return problem(at + item(".operands", k), no_slot(ins.operands[k]));
      if (!is_slot(ins.result)) return problem(at + ".result", no_slot(ins.result));
      for (size_t k = 0; k < ins.more_results.size(); ++k)
        if (!is_slot(ins.more_results[k])) return problem(at + item(".more_results", k), no_slot(ins.more_results[k]));
      const std::string kind(instr_kind_name(ins.kind));
      const size_t more = ins.kind == InstrKind::gemm ? epilogue_results(ins.gemm.epilogue) : 0;
      if (ins.kind != InstrKind::kernel && ins.more_results.size() != more)
        return problem(at, more ? "a gemm with epilogue " + std::string(gemm_epilogue_name(ins.gemm.epilogue)) +
                                      " has 2 results, found " + num(static_cast<int64_t>(ins.more_results.size()) + 1)
                                : "a " + kind + " instruction has one result, found more_results");
      if (Problem p = instruction(at, ins)) return p;
    }
    return {};
  }

  Problem arity(const std::string& at, const Instruction& ins, size_t n) const {
    if (ins.operands.size() == n) return {};
    return problem(at, "a " + std::string(instr_kind_name(ins.kind)) + " instruction takes " +
                           plural(static_cast<int64_t>(n), "operand") + ", found " +
                           num(static_cast<int64_t>(ins.operands.size())));
  }

  Problem instruction(const std::string& at, const Instruction& ins) const {
    const TensorType& rt = slot(ins.result).type;
    auto operand = [&](size_t k) -> const TensorType& { return slot(ins.operands[k]).type; };
    switch (ins.kind) {
      case InstrKind::kernel: {
        if (ins.kernel < 0 || ins.kernel >= static_cast<int>(e_.kernels.size()))
          return problem(at + ".kernel", "names kernel " + num(ins.kernel) + ", the function has " +
                                             plural(static_cast<int64_t>(e_.kernels.size()), "kernel"));
        const KernelInfo& info = e_.kernels[static_cast<size_t>(ins.kernel)];
        const size_t inputs = info.types.size() - static_cast<size_t>(info.outputs);
        if (Problem p = arity(at, ins, inputs)) return p;
        const std::string compiled = ", kernel '" + info.name + "' was compiled for ";
        for (size_t o = 0; o < inputs; ++o)
          if (operand(o) != info.types[o])
            return problem(at, "operand " + num(static_cast<int64_t>(o)) + " is " + operand(o).str() + compiled +
                                   info.types[o].str());
        if (rt != info.types[inputs]) return problem(at, "result is " + rt.str() + compiled + info.types[inputs].str());
        if (ins.more_results.size() + 1 != static_cast<size_t>(info.outputs))
          return problem(at, "kernel '" + info.name + "' has " + plural(info.outputs, "output") + ", the instruction " +
                                 plural(static_cast<int64_t>(ins.more_results.size()) + 1, "result"));
        for (size_t o = 0; o < ins.more_results.size(); ++o) {
          const TensorType& t = slot(ins.more_results[o]).type;
          if (t != info.types[inputs + 1 + o])
            return problem(at + item(".more_results", o),
                           "is " + t.str() + compiled + info.types[inputs + 1 + o].str());
        }
        return {};
      }
      case InstrKind::gemm: {
        const GemmParams& g = ins.gemm;
        if (Problem p = arity(at, ins, (g.updates() ? 3 : 2) + epilogue_operands(g.epilogue))) return p;
        if (g.updates() && operand(2) != rt)
          return problem(at, "the addend (operand 2) is " + operand(2).str() + ", the result " + rt.str());
        const bool half = is_half(g.dtype);
        if (g.dtype != DType::f32 && g.dtype != DType::f64 && !half)
          return problem(at + ".gemm", "dtype must be f32, f64, bf16 or f16");
        if (half && (g.updates() || g.alpha != 1))  // runtime/half_gemm.h computes a plain product
          return problem(at + ".gemm", "a " + std::string(dtype_name(g.dtype)) + " gemm has alpha 1 and beta 0");
        if (!std::isfinite(g.alpha) || !std::isfinite(g.beta))
          return problem(at + ".gemm", "alpha and beta must be finite, found " + std::to_string(g.alpha) + " and " +
                                           std::to_string(g.beta));
        if (Problem p = gemm_shape(at + ".gemm", g, operand(0), operand(1), rt)) return p;
        return gemm_epilogue(at, ins, rt);
      }
      case InstrKind::reference:
        if (!ins.op) return problem(at, "a reference instruction without its op");
        return {};
      case InstrKind::collective: {
        const CollectiveParams& c = ins.collective;
        if (Problem p = arity(at, ins, c.kind == CollectiveKind::recv ? 0 : 1)) return p;
        if (c.axis.empty()) return problem(at + ".collective", "has no mesh axis");
        if (c.kind == CollectiveKind::recv) return {};
        // The sizes against the axis's group are checked when it runs
        // (runtime/collective_run.h); here what the mesh does not decide.
        if (operand(0).dtype != rt.dtype || operand(0).rank() != rt.rank())
          return problem(at, "a " + std::string(collective_kind_name(c.kind)) + " of " + operand(0).str() + " cannot give " + rt.str());
        return {};
      }
      case InstrKind::copy:
        if (Problem p = arity(at, ins, 1)) return p;
        if (operand(0).num_bytes() != rt.num_bytes())
          return problem(at, "copies " + num(operand(0).num_bytes()) + " bytes into " + num(rt.num_bytes()));
        return {};
    }
    return problem(at + ".kind", "is not kernel, gemm, reference, copy or collective");
  }

  // Rule 8's epilogue (runtime/executable.h GemmEpilogue): what it applies
  // to, and its operand's and result's types.
  Problem gemm_epilogue(const std::string& at, const Instruction& ins, const TensorType& c) const {
    const GemmParams& g = ins.gemm;
    if (g.epilogue == GemmEpilogue::none) return {};
    const std::string what = "epilogue " + std::string(gemm_epilogue_name(g.epilogue));
    const blas::DotShape& d = g.shape;
    if ((g.dtype != DType::f32 && !is_half(g.dtype)) || g.updates() || g.alpha != 1)
      return problem(at + ".gemm", "an " + what + " needs an f32, bf16 or f16 gemm with alpha 1 and beta 0");
    if (d.m < 1 || d.n < 1 || d.k < 1 || d.batch < 1)
      return problem(at + ".gemm", "an " + what + " needs a product with elements and terms (m, n, k >= 1)");
    if ((d.batch > 1 && !(d.b_shared && !d.trans_a)) || (g.epilogue == GemmEpilogue::bgradb && d.batch > 1))
      return problem(at + ".gemm", "an " + what + " applies to one product, found batch " + num(d.batch) +
                                       (g.epilogue == GemmEpilogue::bgradb ? "" : " (not folded into rows)"));
    if (epilogue_has_bias(g.epilogue)) {
      const TensorType& bias = slot(ins.operands[2]).type;
      if (bias.dtype != g.dtype || bias.rank() < 1 || bias.shape.back() != d.n || bias.num_elements() != d.n)
        return problem(at + item(".operands", 2), "the bias of an " + what + " must be " +
                                                      std::string(dtype_name(g.dtype)) + "[" + num(d.n) +
                                                      "] (n elements), found " + bias.str());
    }
    if (epilogue_has_dgelu(g.epilogue) && slot(ins.operands[2]).type != c)
      return problem(at + item(".operands", 2), "the aux of an " + what + " must be " + c.str() + ", found " +
                                                    slot(ins.operands[2]).type.str());
    if (ins.more_results.empty()) return {};
    const TensorType& r = slot(ins.more_results[0]).type;
    if (epilogue_has_bias_gradient(g.epilogue)) {
      // bgradb: a sum per row of op(a) (m); dgelu_bgrad: per column of c (n).
      const bool rows = g.epilogue == GemmEpilogue::bgradb;
      const int64_t want = rows ? d.m : d.n;
      if (r.dtype != g.dtype || r.num_elements() != want)
        return problem(at + item(".more_results", 0), "the bias gradient of an " + what + " must be " +
                                                          std::string(dtype_name(g.dtype)) + "[" + num(want) + "] (" +
                                                          (rows ? "m" : "n") + " elements), found " + r.str());
    } else if (r != c) {
      return problem(at + item(".more_results", 0), "the aux of an " + what + " must be " + c.str() + ", found " + r.str());
    }
    return {};
  }

  // Rule 8's shape: the slot types the gemm's shape implies against a, b and the result c.
  static Problem gemm_shape(const std::string& at, const GemmParams& g, const TensorType& a, const TensorType& b,
                            const TensorType& c) {
    const blas::DotShape& d = g.shape;
    const std::string dtype(dtype_name(g.dtype));
    if (c.dtype != g.dtype || c.rank() < 2)
      return problem(at, "the result must be " + dtype + "[..., m, n], found " + c.str());
    const Shape outer(c.shape.begin(), c.shape.end() - 2);
    const int64_t m = c.shape[c.shape.size() - 2], n = c.shape.back();
    const int64_t batch = m * n == 0 ? 0 : num_elements(outer);
    if (d.batch != batch || d.m != m || d.n != n)
      return problem(at, "batch " + num(d.batch) + ", m " + num(d.m) + ", n " + num(d.n) + " do not match the result " +
                             c.str() + " (batch " + num(batch) + ", m " + num(m) + ", n " + num(n) + ")");
    auto matrix = [&](Shape dims, int64_t rows, int64_t cols) {
      dims.push_back(rows);
      dims.push_back(cols);
      return TensorType{g.dtype, std::move(dims)};
    };
    auto flag = [](const char* name, bool on) { return std::string(name) + (on ? " true" : " false"); };
    const TensorType want_a = matrix(outer, d.trans_a ? d.k : d.m, d.trans_a ? d.m : d.k);
    if (a != want_a)
      return problem(at, flag("trans_a", d.trans_a) + ", m " + num(d.m) + ", k " + num(d.k) + ": operand 0 must be " +
                             want_a.str() + ", found " + a.str());
    const bool shared = b.rank() == 2;
    const TensorType want_b = matrix(shared ? Shape{} : outer, d.trans_b ? d.n : d.k, d.trans_b ? d.k : d.n);
    if (b != want_b)
      return problem(at, flag("trans_b", d.trans_b) + ", k " + num(d.k) + ", n " + num(d.n) + ": operand 1 must be " +
                             want_b.str() + ", found " + b.str());
    if (d.b_shared != shared && d.batch > 1)
      return problem(at + ".b_shared",
                     "is " + std::string(d.b_shared ? "true" : "false") + ", operand 1 " + b.str() +
                         (shared ? " is shared by the " + num(d.batch) + " batches" : " has a matrix for each batch"));
    return {};
  }

  // The results' slots of instruction i with their fields: result, then more_results.
  template <class F>
  Problem each_result(size_t i, F&& f) const {
    const Instruction& ins = e_.instructions[i];
    const std::string at = item("instructions", i);
    if (Problem p = f(ins.result, at + ".result")) return p;
    for (size_t k = 0; k < ins.more_results.size(); ++k)
      if (Problem p = f(ins.more_results[k], at + item(".more_results", k))) return p;
    return {};
  }

  // Rules 10 and 11; makes the values.
  Problem writes() {
    value_of_.assign(e_.slots.size(), -1);
    for (size_t c = 0; c < e_.constants.size(); ++c) add_value(e_.constants[c].slot, -1, item("constants", c));
    writer_.assign(e_.slots.size(), -1);
    for (size_t i = 0; i < e_.instructions.size(); ++i) {
      Problem p = each_result(i, [&](int s, const std::string& field) -> Problem {
        const Slot& sl = slot(s);
        if (sl.arg >= 0) {
          if (!updated_[static_cast<size_t>(sl.arg)])
            return problem(field, "writes slot " + num(s) + ", the buffer of argument " + num(sl.arg) +
                                      ", which no result updates (the other arguments are only read)");
          return {};
        }
        if (const int c = constant_of_[static_cast<size_t>(s)]; c >= 0)
          return problem(field, "writes slot " + num(s) + ", which constants[" + num(c) +
                                    "] fills (a constant is written once, when the executor is created)");
        if (const int w = writer_[static_cast<size_t>(s)]; w >= 0)
          return problem(field, "writes slot " + num(s) + ", which instruction " + num(w) +
                                    " writes too (an arena slot is written once)");
        writer_[static_cast<size_t>(s)] = static_cast<int>(i);
        add_value(s, static_cast<int>(i), field);
        return {};
      });
      if (p) return p;
    }
    return {};
  }

  void add_value(int s, int first, std::string field) {
    value_of_[static_cast<size_t>(s)] = static_cast<int>(values_.size());
    values_.push_back({s, first, first < 0 ? n_ : first, std::move(field)});
  }

  static std::pair<int64_t, int64_t> key(const Slot& s) { return {s.offset, s.type.num_bytes()}; }

  // The value arena slot s holds when instruction `at` reads it (at = n_: the
  // end), or -1: its own once written before `at`, else (a view) the latest
  // one written at its offset with its size.
  int value_read(int s, int at, const std::map<std::pair<int64_t, int64_t>, int>& latest) const {
    if (value_of_[static_cast<size_t>(s)] >= 0) {
      const int v = value_of_[static_cast<size_t>(s)];
      return values_[static_cast<size_t>(v)].first < at ? v : -1;
    }
    auto it = latest.find(key(slot(s)));
    return it == latest.end() ? -1 : it->second;
  }

  std::string unwritten(int s, int at) const {
    const int w = writer_[static_cast<size_t>(s)];
    if (w >= 0)
      return "reads slot " + num(s) + ", which " +
             (w == at ? "it writes itself" : "instruction " + num(w) + " writes later");
    return "reads slot " + num(s) +
           ", which nothing writes before: it is no argument's, constant's or earlier "
           "instruction's result, nor a view of one (an unwritten slot at the offset and of the size of a written one)";
  }

  // Rule 12; extends each value's life to its last read.
  Problem reads() {
    std::map<std::pair<int64_t, int64_t>, int> latest;  // (offset, bytes) -> the value written there last
    for (const ConstantData& c : e_.constants) latest[key(slot(c.slot))] = value_of_[static_cast<size_t>(c.slot)];
    for (size_t i = 0; i < e_.instructions.size(); ++i) {
      const Instruction& ins = e_.instructions[i];
      for (size_t k = 0; k < ins.operands.size(); ++k) {
        const int s = ins.operands[k];
        if (slot(s).arg >= 0) continue;
        const int v = value_read(s, static_cast<int>(i), latest);
        if (v < 0) return problem(item("instructions", i) + item(".operands", k), unwritten(s, static_cast<int>(i)));
        Value& value = values_[static_cast<size_t>(v)];
        value.last = std::max(value.last, static_cast<int>(i));
      }
      each_result(i, [&](int s, const std::string&) -> Problem {
        if (slot(s).arg < 0) latest[key(slot(s))] = value_of_[static_cast<size_t>(s)];
        return {};
      });
    }
    for (size_t k = 0; k < e_.results.size(); ++k) {
      const int s = e_.results[k].slot;
      if (slot(s).arg >= 0) continue;
      const int v = value_read(s, n_, latest);
      if (v < 0)
        return problem(item("results", k) + ".slot",
                       "slot " + num(s) + " holds no value at the end: nothing writes it" +
                           (e_.instructions.empty() ? " (the function has no instructions)" : ""));
      values_[static_cast<size_t>(v)].last = n_;
    }
    return {};
  }

  // Rule 13: values in the order they are written (constants, then by
  // instruction), each checked against the values live when it is written,
  // which share no bytes (ordered by offset).
  Problem liveness() {
    std::vector<int> by_last;
    for (size_t v = 0; v < values_.size(); ++v)
      if (slot(values_[v].slot).type.num_bytes() > 0) by_last.push_back(static_cast<int>(v));
    std::vector<int> by_first = by_last;
    std::stable_sort(by_last.begin(), by_last.end(), [&](int a, int b) {
      return values_[static_cast<size_t>(a)].last < values_[static_cast<size_t>(b)].last;
    });
    std::map<int64_t, int> live;  // offset -> value
    size_t ended = 0;
    for (int v : by_first) {
      const Value& value = values_[static_cast<size_t>(v)];
      for (; ended < by_last.size() && values_[static_cast<size_t>(by_last[ended])].last < value.first; ++ended)
        live.erase(slot(values_[static_cast<size_t>(by_last[ended])].slot).offset);
      const Slot& sl = slot(value.slot);
      const int64_t end = sl.offset + sl.type.num_bytes();
      auto next = live.lower_bound(sl.offset);
      int other = -1;
      if (next != live.end() && next->first < end) other = next->second;
      if (other < 0 && next != live.begin()) {
        const Slot& before = slot(values_[static_cast<size_t>(std::prev(next)->second)].slot);
        if (before.offset + before.type.num_bytes() > sl.offset) other = std::prev(next)->second;
      }
      if (other >= 0) {
        const Value& o = values_[static_cast<size_t>(other)];
        return problem(value.field, "slot " + num(value.slot) + " (" + bytes_of(value.slot) + ") overlaps slot " +
                                        num(o.slot) + " (" + bytes_of(o.slot) + "), which is live from " +
                                        when(o.first) + " to " + when(o.last));
      }
      live.emplace(sl.offset, v);
    }
    return {};
  }

  // Rule 14.
  Problem arena() {
    int64_t end = e_.scratch_bytes > 0 ? e_.scratch_offset + e_.scratch_bytes : 0;
    for (const Slot& s : e_.slots)
      if (s.arg < 0 && s.type.num_bytes() > 0) end = std::max(end, s.offset + s.type.num_bytes());
    const int64_t need = (end + alignment_ - 1) / alignment_ * alignment_;
    if (e_.arena_bytes != need)
      return problem("arena_bytes", "is " + num(e_.arena_bytes) + ", the slots need " + num(need) +
                                        " (the end of the highest arena slot" +
                                        (e_.scratch_bytes > 0 ? " or of the scratch region" : "") + ", rounded up to " +
                                        num(alignment_) + ")");
    return {};
  }

  const Executable& e_;
  int64_t alignment_ = 1;  // the target's arena alignment (rule 0)
  const int64_t num_slots_;
  const int n_;
  std::vector<bool> updated_;     // per argument: a result updates it
  std::vector<int> constant_of_;  // per slot: the constant filling it, or -1
  std::vector<int> writer_;       // per slot: the instruction writing it (arena slots), or -1
  std::vector<int> value_of_;     // per slot: its value, or -1
  std::vector<Value> values_;     // in the order they are written
};

}  // namespace

std::optional<ExecutableProblem> find_executable_problem(const Executable& e) { return Verifier(e).run(); }

Status verify_executable(const Executable& e) {
  if (auto p = find_executable_problem(e))
    return make_error("function '" + e.function + "': " + (p->field.empty() ? "" : p->field + ": ") + p->what);
  return {};
}

}  // namespace mlc::rt
