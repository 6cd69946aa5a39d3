#include "driver/plan_parallel.h"

#include <cstdio>

namespace mlc {

std::string human_bytes(int64_t b) {
  char buf[32];
  if (b < 1024) std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
  else if (b >= (1 << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024.0);
  return buf;
}

namespace {

// The global type of a local value under its placements.
TensorType global_type(const Value* v, const Mesh& mesh) {
  return {v->type.dtype, global_shape(v->type.shape, v->placements, mesh)};
}

}  // namespace

ParallelReport parallel_report(const Function& step, const std::vector<LedgerEntry>& ledger, const Mesh& mesh,
                               int zero, int64_t arena_bytes) {
  ParallelReport r;
  std::string data_axes;
  for (const MeshAxis& a : mesh.axes)
    if (is_data_axis(a.name)) data_axes += (data_axes.empty() ? "" : ", ") + a.name;
  r.text = format_line("mesh %s (%lld devices), ZeRO %d; data axes: %s\n", mesh.str().c_str(),
                  static_cast<long long>(mesh.num_devices()), zero, data_axes.empty() ? "none" : data_axes.c_str());

  // Placements and what one device holds.
  int64_t param_bytes = 0, state_bytes = 0, input_bytes = 0;
  nlohmann::ordered_json placements = nlohmann::ordered_json::array();
  r.text += "  placements (global type -> per device)\n";
  for (size_t i = 0; i < step.args.size(); ++i) {
    const Value* a = step.args[i];
    ArgKind kind = step.arg_kinds[i];
    int64_t bytes = a->type.num_bytes();
    if (kind == ArgKind::param || kind == ArgKind::frozen) param_bytes += bytes;
    if (kind == ArgKind::state) state_bytes += bytes;
    if (kind == ArgKind::input) input_bytes += bytes;
    placements.push_back({{"name", a->name}, {"kind", arg_kind_name(kind)},
                          {"global", global_type(a, mesh).str()}, {"placements", placements_str(a->placements)},
                          {"local", a->type.str()}});
    r.text += format_line("    %-40s %-7s %-18s %-12s %s\n", a->name.c_str(), std::string(arg_kind_name(kind)).c_str(),
                     global_type(a, mesh).str().c_str(), placements_str(a->placements).c_str(), a->type.str().c_str());
  }
  // Gradients, as the update reads them on a device: placed like the
  // parameter's optimizer state (reduce-scattered into it with ZeRO >= 1),
  // else like the parameter (all-reduced, or sharded by tensor parallelism).
  int64_t grad_bytes = 0;
  for (size_t i = 0; i < step.args.size(); ++i) {
    if (step.arg_kinds[i] != ArgKind::param) continue;
    const Value* p = step.args[i];
    int64_t bytes = p->type.num_bytes();
    for (size_t j = 0; j < step.args.size(); ++j)
      if (zero >= 1 && step.arg_kinds[j] == ArgKind::state && step.args[j]->name.starts_with(p->name + ".") &&
          global_type(step.args[j], mesh) == global_type(p, mesh)) {
        bytes = step.args[j]->type.num_bytes();
        break;
      }
    grad_bytes += bytes;
  }
  std::map<std::string, int64_t> axis_bytes, axis_count;
  std::map<std::string, double> axis_us;
  for (const LedgerEntry& e : ledger) {
    axis_bytes[e.axis] += e.bytes;
    axis_us[e.axis] += e.estimated_us;
    axis_count[e.axis] += e.collective != "shard_slice";
  }
  r.json["mesh"] = mesh.str();
  r.json["devices"] = mesh.num_devices();
  r.json["zero"] = zero;
  r.json["placements"] = placements;
  r.param_bytes = param_bytes;
  r.grad_bytes = grad_bytes;
  r.state_bytes = state_bytes;
  r.input_bytes = input_bytes;
  r.json["per_device_bytes"] = {{"parameters", param_bytes}, {"gradients", grad_bytes},
                                {"optimizer_state", state_bytes}, {"inputs", input_bytes},
                                {"train_step_arena", arena_bytes}};
  r.text += format_line("  per device: parameters %s, gradients %s, optimizer state %s, batch %s, "
                   "train-step arena %s (%lld B)\n",
                   human_bytes(param_bytes).c_str(), human_bytes(grad_bytes).c_str(),
                   human_bytes(state_bytes).c_str(), human_bytes(input_bytes).c_str(),
                   human_bytes(arena_bytes).c_str(), static_cast<long long>(arena_bytes));

  nlohmann::ordered_json comm = nlohmann::ordered_json::object();
  r.text += "  communication per step and device\n";
  for (const MeshAxis& a : mesh.axes) {
    comm[a.name] = {{"bytes", axis_bytes[a.name]}, {"collectives", axis_count[a.name]},
                    {"estimated_us", axis_us[a.name]}};
    r.text += format_line("    %-6s %s in %lld collectives, estimated %.1f us (%.0f us latency + %.0f GB/s)\n",
                     a.name.c_str(), human_bytes(axis_bytes[a.name]).c_str(),
                     static_cast<long long>(axis_count[a.name]), axis_us[a.name], kCollectiveLatencyUs,
                     kLinkBytesPerUs / 1e3);
  }
  r.json["communication_per_step"] = comm;

  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  r.text += format_line("  collective ledger of @%s (%zu entries)\n", step.name.c_str(), ledger.size());
  for (const LedgerEntry& e : ledger) {
    nlohmann::ordered_json j = {{"id", e.id}, {"collective", e.collective}, {"axis", e.axis},
                                {"value", e.value}, {"consumer", e.consumer},
                                {"from", placements_str(e.from)}, {"to", placements_str(e.to)},
                                {"type", e.type.str()}, {"bytes", e.bytes}, {"estimated_us", e.estimated_us}};
    if (!e.alternative.empty()) j["alternative"] = {{"signature", e.alternative}, {"estimated_us", e.alternative_us}};
    entries.push_back(std::move(j));
    r.text += format_line("    #%-3d %-14s %-4s %s -> %s  %-16s %10s  %7.1f us\n", e.id, e.collective.c_str(),
                     e.axis.c_str(), placements_str(e.from).c_str(), placements_str(e.to).c_str(), e.type.str().c_str(),
                     human_bytes(e.bytes).c_str(), e.estimated_us);
    r.text += "         value " + e.value + "; for " + e.consumer + "\n";
    if (!e.alternative.empty())
      r.text += format_line("         beat %s: %.1f us\n", e.alternative.c_str(), e.alternative_us);
  }
  r.json["ledger"] = entries;
  return r;
}

}  // namespace mlc
