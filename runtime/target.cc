#include "runtime/target.h"

#include <map>
#include <mutex>

#include "runtime/cpu/cpu_target.h"
#include "runtime/cuda/cuda_target.h"
#ifdef MLC_HAVE_OPENCL
#include "runtime/host_gpu/host_gpu_target.h"
#endif

namespace mlc::rt {

namespace {

// "cuda" in every build (it opens the NVIDIA driver when it loads code);
// host-gpu only where the build found OpenCL (CMakeLists.txt).
const Target* const kTargets[] = {
    &cpu_target(),
#ifdef MLC_HAVE_OPENCL
    &host_gpu_target(),
#endif
    &cuda_target(),
};

// The loaded module with its module: while anyone holds the loaded code, the
// module (and so its address, the cache's key) stays alive.
struct Held {
  std::shared_ptr<const CodeModule> module;
  std::shared_ptr<const LoadedCode> loaded;
};

}  // namespace

const Target* find_target(std::string_view name) {
  for (const Target* t : kTargets)
    if (t->name() == name) return t;
  return nullptr;
}

std::string target_names() {
  std::string s;
  for (const Target* t : kTargets) s += (s.empty() ? "" : ", ") + std::string(t->name());
  return s;
}

std::span<const std::string_view> known_target_names() {
  static constexpr std::string_view kNames[] = {kCpuTarget, kHostGpuTarget, kCudaTarget};
  return kNames;
}

std::string target_availability(std::string_view name) {
  const Target* t = find_target(name);
  return t ? t->availability() : "not in this build";
}

Expected<std::shared_ptr<const LoadedCode>> load_code(const std::shared_ptr<const CodeModule>& code) {
  if (!code) return std::shared_ptr<const LoadedCode>();
  static std::mutex mutex;
  static std::map<const CodeModule*, std::weak_ptr<const LoadedCode>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  for (auto it = loaded.begin(); it != loaded.end();) it = it->second.expired() ? loaded.erase(it) : std::next(it);
  if (auto it = loaded.find(code.get()); it != loaded.end())
    if (std::shared_ptr<const LoadedCode> held = it->second.lock()) return held;
  const Target* target = find_target(code->target);
  if (!target) return make_error("code for target '" + code->target + "', which this runtime lacks (it has " + target_names() + ")");
  MLC_TRY(std::shared_ptr<const LoadedCode> l, target->load(*code));
  auto held = std::make_shared<Held>(Held{code, std::move(l)});
  std::shared_ptr<const LoadedCode> out(held, held->loaded.get());
  loaded[code.get()] = out;
  return out;
}

}  // namespace mlc::rt
