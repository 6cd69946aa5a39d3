#include "compiler/gpu/gpu_compile.h"

#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "compiler/gpu/kernel_source.h"
#include "compiler/kernel_ir_json.h"
#include "compiler/llvm_jit.h"

namespace mlc::gpu {

std::string gpu_code_generator(const std::string& target) {
  return std::string(kSourceEmitterVersion) + (target == rt::kCudaTarget ? ", NVRTC" : ", OpenCL C");
}

Expected<GpuCompiled> compile_gpu_kernels(const std::vector<kir::Kernel>& kernels, const GpuCompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.target != rt::kHostGpuTarget)
    return make_error("the " + options.target + " target's kernel compiler is not in this build");
  GpuCompiled out;
  out.code.target = options.target;
  out.code.arch = "opencl-c";
  out.code.generator = gpu_code_generator(options.target);
  std::unordered_map<std::string, int> object_of_signature;
  std::unordered_set<std::string> symbols;
  for (const kir::Kernel& k : kernels) {
    const Schedule s = schedule_kernel(k);
    out.launch.push_back(s.launch);
    std::string sig = kir::signature(k);
    auto it = object_of_signature.find(sig);
    if (it != object_of_signature.end()) {
      out.object_of.push_back(it->second);
      continue;
    }
    std::string symbol = kernel_symbol(k);
    while (!symbols.insert(symbol).second) symbol += "_";  // a 64-bit collision
    rt::ObjectFile obj;
    obj.symbol = symbol;
    obj.bytes = kernel_source(k, s, symbol, Dialect::opencl);
    obj.source = kir::kernel_to_json(k);
    const int index = static_cast<int>(out.code.objects.size());
    out.code.objects.push_back(std::move(obj));
    object_of_signature.emplace(std::move(sig), index);
    out.object_of.push_back(index);
    ++out.compiled;
  }
  out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace mlc::gpu
