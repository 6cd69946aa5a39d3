#include "compiler/lower.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <unordered_map>

#include "compiler/conv_to_gemm.h"
#include "compiler/cpu/llvm_jit.h"
#include "compiler/cpu/row_split.h"
#include "compiler/gpu/gpu_compile.h"
#include "compiler/gpu/gpu_schedule.h"
#include "compiler/half_accumulation.h"
#include "ir/decompose.h"
#include "ir/diagnostics.h"
#include "ir/op_table.h"
#include "runtime/kernels/kernels.h"
#include "ir/collectives.h"
#include "runtime/collective_run.h"
#include "runtime/target.h"

namespace mlc {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }


// Bytes of a dense constant's value in its dtype, as the reference kernel writes them.
Expected<std::vector<std::byte>> constant_bytes(const Op& op) {
  rt::Tensor t = rt::Tensor::uninitialized(op.result()->type);
  Status st = rt::reference_kernel(op.code)(op, {}, t);
  if (!st) return error_at(op.loc, st.error().message);
  std::vector<std::byte> bytes(static_cast<size_t>(t.num_bytes()));
  if (!bytes.empty()) std::memcpy(bytes.data(), t.bytes(), bytes.size());
  return bytes;
}

class Lowering {
 public:
  explicit Lowering(const LowerOptions& o) : options_(o) {}

  Expected<LoweredFunction> run(const Function& original) {
    auto t0 = Clock::now();
    std::unique_ptr<Function> owned = original.clone();
    Function& f = *owned;
    for (auto& op : f.ops) {
      MLC_CHECK_OK(complete_and_check(*op));
      if (op->code == OpCode::Call)  // its meaning is in the module, not the function (ir/inline_calls.h)
        return error_at(op->loc, "call of @" + op->attrs.get_string("callee") +
                                     ": calls are lowered only once inlined (the decompose pass)");
    }
    decompose_composites(f);
    convolutions_to_gemm(f);
    half_scatter_adds_in_f32(f);
    if (rt::is_gpu_target(options_.target) && options_.gemm_epilogues) {  // compiler/fusion.h
      recompute_gelu_for_epilogues(f);
      defer_bias_gradient_readers(f);
    }
    out_.num_ops = static_cast<int>(f.ops.size());
    // Op ids as the printer numbers results (%0, %1, ... in program order).
    for (const auto& op : f.ops)
      if (op->result()) op_id_[op.get()] = static_cast<int>(op_id_.size());
    exe_ = std::make_shared<rt::Executable>();
    exe_->function = f.name;
    exe_->target = options_.target;

    for (size_t a = 0; a < f.args.size(); ++a) {
      int s = new_slot(f.args[a]->type, -1);
      exe_->slots[s].arg = static_cast<int>(a);
      slot_of_[f.args[a]] = s;
      exe_->args.push_back({f.args[a]->name, f.arg_kinds[a], s, f.args[a]->placements});
    }
    FusionOptions fo;
    // cuBLASLt's epilogues; the CPU keeps its kernels.
    fo.gemm_epilogues = rt::is_gpu_target(options_.target) && options_.gemm_epilogues;
    FusionPlan fusion = plan_fusion(f, fo);
    out_.num_groups = static_cast<int>(fusion.groups.size());
    for (const FusionGroup& g : fusion.groups) MLC_CHECK_OK(lower_group(g));
    MLC_CHECK_OK(lower_results(f));
    plan_buffers();
    out_.lower_ms = ms_since(t0);
    if (options_.compile_kernels) MLC_CHECK_OK(compile());
    out_.executable = exe_;
    return std::move(out_);
  }

 private:
  int new_slot(const TensorType& type, int buffer) {
    exe_->slots.push_back(rt::Slot{type, -1, 0});
    slot_buffer_.push_back(buffer);
    return static_cast<int>(exe_->slots.size()) - 1;
  }
  int new_buffer(const TensorType& type) {
    out_.buffers.push_back(PlannedBuffer{type.num_bytes(), 0, 0, -1});
    return static_cast<int>(out_.buffers.size()) - 1;
  }
  // The argument whose bytes slot s is, or -1.
  int arg_of(int s) const { return exe_->slots[s].arg; }

  // "%12 add (model.json:3:5), %13 exp (...)": the ops of a group, by id.
  std::string origin(const FusionGroup& g) const {
    std::string s;
    for (const Op* op : g.ops) {
      if (!s.empty()) s += ", ";
      auto it = op_id_.find(op);
      if (it != op_id_.end()) s += "%" + std::to_string(it->second) + " ";
      s += std::string(op_name(op->code));
      if (op->loc.known()) s += " (" + op->loc.str() + ")";
    }
    return s;
  }

  int add_instruction(rt::Instruction ins) {
    exe_->instructions.push_back(std::move(ins));
    return static_cast<int>(exe_->instructions.size()) - 1;
  }

  Status lower_group(const FusionGroup& g) {
    const Op& root = *g.root();
    if (g.kind == GroupKind::alias) {
      int base = slot_of_.at(root.operands[0]);
      int s = new_slot(root.result()->type, slot_buffer_[base]);
      exe_->slots[s].arg = exe_->slots[base].arg;
      slot_of_[root.result()] = s;
      return {};
    }
    if (root.code == OpCode::Constant && g.kind == GroupKind::single) {
      int s = new_slot(root.result()->type, new_buffer(root.result()->type));
      MLC_TRY(std::vector<std::byte> bytes, constant_bytes(root));
      exe_->constants.push_back({s, std::move(bytes)});
      out_.buffers[slot_buffer_[s]].first = -1;
      constant_buffers_.push_back(slot_buffer_[s]);
      slot_of_[root.result()] = s;
      return {};
    }
    rt::Instruction ins;
    ins.loc = root.loc;
    ins.name = std::string(op_name(root.code));
    if (g.kind == GroupKind::gemm_update) {
      const Op& dot = *g.ops.front();
      ins.kind = rt::InstrKind::gemm;
      ins.name = "dot_update";
      ins.loc = dot.loc;
      ins.operands = {slot_of_.at(dot.operands[0]), slot_of_.at(dot.operands[1]), slot_of_.at(g.addend)};
      ins.gemm.dtype = root.result()->type.dtype;
      ins.gemm.shape = rt::dot_shape(dot, dot.operands[0]->type.shape, dot.operands[1]->type.shape,
                                     dot.result()->type.shape);
      ins.gemm.alpha = g.alpha;
      ins.gemm.beta = g.beta;
    } else if (g.kind == GroupKind::gemm_epilogue) {
      const Op& dot = **std::find_if(g.ops.begin(), g.ops.end(), [](const Op* o) { return o->code == OpCode::Dot; });
      ins.kind = rt::InstrKind::gemm;
      ins.name = "dot_" + std::string(rt::gemm_epilogue_name(g.epilogue));
      ins.loc = dot.loc;
      ins.operands = {slot_of_.at(dot.operands[0]), slot_of_.at(dot.operands[1])};
      if (g.operand) ins.operands.push_back(slot_of_.at(g.operand));
      ins.gemm.dtype = dot.result()->type.dtype;
      ins.gemm.shape = rt::dot_shape(dot, dot.operands[0]->type.shape, dot.operands[1]->type.shape,
                                     dot.result()->type.shape);
      ins.gemm.epilogue = g.epilogue;
    } else if (g.kind == GroupKind::loop) {
      std::vector<const Value*> inputs;
      MLC_TRY(kir::Kernel k, kir::build_kernel(g, "k" + std::to_string(out_.kernels.size()) + "_" +
                                                      std::string(op_name(root.code)), inputs));
      ins.kind = rt::InstrKind::kernel;
      ins.kernel = static_cast<int>(out_.kernels.size());
      ins.name = k.name;
      k.origin = origin(g);
      for (const Value* v : inputs) ins.operands.push_back(slot_of_.at(v));
      out_.kernels.push_back(std::move(k));
    } else {
      for (const Value* v : root.operands) ins.operands.push_back(slot_of_.at(v));
      DType t = root.result()->type.dtype;
      if (root.code == OpCode::Dot && is_float(t)) {  // bf16, f16: runtime/onednn_gemm.h
        ins.kind = rt::InstrKind::gemm;
        ins.gemm.dtype = t;
        ins.gemm.shape = rt::dot_shape(root, root.operands[0]->type.shape, root.operands[1]->type.shape,
                                       root.result()->type.shape);
      } else if (uses_mesh_axis(root.code)) {
        ins.kind = rt::InstrKind::collective;
        ins.collective = rt::collective_params(root);
      } else {
        ins.kind = rt::InstrKind::reference;
        auto op = std::make_shared<Op>();
        op->code = root.code;
        op->attrs = root.attrs;
        op->loc = root.loc;
        op->meta = root.meta;
        ins.op = std::move(op);
      }
    }
    // A gemm epilogue's result is its product's value (bgradb's root may be the reduce_sum).
    const Value* result = g.kind == GroupKind::gemm_epilogue ? g.product->result() : root.result();
    int s = new_slot(result->type, new_buffer(result->type));
    ins.result = s;
    slot_of_[result] = s;
    for (const Op* op : g.outputs) {
      int t = new_slot(op->result()->type, new_buffer(op->result()->type));
      ins.more_results.push_back(t);
      slot_of_[op->result()] = t;
    }
    ins.origin = origin(g);
    std::vector<int> results = {s};
    results.insert(results.end(), ins.more_results.begin(), ins.more_results.end());
    int index = add_instruction(std::move(ins));
    for (int r : results) {
      out_.buffers[slot_buffer_[r]].first = index;
      writer_of_buffer_[slot_buffer_[r]] = index;
    }
    return {};
  }

  // Reads of argument a's bytes at or after instruction `from`, other than by `except`.
  bool arg_read_after(int a, int from) const {
    for (size_t i = static_cast<size_t>(from); i < exe_->instructions.size(); ++i)
      for (int s : exe_->instructions[i].operands)
        if (arg_of(s) == a) return true;
    return false;
  }

  // The result slot of `ins` (its result, then more_results) over `buffer`.
  int result_over(const rt::Instruction& ins, int buffer) const {
    if (slot_buffer_[ins.result] == buffer) return ins.result;
    for (int s : ins.more_results)
      if (slot_buffer_[s] == buffer) return s;
    return -1;
  }

  bool can_donate(int buffer, int a) const {
    auto it = writer_of_buffer_.find(buffer);
    if (it == writer_of_buffer_.end()) return false;
    const int w = it->second;
    if (arg_read_after(a, w + 1)) return false;
    const rt::Instruction& ins = exe_->instructions[w];
    const int result = result_over(ins, buffer);
    bool reads_a = false;
    for (int s : ins.operands) reads_a |= arg_of(s) == a;
    if (!reads_a) return true;
    // A gemm update reads its addend x before it writes each element (BLAS's
    // C = alpha AB + beta C): its result may be x's buffer.
    if (ins.kind == rt::InstrKind::gemm && ins.gemm.updates())
      return arg_of(ins.operands[2]) == a && arg_of(ins.operands[0]) != a && arg_of(ins.operands[1]) != a &&
             exe_->slots[ins.operands[2]].type == exe_->slots[result].type;
    if (ins.kind != rt::InstrKind::kernel) return false;
    const kir::Kernel& k = out_.kernels[ins.kernel];
    int inputs_reading_a = 0;
    for (size_t p = 0; p < ins.operands.size(); ++p)
      if (arg_of(ins.operands[p]) == a) {
        if (!k.elementwise_input[p] || exe_->slots[ins.operands[p]].type != exe_->slots[result].type) return false;
        ++inputs_reading_a;
      }
    return inputs_reading_a == 1;
  }

  Status lower_results(const Function& f) {
    std::vector<std::pair<int, int>> end_copies;  // (source slot, argument)
    std::unordered_map<int, bool> donated_buffer;
    for (size_t k = 0; k < f.results.size(); ++k) {
      int s = slot_of_.at(f.results[k]);
      int a = f.updated_arg(k);
      rt::ResultSpec r{s, a};
      if (a >= 0 && arg_of(s) != a) {
        int buffer = slot_buffer_[s];
        bool whole = arg_of(s) < 0 && exe_->slots[s].type == f.args[a]->type && buffer >= 0 &&
                     !donated_buffer.count(buffer) && alias_count(buffer) == 1;
        if (whole && can_donate(buffer, a)) {
          donated_buffer[buffer] = true;
          exe_->slots[s].arg = a;
          exe_->slots[s].offset = 0;
          slot_buffer_[s] = -1;
          out_.buffers[buffer].bytes = 0;  // no arena bytes
          out_.buffers[buffer].last = out_.buffers[buffer].first;
          const rt::Instruction& w = exe_->instructions[writer_of_buffer_.at(buffer)];
          if (w.kind == rt::InstrKind::kernel) {
            kir::Kernel& k = out_.kernels[w.kernel];
            const auto more = std::find(w.more_results.begin(), w.more_results.end(), s);
            int& alias = more == w.more_results.end() ? k.output_alias : k.more_alias[more - w.more_results.begin()];
            for (size_t p = 0; p < w.operands.size(); ++p)
              if (arg_of(w.operands[p]) == a) alias = static_cast<int>(p);
          }
        } else {
          if (arg_of(s) >= 0) {
            // An argument's value: keep it in the arena before anything updates it.
            int t = new_slot(exe_->slots[s].type, new_buffer(exe_->slots[s].type));
            rt::Instruction copy;
            copy.kind = rt::InstrKind::copy;
            copy.name = "copy";
            copy.operands = {s};
            copy.result = t;
            copy.origin = "the value of argument %" + exe_->args[a].name + ", kept before anything updates it";
            exe_->instructions.insert(exe_->instructions.begin(), std::move(copy));
            shift_instructions();
            out_.buffers[slot_buffer_[t]].first = 0;
            s = t;
          }
          end_copies.emplace_back(s, a);
        }
        r.slot = exe_->args[a].slot;
      }
      exe_->results.push_back(r);
    }
    for (auto [s, a] : end_copies) {
      rt::Instruction copy;
      copy.kind = rt::InstrKind::copy;
      copy.name = "copy";
      copy.operands = {s};
      copy.result = exe_->args[a].slot;
      copy.origin = "the new value of argument %" + exe_->args[a].name + ", copied back";
      add_instruction(std::move(copy));
    }
    return {};
  }

  int alias_count(int buffer) const {
    int n = 0;
    for (int b : slot_buffer_) n += b == buffer;
    return n;
  }

  // After inserting an instruction at the front: writer and first indices move by one.
  void shift_instructions() {
    for (auto& [b, w] : writer_of_buffer_) ++w;
    for (PlannedBuffer& b : out_.buffers)
      if (b.first >= 0) ++b.first;
  }

  void plan_buffers() {
    const int n = static_cast<int>(exe_->instructions.size());
    for (PlannedBuffer& b : out_.buffers) b.last = std::max(b.last, b.first);
    for (int i = 0; i < n; ++i)
      for (int s : exe_->instructions[i].operands)
        if (slot_buffer_[s] >= 0) out_.buffers[slot_buffer_[s]].last = std::max(out_.buffers[slot_buffer_[s]].last, i);
    for (const rt::ResultSpec& r : exe_->results)
      if (slot_buffer_[r.slot] >= 0) out_.buffers[slot_buffer_[r.slot]].last = n;
    for (int b : constant_buffers_) out_.buffers[b].last = n;
    const rt::Target* target = rt::is_gpu_target(exe_->target) ? nullptr : rt::find_target(exe_->target);
    const int64_t alignment = target ? target->arena_alignment() : rt::kGpuArenaAlignment;
    out_.plan = plan_memory(out_.buffers, n, alignment);
    exe_->arena_bytes = out_.plan.arena_bytes;
    for (size_t s = 0; s < exe_->slots.size(); ++s)
      if (slot_buffer_[s] >= 0 && exe_->slots[s].arg < 0) exe_->slots[s].offset = out_.buffers[slot_buffer_[s]].offset;
    place_scratch(alignment);
  }

  // GPU targets: the scratch region of the two-phase kernels
  // (rt::Executable::scratch_offset), as large as the largest needs, after
  // the planned slots. The kernels run one at a time, so they share it; it
  // is a few KiB at most (8 bytes per partial result), so it is not packed
  // between the slots' lifetimes.
  void place_scratch(int64_t alignment) {
    if (!rt::is_gpu_target(exe_->target)) return;
    int64_t bytes = 0;
    for (const kir::Kernel& k : out_.kernels) bytes = std::max(bytes, gpu::schedule_kernel(k).launch.scratch_bytes);
    if (bytes == 0) return;
    auto round_up = [&](int64_t x) { return (x + alignment - 1) / alignment * alignment; };
    exe_->scratch_offset = round_up(exe_->arena_bytes);
    exe_->scratch_bytes = bytes;
    exe_->arena_bytes = round_up(exe_->scratch_offset + bytes);
  }

  Status compile() {
    if (rt::is_gpu_target(exe_->target)) return compile_gpu();
    CompileOptions co;
    co.cache = options_.cache;
    MLC_TRY(CompiledKernels compiled, compile_kernels(out_.kernels, co));
    for (size_t i = 0; i < out_.kernels.size(); ++i) {
      const kir::Kernel& k = out_.kernels[i];
      exe_->kernels.push_back(kernel_info(k, compiled.object_of[i]));
    }
    set_kernel_types();
    out_.distinct_kernels = static_cast<int>(compiled.code.objects.size());
    if (!out_.kernels.empty()) exe_->code = std::make_shared<const rt::CodeModule>(std::move(compiled.code));
    out_.jit_ir_ms = compiled.ir_ms;
    out_.jit_optimize_ms = compiled.optimize_ms;
    out_.jit_codegen_ms = compiled.codegen_ms;
    out_.compile_wall_ms = compiled.wall_ms;
    out_.cache_hits = compiled.cache_hits;
    return {};
  }

  // Kernel k's entry, its code being object `object`; every target records
  // the CPU's row split (rt::CpuLaunch). Its types are set_kernel_types'.
  static rt::KernelInfo kernel_info(const kir::Kernel& k, int object) {
    rt::KernelInfo info;
    info.name = k.name;
    info.object = object;
    info.cpu = {cpu::kernel_rows(k), cpu::kernel_row_cost(k)};
    info.origin = k.origin;
    info.outputs = k.num_outputs();
    info.index_checks = k.index_checks;
    return info;
  }

  void set_kernel_types() {
    for (const rt::Instruction& ins : exe_->instructions)
      if (ins.kind == rt::InstrKind::kernel) {
        std::vector<TensorType>& types = exe_->kernels[static_cast<size_t>(ins.kernel)].types;
        types.clear();
        for (int s : ins.operands) types.push_back(exe_->slots[static_cast<size_t>(s)].type);
        types.push_back(exe_->slots[static_cast<size_t>(ins.result)].type);
        for (int s : ins.more_results) types.push_back(exe_->slots[static_cast<size_t>(s)].type);
      }
  }

  // The kernels as GPU code (compiler/gpu/gpu_compile.h), with their launch configurations.
  Status compile_gpu() {
    gpu::GpuCompileOptions go;
    go.target = exe_->target;
    go.arch = options_.arch;
    go.cache = options_.cache;
    MLC_TRY(gpu::GpuCompiled compiled, gpu::compile_gpu_kernels(out_.kernels, go));
    for (size_t i = 0; i < out_.kernels.size(); ++i) {
      const kir::Kernel& k = out_.kernels[i];
      exe_->kernels.push_back(kernel_info(k, compiled.object_of[i]));
      exe_->kernels.back().launch = compiled.launch[i];
    }
    set_kernel_types();
    out_.distinct_kernels = static_cast<int>(compiled.code.objects.size());
    if (!out_.kernels.empty()) exe_->code = std::make_shared<const rt::CodeModule>(std::move(compiled.code));
    out_.compile_wall_ms = compiled.wall_ms;
    out_.cache_hits = compiled.cache_hits;
    return {};
  }

  const LowerOptions& options_;
  LoweredFunction out_;
  std::shared_ptr<rt::Executable> exe_;
  std::vector<int> slot_buffer_;  // per slot: its arena buffer, -1 for argument bytes
  std::unordered_map<const Value*, int> slot_of_;
  std::unordered_map<const Op*, int> op_id_;
  std::unordered_map<int, int> writer_of_buffer_;
  std::vector<int> constant_buffers_;
};

}  // namespace

Expected<LoweredFunction> lower_function(const Function& f, const LowerOptions& options) {
  Lowering l(options);
  return l.run(f);
}

}  // namespace mlc
