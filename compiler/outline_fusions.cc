#include "compiler/outline_fusions.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "compiler/fusion.h"
#include "ir/builder.h"
#include "passes/dce.h"

namespace mlc {

namespace {

// The body of group `g`: its ops over arguments for the values it reads from
// outside (returned through `inputs`, in order of first use).
std::shared_ptr<Function> make_body(const FusionGroup& g, std::vector<Value*>& inputs) {
  auto body = std::make_shared<Function>("body");
  std::unordered_map<const Value*, Value*> inner;  // value of f -> value of the body
  Builder b(*body);
  for (const Op* op : g.ops) {
    std::vector<Value*> operands;
    for (Value* v : op->operands) {
      auto it = inner.find(v);
      if (it == inner.end()) {
        it = inner.emplace(v, body->add_arg("in" + std::to_string(inputs.size()), v->type, ArgKind::input)).first;
        inputs.push_back(v);
      }
      operands.push_back(it->second);
    }
    b.set_loc(op->loc);
    b.set_scope(op->meta.scope);
    std::vector<Value*> results = b.create_results(op->code, std::move(operands), op->attrs, result_types(*op));
    for (size_t k = 0; k < results.size(); ++k) inner[op->results[k]] = results[k];
  }
  body->results = {inner.at(g.root()->result())};
  for (const Op* op : g.outputs) body->results.push_back(inner.at(op->result()));
  return body;
}

}  // namespace

int outline_fusions(Function& f) {
  const FusionPlan plan = plan_fusion(f);
  int made = 0;
  for (const FusionGroup& g : plan.groups) {
    if ((g.kind != GroupKind::loop && g.kind != GroupKind::gemm_update) || g.ops.size() < 2) continue;
    std::vector<Value*> inputs;
    std::shared_ptr<Function> body = make_body(g, inputs);
    if (inputs.empty()) continue;  // sources only: nothing to fuse over
    const Op* root = g.root();
    auto at = std::find_if(f.ops.begin(), f.ops.end(), [&](const auto& op) { return op.get() == root; });
    Builder b(f, static_cast<size_t>(at - f.ops.begin()) + 1);
    b.set_loc(root->loc);
    b.set_scope(root->meta.scope);
    auto fused = b.try_create_fusion(std::move(inputs), std::move(body));
    if (!fused) {  // the body is built from verified ops: a bug in mlc
      std::fprintf(stderr, "mlc internal error: outlining a fusion: %s\n", fused.error().message.c_str());
      std::abort();
    }
    f.replace_all_uses(root->result(), fused->front());
    for (size_t k = 0; k < g.outputs.size(); ++k) f.replace_all_uses(g.outputs[k]->result(), (*fused)[k + 1]);
    ++made;
  }
  if (made) eliminate_dead_ops(f);
  return made;
}

}  // namespace mlc
