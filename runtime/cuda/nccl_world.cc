#include "runtime/cuda/nccl_world.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "runtime/comm/comm_internal.h"

namespace mlc::rt::cuda {

namespace {

std::string prefix(std::string_view tag) { return tag.empty() ? std::string() : std::string(tag) + ": "; }

}  // namespace

bool default_nccl_algorithm() {
  if (const char* v = std::getenv("NCCL_ALGO"); v && *v) return false;
  return setenv("NCCL_ALGO", "Ring", 1) == 0;
}

Expected<std::unique_ptr<NcclWorld>> NcclWorld::create(const Nccl& nccl, World& world) {
  static std::once_flag algorithm;
  std::call_once(algorithm, [] { (void)default_nccl_algorithm(); });
  std::unique_ptr<NcclWorld> w(new NcclWorld(nccl, world.timeout()));
  const MeshShape& mesh = world.mesh();
  for (size_t a = 0; a < mesh.axes.size(); ++a) {
    Group& group = world.axis_group(a);
    w->axes_.push_back({mesh.axes[a], nullptr, group.rank(), group.size()});
    ncclUniqueId id{};
    if (group.rank() == 0)
      if (const ncclResult_t r = nccl.ncclGetUniqueId(&id); r != kNcclSuccess) return w->fail(a, "ncclGetUniqueId", r, "");
    MLC_CHECK_OK(group.broadcast(&id, sizeof id, 0, "NCCL unique id of axis '" + mesh.axes[a] + "'"));
    NcclConfig config;
    config.blocking = 0;
    const Clock::time_point since = Clock::now();
    const ncclResult_t r = nccl.ncclCommInitRankConfig(&w->axes_[a].comm, group.size(), id, group.rank(), &config);
    // A communicator whose init failed at once is not one to query or abort (NCCL frees what it made).
    if (r != kNcclSuccess && r != kNcclInProgress) w->axes_[a].comm = nullptr;
    MLC_CHECK_OK(w->settle(a, r, "ncclCommInitRankConfig", "", since));
  }
  return w;
}

NcclWorld::~NcclWorld() {
  if (!aborted_.empty()) return;
  for (Axis& a : axes_)
    if (a.comm) nccl_.ncclCommDestroy(a.comm);
}

Status NcclWorld::check() const {
  if (aborted_.empty()) return {};
  return make_error("NCCL's communicators were aborted: " + aborted_);
}

void NcclWorld::abort(const std::string& reason) {
  if (!aborted_.empty()) return;
  aborted_ = reason.empty() ? "aborted" : reason;
  for (Axis& a : axes_)
    if (a.comm) {
      nccl_.ncclCommAbort(a.comm);
      a.comm = nullptr;
    }
}

Error NcclWorld::fail(size_t axis, std::string_view call, ncclResult_t r, std::string_view tag) {
  const Axis& a = axes_[axis];
  // The text first: ncclGetLastError reads the communicator, which the abort frees.
  const std::string message = prefix(tag) + nccl_.error_text(std::string(call) + " on axis " + a.name, r, a.comm) +
                              " (this rank's NCCL communicators are aborted)";
  abort(message);
  return make_error(message);
}

Error NcclWorld::timed_out(size_t axis, std::string_view tag) {
  const Axis& a = axes_[axis];
  const std::string message = prefix(tag) + "NCCL did not finish within " + comm::format_duration(timeout_) +
                              " on axis " + a.name + " (rank " + std::to_string(a.rank) + " of " +
                              std::to_string(a.size) + " there; this rank's NCCL communicators are aborted)";
  abort(message);
  return make_error(message);
}

Status NcclWorld::settle(size_t axis, ncclResult_t r, std::string_view call, std::string_view tag,
                         Clock::time_point since) {
  if (r == kNcclSuccess) return {};
  if (r != kNcclInProgress) return fail(axis, call, r, tag);
  auto pause = std::chrono::microseconds(10);
  for (;;) {
    ncclResult_t state = kNcclSuccess;
    if (const ncclResult_t q = nccl_.ncclCommGetAsyncError(axes_[axis].comm, &state); q != kNcclSuccess)
      return fail(axis, "ncclCommGetAsyncError", q, tag);
    if (state == kNcclSuccess) return {};
    if (state != kNcclInProgress) return fail(axis, call, state, tag);
    if (Clock::now() - since > timeout_) return timed_out(axis, tag);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

Status NcclWorld::check_async(std::string_view call, std::string_view tag) {
  for (size_t a = 0; a < axes_.size(); ++a) {
    ncclResult_t state = kNcclSuccess;
    if (const ncclResult_t q = nccl_.ncclCommGetAsyncError(axes_[a].comm, &state); q != kNcclSuccess)
      return fail(a, "ncclCommGetAsyncError", q, tag);
    if (state != kNcclSuccess && state != kNcclInProgress) return fail(a, call, state, tag);
  }
  return {};
}

}  // namespace mlc::rt::cuda
