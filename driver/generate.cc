#include "driver/generate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>

namespace mlc {

namespace {

using Clock = std::chrono::steady_clock;

// Runs @prefill and @decode over one set of caches.
class Decoder {
 public:
  Decoder(const Program& program, const std::vector<rt::NamedTensor>& params, int64_t window)
      : program_(program), params_(params), window_(window) {}

  Status load_prefill() {
    MLC_TRY(prefill_, program_.function("prefill", 1));
    return bind(*prefill_, prefill_args_, window_tokens_);
  }
  // An error says why @decode cannot serve (for the note).
  Status load_decode() {
    MLC_TRY(decode_, program_.function("decode", 1));
    MLC_CHECK_OK(bind(*decode_, decode_args_, step_token_));
    if (caches_.empty()) return make_error("the model has no CausalSelfAttention layer to cache");
    return {};
  }
  int64_t vocabulary() const { return prefill_->signature().results[0].type.shape[2]; }

  // The logits after the last of `context` (1 to T tokens), from @prefill over
  // the window; it also refills the caches from position 0.
  Expected<std::span<const float>> window_logits(std::span<const int64_t> context) {
    int64_t* t = window_tokens_.data<int64_t>();
    std::fill(t, t + window_, 0);
    std::copy(context.begin(), context.end(), t);
    MLC_TRY(const rt::Tensor* logits, run(*prefill_, prefill_args_));
    const int64_t V = logits->shape()[2];
    return std::span<const float>(logits->data<float>() + (static_cast<int64_t>(context.size()) - 1) * V,
                                  static_cast<size_t>(V));
  }
  // The logits after `token` at `position`, from @decode over the caches
  // (filled for positions 0 .. position-1).
  Expected<std::span<const float>> step_logits(int64_t token, int64_t position) {
    step_token_.data<int64_t>()[0] = token;
    position_.data<int64_t>()[0] = position;
    MLC_TRY(const rt::Tensor* logits, run(*decode_, decode_args_));
    return logits->span<const float>();
  }
  double last_seconds() const { return last_seconds_; }

 private:
  Expected<const rt::Tensor*> run(StepFunction& f, std::vector<rt::Tensor*>& args) {
    const auto start = Clock::now();
    MLC_CHECK_OK(f.run(args));
    last_seconds_ = std::chrono::duration<double>(Clock::now() - start).count();
    const rt::Tensor& logits = f.result(0);
    if (logits.dtype() != DType::f32)
      return make_error(program_.path() + ": error: mlc generate: the logits are " + logits.type().str() + ", not f32");
    return &logits;
  }

  // Each argument's tensor: `tokens`, the position, a parameter, a cache.
  Status bind(const StepFunction& f, std::vector<rt::Tensor*>& args, rt::Tensor& tokens) {
    for (const Signature::Arg& a : f.signature().args) {
      rt::Tensor* t = nullptr;
      if (a.kind == ArgKind::input) {
        rt::Tensor& slot = a.type.rank() == 0 ? position_ : tokens;
        if (slot.num_elements() == 0) slot = rt::Tensor(a.type);
        t = &slot;
      } else if (a.kind == ArgKind::state) {
        auto it = caches_.find(a.name);
        if (it == caches_.end()) it = caches_.emplace(a.name, rt::Tensor(a.type)).first;
        if (it->second.type() != a.type)
          return make_error("mlc internal error: generate: cache '" + a.name + "' is " + it->second.type().str() +
                            " in one function and " + a.type.str() + " in the other");
        t = &it->second;
      } else {
        for (const rt::NamedTensor& p : params_)
          if (p.name == a.name) t = const_cast<rt::Tensor*>(&p.tensor);
      }
      if (!t) return make_error("mlc internal error: generate: no value for argument '" + a.name + "'");
      args.push_back(t);
    }
    return {};
  }

  const Program& program_;
  const std::vector<rt::NamedTensor>& params_;
  int64_t window_;
  std::optional<StepFunction> prefill_, decode_;
  std::vector<rt::Tensor*> prefill_args_, decode_args_;
  rt::Tensor window_tokens_, step_token_, position_;
  std::map<std::string, rt::Tensor> caches_;
  double last_seconds_ = 0;
};

// Whether @decode's logits agree with @prefill's at the same position: f32
// sums of the same terms in another order differ by a few units in the last
// place of the largest logit; attention that reads no cache is off by O(1).
bool same_logits(std::span<const float> step, std::span<const float> window) {
  float scale = 1;
  for (float x : window) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < step.size(); ++i)
    if (!(std::fabs(step[i] - window[i]) <= 1e-4f * scale)) return false;
  return true;
}

}  // namespace

Expected<Generation> generate(const Program& program, const std::vector<rt::NamedTensor>& params,
                              const GenerateOptions& options) {
  MLC_TRY(const int64_t T, program.generation_window());
  if (options.prompt.empty()) return make_error("error: mlc generate: the prompt has no tokens");
  Generation out;
  out.window = T;
  Decoder decoder(program, params, T);
  MLC_CHECK_OK(decoder.load_prefill());
  out.vocabulary = decoder.vocabulary();
  for (int64_t id : options.prompt)
    if (id < 0 || id >= out.vocabulary)
      return make_error("error: mlc generate: prompt token " + std::to_string(id) + " is outside the model's " +
                        "vocabulary of " + std::to_string(out.vocabulary));
  bool cached = options.cache;
  if (cached)
    if (Status loaded = decoder.load_decode(); !loaded) {
      cached = false;
      out.note = loaded.error().message;
    }
  bool checked = false;  // the first step against @prefill
  std::mt19937_64 generator(options.seed);
  std::vector<int64_t> context = options.prompt;
  std::vector<float> first_step;
  // The logits after the context's last token, and how they were computed.
  auto next_logits = [&](bool after_step) -> Expected<std::span<const float>> {
    const auto n = static_cast<int64_t>(context.size());
    std::span<const int64_t> tail(context.data() + std::max<int64_t>(0, n - T), static_cast<size_t>(std::min(n, T)));
    if (!(cached && after_step && n <= T)) {
      out.by_decode.push_back(false);
      MLC_TRY(auto logits, decoder.window_logits(tail));
      out.seconds.push_back(decoder.last_seconds());
      return logits;
    }
    MLC_TRY(std::span<const float> step, decoder.step_logits(context.back(), n - 1));
    const double seconds = decoder.last_seconds();
    if (!checked) {
      checked = true;
      first_step.assign(step.begin(), step.end());
      // @prefill over the same context also leaves the caches as the step did
      // (rows 0 .. n-1), up to rounding.
      MLC_TRY(std::span<const float> window, decoder.window_logits(tail));
      if (!same_logits(first_step, window)) {
        cached = false;
        out.note = "the model's one-token forward does not reproduce its whole-window forward (attention written "
                   "by hand in a forward reads no cache)";
        out.by_decode.push_back(false);
        out.seconds.push_back(decoder.last_seconds());
        return window;
      }
      step = first_step;
    }
    out.by_decode.push_back(true);
    out.seconds.push_back(seconds);
    out.cached = true;
    return step;
  };
  for (int64_t i = 0; i < options.max_new_tokens; ++i) {
    out.prefix.push_back(static_cast<int64_t>(context.size()));
    MLC_TRY(std::span<const float> logits, next_logits(i > 0));
    const int64_t token = choose_token(logits, options.sampling, generator);
    if (token < 0)
      return make_error(program.path() + ": error: mlc generate: the logits after " + std::to_string(context.size()) +
                        " tokens hold NaN");
    context.push_back(token);
    out.tokens.push_back(token);
    if (options.on_token) options.on_token(token);
  }
  return out;
}

}  // namespace mlc
