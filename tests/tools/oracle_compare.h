// What the oracle suites share (training_test.cc, host_gpu_training_test.cc):
// a run's metrics and parameters against PyTorch's recorded ones, at the
// tolerances training_test.cc justifies.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/train.h"
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
    double max_diff = 0, max_ref = 0;
    for (int64_t i = 0; i < e.tensor.num_elements(); ++i) {
      max_diff = std::max<double>(max_diff, std::fabs((*t)->data<float>()[i] - e.tensor.data<float>()[i]));
      max_ref = std::max<double>(max_ref, std::fabs(e.tensor.data<float>()[i]));
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

}  // namespace mlc::oracle
