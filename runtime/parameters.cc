#include "runtime/parameters.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "runtime/init_fill.h"
#include "runtime/safetensors.h"

namespace mlc::rt {

namespace {
std::string list(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < 10; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > 10) s += ", ... (" + std::to_string(items.size()) + " in all)";
  return s;
}
}  // namespace

std::vector<NamedTensor> init_parameters(const std::vector<ParamInfo>& params, uint64_t seed) {
  TorchGenerator gen(seed);
  std::vector<NamedTensor> out;
  // Every default first (the model's constructor), then the explicit rules in
  // state_dict order (torch.nn.init calls after it).
  // An f64 model (model.double()) draws its f32 values and widens them.
  auto drawn_type = [](const TensorType& t) {
    return t.dtype == DType::f64 ? TensorType{DType::f32, t.shape} : t;
  };
  for (const ParamInfo& p : params) out.push_back({p.name, Tensor(drawn_type(p.type))});
  // The defaults in torch's draw order (ParamInfo::draw_index), then the
  // copies (ParamInit::same_as), then the explicit rules in state_dict order.
  std::vector<size_t> order(params.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto draw_index = [&](size_t i) { return params[i].draw_index >= 0 ? params[i].draw_index : static_cast<int64_t>(i); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return draw_index(a) < draw_index(b); });
  for (size_t i : order) {
    const ParamInfo& p = params[i];
    Tensor& t = out[i].tensor;
    if (t.dtype() != DType::f32 || !p.init.same_as.empty()) continue;
    fill_init(t.span<float>(), p.type.shape, p.init, gen);
    if (p.init.zero_after_draw) std::fill(t.span<float>().begin(), t.span<float>().end(), 0.0f);
  }
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < params.size(); ++i) index.emplace(params[i].name, i);
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].init.same_as.empty()) continue;
    const auto from = index.find(params[i].init.same_as);  // the frontend and the artifact reader checked it
    if (from != index.end() && out[from->second].tensor.type() == out[i].tensor.type())
      std::memcpy(out[i].tensor.bytes(), out[from->second].tensor.bytes(), static_cast<size_t>(out[i].tensor.num_bytes()));
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].explicit_init && out[i].tensor.dtype() == DType::f32)
      fill_init(out[i].tensor.span<float>(), params[i].type.shape, *params[i].explicit_init, gen);
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].type.dtype == DType::f64) {
      Tensor wide(params[i].type);
      const float* from = out[i].tensor.data<float>();
      double* to = wide.data<double>();
      for (int64_t k = 0; k < wide.num_elements(); ++k) to[k] = from[k];
      out[i].tensor = std::move(wide);
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
