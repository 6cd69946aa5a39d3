// The report of `mlc run --profile`: where the compiled functions of a run
// spent their time, per instruction, from the executor's timings
// (rt::ExecutionProfile, runtime/executor.h).
//
// One table per profiled function (the train step, evaluation; one per batch
// size), sorted by total time, like PyTorch profiler's key_averages: rank,
// instruction index, kind (kernel, gemm, reference, copy), name, calls, total
// ms, mean us per call, % of the function's runs, and the instruction's
// origin (the ops it computes and their model-file locations, as `mlc ir
// --after lower` prints them); then the time per kind (kernel, gemm,
// reference, copy, collective), with the GEMMs' rate in GFLOP/s (2 * batch *
// m * n * k per call). The JSON form holds the same numbers, every
// instruction and the full origins, and for every gemm its dtype, shape,
// transposes, alpha and beta, FLOPs per call and rate.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/executable.h"
#include "runtime/executor.h"
#include "driver/step_function.h"

namespace mlc {

struct FunctionProfile {
  std::string function;  // "train_step", "eval"
  int64_t batch = 0;
  std::shared_ptr<const rt::Executable> executable;
  rt::ExecutionProfile timings;  // one entry per instruction of `executable`
};

// What `f` timed since StepFunction::enable_profiling, for `batch`; nullopt
// if it was not profiled (interp, or profiling never enabled) or never ran.
std::optional<FunctionProfile> function_profile(const StepFunction& f, int64_t batch);

// The text tables, for stderr. Origins longer than `origin_width` characters
// are cut (with "...") to keep lines readable; the JSON has them whole.
std::string profile_table(const FunctionProfile& p, size_t origin_width = 120);

// {"functions": [{"function", "batch", "runs", "run_ms", "instructions":
// [{"index", "kind", "name", "calls", "total_ms", "mean_us", "percent",
// "origin"}, ...] (sorted by total time), "by_kind": {"kernel": {"count",
// "total_ms", "percent"}, ...}}, ...]}
nlohmann::ordered_json profile_json(const std::vector<FunctionProfile>& profiles);

}  // namespace mlc
