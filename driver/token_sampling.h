// Choosing the next token from a language model's logits (`mlc generate`).
//
// temperature 0: greedy, the first id of the largest logit (torch.argmax's
// choice at a tie). Otherwise, as nanoGPT's and Hugging Face's samplers:
//  1. z = logits / temperature (in double);
//  2. top_k > 0: logits below the k-th largest are dropped (ties with it kept);
//  3. p = softmax(z) over what is left;
//  4. top_p < 1: only the most probable ids are kept, in descending order of
//     p (ties by id), up to and including the first at which their summed
//     probability reaches top_p; p is renormalized over them;
//  5. u ~ U[0, 1) from the generator; the id is the first, in id order, at
//     which the cumulative p exceeds u.
// Non-finite logits: -inf is never chosen (unless all are), NaN is an error
// for the caller to report.
#pragma once

#include <cstdint>
#include <random>
#include <span>

namespace mlc {

struct SamplingOptions {
  double temperature = 1.0;
  int64_t top_k = 0;   // 0: every id
  double top_p = 1.0;  // in (0, 1]
};

// The chosen id; -1 when a logit is NaN.
int64_t choose_token(std::span<const float> logits, const SamplingOptions& options, std::mt19937_64& generator);

}  // namespace mlc
