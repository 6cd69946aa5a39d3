// The collectives and shard_slice run by the interpreter on local ranks
// (runtime/collective_run.h), against values computed here; and their VJP
// rules (passes/vjp_rules.cc, Megatron's conjugate convention) against finite
// differences of the whole SPMD computation. f64 throughout: every op here is
// linear, so central differences are exact up to rounding (tolerance 1e-9).
#include <gtest/gtest.h>

#include <functional>
#include <mutex>

#include "ir/builder.h"
#include "ir/op_table.h"
#include "passes/vjp.h"
#include "runtime/collective_run.h"
#include "runtime/comm/local.h"
#include "runtime/interpreter.h"

namespace mlc::rt {
namespace {

constexpr int kRanks = 2;
const MeshShape kMesh{{"dp"}, {kRanks}};

struct Coll {
  const char* name;
  OpCode code;
  Attrs attrs;
  Shape in, out;
  bool shared_input = false;   // x is replicated: perturb it on every rank at once
  bool replicated_out = false;  // y is replicated: the loss counts it once
};

std::vector<Coll> collectives() {
  auto dp = [](std::initializer_list<NamedAttr> more) {
    Attrs a{{"mesh_axis", std::string("dp")}};
    for (const NamedAttr& n : more) a.set(n.name, n.value);
    return a;
  };
  return {
      {"all_reduce", OpCode::AllReduce, dp({}), {2, 3}, {2, 3}, false, true},
      {"all_gather_dim1", OpCode::AllGather, dp({{"dim", int64_t{1}}}), {2, 3}, {2, 6}, false, true},
      {"all_gather_dim0", OpCode::AllGather, dp({{"dim", int64_t{0}}}), {2, 3}, {4, 3}, false, true},
      {"reduce_scatter_dim1", OpCode::ReduceScatter, dp({{"dim", int64_t{1}}}), {3, 4}, {3, 2}},
      {"all_to_all", OpCode::AllToAll, dp({{"split_dim", int64_t{1}}, {"concat_dim", int64_t{0}}}), {2, 4}, {4, 2}},
      {"shard_slice", OpCode::ShardSlice, dp({{"dim", int64_t{1}}}), {2, 4}, {2, 2}, true},
  };
}

// Rank r's input: distinct values per rank and element (the same on every
// rank for a shared input).
Tensor input(const Coll& c, int rank) {
  Tensor t(TensorType{DType::f64, c.in});
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<double>()[i] = 1 + i + (c.shared_input ? 0 : 100 * rank);
  return t;
}

// y = coll(x) on this rank's communicator.
Expected<Tensor> run_on_rank(const Coll& c, const Tensor& x, World& w) {
  Function f("f");
  Value* arg = f.add_arg("x", {DType::f64, c.in}, ArgKind::input);
  Builder b(f);
  f.results.push_back(b.create(c.code, {arg}, c.attrs, TensorType{DType::f64, c.out}));
  MLC_TRY(Interpreter interp, Interpreter::create(f));
  MLC_TRY(std::vector<Tensor> r, interp.run(std::vector<Tensor>{x}, &w));
  return r[0];
}

Status run_ranks(const std::function<Status(World&)>& body) {
  for (const Status& st : run_local_ranks(kMesh, {}, body))
    if (!st) return st;
  return {};
}

TEST(CollectiveRun, ValuesOnTwoRanks) {
  for (const Coll& c : collectives()) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> out(kRanks);
    Status st = run_ranks([&](World& w) -> Status {
      MLC_TRY(out[w.rank()], run_on_rank(c, input(c, w.rank()), w));
      return {};
    });
    ASSERT_TRUE(st) << st.error().message;
    // Expected values, from the definitions in ir/ops.def.
    for (int r = 0; r < kRanks; ++r) {
      const double* y = out[r].data<double>();
      Tensor x0 = input(c, 0), x1 = input(c, 1), xr = input(c, r);
      const double* a = x0.data<double>();
      const double* b = x1.data<double>();
      switch (c.code) {
        case OpCode::AllReduce:
          for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], a[i] + b[i]);
          break;
        case OpCode::AllGather:
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) {
              bool dim1 = c.out[1] == 6;
              EXPECT_EQ(dim1 ? y[i * 6 + j] : y[i * 3 + j], a[i * 3 + j]);
              EXPECT_EQ(dim1 ? y[i * 6 + 3 + j] : y[(2 + i) * 3 + j], b[i * 3 + j]);
            }
          break;
        case OpCode::ReduceScatter:
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j) EXPECT_EQ(y[i * 2 + j], a[i * 4 + 2 * r + j] + b[i * 4 + 2 * r + j]);
          break;
        case OpCode::AllToAll:  // chunk r (columns 2r, 2r+1) of each rank s, stacked along rows by s
          for (int s = 0; s < kRanks; ++s)
            for (int i = 0; i < 2; ++i)
              for (int j = 0; j < 2; ++j) EXPECT_EQ(y[(2 * s + i) * 2 + j], (s ? b : a)[i * 4 + 2 * r + j]);
          break;
        case OpCode::ShardSlice:
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) EXPECT_EQ(y[i * 2 + j], xr.data<double>()[i * 4 + 2 * r + j]);
          break;
        default:
          FAIL();
      }
    }
  }
}

// The loss of the SPMD computation y_r = coll(x_r): sum(w * y) once when y is
// replicated, else sum over ranks of sum(w_r * y_r), with w_r fixed weights.
double weight(int rank, int64_t i) { return 0.5 + 0.25 * static_cast<double>(i) - 0.75 * rank; }

Expected<double> spmd_loss(const Coll& c, const std::vector<Tensor>& xs) {
  std::vector<double> partial(kRanks, 0.0);
  Status st = run_ranks([&](World& w) -> Status {
    MLC_TRY(Tensor y, run_on_rank(c, xs[w.rank()], w));
    for (int64_t i = 0; i < y.num_elements(); ++i)
      partial[w.rank()] += weight(c.replicated_out ? 0 : w.rank(), i) * y.data<double>()[i];
    return {};
  });
  if (!st) return st.error();
  return c.replicated_out ? partial[0] : partial[0] + partial[1];
}

TEST(CollectiveVjp, MatchesFiniteDifferencesOfTheSpmdLoss) {
  for (const Coll& c : collectives()) {
    SCOPED_TRACE(c.name);
    // dx on every rank from the VJP rule, with dy = the loss's weights.
    std::vector<Tensor> dx(kRanks);
    Status st = run_ranks([&](World& w) -> Status {
      Function f("vjp");
      Value* x = f.add_arg("x", {DType::f64, c.in}, ArgKind::input);
      Value* dy = f.add_arg("dy", {DType::f64, c.out}, ArgKind::input);
      Builder b(f);
      Value* y = b.create(c.code, {x}, c.attrs, TensorType{DType::f64, c.out});
      std::vector<Value*> grads(1, nullptr);
      vjp_rule(c.code).fn(b, *y->producer, dy, grads);
      f.results.push_back(grads[0]);
      Tensor dyt(TensorType{DType::f64, c.out});
      for (int64_t i = 0; i < dyt.num_elements(); ++i) dyt.data<double>()[i] = weight(c.replicated_out ? 0 : w.rank(), i);
      MLC_TRY(Interpreter interp, Interpreter::create(f));
      MLC_TRY(std::vector<Tensor> r, interp.run(std::vector<Tensor>{input(c, w.rank()), dyt}, &w));
      dx[w.rank()] = r[0];
      return {};
    });
    ASSERT_TRUE(st) << st.error().message;
    const double eps = 0.5;
    for (int s = 0; s < (c.shared_input ? 1 : kRanks); ++s) {
      for (int64_t i = 0; i < num_elements(c.in); ++i) {
        std::vector<Tensor> plus, minus;
        for (int r = 0; r < kRanks; ++r) {
          plus.push_back(input(c, r));
          minus.push_back(input(c, r));
          if (r == s || c.shared_input) {
            plus.back().data<double>()[i] += eps;
            minus.back().data<double>()[i] -= eps;
          }
        }
        auto lp = spmd_loss(c, plus), lm = spmd_loss(c, minus);
        ASSERT_TRUE(lp && lm);
        double numeric = (*lp - *lm) / (2 * eps);
        EXPECT_NEAR(dx[s].data<double>()[i], numeric, 1e-9) << "rank " << s << " element " << i;
        if (c.shared_input)  // one shared x: every rank holds its whole gradient
          EXPECT_EQ(dx[1].data<double>()[i], dx[0].data<double>()[i]);
      }
    }
  }
}

TEST(CollectiveRun, WithoutACommunicatorTheOpSaysSo) {
  Function f("f");
  Value* x = f.add_arg("x", {DType::f32, {4}}, ArgKind::input);
  Builder b(f);
  b.set_loc({"m.json", 3, 5});
  f.results.push_back(b.create(OpCode::AllReduce, {x}, {{"mesh_axis", std::string("dp")}}));
  auto interp = Interpreter::create(f);
  ASSERT_TRUE(interp);
  auto r = interp->run(std::vector<Tensor>{Tensor(TensorType{DType::f32, {4}})});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "m.json:3:5: error: all_reduce: runs only on a device mesh (the program was started without a "
            "communicator)");
}

// A collective instruction's parameters come from a file (an artifact):
// sizes that do not fit the axis's devices are refused before anything
// moves, naming the collective, the axis and what does not fit.
TEST(CollectiveRun, ParametersThatDoNotFitTheGroupAreRefused) {
  CollectiveParams gather;
  gather.kind = CollectiveKind::all_gather;
  gather.axis = "dp";
  gather.dim = 0;
  gather.tag = "all_gather at m.json:3:5";
  CollectiveParams slice = gather;
  slice.kind = CollectiveKind::shard_slice;
  slice.dim = 1;
  slice.tag = "shard_slice at m.json:4:5";
  CollectiveParams send = gather;
  send.kind = CollectiveKind::send;
  send.peer = 2;
  send.tag = "send at m.json:5:5";
  CollectiveParams elsewhere = gather;
  elsewhere.axis = "tp";
  std::vector<std::string> errors(kRanks);
  Status st = run_ranks([&](World& w) -> Status {
    Tensor x(TensorType{DType::f32, {2, 3}});
    Tensor small(TensorType{DType::f32, {3, 3}});  // all_gather over 2 devices gives [4, 3]
    Tensor odd(TensorType{DType::f32, {2, 1}});
    const Tensor* in[] = {&x};
    std::string& e = errors[w.rank()];
    for (const auto& [params, out] : std::vector<std::pair<CollectiveParams, Tensor*>>{
             {gather, &small}, {slice, &odd}, {send, &x}, {elsewhere, &small}}) {
      Status r = run_collective(params, w, in, *out);
      e += (r ? std::string("<ran>") : r.error().message) + "\n";
    }
    return {};
  });
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(errors[0],
            "all_gather at m.json:3:5 on axis 'dp' of 2 devices: operand f32[2,3] and result f32[3,3] do not fit 2 "
            "devices\n"
            "shard_slice at m.json:4:5 on axis 'dp' of 2 devices: dim 1 of f32[2,3] does not split over 2 devices\n"
            "send at m.json:5:5: rank 2 is not a rank of axis 'dp' (2 devices)\n"
            "all_gather: mesh_axis 'tp' is not an axis of the communicator's mesh dp=2\n");
  EXPECT_EQ(errors[1], errors[0]);
}

// What the executor runs is what the interpreter runs: the parameters
// decoded from each collective op give the same values on every rank.
TEST(CollectiveRun, ParametersDecodedFromTheOpRunAsTheOp) {
  for (const Coll& c : collectives()) {
    SCOPED_TRACE(c.name);
    Status st = run_ranks([&](World& w) -> Status {
      Function f("f");
      Value* arg = f.add_arg("x", {DType::f64, c.in}, ArgKind::input);
      Builder b(f);
      b.set_loc({"m.json", 7, 1});
      Value* y = b.create(c.code, {arg}, c.attrs, TensorType{DType::f64, c.out});
      y->producer->meta.ledger = 4;
      const CollectiveParams p = collective_params(*y->producer);
      EXPECT_EQ(collective_kind_name(p.kind), op_name(c.code));
      EXPECT_EQ(p.ledger, 4);
      EXPECT_EQ(p.tag, std::string(op_name(c.code)) + " at m.json:7:1");
      const Tensor x = input(c, w.rank());
      MLC_TRY(Tensor want, run_on_rank(c, x, w));
      Tensor got(TensorType{DType::f64, c.out});
      const Tensor* in[] = {&x};
      MLC_CHECK_OK(run_collective(p, w, in, got));
      for (int64_t i = 0; i < got.num_elements(); ++i) EXPECT_EQ(got.data<double>()[i], want.data<double>()[i]);
      return {};
    });
    ASSERT_TRUE(st) << st.error().message;
  }
}

}  // namespace
}  // namespace mlc::rt
