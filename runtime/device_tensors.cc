#include "runtime/device_tensors.h"

#include <cstdlib>
#include <cstring>

namespace mlc::rt {

Status DeviceTensors::keep(Tensor& t) {
  if (copies_.count(&t)) return {};
  MLC_TRY(uint64_t address, allocate(t));
  copies_.emplace(&t, Copy{&t, address, t.num_bytes(), true, false});
  order_.push_back(&t);
  return {};
}

DeviceTensors::Copy* DeviceTensors::find(const Tensor* t) {
  auto it = copies_.find(t);
  return it == copies_.end() ? nullptr : &it->second;
}

Status DeviceTensors::to_host(const Tensor& t) {
  Copy* c = find(&t);
  if (!c || !c->device_newer) return {};
  MLC_CHECK_OK(download(*c));
  c->device_newer = false;
  return {};
}

Status DeviceTensors::to_host_all() {
  for (const Tensor* t : order_) MLC_CHECK_OK(to_host(*t));
  return {};
}

void DeviceTensors::host_wrote(const Tensor& t) {
  if (Copy* c = find(&t)) {
    c->host_newer = true;
    c->device_newer = false;
  }
}

int64_t DeviceTensors::bytes() const {
  int64_t n = 0;
  for (const auto& [t, c] : copies_) n += c.bytes;
  return n;
}

void DeviceTensors::release_all() {
  for (auto& [t, c] : copies_) release(c.address);
  copies_.clear();
  order_.clear();
}

namespace {

class HostShadowTensors final : public DeviceTensors {
 public:
  HostShadowTensors() : DeviceTensors("") {}
  ~HostShadowTensors() override { release_all(); }

 protected:
  Expected<uint64_t> allocate(const Tensor& t) override {
    const auto bytes = static_cast<size_t>((t.num_bytes() + 63) / 64 * 64);
    void* p = std::aligned_alloc(64, bytes ? bytes : 64);
    if (!p) return make_error("out of memory: a device copy of " + std::to_string(t.num_bytes()) + " bytes");
    // Garbage until the first upload, as device memory is: a missing upload
    // shows as wrong numbers rather than as the host's values.
    std::memset(p, 0xA5, bytes ? bytes : 64);
    return reinterpret_cast<uint64_t>(p);
  }
  void release(uint64_t address) override { std::free(reinterpret_cast<void*>(address)); }
  Status download(const Copy& c) override {
    if (c.bytes) std::memcpy(c.host->bytes(), reinterpret_cast<const void*>(c.address), static_cast<size_t>(c.bytes));
    return {};
  }
};

}  // namespace

std::unique_ptr<DeviceTensors> host_shadow_tensors() { return std::make_unique<HostShadowTensors>(); }

}  // namespace mlc::rt
