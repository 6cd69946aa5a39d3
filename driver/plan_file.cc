#include "driver/plan_file.h"

#include <set>

#include "runtime/file_io.h"
#include "support/json_parse.h"
#include "support/quote.h"

namespace mlc {

namespace {

constexpr int64_t kMaxPlanFileBytes = 64 * 1024;
constexpr json::Limits kPlanJsonLimits{16, 4096, true};

const char* const kFields[] = {"format", "model", "devices", "mesh", "zero", "microbatches", "schedule",
                               "virtual_stages", "sequence_parallel", "predicted"};

// A JSON value for a message, cut short.
std::string shown(const json::Json& v) { return squote(v.dump()); }

}  // namespace

nlohmann::ordered_json plan_file_json(const ParallelPlan& plan, const std::string& model, int64_t devices,
                                      const nlohmann::ordered_json& predicted) {
  return {{"format", kPlanFileFormat},
          {"model", model},
          {"devices", devices},
          {"mesh", plan.mesh.str()},
          {"zero", plan.zero},
          {"microbatches", plan.micro_batches},
          {"schedule", pipeline_schedule_kind_name(plan.schedule)},
          {"virtual_stages", plan.virtual_stages},
          {"sequence_parallel", plan.tensor_parallel.sequence_parallel},
          {"predicted", predicted}};
}

Status write_plan_file(const std::string& path, const nlohmann::ordered_json& plan) {
  return rt::write_file_atomically(path, {plan.dump(1) + "\n"});
}

Expected<ParallelFlags> read_plan_file(const std::string& path, const std::string& model) {
  MLC_TRY(std::string text, rt::read_file(path));
  auto fail = [&](const std::string& what) { return make_error(path + ": error: " + what); };
  if (static_cast<int64_t>(text.size()) > kMaxPlanFileBytes)
    return fail("a plan file has at most " + std::to_string(kMaxPlanFileBytes) + " bytes, this one " +
                std::to_string(text.size()));
  json::Json j;
  if (auto failure = json::parse(text, kPlanJsonLimits, j))
    return fail("not a plan file (JSON): " + json::describe(*failure, kPlanJsonLimits).substr(0, 200));
  if (!j.is_object()) return fail("expected a JSON object, got " + shown(j));
  std::string fields;
  for (const char* f : kFields) fields += (fields.empty() ? "" : ", ") + std::string(f);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(std::begin(kFields), std::end(kFields), it.key()) == std::end(kFields))
      return fail("unknown field " + squote(it.key()) + "; a plan file has " + fields);
  auto field_error = [&](const char* field, const std::string& expected, const json::Json& got) {
    return fail(squote(field) + ": expected " + expected + ", got " + shown(got));
  };
  if (!j.contains("format") || j["format"] != kPlanFileFormat)
    return j.contains("format") ? field_error("format", std::string("\"") + kPlanFileFormat + "\"", j["format"])
                                : fail("no 'format' field: not a plan file of mlc plan --search -o");
  if (j.contains("model") && !j["model"].is_string()) return field_error("model", "a string", j["model"]);
  if (j.contains("model") && !model.empty() && j["model"] != model)
    return fail("the plan is for model " + squote(j["model"].get<std::string>()) + ", not " + squote(model));
  if (j.contains("devices") && !j["devices"].is_number_integer())
    return field_error("devices", "an integer", j["devices"]);
  if (j.contains("predicted") && !j["predicted"].is_object())
    return field_error("predicted", "an object", j["predicted"]);
  ParallelFlags flags;
  if (!j.contains("mesh")) return fail("no 'mesh' field (\"\" for one device)");
  if (!j["mesh"].is_string()) return field_error("mesh", "a string such as \"dp=2,tp=2\"", j["mesh"]);
  const std::string mesh_text = j["mesh"];
  if (!mesh_text.empty()) {
    auto mesh = Mesh::parse(mesh_text);
    if (!mesh) return fail("'mesh': " + mesh.error().message);
    if (Status axes = check_mesh_axes(*mesh); !axes) return fail("'mesh': " + axes.error().message);
    flags.mesh = *mesh;
  }
  auto integer = [&](const char* field, int64_t min, int64_t max, int64_t fallback) -> Expected<int> {
    if (!j.contains(field)) return static_cast<int>(fallback);
    const json::Json& v = j[field];
    if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > max)
      return field_error(field, "an integer from " + std::to_string(min) + " to " + std::to_string(max), v);
    return static_cast<int>(v.get<int64_t>());
  };
  MLC_TRY(int zero, integer("zero", 0, 3, 0));
  if (zero > 0 && !flags.mesh) return fail("'zero': ZeRO " + std::to_string(zero) + " needs a mesh with a data axis");
  flags.zero = zero;
  MLC_TRY(int micro, integer("microbatches", 0, 1 << 20, 0));
  if (micro > 0) flags.microbatches = micro;
  MLC_TRY(flags.virtual_stages, integer("virtual_stages", 1, 1 << 10, 1));
  if (j.contains("schedule")) {
    if (!j["schedule"].is_string()) return field_error("schedule", "gpipe, 1f1b, interleaved or zb1p", j["schedule"]);
    auto kind = parse_pipeline_schedule_kind(j["schedule"].get<std::string>());
    if (!kind) return field_error("schedule", "gpipe, 1f1b, interleaved or zb1p", j["schedule"]);
    flags.schedule = *kind;
  }
  flags.sequence_parallel = false;
  if (j.contains("sequence_parallel")) {
    if (!j["sequence_parallel"].is_boolean())
      return field_error("sequence_parallel", "true or false", j["sequence_parallel"]);
    flags.sequence_parallel = j["sequence_parallel"].get<bool>();
  }
  return flags;
}

}  // namespace mlc
