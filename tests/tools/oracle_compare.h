// What the oracle suites share (training_test.cc, host_gpu_training_test.cc):
// a run's metrics and parameters against PyTorch's recorded ones, at the
// tolerances training_test.cc justifies, and the recorded cases themselves
// (expect_oracle_model_matches, expect_optimizer_case_matches): a suite for
// another device passes its TrainOptions and runs the same comparisons.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/train.h"
#include "runtime/parameters.h"
#include "runtime/safetensors.h"

namespace mlc::oracle {

inline std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("mlc_training_test_" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

struct Metrics {
  std::vector<double> losses;
  std::vector<double> eval_accuracy;
};

inline Metrics read_metrics(const std::string& path) {
  Metrics m;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) m.losses.push_back(j["loss"]);
    if (j.contains("eval") && j["eval"].contains("accuracy")) m.eval_accuracy.push_back(j["eval"]["accuracy"]);
  }
  return m;
}

// A file's bytes (for bit-for-bit comparisons of saved parameters).
inline std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

inline ModelFile load_model(const std::string& path) {
  auto m = ModelFile::load(path);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

inline TrainSummary run(const ModelFile& model, const TrainOptions& o) {
  auto s = train(model, o);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : TrainSummary{};
}

inline void expect_losses(const std::vector<double>& got, const std::vector<double>& want, size_t count,
                   double rtol, size_t offset = 0) {
  ASSERT_GE(got.size(), count);
  ASSERT_GE(want.size(), offset + count);
  for (size_t i = 0; i < count; ++i)
    EXPECT_LE(std::fabs(got[i] - want[offset + i]) / std::fabs(want[offset + i]), rtol)
        << "step " << offset + i << ": " << got[i] << " vs " << want[offset + i];
}

// max |a - b| <= atol per tensor, for every tensor of `ref`.
// `noise_only`: tensors not compared (the caller says why).
inline void expect_tensors(const std::string& got_path, const std::string& ref_path, double atol,
                           bool relative_to_max = false, const std::vector<std::string>& noise_only = {}) {
  auto got = rt::read_safetensors(got_path);
  auto ref = rt::read_safetensors(ref_path);
  ASSERT_TRUE(got.ok() && ref.ok());
  for (const rt::SafetensorsEntry& e : ref->entries) {
    if (std::find(noise_only.begin(), noise_only.end(), e.name) != noise_only.end()) continue;
    auto t = got->get(e.name);
    ASSERT_TRUE(t.ok()) << e.name;
    ASSERT_EQ((*t)->type(), e.tensor.type()) << e.name;
    // Element i as a double: f32, f64 (an f64 model's) or an integer buffer.
    auto at = [](const rt::Tensor& x, int64_t i) -> double {
      switch (x.dtype()) {
        case DType::f64: return x.data<double>()[i];
        case DType::i64: return static_cast<double>(x.data<int64_t>()[i]);
        default: return x.data<float>()[i];
      }
    };
    double max_diff = 0, max_ref = 0;
    for (int64_t i = 0; i < e.tensor.num_elements(); ++i) {
      max_diff = std::max(max_diff, std::fabs(at(**t, i) - at(e.tensor, i)));
      max_ref = std::max(max_ref, std::fabs(at(e.tensor, i)));
    }
    EXPECT_LE(max_diff, relative_to_max ? atol * max_ref : atol) << e.name;
  }
}

// Trains `model` with `o` (metrics and final parameters written to `dir`):
// every loss within 1e-5 relative of the recorded run's, every final
// parameter within `param_atol`.
inline void expect_training_matches(const ModelFile& model, TrainOptions o, const std::string& dir,
                             const std::string& losses_json, const std::string& final_params, double param_atol) {
  o.metrics_path = dir + "/metrics.jsonl";
  o.save_path = dir + "/final.safetensors";
  run(model, o);
  auto want = read_json(losses_json)["losses"].get<std::vector<double>>();
  Metrics m = read_metrics(o.metrics_path);
  ASSERT_EQ(m.losses.size(), want.size());
  expect_losses(m.losses, want, want.size(), 1e-5);
  expect_tensors(o.save_path, final_params, param_atol);
}

// rt::init_parameters(seed 0) of `model` equals PyTorch's torch.manual_seed(0)
// initial parameters in `ref_path`, bit for bit.
inline void expect_seed_zero_init_is(const ModelFile& model, const std::string& ref_path) {
  std::vector<rt::NamedTensor> mine = rt::init_parameters(model.config().params, 0);
  auto ref = rt::read_safetensors(ref_path);
  ASSERT_TRUE(ref.ok());
  ASSERT_EQ(mine.size(), ref->entries.size());
  for (const rt::NamedTensor& p : mine) {
    auto t = ref->get(p.name);
    ASSERT_TRUE(t.ok()) << p.name;
    ASSERT_EQ(p.tensor.type(), (*t)->type());
    EXPECT_EQ(std::memcmp(p.tensor.bytes(), (*t)->bytes(), p.tensor.num_bytes()), 0) << p.name;
  }
}

// The examples with a recorded PyTorch run step for step (tests/data/oracle/NAME).
inline const std::vector<std::string>& oracle_examples() {
  static const std::vector<std::string> names = {"digits_mlp", "tiny_gpt", "gpt8"};
  return names;
}

// The optimizer and schedule cases recorded by tests/oracle/optimizers.py
// (tests/data/optimizers/NAME.json, .losses.json, .final.safetensors).
inline const std::vector<std::string>& oracle_optimizer_cases() {
  static const std::vector<std::string> names = {"sgd_momentum_dampening", "sgd_nesterov_step", "sgd_plain_warmup",
                                                 "adam_clip",              "adamw_2d_cosine",   "rmsprop_centered_momentum",
                                                 "rmsprop_plain",          "adagrad"};
  return names;
}

// examples/NAME.json trained with `o` (its device and backend; the rest is
// set here) from PyTorch's initial weights, in `dir`, against the recorded
// run tests/data/oracle/NAME: every loss within 1e-5 relative, the first
// step's gradients within 1e-5 of their largest magnitude, the final
// parameters within 1e-4.
inline void expect_oracle_model_matches(const std::string& name, TrainOptions o, const std::string& dir) {
  const std::string ref = "tests/data/oracle/" + name;
  ModelFile model = load_model("examples/" + name + ".json");
  o.init_path = ref + "/init.safetensors";
  o.metrics_path = dir + "/metrics.jsonl";
  o.save_path = dir + "/final.safetensors";
  o.dump_grads_path = dir + "/grads.safetensors";
  run(model, o);
  auto want = read_json(ref + "/losses.json")["losses"].get<std::vector<double>>();
  Metrics m = read_metrics(o.metrics_path);
  ASSERT_EQ(m.losses.size(), want.size());
  expect_losses(m.losses, want, want.size(), 1e-5);
  expect_tensors(o.dump_grads_path, ref + "/grads_step0.safetensors", 1e-5, true);
  expect_tensors(o.save_path, ref + "/final.safetensors", 1e-4);
}

// tests/data/optimizers/NAME trained with `o` (its device and backend) in
// `dir`: every loss within 1e-5 relative, the final parameters within 1e-5.
inline void expect_optimizer_case_matches(const std::string& name, TrainOptions o, const std::string& dir) {
  const std::string base = "tests/data/optimizers/" + name;
  ModelFile model = load_model(base + ".json");
  o.init_path = "tests/data/optimizers/init.safetensors";
  expect_training_matches(model, o, dir, base + ".losses.json", base + ".final.safetensors", 1e-5);
}

}  // namespace mlc::oracle
