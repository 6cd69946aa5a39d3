#include "runtime/interpreter.h"

#include <cassert>
#include <unordered_map>

#include "ir/collectives.h"
#include "ir/decompose.h"
#include "ir/diagnostics.h"
#include "ir/op_table.h"
#include "runtime/collective_run.h"
#include "runtime/kernels/kernels.h"

namespace mlc::rt {

namespace {


std::string describe_arg(size_t i, const Value* arg) {
  std::string s = "argument " + std::to_string(i);
  if (!arg->name.empty()) s += " '" + arg->name + "'";
  return s;
}

}  // namespace

Expected<Interpreter> Interpreter::create(const Function& f) {
  Interpreter interp;
  interp.f_ = f.clone();
  for (auto& op : interp.f_->ops) MLC_CHECK_OK(complete_and_check(*op));
  decompose_composites(*interp.f_);
  interp.plan();
  return interp;
}

void Interpreter::plan() {
  const Function& f = *f_;
  std::unordered_map<const Value*, int> slot;
  const int num_args = static_cast<int>(f.args.size());
  for (int i = 0; i < num_args; ++i) slot[f.args[i]] = i;
  num_slots_ = num_args;
  for (const auto& op : f.ops) slot[op->result()] = num_slots_++;

  std::vector<int> last_use(num_slots_, -1);  // step index
  steps_.clear();
  for (const auto& op : f.ops) {
    // Composites have no reference kernel; create decomposed them all.
    assert(!op_info(op->code).is_composite());
    Step step{op.get(), {}, slot.at(op->result()), {}};
    for (const Value* v : op->operands) {
      step.operands.push_back(slot.at(v));
      last_use[step.operands.back()] = static_cast<int>(steps_.size());
    }
    steps_.push_back(std::move(step));
  }
  std::vector<bool> is_result(num_slots_, false);
  result_slots_.clear();
  for (const Value* v : f.results) {
    result_slots_.push_back(slot.at(v));
    is_result[result_slots_.back()] = true;
  }
  // Free op results after their last use (unused ones right after their op).
  for (int s = num_args; s < num_slots_; ++s) {
    if (is_result[s]) continue;
    int at = last_use[s] >= 0 ? last_use[s] : s - num_args;
    steps_[at].release.push_back(s);
  }
}

Expected<std::vector<Tensor>> Interpreter::run(const std::vector<Tensor>& args, World* world) const {
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : args) ptrs.push_back(&t);
  return run(ptrs, world);
}

Expected<std::vector<Tensor>> Interpreter::run(std::span<const Tensor* const> args, World* world) const {
  return execute(args, world, nullptr);
}

Expected<const Op*> Interpreter::find_first(std::span<const Tensor* const> args,
                                            const std::function<bool(const Tensor&)>& found) const {
  const Op* first = nullptr;
  std::function<bool(const Op&, const Tensor&)> after = [&](const Op& op, const Tensor& t) {
    if (!found(t)) return true;
    first = &op;
    return false;
  };
  MLC_CHECK_OK(execute(args, nullptr, &after));
  return first;
}

Expected<std::vector<Tensor>> Interpreter::execute(
    std::span<const Tensor* const> args, World* world,
    const std::function<bool(const Op&, const Tensor&)>* after) const {
  const Function& f = *f_;
  if (args.size() != f.args.size())
    return make_error("function '" + f.name + "' expects " + std::to_string(f.args.size()) +
                      " argument" + (f.args.size() == 1 ? "" : "s") + ", got " +
                      std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]) return make_error(describe_arg(i, f.args[i]) + ": no tensor given");
    if (args[i]->type() != f.args[i]->type)
      return make_error(describe_arg(i, f.args[i]) + ": expected " + f.args[i]->type.str() +
                        ", got " + args[i]->type().str());
  }

  std::vector<Tensor> owned(num_slots_);
  std::vector<const Tensor*> ptr(num_slots_, nullptr);
  for (size_t i = 0; i < args.size(); ++i) ptr[i] = args[i];
  std::vector<const Tensor*> operands;
  for (const Step& step : steps_) {
    operands.clear();
    for (int s : step.operands) operands.push_back(ptr[s]);
    Tensor& out = owned[step.result];
    out = Tensor::uninitialized(step.op->result()->type);
    // A collective's errors name it (its tag has the op's location) and the ranks.
    const bool collective = world && uses_mesh_axis(step.op->code);
    Status st = collective ? run_collective(*step.op, *world, operands, out)
                           : reference_kernel(step.op->code)(*step.op, operands, out);
    if (!st) return collective ? st.error() : error_at(step.op->loc, st.error().message);
    if (after && !(*after)(*step.op, out)) return std::vector<Tensor>{};
    ptr[step.result] = &out;
    for (int s : step.release) {
      owned[s] = Tensor();
      ptr[s] = nullptr;
    }
  }

  std::vector<Tensor> results;
  results.reserve(result_slots_.size());
  for (size_t k = 0; k < result_slots_.size(); ++k) {
    int s = result_slots_[k];
    bool used_later = false;
    for (size_t j = k + 1; j < result_slots_.size(); ++j) used_later |= result_slots_[j] == s;
    if (s < static_cast<int>(args.size()) || used_later) results.push_back(*ptr[s]);
    else results.push_back(std::move(owned[s]));
  }
  return results;
}

}  // namespace mlc::rt
