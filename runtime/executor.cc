#include "runtime/executor.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <limits>

#include "runtime/target.h"
#include "runtime/verify_executable.h"

namespace mlc::rt {

namespace {

// The memory a new allocation can get without swapping: /proc/meminfo's
// MemAvailable (free memory and what the kernel can reclaim), else the free
// pages sysconf counts, else no limit (unknown).
int64_t available_memory_bytes() {
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    long long kib = -1;
    while (kib < 0 && std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %lld kB", &kib) != 1) kib = -1;
    std::fclose(f);
    if (kib >= 0 && kib < std::numeric_limits<int64_t>::max() / 1024) return static_cast<int64_t>(kib) * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && pages < std::numeric_limits<int64_t>::max() / page) return int64_t{pages} * page;
  return std::numeric_limits<int64_t>::max();
}

}  // namespace

Expected<Executor> Executor::create(std::shared_ptr<const Executable> exe, const ExecutorOptions& options) {
  MLC_CHECK_OK(verify_executable(*exe));
  const Executable& e = *exe;
  // Refused before it is allocated (and zeroed, which touches every page).
  if (const int64_t available = available_memory_bytes(); e.arena_bytes > available)
    return make_error("function '" + e.function + "' needs an arena of " + std::to_string(e.arena_bytes) +
                      " bytes, more than the " + std::to_string(available) + " bytes of memory available");
  // verify_executable checked that the target exists.
  const Target& target = *find_target(e.target);
  MLC_TRY(std::shared_ptr<const LoadedCode> code, load_code(e.code));
  Executor x;
  x.exe_ = std::move(exe);
  MLC_TRY(x.impl_, target.create_executor(x.exe_, std::move(code), options));
  x.updated_args_ = updated_arguments(e);
  return x;
}

Status Executor::set_device_tensors(DeviceTensors* tensors) {
  const bool native = tensors && impl_->run_on_device_tensors(tensors);
  if (tensors && !native && !tensors->target().empty())
    return make_error("function '" + exe_->function + "': tensors kept on a " + tensors->target() +
                      " device cannot be arguments of code for " + exe_->target);
  tensors_ = tensors;
  tensors_native_ = native;
  if (tensors && !tensors_native_ && copy_views_.empty()) {
    for (const ArgSpec& a : exe_->args) copy_views_.push_back(Tensor::view(exe_->slots[a.slot].type, nullptr));
    run_args_.resize(exe_->args.size());
  }
  return {};
}

Status Executor::run_on_host_copies(std::span<Tensor* const> args) {
  for (size_t a = 0; a < args.size(); ++a) {
    DeviceTensors::Copy* c = tensors_->find(args[a]);
    if (!c) {
      run_args_[a] = args[a];
      continue;
    }
    auto* copy = reinterpret_cast<std::byte*>(c->address);
    if (c->host_newer && c->bytes) std::memcpy(copy, args[a]->bytes(), static_cast<size_t>(c->bytes));
    c->host_newer = false;
    copy_views_[a].rebind(copy);
    run_args_[a] = &copy_views_[a];
  }
  Status s = impl_->run(run_args_);
  // Updated even by a failing run (its updated arguments may hold partial values).
  for (int a : updated_args_)
    if (DeviceTensors::Copy* c = tensors_->find(args[static_cast<size_t>(a)])) c->device_newer = true;
  return s;
}

Status Executor::run(std::span<Tensor* const> args) {
  MLC_CHECK_OK(start(args));
  return finish();
}

Status Executor::finish() {
  if (tensors_ && !tensors_native_) return {};  // start ran it
  return impl_->finish();
}

Status Executor::start(std::span<Tensor* const> args) {
  const Executable& e = *exe_;
  if (args.size() != e.args.size())
    return make_error("function '" + e.function + "' expects " + std::to_string(e.args.size()) +
                      " argument" + (e.args.size() == 1 ? "" : "s") + ", got " +
                      std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& spec = e.args[i];
    auto what = [&] { return "argument " + std::to_string(i) + (spec.name.empty() ? "" : " '" + spec.name + "'"); };
    if (!args[i]) return make_error(what() + ": no tensor given");
    const TensorType& want = e.slots[spec.slot].type;
    if (args[i]->type() != want)
      return make_error(what() + ": expected " + want.str() + ", got " + args[i]->type().str());
  }
  if (tensors_ && !tensors_native_) return run_on_host_copies(args);
  return impl_->start(args);
}

}  // namespace mlc::rt
