#include "compiler/gpu/gpu_compile.h"

#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "compiler/gpu/cuda_compile.h"
#include "compiler/gpu/kernel_source.h"
#include "compiler/gpu/nvrtc.h"
#include "compiler/gpu/resource_usage.h"
#include "compiler/kernel_ir_json.h"

namespace mlc::gpu {

std::string gpu_code_generator(const std::string& target) {
  return std::string(kSourceEmitterVersion) + (target == rt::kCudaTarget ? ", NVRTC" : ", OpenCL C");
}

std::string gpu_compiler_availability(const std::string& target) {
  return target == rt::kCudaTarget ? nvrtc_availability() : "";
}

Expected<GpuCompiled> compile_gpu_kernels(const std::vector<kir::Kernel>& kernels, const GpuCompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool cuda = options.target == rt::kCudaTarget;
  if (!cuda && options.target != rt::kHostGpuTarget)
    return make_error("internal error: " + options.target + " is not a GPU target");
  if (cuda && options.arch.empty())
    return make_error("cuda: no GPU architecture to compile for (--target cuda:sm_90)");
  GpuCompiled out;
  out.code.target = options.target;
  out.code.arch = cuda ? options.arch : "opencl-c";
  out.code.generator = gpu_code_generator(options.target);
  if (cuda) {
    MLC_TRY(std::string nvrtc, nvrtc_build());
    out.code.generator += " (" + nvrtc + ")";
  }
  std::vector<CudaSource> sources;
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
    std::string symbol = kir::kernel_symbol(k);
    while (!symbols.insert(symbol).second) symbol += "_";  // a 64-bit collision
    rt::ObjectFile obj;
    obj.symbol = symbol;
    obj.source = kir::kernel_to_json(k);
    if (cuda) sources.push_back({symbol, kernel_source(k, s, symbol, Dialect::cuda)});
    else obj.bytes = kernel_source(k, s, symbol, Dialect::opencl);
    const int index = static_cast<int>(out.code.objects.size());
    out.code.objects.push_back(std::move(obj));
    object_of_signature.emplace(std::move(sig), index);
    out.object_of.push_back(index);
    ++out.compiled;
  }
  if (cuda) {
    MLC_TRY(CudaCompiled cubins, compile_cuda_kernels(sources, options.arch, options.cache, options.threads));
    for (size_t i = 0; i < cubins.kernels.size(); ++i) {
      out.code.objects[i].bytes = std::move(cubins.kernels[i].cubin);
      out.usage.push_back(cubins.kernels[i].usage);
    }
    out.cache_hits = cubins.cache_hits;
    out.compiled = cubins.compiled;
  }
  out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace mlc::gpu
