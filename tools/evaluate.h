// Evaluation of a model over a data split with given parameters: mean loss over
// every position and, for classifiers, accuracy computed from counts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontends/model_file.h"
#include "runtime/dataset.h"
#include "runtime/interpreter.h"
#include "runtime/parameters.h"
#include "tools/profile.h"
#include "tools/program.h"
#include "tools/step_function.h"

namespace mlc {

struct EvalResult {
  double loss = 0;                  // mean over all positions
  std::optional<double> accuracy;   // classifiers only
  int64_t correct = 0;
  int64_t positions = 0;
  int64_t examples = 0;
};

// @eval compiled once for a split of `examples` examples in batches of `batch`
// (the last batch may be smaller), run as often as needed (after every epoch).
class Evaluator {
 public:
  static Expected<Evaluator> create(const Program& program, int64_t examples, int64_t batch);
  // `params` are in model-config order.
  Expected<EvalResult> run(const rt::Split& split, const std::vector<rt::NamedTensor>& params);
  // Times every instruction of the compiled @eval from now on (tools/profile.h).
  void enable_profiling();
  std::vector<FunctionProfile> profiles() const;

 private:
  const ModelConfig* config_ = nullptr;
  int64_t examples_ = 0, batch_ = 0;
  std::optional<StepFunction> full_, tail_;
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
