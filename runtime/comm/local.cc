// Rendezvous: each group has, per group rank, a count of the phases that rank
// has entered. A phase is complete when every rank of the group has entered
// it; counts only grow, so a rank that runs ahead into the next phase never
// un-completes the one its peers are still leaving. A collective is an
// arrival phase (post this rank's call and buffers; complete = every peer's
// buffers may be read) and, unless it is a barrier, a completion phase
// (complete = every peer is done reading this rank's buffers).
//
// Abort and timeout apply to the arrival phase only: a rank that leaves it
// with an Error first withdraws its arrival (under the lock), so no peer ever
// starts reading the buffers of a rank that has returned. The completion
// phase waits without a deadline: every rank that passed arrival reaches it
// after a bounded amount of copying, which allocates nothing and cannot fail.
//
// Waiting: a rank whose peers have not arrived first spins for up to
// kSpinWait, the lock released, yielding, until anything changes; only then
// does it sleep on the condition variable. The collectives of a step follow
// each other within microseconds, and waking a sleeping thread costs tens of
// them, twice per collective (an all_reduce of 16 floats between 2 ranks took
// 17-32 us sleeping, 5-7 us spinning, on a busy 2-core machine).
#include "runtime/comm/local.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include "runtime/comm/comm_internal.h"

namespace mlc::rt {
namespace {

using Clock = std::chrono::steady_clock;
using comm::rank_error;

constexpr auto kSpinWait = std::chrono::microseconds(500);

enum class Kind : uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, barrier };

// What one rank posted for the collective in progress.
struct Call {
  Kind kind = Kind::barrier;
  int64_t count = 0;  // reductions: elements (reduce_scatter: per rank); the others: bytes (per rank)
  DType dtype = DType::f32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  const std::byte* in = nullptr;
  std::string tag;  // a copy: peers format it after this rank may have returned
};

bool same_collective(const Call& a, const Call& b) {
  if (a.kind != b.kind || a.count != b.count) return false;
  switch (a.kind) {
    case Kind::all_reduce:
    case Kind::reduce_scatter: return a.dtype == b.dtype && a.op == b.op;
    case Kind::broadcast: return a.root == b.root;
    default: return true;
  }
}

std::string describe(const Call& c) {
  auto elems = [&] { return std::to_string(c.count) + " x " + std::string(dtype_name(c.dtype)) + ", " +
                            comm::reduce_op_name(c.op); };
  std::string d;
  switch (c.kind) {
    case Kind::all_reduce: d = "all_reduce(" + elems() + ")"; break;
    case Kind::reduce_scatter: d = "reduce_scatter(" + elems() + " per rank)"; break;
    case Kind::all_gather: d = "all_gather(" + std::to_string(c.count) + " bytes per rank)"; break;
    case Kind::all_to_all: d = "all_to_all(" + std::to_string(c.count) + " bytes per rank)"; break;
    case Kind::broadcast:
      d = "broadcast(" + std::to_string(c.count) + " bytes from rank " + std::to_string(c.root) + ")";
      break;
    case Kind::barrier: d = "barrier"; break;
  }
  return d + " '" + c.tag + "'";
}

struct Message {
  std::vector<std::byte> data;
  std::string tag;
};

// The rendezvous of one group; every field is guarded by Fabric::mu.
struct GroupState {
  std::vector<int> world_ranks;    // group rank -> world rank
  std::vector<uint64_t> entered;   // phases each group rank has entered
  std::vector<Call> calls;         // each rank's collective in progress
  std::vector<std::byte> scratch;  // all_reduce's result; grows, never shrinks
  std::vector<std::deque<Message>> mailboxes;  // [from * size + to]

  explicit GroupState(std::vector<int> ranks) : world_ranks(std::move(ranks)) {
    const size_t n = world_ranks.size();
    entered.assign(n, 0);
    calls.resize(n);
    mailboxes.resize(n * n);
  }
};

// What the worlds of one mesh share.
struct Fabric {
  MeshShape mesh;
  std::chrono::milliseconds timeout;
  std::mutex mu;
  std::condition_variable cv;  // any change below
  std::atomic<uint64_t> changes{0};  // bumped with every notification, read by spinning waiters
  bool aborted = false;
  int failed_rank = -1;
  std::string failed_reason;
  std::vector<std::unique_ptr<GroupState>> groups;

  void abort_locked(int rank, std::string_view reason) {
    if (aborted) return;
    aborted = true;
    failed_rank = rank;
    failed_reason = reason;
    changed();
  }
  // Under the lock: wakes the waiters, spinning or asleep.
  void changed() {
    changes.fetch_add(1, std::memory_order_release);
    cv.notify_all();
  }
  // Under `lock`: returns after a change (or spuriously), at the latest at
  // `deadline`; spins until `spin_until`, then sleeps.
  void wait(std::unique_lock<std::mutex>& lock, Clock::time_point spin_until, Clock::time_point deadline) {
    if (Clock::now() >= spin_until) {
      if (deadline == Clock::time_point::max()) cv.wait(lock);
      else cv.wait_until(lock, deadline);
      return;
    }
    const uint64_t seen = changes.load(std::memory_order_acquire);
    lock.unlock();
    for (int polls = 0; changes.load(std::memory_order_acquire) == seen; ++polls) {
      if (polls % 16 == 0 && Clock::now() >= std::min(spin_until, deadline)) break;
      std::this_thread::yield();
    }
    lock.lock();
  }
  Clock::time_point deadline() const {
    // Clamped so that a huge timeout cannot overflow the clock.
    return Clock::now() + std::min(timeout, std::chrono::milliseconds(std::chrono::hours(24 * 365)));
  }
};

class LocalGroup final : public Group {
 public:
  LocalGroup(Fabric& fabric, GroupState& state, int rank) : f_(fabric), g_(state), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(g_.world_ranks.size()); }
  int world_rank(int r) const override { return g_.world_ranks.at(static_cast<size_t>(r)); }

  Status all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, std::string_view tag) override;
  Status all_gather(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) override;
  Status reduce_scatter(const void* in, void* out, int64_t count_per_rank, DType dtype, ReduceOp op,
                        std::string_view tag) override;
  Status all_to_all(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) override;
  Status broadcast(void* data, int64_t bytes, int root, std::string_view tag) override;
  Status send(const void* data, int64_t bytes, int peer, std::string_view tag) override;
  Status recv(void* data, int64_t bytes, int peer, std::string_view tag) override;
  Status barrier(std::string_view tag) override;

 private:
  // out chunk r = rank r's input (all_gather) or its chunk rank() (all_to_all).
  // An Error (aborting the world) unless bytes >= 0 and `r` is a group rank.
  Status check_transfer(int64_t bytes, int r, std::string_view what, std::string_view tag);
  Status gather_chunks(Kind kind, const void* in, void* out, int64_t bytes, std::string_view tag);
  int me() const { return g_.world_ranks[static_cast<size_t>(rank_)]; }
  // Aborts the world (this rank failed) and returns "rank R: TAG: WHAT".
  Error fail(std::string_view tag, const std::string& what);
  Error fail_locked(std::string_view tag, const std::string& what);
  Error aborted_error(std::string_view tag) const;
  // Posts `call` and waits until every rank of the group has (or fails, having
  // withdrawn). Then checks that the ranks agree. On success, returns every
  // rank's input buffer in group-rank order.
  Expected<std::vector<const std::byte*>> arrive(std::unique_lock<std::mutex>& lock, Call call,
                                                 Clock::time_point deadline);
  // Enters the completion phase and waits until every rank has.
  void complete(std::unique_lock<std::mutex>& lock);
  uint64_t enter_phase();
  std::vector<int> missing(uint64_t phase) const;

  Fabric& f_;
  GroupState& g_;
  int rank_;
};

Error LocalGroup::fail(std::string_view tag, const std::string& what) {
  std::lock_guard lock(f_.mu);
  return fail_locked(tag, what);
}

Error LocalGroup::fail_locked(std::string_view tag, const std::string& what) {
  f_.abort_locked(me(), std::string(tag) + ": " + what);
  return rank_error(me(), tag, what);
}

Error LocalGroup::aborted_error(std::string_view tag) const {
  return rank_error(me(), tag, "rank " + std::to_string(f_.failed_rank) + " failed: " + f_.failed_reason);
}

uint64_t LocalGroup::enter_phase() {
  const uint64_t phase = ++g_.entered[static_cast<size_t>(rank_)];
  f_.changed();
  return phase;
}

std::vector<int> LocalGroup::missing(uint64_t phase) const {
  std::vector<int> ranks;
  for (size_t r = 0; r < g_.entered.size(); ++r)
    if (g_.entered[r] < phase) ranks.push_back(g_.world_ranks[r]);
  return ranks;
}

Expected<std::vector<const std::byte*>> LocalGroup::arrive(std::unique_lock<std::mutex>& lock, Call call,
                                                           Clock::time_point deadline) {
  std::vector<const std::byte*> inputs(g_.calls.size());  // allocated before anyone may read our buffers
  const std::string tag = call.tag;
  if (f_.aborted) return aborted_error(tag);
  g_.calls[static_cast<size_t>(rank_)] = std::move(call);
  const uint64_t phase = enter_phase();
  const auto spin_until = Clock::now() + kSpinWait;
  for (;;) {
    std::vector<int> absent = missing(phase);
    if (absent.empty()) break;
    if (f_.aborted || Clock::now() >= deadline) {
      --g_.entered[static_cast<size_t>(rank_)];  // withdraw: nobody may read our buffers now
      if (f_.aborted) return aborted_error(tag);
      return fail_locked(tag, comm::timeout_message(f_.timeout, absent));
    }
    f_.wait(lock, spin_until, deadline);
  }
  const Call& first = g_.calls[0];
  for (size_t r = 0; r < g_.calls.size(); ++r) {
    if (!same_collective(g_.calls[r], first))
      return fail_locked(tag, "ranks disagree on the collective: rank " + std::to_string(g_.world_ranks[0]) +
                                  " called " + describe(first) + ", rank " + std::to_string(g_.world_ranks[r]) +
                                  " called " + describe(g_.calls[r]));
    inputs[r] = g_.calls[r].in;
  }
  return inputs;
}

void LocalGroup::complete(std::unique_lock<std::mutex>& lock) {
  const uint64_t phase = enter_phase();
  const auto spin_until = Clock::now() + kSpinWait;
  while (!missing(phase).empty()) f_.wait(lock, spin_until, Clock::time_point::max());
}

Status LocalGroup::all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, std::string_view tag) {
  if (auto s = comm::check_reduction(dtype, count); !s) return fail(tag, s.error().message);
  const auto deadline = f_.deadline();
  const int64_t esize = dtype_size(dtype), n = size();
  std::unique_lock lock(f_.mu);
  MLC_TRY(std::vector<const std::byte*> inputs,
          arrive(lock, Call{Kind::all_reduce, count, dtype, op, 0, static_cast<std::byte*>(data), std::string(tag)},
                 deadline));
  // Safe: every rank has arrived, so none still copies the previous result.
  if (static_cast<int64_t>(g_.scratch.size()) < count * esize) g_.scratch.resize(static_cast<size_t>(count * esize));
  std::byte* result = g_.scratch.data();
  lock.unlock();
  // This rank reduces elements [begin, end) for everyone.
  const int64_t begin = count * rank_ / n, end = count * (rank_ + 1) / n;
  for (auto& p : inputs) p += begin * esize;
  comm::reduce_in_rank_order(inputs, result + begin * esize, end - begin, dtype, op);
  lock.lock();
  complete(lock);
  lock.unlock();
  if (count > 0) std::memcpy(data, result, static_cast<size_t>(count * esize));
  return {};
}

Status LocalGroup::reduce_scatter(const void* in, void* out, int64_t count_per_rank, DType dtype, ReduceOp op,
                                  std::string_view tag) {
  if (auto s = comm::check_reduction(dtype, count_per_rank); !s) return fail(tag, s.error().message);
  const auto deadline = f_.deadline();
  const int64_t chunk = count_per_rank * dtype_size(dtype);
  std::unique_lock lock(f_.mu);
  MLC_TRY(std::vector<const std::byte*> inputs,
          arrive(lock,
                 Call{Kind::reduce_scatter, count_per_rank, dtype, op, 0, static_cast<const std::byte*>(in),
                      std::string(tag)},
                 deadline));
  lock.unlock();
  for (auto& p : inputs) p += rank_ * chunk;
  comm::reduce_in_rank_order(inputs, static_cast<std::byte*>(out), count_per_rank, dtype, op);
  lock.lock();
  complete(lock);
  return {};
}

Status LocalGroup::all_gather(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) {
  return gather_chunks(Kind::all_gather, in, out, bytes_per_rank, tag);
}

Status LocalGroup::all_to_all(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) {
  return gather_chunks(Kind::all_to_all, in, out, bytes_per_rank, tag);
}

Status LocalGroup::gather_chunks(Kind kind, const void* in, void* out, int64_t bytes, std::string_view tag) {
  if (auto s = comm::check_bytes(bytes); !s) return fail(tag, s.error().message);
  const auto deadline = f_.deadline();
  std::unique_lock lock(f_.mu);
  MLC_TRY(std::vector<const std::byte*> inputs,
          arrive(lock, Call{kind, bytes, DType::f32, ReduceOp::sum, 0, static_cast<const std::byte*>(in), std::string(tag)},
                 deadline));
  lock.unlock();
  // all_gather: rank r's whole input; all_to_all: its chunk for this rank.
  const int64_t offset = kind == Kind::all_to_all ? rank_ * bytes : 0;
  auto* dst = static_cast<std::byte*>(out);
  for (size_t r = 0; r < inputs.size(); ++r)
    if (bytes > 0) std::memcpy(dst + r * bytes, inputs[r] + offset, static_cast<size_t>(bytes));
  lock.lock();
  complete(lock);
  return {};
}

Status LocalGroup::check_transfer(int64_t bytes, int r, std::string_view what, std::string_view tag) {
  Status s = comm::check_bytes(bytes);
  if (s) s = comm::check_rank(r, size(), what);
  if (!s) return fail(tag, s.error().message);
  return {};
}

Status LocalGroup::broadcast(void* data, int64_t bytes, int root, std::string_view tag) {
  MLC_CHECK_OK(check_transfer(bytes, root, "broadcast root", tag));
  const auto deadline = f_.deadline();
  std::unique_lock lock(f_.mu);
  MLC_TRY(std::vector<const std::byte*> inputs,
          arrive(lock,
                 Call{Kind::broadcast, bytes, DType::f32, ReduceOp::sum, root, static_cast<const std::byte*>(data),
                      std::string(tag)},
                 deadline));
  lock.unlock();
  if (rank_ != root && bytes > 0) std::memcpy(data, inputs[static_cast<size_t>(root)], static_cast<size_t>(bytes));
  lock.lock();
  complete(lock);
  return {};
}

Status LocalGroup::barrier(std::string_view tag) {
  const auto deadline = f_.deadline();
  std::unique_lock lock(f_.mu);
  MLC_CHECK_OK(arrive(lock, Call{Kind::barrier, 0, DType::f32, ReduceOp::sum, 0, nullptr, std::string(tag)}, deadline));
  return {};
}

Status LocalGroup::send(const void* data, int64_t bytes, int peer, std::string_view tag) {
  MLC_CHECK_OK(check_transfer(bytes, peer, "send peer", tag));
  const auto* p = static_cast<const std::byte*>(data);
  Message message{std::vector<std::byte>(p, p + bytes), std::string(tag)};
  std::lock_guard lock(f_.mu);
  if (f_.aborted) return aborted_error(tag);
  g_.mailboxes[static_cast<size_t>(rank_ * size() + peer)].push_back(std::move(message));
  f_.changed();
  return {};
}

Status LocalGroup::recv(void* data, int64_t bytes, int peer, std::string_view tag) {
  MLC_CHECK_OK(check_transfer(bytes, peer, "recv peer", tag));
  const auto deadline = f_.deadline();
  std::unique_lock lock(f_.mu);
  auto& box = g_.mailboxes[static_cast<size_t>(peer * size() + rank_)];
  while (box.empty()) {
    if (f_.aborted) return aborted_error(tag);
    if (Clock::now() >= deadline) return fail_locked(tag, comm::timeout_message(f_.timeout, {world_rank(peer)}));
    f_.wait(lock, Clock::time_point::min(), deadline);
  }
  if (f_.aborted) return aborted_error(tag);
  Message message = std::move(box.front());
  box.pop_front();
  if (static_cast<int64_t>(message.data.size()) != bytes)
    return fail_locked(tag, "expected " + std::to_string(bytes) + " bytes from rank " +
                                std::to_string(world_rank(peer)) + " but it sent " +
                                std::to_string(message.data.size()) + " ('" + message.tag + "')");
  lock.unlock();
  if (bytes > 0) std::memcpy(data, message.data.data(), static_cast<size_t>(bytes));
  return {};
}

class LocalWorld final : public World {
 public:
  LocalWorld(std::shared_ptr<Fabric> fabric, int rank) : f_(std::move(fabric)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return f_->mesh.num_ranks(); }
  const MeshShape& mesh() const override { return f_->mesh; }
  Group& axis_group(size_t axis) override { return *axis_groups_.at(axis); }
  Group& all() override { return *all_; }
  void abort(std::string_view reason) override {
    std::lock_guard lock(f_->mu);
    f_->abort_locked(rank_, reason);
  }
  std::chrono::milliseconds timeout() const override { return f_->timeout; }

  std::vector<std::unique_ptr<LocalGroup>> axis_groups_;
  std::unique_ptr<LocalGroup> all_;

 private:
  std::shared_ptr<Fabric> f_;
  int rank_;
};

Status run_rank(const std::function<Status(World&)>& body, World& world) {
  try {
    return body(world);
  } catch (const std::exception& e) {
    return make_error("rank " + std::to_string(world.rank()) + ": uncaught exception: " + e.what());
  } catch (...) {
    return make_error("rank " + std::to_string(world.rank()) + ": uncaught exception");
  }
}

}  // namespace

Expected<std::vector<std::unique_ptr<World>>> make_local_worlds(const MeshShape& mesh, const CommOptions& options) {
  MLC_CHECK_OK(mesh.check());
  if (options.timeout.count() <= 0) return make_error("communicator timeout must be positive");
  auto fabric = std::make_shared<Fabric>();
  fabric->mesh = mesh;
  fabric->timeout = options.timeout;
  const int n = mesh.num_ranks();
  std::vector<std::unique_ptr<LocalWorld>> worlds;
  for (int r = 0; r < n; ++r) worlds.push_back(std::make_unique<LocalWorld>(fabric, r));
  auto add_group = [&](std::vector<int> ranks) {
    fabric->groups.push_back(std::make_unique<GroupState>(ranks));
    GroupState& g = *fabric->groups.back();
    for (size_t gr = 0; gr < ranks.size(); ++gr) {
      auto group = std::make_unique<LocalGroup>(*fabric, g, static_cast<int>(gr));
      LocalWorld& w = *worlds[static_cast<size_t>(ranks[gr])];
      if (&g == fabric->groups.front().get()) w.all_ = std::move(group);
      else w.axis_groups_.push_back(std::move(group));
    }
  };
  std::vector<int> everyone(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) everyone[static_cast<size_t>(r)] = r;
  add_group(everyone);
  // Axis a's groups, each added once: through the ranks whose coordinate a is 0.
  for (size_t a = 0; a < mesh.sizes.size(); ++a)
    for (int base = 0; base < n; ++base)
      if (mesh.coords(base)[a] == 0) add_group(mesh.axis_group_ranks(base, a));
  std::vector<std::unique_ptr<World>> result;
  for (auto& w : worlds) result.push_back(std::move(w));
  return result;
}

std::vector<Status> run_local_ranks(const MeshShape& mesh, const CommOptions& options,
                                    const std::function<Status(World&)>& body) {
  auto made = make_local_worlds(mesh, options);
  if (!made) return {made.take_error()};
  auto& worlds = *made;
  std::vector<Status> results(worlds.size());
  std::vector<std::thread> threads;
  for (size_t r = 0; r < worlds.size(); ++r) {
    try {
      threads.emplace_back([&, r] {
        Status s = run_rank(body, *worlds[r]);
        if (!s) worlds[r]->abort(s.error().message);
        results[r] = std::move(s);
      });
    } catch (const std::system_error& e) {
      // Ranks that started must not wait for this one.
      results[r] = make_error("rank " + std::to_string(r) + ": could not start its thread: " + e.what());
      worlds[r]->abort(results[r].error().message);
      for (size_t later = r + 1; later < worlds.size(); ++later) results[later] = results[r];
      break;
    }
  }
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace mlc::rt
