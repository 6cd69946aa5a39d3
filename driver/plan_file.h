// A plan file: the parallel plan `mlc plan --search -o plan.json` chose, which
// `mlc run MODEL --plan plan.json` runs (docs/architecture.md, Plan search).
//
//   {"format": "mlc-plan-1", "model": "tiny_gpt", "devices": 4,
//    "mesh": "dp=2,tp=2", "zero": 1, "microbatches": 0, "schedule": "1f1b",
//    "virtual_stages": 1, "sequence_parallel": false,
//    "predicted": {...}}
//
// Contracts:
//  - write_plan_file writes what read_plan_file reads back into the same
//    ParallelFlags (every field given), plus "model", "devices" and the
//    search's prediction ("predicted": step time, memory per rank, why),
//    which reading checks for type only: they inform, and the run measures.
//  - read_plan_file reads a regular file of at most 64 KiB, bounded JSON
//    (support/json_parse.h). Every mistake is an error naming the file and
//    the field, what it expected and what it found:
//      "plan.json: error: 'zero': expected 0, 1, 2 or 3, got 5"
//      "plan.json: error: 'mesh': axis 'pp' (pipeline parallelism) beside other axes is not implemented yet; ..."
//      "plan.json: error: unknown field 'meshes'; a plan file has format, model, devices, mesh, ..."
//    "mesh" is required ("" is one device); "microbatches" 0 means the
//    pipeline's default (as many as its ranks).
//  - `model` given to read_plan_file: a plan written for another model (its
//    "model" field) is an error naming both.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/expected.h"
#include "ir/parallel_plan.h"

namespace mlc {

inline constexpr const char* kPlanFileFormat = "mlc-plan-1";

// The plan file's JSON for `plan` of `model` on `devices` devices, with the search's `predicted` object.
nlohmann::ordered_json plan_file_json(const ParallelPlan& plan, const std::string& model, int64_t devices,
                                      const nlohmann::ordered_json& predicted);
// Writes it atomically.
Status write_plan_file(const std::string& path, const nlohmann::ordered_json& plan);

// The flags the plan file gives (all of them set).
Expected<ParallelFlags> read_plan_file(const std::string& path, const std::string& model);

}  // namespace mlc
