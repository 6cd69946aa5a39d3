#include "driver/step_runner.h"

#include <chrono>
#include <cstring>

namespace mlc {

namespace {
double scalar_value(const rt::Tensor& t) {
  return t.dtype() == DType::f64 ? t.data<double>()[0] : t.data<float>()[0];
}
}  // namespace

Expected<StepRunner> StepRunner::create(StepSchedule schedule, const Rank& rank, bool profile) {
  StepRunner r;
  r.world_ = rank.world;
  r.prefix_ = rank.prefix();
  r.profile_ = profile;
  for (const StepSchedule::Call& c : schedule.calls) {
    if (c.kind != StepSchedule::Kind::function) {
      if (!rank.world) return make_error("mlc internal error: a step schedule with messages (" + c.tag + ") on a single device");
      r.calls_.push_back({kNoFunction, {}, {}});
      continue;
    }
    size_t f = 0;
    while (f < r.functions_.size() && (r.functions_[f].name != c.function || r.functions_[f].batch != c.batch)) ++f;
    if (f == r.functions_.size()) {
      MLC_TRY(StepFunction fn, rank.function(c.function, c.batch));
      if (profile) fn.enable_profiling();
      r.functions_.push_back({c.function, c.batch, std::move(fn)});
    }
    r.calls_.push_back({f, {}, {}});
  }
  r.inputs_.resize(static_cast<size_t>(schedule.micro_batches));
  r.buffers_.resize(schedule.buffers.size());
  r.schedule_ = std::move(schedule);
  return r;
}

Status StepRunner::bind(const ModelConfig& config, std::vector<rt::NamedTensor>& params,
                        std::vector<rt::NamedTensor>& state, rt::Tensor* step) {
  for (std::vector<rt::Tensor>& in : inputs_) in.resize(config.inputs.size());
  // The schedule's buffer `name` (made now, typed `type` unless its own type says), or null when it has none.
  auto buffer = [&](const std::string& name, const TensorType* type, std::string& why) -> rt::Tensor* {
    for (size_t b = 0; b < schedule_.buffers.size(); ++b) {
      const StepSchedule::Buffer& buf = schedule_.buffers[b];
      if (buf.name != name) continue;
      if (!buffers_[b]) {
        if (!buf.type && !type) {
          why = "buffer '" + name + "' has no type";
          return nullptr;
        }
        buffers_[b].emplace(buf.type ? *buf.type : *type);
        rt::Tensor& made = *buffers_[b];
        std::memset(made.bytes(), 0, static_cast<size_t>(made.num_bytes()));
        if (buf.value != 0) {
          if (made.dtype() != DType::f32 || made.type().rank() != 0) {
            why = "buffer '" + name + "' is not an f32 scalar";
            return nullptr;
          }
          made.data<float>()[0] = static_cast<float>(buf.value);
        }
        if (buf.each_step) zeroed_.push_back(&made);
      }
      if (type && buffers_[b]->type() != *type) {
        why = "buffer '" + name + "' is bound to arguments of two types";
        return nullptr;
      }
      return &*buffers_[b];
    }
    return nullptr;
  };
  for (size_t c = 0; c < calls_.size(); ++c) {
    const StepSchedule::Call& call = schedule_.calls[c];
    Bound& bound = calls_[c];
    if (bound.function == kNoFunction) {
      auto fail = [&](const std::string& why) {
        return make_error("mlc internal error: step schedule call " + std::to_string(c) + " (" + call.tag + "): " + why);
      };
      if (call.kind == StepSchedule::Kind::send && !call.from_results.empty()) {
        const StepSchedule::FromResult& from = call.from_results[0];
        if (from.call >= c || calls_[from.call].function == kNoFunction) return fail("sends no earlier call's result");
        for (size_t between = from.call + 1; between < c; ++between)
          if (calls_[between].function == calls_[from.call].function)
            return fail("sends a result that call " + std::to_string(between) + " overwrites");
        if (from.result >= functions_[calls_[from.call].function].fn.signature().results.size())
          return fail("sends a result its call does not have");
        bound.from_results.push_back({0, from.call, from.result});
        bound.args.assign(1, nullptr);
        continue;
      }
      std::string why;
      rt::Tensor* t = buffer(call.buffer, nullptr, why);
      if (!t) return fail(why.empty() ? "no buffer '" + call.buffer + "'" : why);
      bound.args.assign(1, t);
      continue;
    }
    const Signature& sig = functions_[bound.function].fn.signature();
    auto fail = [&](const std::string& why) {
      return make_error("mlc internal error: step schedule call " + std::to_string(c) + ", @" + sig.name + ": " + why);
    };
    bound.args.assign(sig.args.size(), nullptr);
    for (size_t i = 0; i < sig.args.size(); ++i) {
      const Signature::Arg& a = sig.args[i];
      rt::Tensor*& t = bound.args[i];
      for (const StepSchedule::FromResult& from : call.from_results) {
        if (from.arg != a.name) continue;
        if (from.call >= c) return fail("argument '" + a.name + "' reads a later call's result");
        for (size_t between = from.call + 1; between < c; ++between)
          if (calls_[between].function == calls_[from.call].function)
            return fail("argument '" + a.name + "' reads a result that call " + std::to_string(between) +
                        " overwrites");
        const Signature& producer = functions_[calls_[from.call].function].fn.signature();
        if (from.result >= producer.results.size() || producer.results[from.result].type != a.type)
          return fail("argument '" + a.name + "' is not of the type of result " + std::to_string(from.result) +
                      " of @" + producer.name);
        bound.from_results.push_back({i, from.call, from.result});
        t = step;  // a placeholder until run() sets it
      }
      if (t) continue;
      std::string buffer_name = a.name, why;
      for (const auto& [arg, name] : call.buffer_args)
        if (arg == a.name) buffer_name = name;
      t = buffer(buffer_name, &a.type, why);
      if (!why.empty()) return fail(why);
      if (buffer_name != a.name && !t) return fail("no buffer '" + buffer_name + "' for argument '" + a.name + "'");
      if (!t && a.kind == ArgKind::step) t = step;
      if (!t && a.kind == ArgKind::input)
        for (size_t j = 0; j < config.inputs.size(); ++j)
          if (config.inputs[j].name == a.name) t = &inputs_[static_cast<size_t>(call.micro_batch)][j];
      if (!t && a.kind != ArgKind::input)
        for (auto* list : {&params, &state})
          for (rt::NamedTensor& p : *list)
            if (p.name == a.name) t = &p.tensor;
      if (!t) return fail("no value for argument '" + a.name + "'");
    }
  }
  return {};
}

Status StepRunner::run() {
  MLC_CHECK_OK(start());
  return finish();
}

Status StepRunner::start() {
  for (rt::Tensor* t : zeroed_) std::memset(t->bytes(), 0, static_cast<size_t>(t->num_bytes()));
  losses_ = 0;
  times_.steps += profile_;
  for (size_t c = 0; c < calls_.size(); ++c) {
    Bound& bound = calls_[c];
    for (const Bound::Refresh& r : bound.from_results)
      bound.args[r.arg] = const_cast<rt::Tensor*>(&functions_[calls_[r.call].function].fn.result(r.result));
    const auto t0 = std::chrono::steady_clock::now();
    if (bound.function == kNoFunction) {
      MLC_CHECK_OK(transfer(c));
    } else {
      StepFunction& fn = functions_[bound.function].fn;
      if (c + 1 == calls_.size()) {  // finish() completes it
        MLC_CHECK_OK(fn.start(bound.args));
        if (profile_)
          add_time(c, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        return {};
      }
      MLC_CHECK_OK(fn.run(bound.args));
      add_loss(c);
    }
    if (profile_)
      add_time(c, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return {};
}

void StepRunner::add_time(size_t call, double ms) {
  const StepSchedule::Call& c = schedule_.calls[call];
  switch (c.kind) {
    case StepSchedule::Kind::recv: times_.recv_ms += ms; return;
    case StepSchedule::Kind::send: times_.send_ms += ms; return;
    case StepSchedule::Kind::all_reduce: times_.all_reduce_ms += ms; return;
    case StepSchedule::Kind::function: break;
  }
  const std::string& f = c.function;
  if (f.ends_with("forward")) times_.forward_ms += ms;
  else if (f.ends_with("loss_grad") || f.ends_with("loss_grad_input") || f.ends_with("loss_grad_weight") ||
           f.ends_with("accumulate_grads"))
    times_.backward_ms += ms;
  else times_.other_ms += ms;
}

Status StepRunner::finish() {
  if (calls_.empty()) return {};
  if (calls_.back().function != kNoFunction) {
    const auto t0 = std::chrono::steady_clock::now();
    MLC_CHECK_OK(functions_[calls_.back().function].fn.finish());
    if (profile_)
      add_time(calls_.size() - 1,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    add_loss(calls_.size() - 1);
  }
  if (losses_ > 1 && !schedule_.sum_losses) loss_ /= static_cast<double>(losses_);
  if (schedule_.loss_replicas) {
    if (!losses_) loss_ = 0;
    MLC_CHECK_OK(world_->all().all_reduce(&loss_, 1, DType::f64, rt::ReduceOp::sum, "the step's loss"));
    loss_ /= static_cast<double>(*schedule_.loss_replicas);
  }
  return {};
}

Status StepRunner::transfer(size_t call) {
  const StepSchedule::Call& c = schedule_.calls[call];
  Bound& bound = calls_[call];
  for (const Bound::Refresh& r : bound.from_results)
    bound.args[r.arg] = const_cast<rt::Tensor*>(&functions_[calls_[r.call].function].fn.result(r.result));
  rt::Tensor& t = *bound.args[0];
  rt::Group& all = c.axis >= 0 ? world_->axis_group(static_cast<size_t>(c.axis)) : world_->all();
  switch (c.kind) {
    case StepSchedule::Kind::send: return all.send(t.bytes(), t.num_bytes(), c.peer, c.tag);
    case StepSchedule::Kind::recv: return all.recv(t.bytes(), t.num_bytes(), c.peer, c.tag);
    case StepSchedule::Kind::all_reduce:
      return all.all_reduce(t.bytes(), t.num_elements(), t.dtype(), rt::ReduceOp::sum, c.tag);
    case StepSchedule::Kind::function: break;
  }
  return make_error("mlc internal error: call " + std::to_string(call) + " is not a message");
}

void StepRunner::add_loss(size_t call) {
  if (const std::optional<size_t> k = schedule_.calls[call].loss) {
    const double v = scalar_value(functions_[calls_[call].function].fn.result(*k));
    call_losses_.resize(losses_ + 1);
    call_losses_[losses_] = v;
    loss_ = losses_++ ? loss_ + v : v;
  }
}

const rt::Tensor* StepRunner::buffer(const std::string& name) const {
  for (size_t b = 0; b < schedule_.buffers.size(); ++b)
    if (schedule_.buffers[b].name == name && buffers_[b]) return &*buffers_[b];
  return nullptr;
}

int64_t StepRunner::arena_bytes() const {
  int64_t bytes = 0;
  for (const Compiled& f : functions_) bytes += f.fn.arena_bytes();
  return bytes;
}

int64_t StepRunner::buffer_bytes() const {
  int64_t bytes = 0;
  for (const std::optional<rt::Tensor>& b : buffers_)
    if (b) bytes += b->num_bytes();
  return bytes;
}

}  // namespace mlc
