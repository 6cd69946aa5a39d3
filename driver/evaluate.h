// Evaluation of a model over a data split with given parameters: mean loss over
// every position and, for classifiers, accuracy computed from counts.
//
// On a mesh (driver/rank.h) the split is spread over the data ranks as
// DistributedSampler(shuffle=False) spreads it, and the totals stay exact:
// data rank r of W evaluates positions r, r + W, ... below W * floor(n / W)
// with the sharded @eval, whose sums and counts the sharding pass all-reduces
// over the ranks; the n % W examples left (DistributedSampler's last round,
// which it pads with repeats) are evaluated once each, example W * floor(n /
// W) + r by data rank r with the unsharded @eval on the whole parameters
// (gathered), and their sums added over the data ranks. No padding is
// counted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontends/model_file.h"
#include "runtime/dataset.h"
#include "runtime/interpreter.h"
#include "runtime/parameters.h"
#include "driver/profile.h"
#include "driver/program.h"
#include "driver/rank.h"
#include "driver/step_function.h"

namespace mlc {

struct EvalResult {
  double loss = 0;                  // mean over all positions
  std::optional<double> accuracy;   // classifiers only
  int64_t correct = 0;
  int64_t positions = 0;
  int64_t examples = 0;
  // The model has no eval split (its "eval" defaults to "train", or maps the
  // same tensors and slices): this evaluated the training data, and every
  // report of it says so (eval_label).
  bool training_data = false;
};

// What the console calls an evaluation: "eval", or "eval (training data, no
// eval split)" (docs/metrics.md).
std::string eval_label(const EvalResult& r);

// The @eval batch sizes an Evaluator of `examples` examples in batches of
// `batch` over `data_ranks` data ranks compiles (what `mlc compile` compiles):
// the global batches of the even split, a full one and a smaller last one
// (0: none), and whether the examples beyond the even split need the
// unsharded @eval for batches of 1.
struct EvalBatches {
  int64_t full = 0, tail = 0;
  bool remainder = false;
};
EvalBatches eval_batches(int64_t examples, int64_t batch, int64_t data_ranks);

// @eval compiled once for a split of `examples` examples in batches of `batch`
// (the last batch may be smaller; on a mesh `batch` is the global batch, each
// data rank taking batch / W), run as often as needed (after every epoch).
// Every rank of a mesh creates and runs its own, in step (collectives).
class Evaluator {
 public:
  static Expected<Evaluator> create(const Program& program, int64_t examples, int64_t batch);
  static Expected<Evaluator> create(const Rank& rank, const ModelConfig& config, int64_t examples, int64_t batch);
  // `params` are in model-config order: this rank's local parts of them, as
  // the sharded @eval's arguments are placed.
  Expected<EvalResult> run(const rt::Split& split, const std::vector<rt::NamedTensor>& params);
  // Times every instruction of the compiled @eval from now on (driver/profile.h).
  void enable_profiling();
  std::vector<FunctionProfile> profiles() const;

 private:
  // Loss sum, correct count and positions of `inputs` through `f`.
  Status add(StepFunction& f, std::vector<rt::Tensor>& inputs, const std::vector<rt::NamedTensor>& params,
             double& loss_sum, int64_t& correct, int64_t& positions) const;
  // The n % W examples beyond the even split (see the header).
  Status add_remainder(const rt::Split& split, const std::vector<rt::NamedTensor>& params, double& loss_sum,
                       int64_t& correct, int64_t& positions);

  // A pipeline (driver/pipeline_step_schedule.h): each batch goes through
  // the stages in order, stage s on its rank (its stage<s>.eval_forward, the
  // last stage's stage<s>.eval), each sending its results to the next
  // stage's rank; the last stage's sums are broadcast to every rank.
  struct Stage {
    int stage = 0;
    std::optional<StepFunction> full, tail;
  };
  Expected<EvalResult> run_pipeline(const rt::Split& split, const std::vector<rt::NamedTensor>& params);

  const ModelConfig* config_ = nullptr;
  Rank rank_;
  int64_t examples_ = 0, batch_ = 0;  // batch_: local
  std::optional<StepFunction> full_, tail_, remainder_;
  std::vector<Stage> stages_;  // pipelines: this rank's stages, ascending
  int num_stages_ = 0, pipeline_ranks_ = 1;
  size_t pipeline_axis_ = 0;
};

// For classifiers: every target of `split` must be a class index in [0, C),
// C the number of classes of the model's cross-entropy (Program::num_classes).
// An error names the data file, the split and the first bad target.
Status check_class_targets(const Program& program, const rt::Split& split, const std::string& data_path,
                           const std::string& split_name);

// Compiles and runs an Evaluator once.
Expected<EvalResult> evaluate(const Program& program, const rt::Split& split,
                              const std::vector<rt::NamedTensor>& params, int64_t batch);

// Runs @loss on one batch (the first `batch` examples of `split` from `begin`).
Expected<double> batch_loss(const ModelFile& model, const rt::Split& split,
                            const std::vector<rt::NamedTensor>& params, int64_t begin, int64_t batch);

}  // namespace mlc
