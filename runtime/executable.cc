#include "runtime/executable.h"

#include <algorithm>

namespace mlc::rt {

std::string_view instr_kind_name(InstrKind k) {
  switch (k) {
    case InstrKind::kernel: return "kernel";
    case InstrKind::gemm: return "gemm";
    case InstrKind::reference: return "reference";
    case InstrKind::copy: return "copy";
    case InstrKind::collective: return "collective";
  }
  return "?";
}

std::string_view gemm_epilogue_name(GemmEpilogue e) {
  switch (e) {
    case GemmEpilogue::none: return "none";
    case GemmEpilogue::bias: return "bias";
    case GemmEpilogue::relu: return "relu";
    case GemmEpilogue::bias_relu: return "bias_relu";
    case GemmEpilogue::gelu: return "gelu";
    case GemmEpilogue::bias_gelu: return "bias_gelu";
    case GemmEpilogue::gelu_aux: return "gelu_aux";
    case GemmEpilogue::bias_gelu_aux: return "bias_gelu_aux";
    case GemmEpilogue::dgelu: return "dgelu";
    case GemmEpilogue::dgelu_bgrad: return "dgelu_bgrad";
    case GemmEpilogue::bgradb: return "bgradb";
  }
  return "?";
}

std::string_view collective_kind_name(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::all_reduce: return "all_reduce";
    case CollectiveKind::all_gather: return "all_gather";
    case CollectiveKind::reduce_scatter: return "reduce_scatter";
    case CollectiveKind::all_to_all: return "all_to_all";
    case CollectiveKind::collective_broadcast: return "collective_broadcast";
    case CollectiveKind::send: return "send";
    case CollectiveKind::recv: return "recv";
    case CollectiveKind::shard_slice: return "shard_slice";
  }
  return "?";
}

std::vector<int> updated_arguments(const Executable& e) {
  std::vector<int> out;
  for (const ResultSpec& r : e.results)
    if (r.updates >= 0 && std::find(out.begin(), out.end(), r.updates) == out.end()) out.push_back(r.updates);
  return out;
}

}  // namespace mlc::rt
