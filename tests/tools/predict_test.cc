// `mlc predict` (driver/predict.h, passes/predict_function.h): the outputs
// of a trained model for every example of a split, in the data's order:
//  - their argmax's accuracy is the accuracy `mlc run` evaluates;
//  - batching and the backend change only f32 rounding;
//  - the targets need not be in the data file (only the forward's inputs are read);
//  - bad invocations are errors that say what is missing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
using testing::RunResult;
using testing::run_mlc;

const rt::Tensor& tensor(const rt::SafetensorsFile& f, const std::string& name) {
  if (const rt::SafetensorsEntry* e = f.find(name)) return e->tensor;
  ADD_FAILURE() << "no tensor " << name;
  static const rt::Tensor none;
  return none;
}

TEST(Predict, OutputsOfATrainedClassifierAreWhatItsEvaluationScores) {
  const fs::path dir = testing::scratch_dir("mlc_predict");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string params = (dir / "mlp.safetensors").string();
  RunResult trained = run_mlc("run examples/digits_mlp.json --steps 30 --save " + params);
  ASSERT_EQ(trained.status, 0) << trained.err;
  // "...; eval loss L, accuracy A"
  const size_t at = trained.out.find("accuracy ");
  ASSERT_NE(at, std::string::npos) << trained.out;
  const double accuracy = std::stod(trained.out.substr(at + 9));

  const std::string out = (dir / "outputs.safetensors").string();
  RunResult predicted = run_mlc("predict examples/digits_mlp.json --init " + params + " -o " + out);
  ASSERT_EQ(predicted.status, 0) << predicted.err;
  EXPECT_NE(predicted.out.find("predicted 357 examples of the eval split of examples/data/digits.safetensors in "
                               "batches of 357: outputs f32[357,10]\n"),
            std::string::npos)
      << predicted.out;
  auto outputs = rt::read_safetensors(out);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  auto data = rt::read_safetensors("examples/data/digits.safetensors");
  ASSERT_TRUE(data.ok());
  const rt::Tensor& logits = tensor(*outputs, "outputs");
  const rt::Tensor& labels = tensor(*data, "val_labels");
  ASSERT_EQ(logits.shape(), (Shape{357, 10}));
  int64_t correct = 0;
  for (int64_t i = 0; i < 357; ++i) {
    const float* row = logits.data<float>() + i * 10;
    int64_t best = 0;
    for (int64_t c = 1; c < 10; ++c)
      if (row[c] > row[best]) best = c;
    correct += best == labels.data<int64_t>()[i];
  }
  // The summary prints 4 decimals.
  EXPECT_NEAR(static_cast<double>(correct) / 357, accuracy, 5e-5);

  // Batches of 100 (and a last one of 57), and the interpreter: f32 rounding apart.
  for (const char* flags : {" --batch 100", " --backend interp"}) {
    const std::string other = (dir / "other.safetensors").string();
    RunResult again = run_mlc("predict examples/digits_mlp.json --init " + params + flags + " -o " + other);
    ASSERT_EQ(again.status, 0) << again.err;
    auto o = rt::read_safetensors(other);
    ASSERT_TRUE(o.ok());
    const rt::Tensor& y = tensor(*o, "outputs");
    ASSERT_EQ(y.shape(), logits.shape());
    for (int64_t i = 0; i < y.num_elements(); ++i)
      EXPECT_NEAR(y.data<float>()[i], logits.data<float>()[i], 1e-5 * (1 + std::fabs(logits.data<float>()[i])))
          << flags << " element " << i;
  }
  // Without -o: the first examples' classes.
  RunResult shown = run_mlc("predict examples/digits_mlp.json --init " + params);
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_EQ(testing::count(shown.out, "  example "), 8u) << shown.out;
  EXPECT_NE(shown.out.find("  ... (-o OUT.safetensors writes all 357)\n"), std::string::npos) << shown.out;
}

TEST(Predict, DataWithoutTargetsIsEnough) {
  const fs::path dir = testing::scratch_dir("mlc_predict_inputs");
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto data = rt::read_safetensors("examples/data/digits.safetensors");
  ASSERT_TRUE(data.ok());
  const std::string images = (dir / "images.safetensors").string();
  ASSERT_TRUE(rt::write_safetensors(images, {{"val_images", &tensor(*data, "val_images")}}).ok());
  const std::string params = (dir / "init.safetensors").string();
  ASSERT_EQ(run_mlc("run examples/digits_mlp.json --steps 1 --save " + params).status, 0);
  RunResult r = run_mlc("predict examples/digits_mlp.json --init " + params + " --data " + images);
  EXPECT_EQ(r.status, 0) << r.err;
  // The training split's mapping names tensors this file does not have.
  RunResult train = run_mlc("predict examples/digits_mlp.json --init " + params + " --data " + images + " --split train");
  EXPECT_EQ(train.status, 1);
  EXPECT_NE(train.err.find("train_images"), std::string::npos) << train.err;
}

// --value PATH: a module's output, as a forward hook on it sees it. The last
// layer's is the model's output; ReLU's is fc1's clamped at 0.
TEST(Predict, AModulesOutputByItsPath) {
  const fs::path dir = testing::scratch_dir("mlc_predict_value");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string params = (dir / "init.safetensors").string();
  ASSERT_EQ(run_mlc("run examples/digits_mlp.json --steps 3 --save " + params).status, 0);
  auto outputs = [&](const std::string& flags) -> rt::Tensor {
    const std::string out = (dir / "out.safetensors").string();
    RunResult r = run_mlc("predict examples/digits_mlp.mlc --init " + params + flags + " -o " + out);
    EXPECT_EQ(r.status, 0) << r.err;
    auto f = rt::read_safetensors(out);
    EXPECT_TRUE(f.ok());
    return f.ok() ? tensor(*f, "outputs") : rt::Tensor();
  };
  const rt::Tensor logits = outputs(""), fc2 = outputs(" --value fc2");
  const rt::Tensor fc1 = outputs(" --value fc1"), relu = outputs(" --value relu");
  ASSERT_EQ(fc2.shape(), logits.shape());
  for (int64_t i = 0; i < logits.num_elements(); ++i) EXPECT_EQ(fc2.data<float>()[i], logits.data<float>()[i]);
  ASSERT_EQ(fc1.shape(), (Shape{357, 128}));
  ASSERT_EQ(relu.shape(), fc1.shape());
  for (int64_t i = 0; i < fc1.num_elements(); ++i)
    EXPECT_EQ(relu.data<float>()[i], std::max(fc1.data<float>()[i], 0.0f)) << i;
  // A sequence-first output ([T, batch, H]) has no row per example: refused,
  // not stitched along T.
  const std::string lm = (dir / "lm.safetensors").string();
  ASSERT_EQ(run_mlc("run examples/pytorch/word_language_model_lstm.mlc --steps 1 --save " + lm).status, 0);
  RunResult seq = run_mlc("predict examples/pytorch/word_language_model_lstm.mlc --init " + lm + " --value rnn");
  EXPECT_EQ(seq.status, 1);
  EXPECT_EQ(seq.err, "examples/pytorch/word_language_model_lstm.mlc: error: mlc predict: the output of rnn at batch 1 "
                     "is f32[20,1,16]: its first dim is not the examples', and predict writes one row per example\n");
  RunResult wrong = run_mlc("predict examples/digits_mlp.mlc --init " + params + " --value fc");
  EXPECT_EQ(wrong.status, 1);
  EXPECT_EQ(wrong.err, "examples/digits_mlp.mlc: error: --value: the forward calls no module 'fc'; did you mean "
                       "'fc1'? (modules: flatten, fc1, relu, fc2)\n");
}

TEST(Predict, BadInvocationsSayWhatIsMissing) {
  RunResult no_init = run_mlc("predict examples/digits_mlp.json");
  EXPECT_EQ(no_init.status, 2);
  EXPECT_EQ(no_init.err, "mlc: error: predict needs --init F: the trained parameters (mlc run --save)\n");
  RunResult split = run_mlc("predict examples/digits_mlp.json --init x.safetensors --split test");
  EXPECT_EQ(split.status, 1);
  RunResult batch = run_mlc("predict examples/digits_mlp.json --init x.safetensors --batch 0");
  EXPECT_EQ(batch.status, 2);
  EXPECT_EQ(batch.err, "mlc: error: --batch takes a positive integer, got '0'\n");
}

}  // namespace
}  // namespace mlc
