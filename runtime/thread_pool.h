// The runtime's worker threads: a fixed pool that runs one parallel region at
// a time, for compiled kernels split into row ranges.
//
// Contracts:
//  - parallel(n, fn) calls fn(t) once for every t in [0, n) (n may exceed
//    threads(): threads claim shares until none is left), and returns when
//    every call has returned.
//    It allocates nothing. Calls from several threads at once are serialized
//    by the caller (the executor runs one region at a time); fn must not call
//    parallel itself.
//  - Which thread runs which t never affects results: callers give each t a
//    fixed share of the work (row ranges), so results depend only on n.
//    Shares are claimed, not assigned: the calling thread takes whatever no
//    worker has claimed, so a worker the OS has descheduled delays nothing.
//  - Idle workers spin briefly after a region (the next kernel of a step
//    usually follows within microseconds), then sleep on a futex.
//  - set_num_threads(n) sizes the process-wide pool (n - 1 workers, the
//    calling thread being the n-th) and keeps OpenBLAS on one thread (the
//    executor splits GEMMs over this pool); MLC_THREADS sets it in the CLI
//    (default 1).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace mlc::rt {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  template <class F>
  void parallel(int n, F& fn) {
    if (n <= 1) {
      fn(0);
      return;
    }
    run(n, &fn, [](void* f, int t) { (*static_cast<F*>(f))(t); });
  }

 private:
  using Trampoline = void (*)(void*, int);
  void run(int n, void* fn, Trampoline call);
  void work(int index);

  // Runs unclaimed shares of region `generation`; false once none is left.
  bool claim_and_run(uint64_t generation);

  std::vector<std::thread> workers_;
  // The region in progress: generation << 16 | next unclaimed share.
  std::atomic<uint64_t> claim_{0};
  std::atomic<uint64_t> generation_{0};  // bumped to wake the workers
  std::atomic<int> done_{0};             // shares of the region finished
  std::atomic<bool> stop_{false};
  // The region's parameters; atomic because a late worker may read them
  // while the next region writes them (it then fails to claim a share).
  std::atomic<int> n_{0};
  std::atomic<void*> fn_{nullptr};
  std::atomic<Trampoline> call_{nullptr};
};

// The process-wide pool (1 thread until set_num_threads).
ThreadPool& thread_pool();
void set_num_threads(int n);
int num_threads();

// Splits [0, total) into `parts` contiguous ranges of near-equal size; range t.
inline void split_range(int64_t total, int parts, int t, int64_t& begin, int64_t& end) {
  begin = total * t / parts;
  end = total * (t + 1) / parts;
}

}  // namespace mlc::rt
