// print_lowered (compiler/lower.h): the text of a lowered function.
#include <array>

#include "compiler/gpu/gpu_schedule.h"
#include "compiler/lower.h"
#include "ir/printer.h"

namespace mlc {

namespace {

std::string slot_name(const rt::Executable& e, int s) {
  const rt::Slot& slot = e.slots[static_cast<size_t>(s)];
  if (slot.arg >= 0) {
    std::string n = "%" + e.args[static_cast<size_t>(slot.arg)].name;
    return slot.offset ? n + "+" + std::to_string(slot.offset) : n;
  }
  return "s" + std::to_string(s) + "@" + std::to_string(slot.offset);
}

std::string operands(const rt::Executable& e, const rt::Instruction& ins) {
  std::string s = "(";
  for (size_t k = 0; k < ins.operands.size(); ++k) s += (k ? ", " : "") + slot_name(e, ins.operands[k]);
  return s + ")";
}

std::string indent(const std::string& text, const std::string& by) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out += by + text.substr(pos, nl - pos) + "\n";
    pos = nl + 1;
  }
  return out;
}

}  // namespace

std::string print_lowered(const LoweredFunction& l) {
  const rt::Executable& e = *l.executable;
  std::array<int, rt::kInstrKinds> by_kind{};
  for (const rt::Instruction& ins : e.instructions) ++by_kind[static_cast<size_t>(ins.kind)];
  std::string s = "lowered @" + e.function + ": " + std::to_string(e.instructions.size()) + " instructions (";
  for (size_t k = 0; k < rt::kInstrKinds; ++k)
    s += std::string(k ? ", " : "") + std::to_string(by_kind[k]) + " " +
         std::string(rt::instr_kind_name(static_cast<rt::InstrKind>(k)));
  s += "), arena " + std::to_string(e.arena_bytes) + " bytes, liveness lower bound " +
       std::to_string(l.plan.lower_bound);
  if (e.scratch_bytes > 0)
    s += ", scratch " + std::to_string(e.scratch_bytes) + " bytes at " + std::to_string(e.scratch_offset);
  s += "\n";
  s += "  args:";
  for (size_t a = 0; a < e.args.size(); ++a)
    s += std::string(a ? "," : "") + " %" + e.args[a].name + " " + print_type(e.slots[e.args[a].slot].type) + " {" +
         std::string(arg_kind_name(e.args[a].kind)) + "}";
  s += "\n";
  for (const rt::ConstantData& c : e.constants)
    s += "  constant " + slot_name(e, c.slot) + " : " + print_type(e.slots[c.slot].type) + "\n";
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    const rt::Instruction& ins = e.instructions[i];
    std::string line = "  #" + std::to_string(i) + " " + std::string(rt::instr_kind_name(ins.kind));
    switch (ins.kind) {
      case rt::InstrKind::kernel: line += " @" + ins.name; break;
      case rt::InstrKind::gemm: {
        const rt::blas::DotShape& d = ins.gemm.shape;
        line += " [batch " + std::to_string(d.batch) + ", m " + std::to_string(d.m) + ", n " + std::to_string(d.n) +
                ", k " + std::to_string(d.k) + (d.trans_a ? ", trans_a" : "") + (d.trans_b ? ", trans_b" : "") +
                (d.b_shared ? ", b_shared" : "") +
                (ins.gemm.epilogue != rt::GemmEpilogue::none
                     ? ", epilogue " + std::string(rt::gemm_epilogue_name(ins.gemm.epilogue))
                     : std::string()) +
                "]";
        break;
      }
      case rt::InstrKind::reference: line += " " + ins.name; break;
      case rt::InstrKind::copy: break;
    }
    line += operands(e, ins) + " -> " + slot_name(e, ins.result);
    for (int r : ins.more_results) line += ", " + slot_name(e, r);
    line += " : " + print_type(e.slots[ins.result].type);
    for (int r : ins.more_results) line += ", " + print_type(e.slots[r].type);
    if (!ins.origin.empty()) line += "  // " + ins.origin;
    s += line + "\n";
    if (ins.kind == rt::InstrKind::kernel && rt::is_gpu_target(e.target) && ins.kernel >= 0 &&
        static_cast<size_t>(ins.kernel) < l.kernels.size()) {
      const gpu::Schedule sc = gpu::schedule_kernel(l.kernels[static_cast<size_t>(ins.kernel)]);
      s += "      launch {schedule " + std::string(gpu::schedule_kind_name(sc.kind)) + ", grid " +
           std::to_string(sc.launch.grid) + ", block " + std::to_string(sc.launch.block) + ", shared " +
           std::to_string(sc.launch.shared_bytes) + " B";
      if (sc.launch.two_phase())
        s += ", two phases: scratch " + std::to_string(sc.launch.scratch_bytes) + " B, then grid " +
             std::to_string(sc.launch.combine_grid);
      s += "}\n";
    }
    if (ins.kind == rt::InstrKind::kernel && ins.kernel >= 0 && static_cast<size_t>(ins.kernel) < l.kernels.size())
      s += indent(kir::print_kernel(l.kernels[static_cast<size_t>(ins.kernel)]), "      ");
  }
  s += "  results:";
  for (size_t k = 0; k < e.results.size(); ++k) {
    s += std::string(k ? "," : "") + " " + slot_name(e, e.results[k].slot);
    if (e.results[k].updates >= 0) s += " {updates = %" + e.args[e.results[k].updates].name + "}";
  }
  return s + "\n";
}

}  // namespace mlc
