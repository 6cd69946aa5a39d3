#include "runtime/checkpoint.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string_view>
#include <type_traits>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "runtime/file_io.h"
#include "runtime/safetensors.h"
#include "runtime/sharded_checkpoint.h"
#include "support/json_parse.h"

namespace mlc::rt {

namespace fs = std::filesystem;

namespace {
constexpr const char* kFormat = "mlc-checkpoint/1";

Expected<std::string> meta(const SafetensorsFile& f, const std::string& key) {
  for (const auto& [k, v] : f.metadata)
    if (k == key) return v;
  return make_error(f.path + ": error: not an mlc checkpoint (no '" + key + "' in its metadata)");
}

// A metadata value written by std::to_string of T: decimal digits (a leading
// '-' only for signed T) that fit T exactly.
template <class T>
Expected<T> meta_number(const SafetensorsFile& f, const std::string& key) {
  MLC_TRY(std::string v, meta(f, key));
  T x{};
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc() && end == v.data() + v.size() && !v.empty() && v[0] != '+') return x;
  return make_error(f.path + ": error: checkpoint metadata '" + key + "' is not " +
                    (std::is_signed_v<T> ? "an integer" : "a non-negative integer") + ": '" +
                    v.substr(0, 60) + "'");
}

// Copies the tensors named like `expected` out of the file, checking types.
Expected<std::vector<NamedTensor>> take(const SafetensorsFile& f, const std::vector<NamedTensor>& expected,
                                        const std::unordered_map<std::string, std::string>& sums) {
  std::vector<NamedTensor> out;
  for (const NamedTensor& e : expected) {
    auto t = f.get(e.name);
    if (!t) return make_error(t.error().message + " (the checkpoint does not match the model)");
    if ((*t)->type() != e.tensor.type())
      return make_error(f.path + ": error: checkpoint tensor '" + e.name + "' is " + (*t)->type().str() +
                        " but the model needs " + e.tensor.type().str());
    auto sum = sums.find(e.name);
    if (sum == sums.end() || sum->second != hex64(fnv1a64((*t)->bytes(), (*t)->num_bytes())))
      return make_error(f.path + ": error: checkpoint is corrupt: tensor '" + e.name +
                        "' does not match its checksum");
    out.push_back({e.name, **t});
  }
  return out;
}
}  // namespace

Status write_checkpoint(const std::string& path, const std::string& model_name, const TrainState& s) {
  std::vector<std::pair<std::string, const Tensor*>> tensors;
  nlohmann::ordered_json sums = nlohmann::ordered_json::object();
  for (const auto* list : {&s.params, &s.state})
    for (const NamedTensor& t : *list) {
      tensors.emplace_back(t.name, &t.tensor);
      sums[t.name] = hex64(fnv1a64(t.tensor.bytes(), t.tensor.num_bytes()));
    }
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"format", kFormat},
      {"model", model_name},
      {"step", std::to_string(s.step)},
      {"seed", std::to_string(s.seed)},
      {"batch_size", std::to_string(s.batch_size)},
      {"steps_per_epoch", std::to_string(s.steps_per_epoch)},
      {"shuffle", s.shuffle ? "true" : "false"},
      {"checksums", sums.dump()},
  };
  return write_safetensors(path, tensors, metadata);
}

namespace {

// A whole checkpoint's tensors and position; with `optional_state`, the state
// is read only where the file holds exactly `state`'s tensors besides the
// parameters (else left out, `state_left_out` set when it holds any).
Expected<TrainState> read_whole(const SafetensorsFile& f, const std::string& model_name,
                                const std::vector<NamedTensor>& params, const std::vector<NamedTensor>& state,
                                bool optional_state, bool& state_left_out) {
  const std::string& path = f.path;
  MLC_TRY(std::string format, meta(f, "format"));
  if (format != kFormat)
    return make_error(path + ": error: checkpoint format '" + format + "', expected '" + kFormat + "'");
  MLC_TRY(std::string model, meta(f, "model"));
  if (model != model_name)
    return make_error(path + ": error: checkpoint of model '" + model + "', not '" + model_name + "'");
  MLC_TRY(std::string sums_text, meta(f, "checksums"));
  // An object of one hex string per tensor.
  const json::Limits sums_limits{2, 2 * static_cast<int64_t>(f.entries.size()) + 1, true};
  json::Json sums;
  if (auto failure = json::parse(sums_text, sums_limits, sums))
    return make_error(path + ": error: checkpoint metadata 'checksums' is not valid: " +
                      json::describe(*failure, sums_limits));
  if (!sums.is_object()) return make_error(path + ": error: checkpoint checksums are not a JSON object");
  std::unordered_map<std::string, std::string> sum_of;
  for (auto it = sums.begin(); it != sums.end(); ++it)
    if (it.value().is_string()) sum_of.emplace(it.key(), it.value().get<std::string>());
  TrainState s;
  MLC_TRY(s.step, meta_number<int64_t>(f, "step"));
  MLC_TRY(s.seed, meta_number<uint64_t>(f, "seed"));
  MLC_TRY(s.batch_size, meta_number<int64_t>(f, "batch_size"));
  MLC_TRY(s.steps_per_epoch, meta_number<int64_t>(f, "steps_per_epoch"));
  MLC_TRY(std::string shuffle, meta(f, "shuffle"));
  s.shuffle = shuffle == "true";
  MLC_TRY(s.params, take(f, params, sum_of));
  bool with_state = f.entries.size() == params.size() + state.size();
  if (optional_state)
    for (const NamedTensor& e : state) {
      const SafetensorsEntry* in_file = f.find(e.name);
      if (!in_file || !in_file->supported || in_file->tensor.type() != e.tensor.type()) with_state = false;
    }
  state_left_out = optional_state && !with_state && f.entries.size() > params.size();
  if (optional_state && !with_state) return s;
  MLC_TRY(s.state, take(f, state, sum_of));
  if (!with_state)
    return make_error(path + ": error: checkpoint holds " + std::to_string(f.entries.size()) +
                      " tensors, the model and optimizer need " + std::to_string(params.size() + state.size()));
  return s;
}

}  // namespace

Expected<TrainState> read_checkpoint(const std::string& path, const std::string& model_name,
                                     const std::vector<NamedTensor>& params,
                                     const std::vector<NamedTensor>& state) {
  if (path.ends_with(kCheckpointIndexSuffix)) return read_sharded_checkpoint(path, model_name, params, state);
  MLC_TRY(SafetensorsFile f, read_safetensors(path));
  bool left_out = false;
  return read_whole(f, model_name, params, state, false, left_out);
}

Expected<InitParameters> read_init_parameters(const std::vector<ParamInfo>& params, const std::string& path,
                                              const std::string& model_name, std::vector<NamedTensor>* state) {
  std::vector<NamedTensor> types, no_state;
  for (const ParamInfo& p : params) types.push_back({p.name, Tensor(p.type)});
  const std::vector<NamedTensor>& wanted = state ? *state : no_state;
  InitParameters out;
  Expected<TrainState> checkpoint = make_error("");
  if (path.ends_with(kCheckpointIndexSuffix)) {
    checkpoint = read_sharded_checkpoint_parameters(path, model_name, types, wanted, out.state_left_out);
  } else {
    MLC_TRY(SafetensorsFile f, read_safetensors(path));
    const bool whole = std::any_of(f.metadata.begin(), f.metadata.end(),
                                   [](const auto& m) { return m.first == "format" && m.second == kFormat; });
    if (!whole) {
      MLC_TRY(out.params, load_parameters(params, path, state));
      return out;
    }
    checkpoint = read_whole(f, model_name, types, wanted, true, out.state_left_out);
  }
  if (!checkpoint) return checkpoint.take_error();
  out.params = std::move(checkpoint->params);
  if (state && checkpoint->state.size() == state->size()) *state = std::move(checkpoint->state);
  return out;
}

std::string checkpoint_path(const std::string& dir, int64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "step_%08lld.safetensors", static_cast<long long>(step));
  return (fs::path(dir) / name).string();
}

std::string checkpoint_index_path(const std::string& dir, int64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "step_%08lld.index.json", static_cast<long long>(step));
  return (fs::path(dir) / name).string();
}

std::string checkpoint_shard_path(const std::string& dir, int64_t step, int rank) {
  char name[64];
  std::snprintf(name, sizeof name, "step_%08lld.rank%05d.safetensors", static_cast<long long>(step), rank);
  return (fs::path(dir) / name).string();
}

namespace {

// The files of one step of a checkpoint directory.
struct StepFiles {
  std::vector<std::string> checkpoints;  // whole files and indices
  std::vector<std::string> shards;
};

// Reads "<digits><suffix>" (at least one digit); false if `text` is not that.
bool digits_then(std::string_view text, std::string_view suffix, int64_t& value) {
  if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix) return false;
  const std::string_view digits = text.substr(0, text.size() - suffix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && end == digits.data() + digits.size();
}

// "step_N.safetensors", "step_N.index.json" or "step_N.rankR.safetensors"
// (N and R decimal): the step, or -1.
int64_t checkpoint_file_step(std::string_view name) {
  if (name.rfind("step_", 0) != 0) return -1;
  const std::string_view rest = name.substr(5);
  const size_t dot = rest.find('.');
  int64_t step = 0, rank = 0;
  if (dot == std::string_view::npos || !digits_then(rest.substr(0, dot), "", step)) return -1;
  const std::string_view kind = rest.substr(dot);
  if (kind == ".safetensors" || kind == kCheckpointIndexSuffix) return step;
  if (kind.rfind(".rank", 0) == 0 && digits_then(kind.substr(5), ".safetensors", rank)) return step;
  return -1;
}

// The checkpoint files of `dir` by step, newest first: "step_N.safetensors",
// "step_N.index.json" and "step_N.rankR.safetensors" (N and R decimal).
std::map<int64_t, StepFiles, std::greater<>> scan(const std::string& dir) {
  std::map<int64_t, StepFiles, std::greater<>> steps;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const int64_t step = checkpoint_file_step(name);
    if (step < 0) continue;
    if (name.find(".rank") == std::string::npos) steps[step].checkpoints.push_back(entry.path().string());
    else steps[step].shards.push_back(entry.path().string());
  }
  for (auto& [step, files] : steps) {
    std::sort(files.checkpoints.begin(), files.checkpoints.end());
    std::sort(files.shards.begin(), files.shards.end());
  }
  return steps;
}

}  // namespace

std::vector<std::string> remove_stale_temp_files(const std::string& dir) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::optional<TempFileName> tmp = temp_file_target(name);
    if (!tmp || checkpoint_file_step(tmp->target) < 0) continue;
    if (::kill(tmp->pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to signal: alive)
    if (::unlink(entry.path().c_str()) == 0) removed.push_back(entry.path().string());
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& [step, step_files] : scan(dir))
    files.insert(files.end(), step_files.checkpoints.begin(), step_files.checkpoints.end());
  return files;
}

std::vector<int64_t> interrupted_checkpoints(const std::string& dir) {
  std::vector<int64_t> steps;
  for (const auto& [step, files] : scan(dir))
    if (files.checkpoints.empty()) steps.push_back(step);
  return steps;
}

void prune_checkpoints(const std::string& dir, int keep) {
  int kept = 0;
  for (const auto& [step, files] : scan(dir)) {
    if (kept < std::max(keep, 1)) {
      kept += !files.checkpoints.empty();
      continue;
    }
    // The index first: a checkpoint without it is no longer one.
    std::error_code ec;
    for (const std::string& f : files.checkpoints) fs::remove(f, ec);
    for (const std::string& f : files.shards) fs::remove(f, ec);
  }
}

}  // namespace mlc::rt
