// Every MPI operation here is non-blocking and polled (MpiWorld::wait) so
// that a deadline can end it. While polling, a rank answers the other ranks'
// "what are you doing?" queries (on a duplicate of MPI_COMM_WORLD kept for
// diagnostics), which is how a rank that times out names who is missing.
#include "runtime/comm/mpi.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "runtime/comm/comm_internal.h"

namespace mlc::rt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kP2PTag = 1;     // send/recv, on a group's communicator
constexpr int kQueryTag = 2;   // "what are you doing?", on the diagnostics communicator
constexpr int kAnswerTag = 3;  // its answer

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void init_mpi_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) return;
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);  // fails fatally
    std::atexit(finalize_at_exit);
  });
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

// An MPI type of `size` bytes, for moving (never reducing) elements.
MPI_Datatype element_type(int size) {
  switch (size) {
    case 1: return MPI_BYTE;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    default: return MPI_UINT64_T;
  }
}

Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
  return Clock::now() + std::min(timeout, std::chrono::milliseconds(std::chrono::hours(24 * 365)));
}

// Yields at first, then sleeps up to 1 ms between polls.
void back_off(int& polls) {
  if (++polls < 200) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, polls - 190)));
}

// What a rank is doing, as it answers a query: "c GROUP SEQ TAG" in
// collective number SEQ of group GROUP (-1: all, else the axis), "p GROUP 0
// TAG" in a recv, "-" in neither.
struct Activity {
  char kind = '-';
  int group = 0;
  uint64_t seq = 0;
  std::string tag;

  std::string encode() const {
    if (kind == '-') return "-";
    return std::string(1, kind) + " " + std::to_string(group) + " " + std::to_string(seq) + " " + tag;
  }
  static Activity decode(const std::string& s) {
    Activity a;
    char kind = '-';
    int group = 0, used = 0;
    unsigned long long seq = 0;
    if (std::sscanf(s.c_str(), "%c %d %llu %n", &kind, &group, &seq, &used) >= 3 && used > 0) {
      a.kind = kind;
      a.group = group;
      a.seq = seq;
      a.tag = s.substr(static_cast<size_t>(used));
    }
    return a;
  }
};

// A send or an answer in flight, with the buffer it owns.
struct Pending {
  MPI_Request request = MPI_REQUEST_NULL;
  std::vector<std::byte> data;
  std::string tag;  // sends: for diagnostics
  int peer = -1;    // world rank
};

class MpiWorld;

class MpiGroup final : public Group {
 public:
  MpiGroup(MpiWorld& world, MPI_Comm comm, int id, std::vector<int> world_ranks);
  ~MpiGroup() override;

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(world_ranks_.size()); }
  int world_rank(int r) const override { return world_ranks_.at(static_cast<size_t>(r)); }

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
  // Starts a collective: numbers it, records it for queries. Ends with end().
  Clock::time_point begin(std::string_view tag);
  void end();
  // Polls `request` (started by the MPI call whose return code is `rc`) to
  // completion; on error or timeout aborts the job.
  void finish(int rc, MPI_Request& request, std::string_view tag, Clock::time_point deadline);
  // Checks `bytes`, runs start(int bytes, MPI_Request*) -> MPI return code,
  // and finishes the request it starts: the collectives that only move bytes.
  template <class Start>
  Status move_bytes(int64_t bytes, std::string_view tag, Start start);
  // A bad argument as an Error "rank R: TAG: ..." (no abort).
  Error bad(std::string_view tag, const Status& s) const;
  // all_to_all of each rank's chunk r to rank r, then the rank-order sum of
  // the chunks into `out`: chunk r is counts[r] elements at displs[r].
  void scatter_and_reduce(const void* in, std::byte* out, const std::vector<int>& counts,
                          const std::vector<int>& displs, DType dtype, ReduceOp op, std::string_view tag,
                          Clock::time_point deadline);

  MpiWorld& w_;
  MPI_Comm comm_;
  int id_;
  int rank_;
  std::vector<int> world_ranks_;
  uint64_t seq_ = 0;
  std::vector<std::byte> gathered_, reduced_;  // reused between calls
};

class MpiWorld final : public World {
 public:
  MpiWorld(const MeshShape& mesh, const CommOptions& options, int rank) : mesh_(mesh), timeout_(options.timeout), rank_(rank) {}
  ~MpiWorld() override;

  int rank() const override { return rank_; }
  int size() const override { return mesh_.num_ranks(); }
  const MeshShape& mesh() const override { return mesh_; }
  Group& axis_group(size_t axis) override { return *axes_.at(axis); }
  Group& all() override { return *all_; }
  void abort(std::string_view reason) override {
    die("rank " + std::to_string(rank_) + " failed: " + std::string(reason));
  }
  std::chrono::milliseconds timeout() const override { return timeout_; }

  // Prints `message` on stderr and ends the job.
  [[noreturn]] void die(const std::string& message);
  // Answers queries and completes finished sends.
  void progress();
  // Polls `request` to completion, or dies naming who of `group_ranks` (world
  // ranks) is not in the same activity.
  void wait(MPI_Request& request, std::string_view tag, Clock::time_point deadline, const std::vector<int>& group_ranks);
  // "rank 1 (rank 1 is in 'x')": which of `ranks` are not doing what this rank does, and what they do.
  // Who of `ranks` a wait that timed out is missing, and what each is doing.
  // `all_waiting`: every rank missed is itself waiting (in a recv or another
  // collective), so the silent rank at the end of that chain is for one of
  // them to name: a wait then takes one more timeout before it reports
  // (MpiWorld::wait and MpiGroup::recv).
  struct Missing {
    std::string text;
    bool all_waiting = false;
  };
  Missing who_is_missing(const std::vector<int>& ranks);
  void post_send(Pending pending, MPI_Comm comm, int group_peer);

  Activity activity;
  std::unique_ptr<MpiGroup> all_;
  std::vector<std::unique_ptr<MpiGroup>> axes_;
  MPI_Comm diag_ = MPI_COMM_NULL;

 private:
  MeshShape mesh_;
  std::chrono::milliseconds timeout_;
  int rank_;
  std::list<Pending> pending_;
};

void MpiWorld::die(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return; in case it does
}

void MpiWorld::progress() {
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kQueryTag, diag_, &flag, &st);
    if (!flag) break;
    MPI_Recv(nullptr, 0, MPI_BYTE, st.MPI_SOURCE, kQueryTag, diag_, MPI_STATUS_IGNORE);
    const std::string answer = activity.encode();
    auto* p = reinterpret_cast<const std::byte*>(answer.data());
    pending_.push_back(Pending{MPI_REQUEST_NULL, std::vector<std::byte>(p, p + answer.size()), "", st.MPI_SOURCE});
    Pending& a = pending_.back();
    MPI_Isend(a.data.data(), static_cast<int>(a.data.size()), MPI_BYTE, st.MPI_SOURCE, kAnswerTag, diag_, &a.request);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    int done = 0;
    MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    it = done ? pending_.erase(it) : std::next(it);
  }
}

void MpiWorld::post_send(Pending pending, MPI_Comm comm, int group_peer) {
  pending_.push_back(std::move(pending));
  Pending& s = pending_.back();
  const int rc = MPI_Isend(s.data.data(), static_cast<int>(s.data.size()), MPI_BYTE, group_peer, kP2PTag, comm,
                           &s.request);
  if (rc != MPI_SUCCESS) die(comm::rank_error(rank_, s.tag, "MPI_Isend failed: " + mpi_error_text(rc)).message);
  progress();
}

void MpiWorld::wait(MPI_Request& request, std::string_view tag, Clock::time_point deadline,
                    const std::vector<int>& group_ranks) {
  bool extended = false;
  for (int polls = 0;;) {
    int done = 0;
    const int rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) die(comm::rank_error(rank_, tag, "MPI error: " + mpi_error_text(rc)).message);
    if (done) return;
    progress();
    if (Clock::now() >= deadline) {
      const Missing m = who_is_missing(group_ranks);
      if (m.all_waiting && !extended) {
        extended = true;
        deadline = deadline_after(timeout_);
        continue;
      }
      die(comm::rank_error(rank_, tag, "timed out after " + comm::format_duration(extended ? 2 * timeout_ : timeout_) +
                                           " waiting for " + m.text)
              .message);
    }
    back_off(polls);
  }
}

MpiWorld::Missing MpiWorld::who_is_missing(const std::vector<int>& ranks) {
  std::map<int, std::optional<Activity>> answers;
  for (int r : ranks) {
    if (r == rank_) continue;
    answers[r];
    MPI_Request request;
    MPI_Isend(nullptr, 0, MPI_BYTE, r, kQueryTag, diag_, &request);
    MPI_Request_free(&request);
  }
  const auto give_up = deadline_after(std::min(timeout_, std::chrono::milliseconds(1000)));
  size_t answered = 0;
  for (int polls = 0; answered < answers.size() && Clock::now() < give_up; back_off(polls)) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kAnswerTag, diag_, &flag, &st);
    if (flag) {
      int length = 0;
      MPI_Get_count(&st, MPI_BYTE, &length);
      std::string text(static_cast<size_t>(length), '\0');
      MPI_Recv(text.data(), length, MPI_BYTE, st.MPI_SOURCE, kAnswerTag, diag_, MPI_STATUS_IGNORE);
      auto it = answers.find(st.MPI_SOURCE);
      if (it != answers.end() && !it->second) {
        it->second = Activity::decode(text);
        ++answered;
      }
    }
    progress();
  }
  std::vector<int> missing;
  std::string details;
  bool all_waiting = true;
  for (const auto& [r, answer] : answers) {
    if (answer && answer->kind == 'c' && activity.kind == 'c' && answer->group == activity.group &&
        answer->seq == activity.seq)
      continue;  // in this very collective
    missing.push_back(r);
    all_waiting = all_waiting && answer && (answer->kind == 'c' || answer->kind == 'p');
    details += details.empty() ? " (" : "; ";
    details += "rank " + std::to_string(r);
    if (!answer) details += ": no answer: computing, stuck or gone";
    else if (answer->kind == '-') details += " is outside the communicator";
    else details += " is in '" + answer->tag + "'";
  }
  if (missing.empty()) return {"a slow transfer (every rank of the group has arrived)", false};
  return {comm::format_ranks(missing) + details + ")", all_waiting};
}

MpiWorld::~MpiWorld() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // Sends still in flight must be received before MPI may be finalized.
  const auto deadline = deadline_after(timeout_);
  for (int polls = 0; !pending_.empty(); back_off(polls)) {
    progress();
    if (!pending_.empty() && Clock::now() >= deadline) {
      const Pending& p = pending_.front();
      die(comm::rank_error(rank_, p.tag.empty() ? "(answer to a query)" : p.tag,
                           "rank " + std::to_string(p.peer) + " did not receive this send within " +
                               comm::format_duration(timeout_))
              .message);
    }
  }
  all_.reset();
  axes_.clear();
  MPI_Comm_free(&diag_);
}

MpiGroup::MpiGroup(MpiWorld& world, MPI_Comm comm, int id, std::vector<int> world_ranks)
    : w_(world), comm_(comm), id_(id), world_ranks_(std::move(world_ranks)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}

MpiGroup::~MpiGroup() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

Clock::time_point MpiGroup::begin(std::string_view tag) {
  w_.activity = Activity{'c', id_, ++seq_, std::string(tag)};
  return deadline_after(w_.timeout());
}

void MpiGroup::end() { w_.activity = Activity{}; }

Error MpiGroup::bad(std::string_view tag, const Status& s) const {
  return comm::rank_error(w_.rank(), tag, s.error().message);
}

void MpiGroup::finish(int rc, MPI_Request& request, std::string_view tag, Clock::time_point deadline) {
  if (rc != MPI_SUCCESS) w_.die(comm::rank_error(w_.rank(), tag, "MPI error: " + mpi_error_text(rc)).message);
  w_.wait(request, tag, deadline, world_ranks_);
}

// Refuses counts that MPI's int cannot carry.
Status check_int(int64_t n) {
  if (n > INT_MAX) return make_error(std::to_string(n) + " elements or bytes exceed what MPI can carry in one call (2^31-1); split the tensor");
  return {};
}

void MpiGroup::scatter_and_reduce(const void* in, std::byte* out, const std::vector<int>& counts,
                                  const std::vector<int>& displs, DType dtype, ReduceOp op, std::string_view tag,
                                  Clock::time_point deadline) {
  const int n = size(), mine = counts[static_cast<size_t>(rank_)], esize = dtype_size(dtype);
  const MPI_Datatype type = element_type(esize);
  const size_t chunk_bytes = static_cast<size_t>(mine) * static_cast<size_t>(esize);
  gathered_.resize(static_cast<size_t>(n) * chunk_bytes);
  std::vector<int> recv_counts(static_cast<size_t>(n), mine), recv_displs(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) recv_displs[static_cast<size_t>(k)] = k * mine;  // < n * mine: checked by callers
  MPI_Request request;
  const int rc = MPI_Ialltoallv(in, counts.data(), displs.data(), type, gathered_.data(), recv_counts.data(),
                                recv_displs.data(), type, comm_, &request);
  finish(rc, request, tag, deadline);
  std::vector<const std::byte*> parts;
  for (int k = 0; k < n; ++k) parts.push_back(gathered_.data() + static_cast<size_t>(k) * chunk_bytes);
  comm::reduce_in_rank_order(parts, out, mine, dtype, op);
}

Status MpiGroup::all_reduce(void* data, int64_t count, DType dtype, ReduceOp op, std::string_view tag) {
  if (auto s = comm::check_reduction(dtype, count); !s) return bad(tag, s);
  if (auto s = check_int(count + size()); !s) return bad(tag, s);  // n chunks of at most count/n + 1
  const auto deadline = begin(tag);
  const int n = size(), esize = dtype_size(dtype);
  // Rank r reduces elements [count*r/n, count*(r+1)/n).
  std::vector<int> counts(static_cast<size_t>(n)), displs(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    displs[static_cast<size_t>(r)] = static_cast<int>(count * r / n);
    counts[static_cast<size_t>(r)] = static_cast<int>(count * (r + 1) / n - count * r / n);
  }
  reduced_.resize(static_cast<size_t>(counts[static_cast<size_t>(rank_)]) * static_cast<size_t>(esize));
  scatter_and_reduce(data, reduced_.data(), counts, displs, dtype, op, tag, deadline);
  MPI_Request request;
  const MPI_Datatype type = element_type(esize);
  const int rc = MPI_Iallgatherv(reduced_.data(), counts[static_cast<size_t>(rank_)], type, data, counts.data(),
                                 displs.data(), type, comm_, &request);
  finish(rc, request, tag, deadline);
  end();
  return {};
}

Status MpiGroup::reduce_scatter(const void* in, void* out, int64_t count_per_rank, DType dtype, ReduceOp op,
                                std::string_view tag) {
  if (auto s = comm::check_reduction(dtype, count_per_rank); !s) return bad(tag, s);
  if (auto s = check_int(count_per_rank * size()); !s) return bad(tag, s);
  const auto deadline = begin(tag);
  const int n = size(), c = static_cast<int>(count_per_rank);
  std::vector<int> counts(static_cast<size_t>(n), c), displs(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) displs[static_cast<size_t>(r)] = r * c;
  scatter_and_reduce(in, static_cast<std::byte*>(out), counts, displs, dtype, op, tag, deadline);
  end();
  return {};
}

template <class Start>
Status MpiGroup::move_bytes(int64_t bytes, std::string_view tag, Start start) {
  if (auto s = comm::check_bytes(bytes); !s) return bad(tag, s);
  if (auto s = check_int(bytes); !s) return bad(tag, s);
  const auto deadline = begin(tag);
  MPI_Request request;
  const int rc = start(static_cast<int>(bytes), &request);
  finish(rc, request, tag, deadline);
  end();
  return {};
}

Status MpiGroup::all_gather(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) {
  return move_bytes(bytes_per_rank, tag, [&](int b, MPI_Request* request) {
    return MPI_Iallgather(in, b, MPI_BYTE, out, b, MPI_BYTE, comm_, request);
  });
}

Status MpiGroup::all_to_all(const void* in, void* out, int64_t bytes_per_rank, std::string_view tag) {
  return move_bytes(bytes_per_rank, tag, [&](int b, MPI_Request* request) {
    return MPI_Ialltoall(in, b, MPI_BYTE, out, b, MPI_BYTE, comm_, request);
  });
}

Status MpiGroup::broadcast(void* data, int64_t bytes, int root, std::string_view tag) {
  if (auto s = comm::check_rank(root, size(), "broadcast root"); !s) return bad(tag, s);
  return move_bytes(bytes, tag, [&](int b, MPI_Request* request) {
    return MPI_Ibcast(data, b, MPI_BYTE, root, comm_, request);
  });
}

Status MpiGroup::barrier(std::string_view tag) {
  return move_bytes(0, tag, [&](int, MPI_Request* request) { return MPI_Ibarrier(comm_, request); });
}

Status MpiGroup::send(const void* data, int64_t bytes, int peer, std::string_view tag) {
  if (auto s = comm::check_bytes(bytes); !s) return bad(tag, s);
  if (auto s = comm::check_rank(peer, size(), "send peer"); !s) return bad(tag, s);
  if (auto s = check_int(bytes); !s) return bad(tag, s);
  const auto* p = static_cast<const std::byte*>(data);
  w_.post_send(Pending{MPI_REQUEST_NULL, std::vector<std::byte>(p, p + bytes), std::string(tag), world_rank(peer)},
               comm_, peer);
  return {};
}

Status MpiGroup::recv(void* data, int64_t bytes, int peer, std::string_view tag) {
  if (auto s = comm::check_bytes(bytes); !s) return bad(tag, s);
  if (auto s = comm::check_rank(peer, size(), "recv peer"); !s) return bad(tag, s);
  if (auto s = check_int(bytes); !s) return bad(tag, s);
  auto deadline = deadline_after(w_.timeout());
  w_.activity = Activity{'p', id_, 0, std::string(tag)};
  MPI_Message message;
  MPI_Status st;
  bool extended = false;  // one more timeout when the peer waits too (MpiWorld::Missing)
  for (int polls = 0, found = 0;; back_off(polls)) {
    MPI_Improbe(peer, kP2PTag, comm_, &found, &message, &st);
    if (found) break;
    w_.progress();
    if (Clock::now() >= deadline) {
      const MpiWorld::Missing m = w_.who_is_missing({world_rank(peer)});
      if (m.all_waiting && !extended) {
        extended = true;
        deadline = deadline_after(w_.timeout());
        continue;
      }
      w_.die(comm::rank_error(w_.rank(), tag,
                              "timed out after " +
                                  comm::format_duration(extended ? 2 * w_.timeout() : w_.timeout()) +
                                  " waiting for " + m.text)
                 .message);
    }
  }
  int length = 0;
  MPI_Get_count(&st, MPI_BYTE, &length);
  if (length != bytes)
    w_.die(comm::rank_error(w_.rank(), tag,
                            "expected " + std::to_string(bytes) + " bytes from rank " +
                                std::to_string(world_rank(peer)) + " but it sent " + std::to_string(length))
               .message);
  MPI_Request request;
  finish(MPI_Imrecv(data, length, MPI_BYTE, &message, &request), request, tag, deadline);
  end();
  return {};
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name)) return true;
  return std::getenv("SLURM_STEP_NUM_TASKS") && std::getenv("SLURM_PROCID");
}

const char* mpi_launcher_name() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || !std::getenv("SLURM_PROCID") ? "mpirun" : "srun";
}

int launched_processes() {
  if (!launched_by_mpi()) return 0;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = std::getenv(name)) {
      char* end = nullptr;
      const long n = std::strtol(v, &end, 10);
      if (end != v && *end == '\0' && n > 0 && n <= (1L << 30)) return static_cast<int>(n);
    }
  return 0;
}

Expected<std::unique_ptr<World>> mpi_world(const MeshShape& mesh, const CommOptions& options) {
  MLC_CHECK_OK(mesh.check());
  if (options.timeout.count() <= 0) return make_error("communicator timeout must be positive");
  init_mpi_once();
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size != mesh.num_ranks()) {
    return make_error(std::string(mpi_launcher_name()) + " started " + std::to_string(size) + " process" +
                      (size == 1 ? "" : "es") + " but mesh " + mesh.to_string() + " has " +
                      std::to_string(mesh.num_ranks()) + " ranks");
  }
  auto world = std::make_unique<MpiWorld>(mesh, options, rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &world->diag_);
  MPI_Comm all;
  MPI_Comm_dup(MPI_COMM_WORLD, &all);
  std::vector<int> everyone(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) everyone[static_cast<size_t>(r)] = r;
  world->all_ = std::make_unique<MpiGroup>(*world, all, -1, everyone);
  for (size_t a = 0; a < mesh.axes.size(); ++a) {
    std::vector<int> ranks = mesh.axis_group_ranks(rank, a);
    MPI_Comm comm;
    // Colour: the group's first rank; key: the coordinate, so group rank = coordinate.
    MPI_Comm_split(MPI_COMM_WORLD, ranks[0], mesh.coords(rank)[a], &comm);
    world->axes_.push_back(std::make_unique<MpiGroup>(*world, comm, static_cast<int>(a), std::move(ranks)));
  }
  return std::unique_ptr<World>(std::move(world));
}

}  // namespace mlc::rt
