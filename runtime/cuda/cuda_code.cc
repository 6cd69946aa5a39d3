#include "runtime/cuda/cuda_code.h"

#include "runtime/cuda/cubin.h"
#include "support/quote.h"

namespace mlc::rt::cuda {

namespace {

std::string object_name(const CodeModule& code, size_t i) {
  return "kernel object " + std::to_string(i) + " (" + squote(code.objects[i].symbol) + ")";
}

}  // namespace

CudaCode::~CudaCode() {
  if (!device) return;
  // Unloading needs the context current on this thread; errors are moot here.
  (void)device->make_current();
  for (CUmodule m : modules)
    if (m) device->cu->cuModuleUnload(m);
}

Status check_cuda_module(const CodeModule& code) {
  if (code.target != kCudaTarget)
    return make_error("cuda: code for target " + squote(code.target) + ", not '" + std::string(kCudaTarget) + "'");
  if (!sm_version(code.arch))
    return make_error("cuda: the code's arch is " + squote(code.arch) + ", not a GPU architecture (sm_90, ...)");
  for (size_t i = 0; i < code.objects.size(); ++i)
    if (Status s = check_cubin(code.objects[i].bytes, code.objects[i].symbol, code.arch); !s.ok())
      return make_error("cuda: " + object_name(code, i) + ": " + s.error().message);
  return {};
}

Status check_device_arch(const CodeModule& code, const CudaDevice& device) {
  const std::optional<int> sm = sm_version(code.arch);
  if (sm && *sm == device.major * 10 + device.minor) return {};
  return make_error("cuda: the artifact's kernels are cubins for " + code.arch + "; this GPU (" + device.name +
                    ") is " + device.arch() + ": recompile with --target cuda:" + device.arch());
}

Expected<std::shared_ptr<const CudaCode>> load_cuda_code(const CodeModule& code, const CudaDevice& device) {
  MLC_CHECK_OK(check_cuda_module(code));
  MLC_CHECK_OK(check_device_arch(code, device));
  MLC_CHECK_OK(device.make_current());
  const CudaDriver& cu = *device.cu;
  auto out = std::make_shared<CudaCode>();
  out->device = &device;
  for (size_t i = 0; i < code.objects.size(); ++i) {
    const ObjectFile& o = code.objects[i];
    const std::string what = "cuda: " + object_name(code, i) + " on " + device.label() + ": ";
    CUmodule m = nullptr;
    if (const CUresult r = cu.cuModuleLoadData(&m, o.bytes.data()); r != kCudaSuccess)
      return make_error(cu.error_text(what + "cuModuleLoadData", r) + " (the driver supports CUDA " +
                        cuda_version_name(cu.version) + "; the cubins came from " +
                        (code.generator.empty() ? std::string("an unnamed generator") : squote(code.generator)) + ")");
    out->modules.push_back(m);
    CUfunction f = nullptr;
    MLC_CHECK_OK(cu.check(cu.cuModuleGetFunction(&f, m, o.symbol.c_str()), what + "cuModuleGetFunction"));
    out->functions.push_back(f);
  }
  return std::shared_ptr<const CudaCode>(std::move(out));
}

}  // namespace mlc::rt::cuda
