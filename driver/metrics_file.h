// Writing the metrics file of `mlc run --metrics FILE.jsonl` (docs/metrics.md
// is the schema; driver/train_metrics.h makes the records).
//
// Contracts:
//  - Every record is one line written with one write(2) as soon as it is
//    made: a kill loses at most the record being written, never the steps
//    since the last evaluation.
//  - The file is never written through a symbolic link (O_NOFOLLOW: "FILE:
//    error: is a symbolic link; mlc does not write metrics through links")
//    and must be a regular file.
//  - create truncates (or creates) the file. resume(path, step) keeps the
//    records a run wrote for the steps before `step` (the checkpoint it
//    resumes from) and drops every later one, a killed run's records past
//    its checkpoint included, by rewriting the kept lines atomically
//    (rt::write_file_atomically); then appends. Records are written in step
//    order, so the kept ones are the lines before the first step or grads
//    record of a step >= `step` (and before a damaged last line). A resumed
//    run's file is then the file of a run that was never interrupted.
//  - append (for `mlc run --eval --metrics`) adds to the file as it is.
//  - A failed write is remembered; status() reports the first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/expected.h"
#include "ir/source_file.h"

namespace mlc {

class MetricsFile {
 public:
  static Expected<MetricsFile> create(const std::string& path);
  static Expected<MetricsFile> resume(const std::string& path, int64_t step);
  static Expected<MetricsFile> append(const std::string& path);

  void write(const nlohmann::ordered_json& record);
  Status status() const;

  // What resume kept: the last run record (empty if none), and the losses of
  // the step records of steps [first, step) in order (to continue an epoch's
  // mean where the killed run left it).
  const nlohmann::json& kept_run() const { return kept_run_; }
  std::vector<double> kept_losses(int64_t first) const;

 private:
  MetricsFile(std::string path, FileDescriptor fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  static Expected<MetricsFile> open(const std::string& path, bool truncate);

  std::string path_;
  FileDescriptor fd_;
  std::string error_;
  nlohmann::json kept_run_;
  std::vector<std::pair<int64_t, double>> kept_steps_;  // (step, loss)
};

}  // namespace mlc
