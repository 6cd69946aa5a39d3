#include "runtime/cpu/cpu_target.h"

#include "runtime/cpu/cpu_executor.h"
#include "runtime/cpu/native_code.h"
#include "runtime/cpu/native_launcher.h"

namespace mlc::rt {

namespace {

class CpuTarget final : public Target {
 public:
  std::string_view name() const override { return kCpuTarget; }
  int64_t arena_alignment() const override { return kCpuArenaAlignment; }
  Expected<std::shared_ptr<const LoadedCode>> load(const CodeModule& code) const override {
    MLC_TRY(LinkedCode linked, link_native_code(code));
    auto out = std::make_shared<CpuCode>();
    out->fns = std::move(linked.fns);
    out->owner = std::move(linked.owner);
    return std::shared_ptr<const LoadedCode>(std::move(out));
  }
  Expected<std::unique_ptr<DeviceExecutor>> create_executor(std::shared_ptr<const Executable> exe,
                                                            std::shared_ptr<const LoadedCode> code,
                                                            const ExecutorOptions&) const override {
    MLC_TRY(std::unique_ptr<NativeLauncher> launcher,
            NativeLauncher::create(*exe, std::static_pointer_cast<const CpuCode>(std::move(code))));
    MLC_TRY(std::unique_ptr<CpuExecutor> x, CpuExecutor::create(std::move(exe), std::move(launcher), kCpuArenaAlignment));
    return std::unique_ptr<DeviceExecutor>(std::move(x));
  }
  // The process runs on this CPU: nothing to probe.
  std::string availability() const override { return ""; }
};

}  // namespace

const Target& cpu_target() {
  static const CpuTarget target;
  return target;
}

}  // namespace mlc::rt
