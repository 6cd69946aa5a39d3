#include "ir/pipeline_stages.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "ir/op_table.h"
#include "support/quote.h"

namespace mlc {

namespace {

// The first and last repeat block, or {npos, npos} without one.
std::pair<size_t, size_t> block_range(const std::vector<TopLayer>& layers) {
  size_t first = std::string::npos, last = std::string::npos;
  for (size_t i = 0; i < layers.size(); ++i)
    if (layers[i].block) {
      if (first == std::string::npos) first = i;
      last = i;
    }
  return {first, last};
}

std::string names(const std::vector<TopLayer>& layers, size_t begin, size_t end) {
  std::string s;
  for (size_t i = begin; i < end; ++i) s += (s.empty() ? "" : ", ") + layers[i].name;
  return s;
}

bool owns(std::string_view layer, std::string_view scope) {
  return layer.empty() || scope == layer || (scope.starts_with(layer) && scope.size() > layer.size() &&
                                             scope[layer.size()] == '.');
}

// The stage of each layer under `cuts`.
std::vector<int> layer_stages(size_t num_layers, const std::vector<size_t>& cuts) {
  std::vector<int> stage(num_layers, 0);
  for (size_t i = 0, k = 0; i < num_layers; ++i) {
    while (k < cuts.size() && cuts[k] <= i) ++k;
    stage[i] = static_cast<int>(k);
  }
  return stage;
}

}  // namespace

std::string pipeline_cut_refusal(const std::vector<TopLayer>& layers, size_t i) {
  if (i == 0) return squote(layers[0].name) + " is the first layer";
  auto [first, last] = block_range(layers);
  if (first == std::string::npos) return "";
  if (i < first)
    return squote(layers[i].name) + " is among the layers before the first block (" + names(layers, 0, first) +
           "), which the first stage holds";
  if (i > last + 1)
    return squote(layers[i].name) + " is among the layers after the last block (" +
           names(layers, last + 1, layers.size()) + "), which the last stage holds with the loss";
  return "";
}

Expected<std::vector<size_t>> balanced_pipeline_cuts(const std::vector<TopLayer>& layers,
                                                     const std::vector<int64_t>& cost, int stages) {
  // Units: runs of layers between the places a stage may start.
  std::vector<size_t> starts = {0};
  for (size_t i = 1; i < layers.size(); ++i)
    if (pipeline_cut_refusal(layers, i).empty()) starts.push_back(i);
  const size_t n = starts.size();
  if (stages < 1 || static_cast<size_t>(stages) > n) {
    std::string places;
    for (size_t k = 1; k < n; ++k) places += (places.empty() ? "before " : ", ") + layers[starts[k]].name;
    return make_error("parallel.pipeline.stages: " + std::to_string(stages) + " stages need " +
                      std::to_string(stages - 1) + " cuts, but the model's layers allow " + std::to_string(n - 1) +
                      (places.empty() ? "" : " (" + places + ")"));
  }
  std::vector<int64_t> prefix(n + 1, 0);  // summed cost of units [0, k)
  for (size_t k = 0; k < n; ++k) {
    size_t end = k + 1 < n ? starts[k + 1] : layers.size();
    prefix[k + 1] = prefix[k];
    for (size_t i = starts[k]; i < end; ++i) prefix[k + 1] += cost[i];
  }
  const int64_t inf = std::numeric_limits<int64_t>::max();
  const size_t s_count = static_cast<size_t>(stages);
  // best[s][j]: the least maximum of units [0, j) in s+1 stages; from[s][j]: where stage s starts.
  std::vector<std::vector<int64_t>> best(s_count, std::vector<int64_t>(n + 1, inf));
  std::vector<std::vector<size_t>> from(s_count, std::vector<size_t>(n + 1, 0));
  for (size_t j = 1; j <= n; ++j) best[0][j] = prefix[j];
  for (size_t s = 1; s < s_count; ++s)
    for (size_t j = s + 1; j <= n; ++j)
      for (size_t i = s; i < j; ++i) {
        if (best[s - 1][i] == inf) continue;
        int64_t m = std::max(best[s - 1][i], prefix[j] - prefix[i]);
        if (m < best[s][j]) {
          best[s][j] = m;
          from[s][j] = i;
        }
      }
  std::vector<size_t> cuts(s_count - 1);
  for (size_t s = s_count - 1, j = n; s > 0; --s) {
    j = from[s][j];
    cuts[s - 1] = starts[j];
  }
  return cuts;
}

std::vector<size_t> pipeline_op_layers(const Function& f, const std::vector<TopLayer>& layers) {
  std::vector<size_t> out;
  out.reserve(f.ops.size());
  size_t current = 0;
  for (const auto& op : f.ops) {
    const std::string& scope = op->meta.scope;
    if (!scope.empty())
      for (size_t i = 0; i < layers.size(); ++i)
        if (owns(layers[i].name, scope)) {
          current = i;
          break;
        }
    out.push_back(current);
  }
  return out;
}

std::vector<int> pipeline_op_stages(const Function& f, const std::vector<TopLayer>& layers,
                                    const std::vector<size_t>& cuts) {
  const std::vector<int> layer_stage = layer_stages(layers.size(), cuts);
  std::vector<int> out;
  for (size_t layer : pipeline_op_layers(f, layers)) out.push_back(layer_stage[layer]);
  return out;
}

std::unordered_set<const Op*> loss_forward_ops(const Function& f) {
  std::unordered_set<const Value*> needed = {f.results[0]};
  std::unordered_set<const Op*> ops;
  for (auto it = f.ops.rbegin(); it != f.ops.rend(); ++it)
    if (needed.count((*it)->result())) {
      ops.insert(it->get());
      for (const Value* v : (*it)->operands) needed.insert(v);
    }
  return ops;
}

Expected<PipelineStagePlan> plan_pipeline_stages(const Function& forward, const std::vector<TopLayer>& layers,
                                                 const std::vector<ParamInfo>& params,
                                                 const std::vector<std::string>& split_before, int stages) {
  const std::vector<size_t> op_layer = pipeline_op_layers(forward, layers);
  std::vector<int64_t> flops(layers.size(), 0);
  for (size_t k = 0; k < forward.ops.size(); ++k) flops[op_layer[k]] += op_cost(*forward.ops[k]).flops;
  PipelineStagePlan plan;
  if (split_before.empty()) {
    MLC_TRY(plan.cuts, balanced_pipeline_cuts(layers, flops, stages));
  } else {
    for (const std::string& name : split_before)
      for (size_t i = 0; i < layers.size(); ++i)
        if (layers[i].name == name) plan.cuts.push_back(i);
    if (plan.cuts.size() + 1 != static_cast<size_t>(stages))
      return make_error("parallel.pipeline.split_before: " + std::to_string(split_before.size()) + " cuts make " +
                        std::to_string(split_before.size() + 1) + " stages, not " + std::to_string(stages));
  }
  const std::vector<int> layer_stage = layer_stages(layers.size(), plan.cuts);
  plan.stages.resize(static_cast<size_t>(stages));
  for (size_t i = 0; i < layers.size(); ++i) {
    PipelineStageInfo& st = plan.stages[static_cast<size_t>(layer_stage[i])];
    st.layers.push_back(layers[i].name);
    st.flops += flops[i];
  }
  plan.stages.back().layers.push_back("loss");
  for (const ParamInfo& p : params) {
    if (p.buffer) continue;
    for (size_t i = 0; i < layers.size(); ++i)
      if (owns(layers[i].name, p.name)) {
        plan.stages[static_cast<size_t>(layer_stage[i])].params += p.type.num_elements();
        break;
      }
  }
  // Crossings: for each value, the stage of its producer and the last stage reading it.
  std::unordered_map<const Value*, int> produced_in;
  std::unordered_map<const Value*, int> last_read;
  std::vector<const Value*> order;
  for (size_t k = 0; k < forward.ops.size(); ++k) {
    const Op& op = *forward.ops[k];
    const int stage = layer_stage[op_layer[k]];
    for (const Value* v : op.operands) {
      auto p = produced_in.find(v);
      if (p == produced_in.end() || p->second >= stage) continue;
      auto [at, fresh] = last_read.emplace(v, stage);
      if (fresh) order.push_back(v);
      at->second = std::max(at->second, stage);
    }
    if (!op.operands.empty())  // an op without operands is computed by each stage reading it
      for (const Value* r : op.results) produced_in[r] = stage;
  }
  std::unordered_map<const Op*, size_t> position;
  for (size_t k = 0; k < forward.ops.size(); ++k) position[forward.ops[k].get()] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](const Value* a, const Value* b) { return position[a->producer] < position[b->producer]; });
  plan.crossings.resize(plan.cuts.size());
  for (const Value* v : order) {
    PipelineCrossing c;
    c.producer = std::string(op_name(v->producer->code));
    if (!v->producer->meta.scope.empty()) c.producer += " in " + v->producer->meta.scope;
    c.type = v->type;
    c.bytes = v->type.num_bytes();
    c.from_stage = produced_in[v];
    c.to_stage = last_read[v];
    for (int k = c.from_stage; k < c.to_stage; ++k) plan.crossings[static_cast<size_t>(k)].push_back(c);
  }
  return plan;
}

void add_pipeline_activation_bytes(const Function& loss_grad, const std::vector<TopLayer>& layers,
                                   PipelineStagePlan& plan) {
  const std::vector<size_t> op_layer = pipeline_op_layers(loss_grad, layers);
  const std::vector<int> layer_stage = layer_stages(layers.size(), plan.cuts);
  std::unordered_set<const Op*> fwd = loss_forward_ops(loss_grad);
  std::unordered_map<const Op*, int> stage_of;
  for (size_t k = 0; k < loss_grad.ops.size(); ++k) stage_of[loss_grad.ops[k].get()] = layer_stage[op_layer[k]];
  std::unordered_set<const Value*> kept;
  for (const auto& op : loss_grad.ops)
    if (!fwd.count(op.get()))
      for (const Value* v : op->operands)
        if (v->producer && fwd.count(v->producer) && kept.insert(v).second)
          plan.stages[static_cast<size_t>(stage_of[v->producer])].activation_bytes += v->type.num_bytes();
}

}  // namespace mlc
