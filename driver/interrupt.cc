#include "driver/interrupt.h"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <filesystem>

namespace mlc {

namespace {

std::atomic<bool> requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_interrupt(int) {
  requested.store(true, std::memory_order_relaxed);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

}  // namespace

void stop_on_interrupt() {
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
}

void request_stop() { requested.store(true, std::memory_order_relaxed); }
bool stop_requested() { return requested.load(std::memory_order_relaxed); }
void clear_stop_request() { requested.store(false, std::memory_order_relaxed); }

Expected<bool> agreed_stop(const Rank& rank) {
  int64_t stop = stop_requested() ? 1 : 0;
  if (rank.world)
    MLC_CHECK_OK(rank.world->all().all_reduce(&stop, 1, DType::i64, rt::ReduceOp::sum, "whether to stop (Ctrl-C)"));
  return stop > 0;
}

Status prepare_interrupt_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(dir + ": error: cannot create the directory for the interrupted run's checkpoint: " + ec.message());
  return {};
}

}  // namespace mlc
