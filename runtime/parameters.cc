#include "runtime/parameters.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "runtime/safetensors.h"

namespace mlc::rt {

namespace {
// torch's CPU uniform_ for float: 24 random bits of a 32-bit mt19937 draw as a
// fraction in [0, 1), scaled in double from float bounds, rounded to float.
float torch_uniform(std::mt19937& gen, float from, float to) {
  double x = static_cast<double>(gen() & ((1u << 24) - 1)) * 0x1p-24;
  return static_cast<float>(x * (static_cast<double>(to) - static_cast<double>(from)) +
                            static_cast<double>(from));
}

void fill_uniform(std::span<float> out, double bound, std::mt19937& gen) {
  float from = static_cast<float>(-bound), to = static_cast<float>(bound);
  for (float& x : out) x = torch_uniform(gen, from, to);
}

void fill(Tensor& t, const ParamInit& init, std::mt19937& gen) {
  if (t.dtype() != DType::f32) return;  // parameters are f32 (mixed precision arrives later)
  std::span<float> out = t.span<float>();
  switch (init.kind) {
    case ParamInit::Kind::kaiming_uniform: {
      // torch.nn.init.kaiming_uniform_(a=sqrt(5)), computed as torch does.
      double gain = std::sqrt(2.0 / (1 + 5.0));
      fill_uniform(out, std::sqrt(3.0) * (gain / std::sqrt(init.fan_in)), gen);
      break;
    }
    case ParamInit::Kind::uniform:
      fill_uniform(out, init.bound, gen);
      break;
    case ParamInit::Kind::normal: {
      // Box-Muller on torch-style uniforms.
      for (float& x : out) {
        double u1 = 1.0 - torch_uniform(gen, 0.0f, 1.0f), u2 = torch_uniform(gen, 0.0f, 1.0f);
        x = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2) * init.stddev);
      }
      break;
    }
    case ParamInit::Kind::ones:
      for (float& x : out) x = 1.0f;
      break;
    case ParamInit::Kind::zeros:
      break;
    case ParamInit::Kind::constant:
      for (float& x : out) x = static_cast<float>(init.value);
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
  std::mt19937 gen(static_cast<std::mt19937::result_type>(seed));
  std::vector<NamedTensor> out;
  for (const ParamInfo& p : params) {
    Tensor t(p.type);
    fill(t, p.init, gen);
    out.push_back({p.name, std::move(t)});
  }
  return out;
}

Expected<std::vector<NamedTensor>> load_parameters(const std::vector<ParamInfo>& params,
                                                   const std::string& path,
                                                   std::vector<NamedTensor>* state) {
  MLC_TRY(SafetensorsFile file, read_safetensors(path));
  std::vector<std::string> missing, extra, mismatched, missing_state, untied;
  std::vector<NamedTensor> out;
  auto check = [&](const std::string& name, const TensorType& type, std::vector<std::string>& absent) {
    const SafetensorsEntry* e = file.find(name);
    if (!e) {
      absent.push_back(name + " " + type.str());
      return false;
    }
    if (!e->supported || e->tensor.type() != type) {
      mismatched.push_back(name + " (model " + type.str() + ", file " + e->file_dtype +
                           shape_to_string(e->shape) + ")");
      return false;
    }
    return true;
  };
  for (const ParamInfo& p : params)
    if (check(p.name, p.type, missing)) out.push_back({p.name, file.find(p.name)->tensor});
  size_t state_found = 0;
  if (state)
    for (const NamedTensor& s : *state) state_found += file.find(s.name) != nullptr;
  if (state && state_found > 0)
    for (NamedTensor& s : *state)
      if (check(s.name, s.tensor.type(), missing_state)) s.tensor = file.find(s.name)->tensor;
  for (const SafetensorsEntry& e : file.entries) {
    bool known = false;
    for (const ParamInfo& p : params) {
      known |= p.name == e.name;
      // A tied use's name (PyTorch's state_dict lists it too): the same values.
      const SafetensorsEntry* owner = file.find(p.name);
      if (std::find(p.aliases.begin(), p.aliases.end(), e.name) != p.aliases.end() && owner) {
        known = true;
        bool same = e.supported && owner->supported && e.tensor.type() == owner->tensor.type() &&
                    std::memcmp(e.tensor.bytes(), owner->tensor.bytes(), e.tensor.num_bytes()) == 0;
        if (!same) untied.push_back(e.name + " (tied to " + p.name + ")");
      }
    }
    if (state)
      for (const NamedTensor& s : *state) known |= s.name == e.name;
    if (!known) extra.push_back(e.name);
  }
  if (missing.empty() && extra.empty() && mismatched.empty() && missing_state.empty() && untied.empty())
    return out;
  std::string msg = path + ": error: parameters do not match the model:";
  if (!missing.empty()) msg += "\n  missing: " + list(missing);
  if (!missing_state.empty()) msg += "\n  missing optimizer state: " + list(missing_state);
  if (!mismatched.empty()) msg += "\n  wrong type: " + list(mismatched);
  if (!extra.empty()) msg += "\n  not in the model: " + list(extra);
  if (!untied.empty()) msg += "\n  not equal to the tensor they are tied to: " + list(untied);
  return make_error(msg);
}

}  // namespace mlc::rt
