#include "runtime/thread_pool.h"

#include <memory>

#include "runtime/blas.h"

namespace mlc::rt {

namespace {
// Polls before a waiting thread yields, and yields before a worker sleeps:
// tens of microseconds in all, the gap between two kernels of a step.
constexpr int kSpins = 1000;
constexpr int kYields = 64;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

constexpr int kShareBits = 16;
constexpr uint64_t kClosed = (uint64_t{1} << kShareBits) - 1;  // a share index no region has
}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (std::thread& w : workers_) w.join();
}

bool ThreadPool::claim_and_run(uint64_t generation) {
  uint64_t c = claim_.load();
  for (;;) {
    if (c >> kShareBits != generation) return false;
    // n_, fn_ and call_ belong to this generation if the exchange below
    // succeeds: the caller changes the claim word (to closed) before it
    // writes them for the next region, and waits for every claimed share.
    const int n = n_.load(std::memory_order_relaxed);
    void* fn = fn_.load(std::memory_order_relaxed);
    Trampoline call = call_.load(std::memory_order_relaxed);
    const int share = static_cast<int>(c & ((uint64_t{1} << kShareBits) - 1));
    if (share >= n) return false;
    if (!claim_.compare_exchange_weak(c, c + 1)) continue;
    call(fn, share);
    done_.fetch_add(1);
    c = claim_.load();
  }
}

void ThreadPool::run(int n, void* fn, Trampoline call) {
  const uint64_t g = generation_.load() + 1;
  // Close the previous region first: a late worker holding its claim word
  // could otherwise read this region's n_ and claim a share beyond the old n.
  claim_.store(g << kShareBits | kClosed);
  n_.store(n, std::memory_order_relaxed);
  fn_.store(fn, std::memory_order_relaxed);
  call_.store(call, std::memory_order_relaxed);
  done_.store(0);
  claim_.store(g << kShareBits);
  generation_.store(g);
  generation_.notify_all();
  claim_and_run(g);
  for (int spin = 0; done_.load() != n; ++spin) {
    if (spin < kSpins) cpu_relax();
    else std::this_thread::yield();
  }
}

void ThreadPool::work(int) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = generation_.load();
    for (int spin = 0; g == seen; ++spin) {
      if (spin < kSpins) cpu_relax();
      else if (spin < kSpins + kYields) std::this_thread::yield();
      else generation_.wait(seen);
      g = generation_.load();
    }
    seen = g;
    if (stop_.load()) return;
    claim_and_run(g);
  }
}

namespace {
std::unique_ptr<ThreadPool>& pool_slot() {
  static std::unique_ptr<ThreadPool> pool = std::make_unique<ThreadPool>(1);
  return pool;
}
}  // namespace

ThreadPool& thread_pool() { return *pool_slot(); }

void set_num_threads(int n) {
  if (n < 1) n = 1;
  blas::set_num_threads(1);
  if (thread_pool().threads() != n) pool_slot() = std::make_unique<ThreadPool>(n);
}

int num_threads() { return thread_pool().threads(); }

}  // namespace mlc::rt
