// What the tests of both communicators (local: tests/runtime/comm_local_test.cc;
// MPI: tests/runtime/comm_mpi_main.cc) check on a World: every collective on
// every reducible dtype and op, on all() and every axis group, compared bit
// for bit with a rank-order reference written independently of runtime/comm.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/half.h"

namespace mlc::rt::comm_test {

inline MeshShape mesh_of(std::vector<std::pair<std::string, int>> axes) {
  MeshShape m;
  for (auto& [name, size] : axes) {
    m.axes.push_back(name);
    m.sizes.push_back(size);
  }
  return m;
}

// Every group a rank belongs to: all(), then each axis group.
inline std::vector<Group*> groups_of(World& w) {
  std::vector<Group*> groups{&w.all()};
  for (size_t a = 0; a < w.mesh().axes.size(); ++a) groups.push_back(&w.axis_group(a));
  return groups;
}

// Bytes of `count` elements of `dtype` that differ per (seed, i): random
// values whose sums round differently in different orders.
inline std::vector<std::byte> values(DType dtype, int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> real(-100.0, 100.0);
  std::uniform_int_distribution<int64_t> integer(-1000000, 1000000);
  std::vector<std::byte> bytes(static_cast<size_t>(count * dtype_size(dtype)));
  for (int64_t i = 0; i < count; ++i) {
    std::byte* p = bytes.data() + i * dtype_size(dtype);
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof v); };
    switch (dtype) {
      case DType::f32: put(static_cast<float>(real(rng)) * (i % 3 == 0 ? 1e-6f : 1.0f)); break;
      case DType::f64: put(real(rng) * (i % 3 == 0 ? 1e-12 : 1.0)); break;
      case DType::bf16: put(bf16::from_double(real(rng))); break;
      case DType::f16: put(f16::from_double(real(rng))); break;
      case DType::i32: put(static_cast<int32_t>(integer(rng))); break;
      case DType::i64: put(integer(rng) * (int64_t{1} << 30)); break;
      case DType::boolean: break;
    }
  }
  return bytes;
}

// The reference: parts folded left to right, written independently of
// runtime/comm (halves in float, rounded once).
inline std::vector<std::byte> reference(const std::vector<std::vector<std::byte>>& parts, DType dtype, ReduceOp op) {
  const int64_t count = static_cast<int64_t>(parts[0].size()) / dtype_size(dtype);
  std::vector<std::byte> out(parts[0].size());
  auto fold = [&](auto tag, auto to, auto from) {
    using S = decltype(tag);
    for (int64_t i = 0; i < count; ++i) {
      S s;
      std::memcpy(&s, parts[0].data() + i * sizeof(S), sizeof(S));
      auto acc = to(s);
      for (size_t k = 1; k < parts.size(); ++k) {
        std::memcpy(&s, parts[k].data() + i * sizeof(S), sizeof(S));
        auto x = to(s);
        if (op == ReduceOp::sum) acc = acc + x;
        else acc = acc >= x ? acc : x;
      }
      S r = from(acc);
      std::memcpy(out.data() + i * sizeof(S), &r, sizeof(S));
    }
  };
  auto same = [](auto v) { return v; };
  switch (dtype) {
    case DType::f32: fold(float{}, same, same); break;
    case DType::f64: fold(double{}, same, same); break;
    case DType::i32: fold(int32_t{}, [](int32_t v) { return int64_t{v}; }, [](int64_t v) { return int32_t(v); }); break;
    case DType::i64: fold(int64_t{}, same, same); break;
    case DType::bf16: fold(bf16{}, [](bf16 h) { return h.to_float(); }, [](float f) { return bf16::from_float(f); }); break;
    case DType::f16: fold(f16{}, [](f16 h) { return h.to_float(); }, [](float f) { return f16::from_float(f); }); break;
    case DType::boolean: break;
  }
  return out;
}

constexpr DType kReducible[] = {DType::f32, DType::f64, DType::bf16, DType::f16, DType::i32, DType::i64};
constexpr ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::max};

// Seed of the contribution of world rank w to a collective numbered `call`.
inline uint32_t seed(int world_rank, int call) { return static_cast<uint32_t>(world_rank * 7919 + call * 104729 + 1); }


// all_reduce and reduce_scatter on every dtype, op and group of `w`, with
// counts that do and do not divide among the ranks.
inline Status check_reductions(World& w) {
  int call = 0;
  for (Group* g : groups_of(w)) {
    const int n = g->size();
    for (DType dtype : kReducible) {
      for (ReduceOp op : kOps) {
        for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{37}}) {
          ++call;
          std::vector<std::vector<std::byte>> parts;
          for (int r = 0; r < n; ++r) parts.push_back(values(dtype, count * n, seed(g->world_rank(r), call)));
          const auto expected = reference(parts, dtype, op);
          std::string what = w.mesh().to_string() + " " + std::string(dtype_name(dtype)) + " count " +
                             std::to_string(count);
          auto data = parts[static_cast<size_t>(g->rank())];
          MLC_CHECK_OK(g->all_reduce(data.data(), count * n, dtype, op, "all_reduce " + what));
          EXPECT_EQ(data, expected) << what;
          const int64_t chunk = count * dtype_size(dtype);
          std::vector<std::byte> out(static_cast<size_t>(chunk));
          MLC_CHECK_OK(g->reduce_scatter(parts[static_cast<size_t>(g->rank())].data(), out.data(), count, dtype, op,
                                         "reduce_scatter " + what));
          EXPECT_TRUE(std::equal(out.begin(), out.end(), expected.begin() + g->rank() * chunk)) << what;
        }
      }
    }
  }
  return Status{};
}

// all_gather, all_to_all, broadcast from every root and barrier on every group of `w`.
inline Status check_data_movement(World& w) {
  for (Group* g : groups_of(w)) {
    const int n = g->size(), me = g->rank();
    // Byte j of rank r's chunk for rank d: a pattern of (r, d, j).
    auto pattern = [](int r, int d, int j) { return static_cast<std::byte>(r * 31 + d * 7 + j); };
    for (int64_t bytes : {int64_t{0}, int64_t{1}, int64_t{13}}) {
      std::vector<std::byte> in(static_cast<size_t>(bytes)), out(static_cast<size_t>(bytes * n));
      for (int j = 0; j < bytes; ++j) in[j] = pattern(me, 0, j);
      MLC_CHECK_OK(g->all_gather(in.data(), out.data(), bytes, "gather"));
      for (int r = 0; r < n; ++r)
        for (int j = 0; j < bytes; ++j) EXPECT_EQ(out[r * bytes + j], pattern(r, 0, j));

      std::vector<std::byte> send(static_cast<size_t>(bytes * n)), got(static_cast<size_t>(bytes * n));
      for (int d = 0; d < n; ++d)
        for (int j = 0; j < bytes; ++j) send[d * bytes + j] = pattern(me, d, j);
      MLC_CHECK_OK(g->all_to_all(send.data(), got.data(), bytes, "all_to_all"));
      for (int r = 0; r < n; ++r)
        for (int j = 0; j < bytes; ++j) EXPECT_EQ(got[r * bytes + j], pattern(r, me, j));

      for (int root = 0; root < n; ++root) {
        std::vector<std::byte> data(static_cast<size_t>(bytes));
        for (int j = 0; j < bytes; ++j) data[j] = pattern(me, root, j);
        MLC_CHECK_OK(g->broadcast(data.data(), bytes, root, "broadcast"));
        for (int j = 0; j < bytes; ++j) EXPECT_EQ(data[j], pattern(root, root, j));
      }
    }
    MLC_CHECK_OK(g->barrier("barrier"));
  }
  return Status{};
}

// `calls` all_reduces of random f32 over all(), each after a random delay on
// some ranks: every result must be the rank-order reference.
inline Status check_sums_under_random_delays(World& w, int calls, uint32_t run) {
  std::mt19937 rng(static_cast<uint32_t>(w.rank()) + 100 * run);
  const int n = w.size();
  for (int call = 0; call < calls; ++call) {
    if (rng() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
    std::vector<std::vector<std::byte>> parts;
    for (int r = 0; r < n; ++r) parts.push_back(values(DType::f32, 64, seed(r, call)));
    auto data = parts[static_cast<size_t>(w.rank())];
    MLC_CHECK_OK(w.all().all_reduce(data.data(), 64, DType::f32, ReduceOp::sum, "stress"));
    if (data != reference(parts, DType::f32, ReduceOp::sum)) return make_error("differs at call " + std::to_string(call));
  }
  return Status{};
}

// Every rank sends 50 messages of varying sizes to the next rank of all(),
// then receives the previous rank's: in order, and without deadlock (sends
// are eager).
inline Status check_send_recv_ring(World& w) {
  Group& g = w.all();
  const int n = g.size(), next = (g.rank() + 1) % n, prev = (g.rank() + n - 1) % n;
  for (int i = 0; i < 50; ++i) {
    std::vector<int32_t> msg(static_cast<size_t>(i % 5 + 1), g.rank() * 1000 + i);
    MLC_CHECK_OK(g.send(msg.data(), static_cast<int64_t>(msg.size() * 4), next, "send"));
  }
  for (int i = 0; i < 50; ++i) {
    std::vector<int32_t> msg(static_cast<size_t>(i % 5 + 1));
    MLC_CHECK_OK(g.recv(msg.data(), static_cast<int64_t>(msg.size() * 4), prev, "recv"));
    for (int32_t v : msg)
      if (v != prev * 1000 + i) return make_error("out of order: " + std::to_string(v));
  }
  return Status{};
}

}  // namespace mlc::rt::comm_test
