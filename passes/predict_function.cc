#include "passes/predict_function.h"

#include <unordered_set>

#include "passes/dce.h"

namespace mlc {

Expected<std::unique_ptr<Function>> build_predict_function(const Function& eval) {
  if (eval.results.empty() || !eval.results[0]->producer || eval.results[0]->producer->operands.empty())
    return make_error("mlc internal error: predict: @eval's first result is not a loss of the model's output");
  std::unique_ptr<Function> f = eval.clone();
  f->name = "predict";
  // The clone's values are its own: find the loss by position.
  const Op* loss = f->results[0]->producer;
  Value* output = loss->operands[0];
  f->results.assign(1, output);
  f->result_updates.clear();
  drop_unread(*f);
  return f;
}

void drop_unread(Function& f) {
  eliminate_dead_ops(f);
  std::unordered_set<const Value*> read;
  for (const auto& op : f.ops)
    for (const Value* v : op->operands) read.insert(v);
  for (const Value* v : f.results) read.insert(v);
  std::vector<Value*> args;
  std::vector<ArgKind> kinds;
  for (size_t i = 0; i < f.args.size(); ++i)
    if (read.count(f.args[i])) {
      args.push_back(f.args[i]);
      kinds.push_back(f.arg_kinds[i]);
    }
  f.args = std::move(args);
  f.arg_kinds = std::move(kinds);
  f.erase_dead_values();
}

}  // namespace mlc
