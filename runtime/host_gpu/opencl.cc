#include "runtime/host_gpu/opencl.h"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace mlc::rt::ocl {

namespace {

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// Every device of every platform, in the platforms' order.
std::vector<cl_device_id> all_devices() {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return {};
  std::vector<cl_platform_id> ps(platforms);
  if (clGetPlatformIDs(platforms, ps.data(), nullptr) != CL_SUCCESS) return {};
  std::vector<cl_device_id> out;
  for (cl_platform_id p : ps) {
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> ds(n);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ds.data(), nullptr) != CL_SUCCESS) continue;
    out.insert(out.end(), ds.begin(), ds.end());
  }
  return out;
}

Expected<cl_device_id> choose_device() {
  const std::vector<cl_device_id> devices = all_devices();
  if (devices.empty()) return make_error("host-gpu: no OpenCL device found (install pocl-opencl-icd)");
  if (const char* want = std::getenv("MLC_OPENCL_DEVICE"); want && *want) {
    std::string names;
    for (cl_device_id d : devices) {
      const std::string name = device_string(d, CL_DEVICE_NAME);
      if (name.find(want) != std::string::npos) return d;
      names += (names.empty() ? "'" : ", '") + name + "'";
    }
    return make_error(std::string("host-gpu: no OpenCL device's name contains '") + want +
                      "' (MLC_OPENCL_DEVICE); the devices are " + names);
  }
  for (cl_device_id d : devices) {
    cl_device_type type = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr) == CL_SUCCESS && (type & CL_DEVICE_TYPE_CPU))
      return d;
  }
  return devices.front();
}

}  // namespace

std::string error_name(cl_int code) {
  const char* name = nullptr;
  switch (code) {
#define MLC_CL_ERROR(e) \
  case e:               \
    name = #e;          \
    break;
    MLC_CL_ERROR(CL_DEVICE_NOT_FOUND)
    MLC_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    MLC_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    MLC_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    MLC_CL_ERROR(CL_OUT_OF_RESOURCES)
    MLC_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    MLC_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    MLC_CL_ERROR(CL_MAP_FAILURE)
    MLC_CL_ERROR(CL_INVALID_VALUE)
    MLC_CL_ERROR(CL_INVALID_DEVICE)
    MLC_CL_ERROR(CL_INVALID_CONTEXT)
    MLC_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    MLC_CL_ERROR(CL_INVALID_HOST_PTR)
    MLC_CL_ERROR(CL_INVALID_MEM_OBJECT)
    MLC_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    MLC_CL_ERROR(CL_INVALID_PROGRAM)
    MLC_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    MLC_CL_ERROR(CL_INVALID_KERNEL_NAME)
    MLC_CL_ERROR(CL_INVALID_KERNEL)
    MLC_CL_ERROR(CL_INVALID_ARG_INDEX)
    MLC_CL_ERROR(CL_INVALID_ARG_VALUE)
    MLC_CL_ERROR(CL_INVALID_ARG_SIZE)
    MLC_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    MLC_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    MLC_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    MLC_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    MLC_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    MLC_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    MLC_CL_ERROR(CL_INVALID_OPERATION)
#undef MLC_CL_ERROR
    default:
      break;
  }
  return std::string(name ? name : "OpenCL error") + " (" + std::to_string(code) + ")";
}

Error call_error(std::string_view what, cl_int code) {
  return make_error("host-gpu: " + std::string(what) + " failed: " + error_name(code));
}

Expected<std::shared_ptr<const Device>> opencl_device() {
  static std::mutex mutex;
  static std::weak_ptr<const Device> held;
  std::lock_guard<std::mutex> lock(mutex);
  if (std::shared_ptr<const Device> d = held.lock()) return d;
  MLC_TRY(cl_device_id id, choose_device());
  std::shared_ptr<Device> d(new Device);
  d->id_ = id;
  d->name_ = device_string(id, CL_DEVICE_NAME);
  if (device_string(id, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") == std::string::npos)
    return make_error("host-gpu: OpenCL device '" + d->name_ +
                      "' has no double precision (cl_khr_fp64), which mlc's kernels use");
  if (cl_int e = clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_work_group_size_,
                                 &d->max_work_group_size_, nullptr);
      e != CL_SUCCESS)
    return call_error("clGetDeviceInfo", e);
  cl_int e = CL_SUCCESS;
  d->context_.reset(clCreateContext(nullptr, 1, &id, nullptr, nullptr, &e));
  if (e != CL_SUCCESS) return call_error("clCreateContext on '" + d->name_ + "'", e);
  std::shared_ptr<const Device> out = std::move(d);
  held = out;
  return out;
}

Expected<Queue> Device::make_queue() const {
  cl_int e = CL_SUCCESS;
  Queue q(clCreateCommandQueue(context(), id_, 0, &e));
  if (e != CL_SUCCESS) return call_error("clCreateCommandQueue", e);
  return q;
}

Expected<Program> Device::build(const std::string& source, const std::string& symbol) const {
  const char* text = source.data();
  const size_t length = source.size();
  cl_int e = CL_SUCCESS;
  Program p(clCreateProgramWithSource(context(), 1, &text, &length, &e));
  if (e != CL_SUCCESS) return call_error("kernel " + symbol + ": clCreateProgramWithSource", e);
  e = clBuildProgram(p.get(), 1, &id_, kBuildOptions, nullptr, nullptr);
  if (e == CL_BUILD_PROGRAM_FAILURE) {
    size_t n = 0;
    std::string log;
    if (clGetProgramBuildInfo(p.get(), id_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS && n > 0) {
      log.resize(n);
      if (clGetProgramBuildInfo(p.get(), id_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr) != CL_SUCCESS) log.clear();
    }
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return make_error("host-gpu: kernel " + symbol + ": OpenCL build failed: " + (log.empty() ? "(no log)" : log));
  }
  if (e != CL_SUCCESS) return call_error("kernel " + symbol + ": clBuildProgram", e);
  return p;
}

Expected<Kernel> Device::make_kernel(cl_program program, const std::string& symbol) const {
  cl_int e = CL_SUCCESS;
  Kernel k(clCreateKernel(program, symbol.c_str(), &e));
  if (e == CL_INVALID_KERNEL_NAME) return make_error("host-gpu: kernel " + symbol + ": its text defines no kernel of that name");
  if (e != CL_SUCCESS) return call_error("kernel " + symbol + ": clCreateKernel", e);
  return k;
}

Expected<Mem> Device::wrap_host(std::byte* data, size_t bytes, cl_command_queue queue) const {
  cl_int e = CL_SUCCESS;
  Mem m(clCreateBuffer(context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, data, &e));
  if (e != CL_SUCCESS) return call_error("clCreateBuffer over " + std::to_string(bytes) + " bytes of host memory", e);
  void* mapped = clEnqueueMapBuffer(queue, m.get(), CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr, nullptr, &e);
  if (e != CL_SUCCESS) return call_error("clEnqueueMapBuffer", e);
  e = clEnqueueUnmapMemObject(queue, m.get(), mapped, 0, nullptr, nullptr);
  if (e == CL_SUCCESS) e = clFinish(queue);
  if (e != CL_SUCCESS) return call_error("clEnqueueUnmapMemObject", e);
  if (mapped != data)
    return make_error("host-gpu: OpenCL device '" + name_ +
                      "' copies host memory instead of using it in place (CL_MEM_USE_HOST_PTR); the host-gpu target "
                      "needs a CPU device such as PoCL's");
  return m;
}

}  // namespace mlc::rt::ocl
