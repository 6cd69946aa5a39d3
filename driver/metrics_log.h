// A metrics file of `mlc run --metrics FILE.jsonl` read back and checked
// (docs/metrics.md is the schema; driver/train_metrics.h writes it): what
// `mlc report` draws.
//
// Contract: every non-empty line must be a JSON object of one record kind,
// told by its keys: "loss" (a step), "eval", "train" (an epoch's mean),
// "grads", "run". Anything else is an Error "FILE:LINE: error: what was
// expected, what was found" (a JSON syntax error also names the column).
// Numbers that a run wrote as null (NaN or infinite values; JSON has none)
// read as NaN. A resumed run appends to the file, so a step, epoch or
// evaluation may appear twice: the later record wins. Records come back
// sorted by step (epochs by epoch).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/expected.h"
#include "driver/grad_stats.h"

namespace mlc {

struct MetricsLog {
  struct Step {
    int64_t step = 0, epoch = 0;
    double loss = 0;
  };
  struct Epoch {
    int64_t epoch = 0, steps = 0;
    double loss = 0;  // mean training loss of its steps
  };
  struct Eval {
    int64_t epoch = -1;  // -1: not given (`mlc run --eval`)
    int64_t step = -1;   // optimizer steps taken; -1: not given
    double loss = 0;
    std::optional<double> accuracy;
    int64_t examples = 0;  // 0: not given
  };
  struct Grads {
    int64_t step = 0, epoch = 0;
    std::vector<GradStats> layers;
  };

  std::string path;
  nlohmann::json run = nlohmann::json::object();  // the last "run" record's object; empty if none
  std::vector<Step> steps;
  std::vector<Epoch> epochs;
  std::vector<Eval> evals;  // with a step first, by step; then those without
  std::vector<Grads> grads;
  int64_t lines = 0;        // records read
};

Expected<MetricsLog> read_metrics_log(const std::string& path);

}  // namespace mlc
