#include "runtime/parameters.h"

#include <random>

#include "runtime/safetensors.h"

namespace mlc::rt {

namespace {
void fill(Tensor& t, const ParamInit& init, std::mt19937_64& rng) {
  std::span<float> out;
  if (t.dtype() != DType::f32) return;  // parameters are f32 (mixed precision arrives later)
  out = t.span<float>();
  switch (init.kind) {
    case ParamInit::Kind::uniform: {
      std::uniform_real_distribution<double> dist(-init.bound, init.bound);
      for (float& x : out) x = static_cast<float>(dist(rng));
      break;
    }
    case ParamInit::Kind::normal: {
      std::normal_distribution<double> dist(0.0, init.stddev);
      for (float& x : out) x = static_cast<float>(dist(rng));
      break;
    }
    case ParamInit::Kind::ones:
      for (float& x : out) x = 1.0f;
      break;
    case ParamInit::Kind::zeros:
      break;
  }
}

std::string list(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < 10; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > 10) s += ", ... (" + std::to_string(items.size()) + " in all)";
  return s;
}
}  // namespace

std::vector<NamedTensor> init_parameters(const std::vector<ParamInfo>& params, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<NamedTensor> out;
  for (const ParamInfo& p : params) {
    Tensor t(p.type);
    fill(t, p.init, rng);
    out.push_back({p.name, std::move(t)});
  }
  return out;
}

Expected<std::vector<NamedTensor>> load_parameters(const std::vector<ParamInfo>& params,
                                                   const std::string& path) {
  MLC_TRY(SafetensorsFile file, read_safetensors(path));
  std::vector<std::string> missing, extra, mismatched;
  std::vector<NamedTensor> out;
  for (const ParamInfo& p : params) {
    const SafetensorsEntry* e = file.find(p.name);
    if (!e) {
      missing.push_back(p.name + " " + p.type.str());
      continue;
    }
    if (!e->supported || e->tensor.type() != p.type) {
      mismatched.push_back(p.name + " (model " + p.type.str() + ", file " + e->file_dtype +
                           shape_to_string(e->shape) + ")");
      continue;
    }
    out.push_back({p.name, e->tensor});
  }
  for (const SafetensorsEntry& e : file.entries) {
    bool known = false;
    for (const ParamInfo& p : params) known |= p.name == e.name;
    if (!known) extra.push_back(e.name);
  }
  if (missing.empty() && extra.empty() && mismatched.empty()) return out;
  std::string msg = path + ": error: parameters do not match the model:";
  if (!missing.empty()) msg += "\n  missing: " + list(missing);
  if (!mismatched.empty()) msg += "\n  wrong type: " + list(mismatched);
  if (!extra.empty()) msg += "\n  not in the model: " + list(extra);
  return make_error(msg);
}

}  // namespace mlc::rt
