// The sharding pass (passes/sharding.h) and its rules (passes/sharding_rules.h).
//
//  - Every rule is checked by computation: each S/P signature of every op of
//    the examples' train steps, on two devices, run with the reference kernels
//    on the devices' parts, must reassemble into the op's result.
//  - Equivalence (docs/architecture.md, Parallelism): each example's train step, sharded for DP,
//    ZeRO-1, FSDP and HSDP and run on local ranks by the interpreter, gives
//    every device the local part of what the unsharded step gives, for three
//    steps in a row.
//  - The collectives the pass inserts for DP, ZeRO-1 and FSDP are pinned.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/op_table.h"
#include "ir/parser.h"
#include "ir/verifier.h"
#include "passes/sharding.h"
#include "passes/sharding_rules.h"
#include "runtime/comm/local.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernels.h"
#include "runtime/tensor_chunks.h"

namespace mlc {
namespace {

ModelFile example_model(const std::string& name) {
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + name + ".json");
  EXPECT_TRUE(model.ok()) << model.error().message;
  return std::move(*model);
}

Module example_pipeline(const std::string& name) {
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + name + ".json");
  EXPECT_TRUE(model.ok()) << model.error().message;
  auto built = model->build(model->config().train.batch_size);
  EXPECT_TRUE(built.ok()) << built.error().message;
  Module m = std::move(*built);
  PassPipelineOptions o;
  o.optimizer = model->config().train.optimizer;
  Status st = run_pass_pipeline(m, o, "canonicalize");
  EXPECT_TRUE(st.ok()) << st.error().message;
  return m;
}

// This device's part of a replicated or sharded global tensor: chunks nest in
// mesh-axis order.
rt::Tensor local_part(const rt::Tensor& global, const Placements& p, const Mesh& mesh, const std::vector<int>& coords) {
  rt::Tensor t = global;
  for (size_t a = 0; a < p.size(); ++a)
    if (p[a].is_sharded()) t = rt::chunk_of(t, p[a].dim, mesh.axes[a].size, coords[a]);
  return t;
}

bool same_bits(const rt::Tensor& a, const rt::Tensor& b) {
  return a.type() == b.type() && std::memcmp(a.bytes(), b.bytes(), static_cast<size_t>(a.num_bytes())) == 0;
}

// ---- the rules, by computation

// Small integers (exact in every linear op), valid indices (0 or 1) for integers.
rt::Tensor small_values(const TensorType& type, std::mt19937& rng) {
  rt::Tensor t(type);
  std::uniform_int_distribution<int> v(-3, 3), i(0, 1);
  for (int64_t k = 0; k < t.num_elements(); ++k) switch (type.dtype) {
      case DType::f32: t.data<float>()[k] = static_cast<float>(v(rng)); break;
      case DType::f64: t.data<double>()[k] = v(rng); break;
      case DType::i64: t.data<int64_t>()[k] = i(rng); break;
      case DType::i32: t.data<int32_t>()[k] = i(rng); break;
      case DType::boolean: t.data<bool>()[k] = i(rng) != 0; break;
      default: break;
    }
  return t;
}

// n parts of a tensor that sum to it: n - 1 small random tensors and the rest.
std::vector<rt::Tensor> split_sum(const rt::Tensor& x, int n, std::mt19937& rng) {
  std::vector<rt::Tensor> parts;
  rt::Tensor rest = x;
  for (int p = 1; p < n; ++p) {
    rt::Tensor r = small_values(x.type(), rng);
    for (int64_t k = 0; k < x.num_elements(); ++k) {
      if (x.dtype() == DType::f32) rest.data<float>()[k] -= r.data<float>()[k];
      if (x.dtype() == DType::f64) rest.data<double>()[k] -= r.data<double>()[k];
      if (x.dtype() == DType::i64) rest.data<int64_t>()[k] -= r.data<int64_t>()[k];
      if (x.dtype() == DType::i32) rest.data<int32_t>()[k] -= r.data<int32_t>()[k];
    }
    parts.push_back(std::move(r));
  }
  parts.insert(parts.begin(), std::move(rest));
  return parts;
}

double element(const rt::Tensor& t, int64_t k) {
  switch (t.dtype()) {
    case DType::f32: return t.data<float>()[k];
    case DType::f64: return t.data<double>()[k];
    case DType::i64: return static_cast<double>(t.data<int64_t>()[k]);
    case DType::i32: return t.data<int32_t>()[k];
    default: return std::nan("");
  }
}

// Checks every S/P signature of `op` on an axis of n devices; returns how many ran.
int check_signatures(const Op& op, int n, std::mt19937& rng) {
  const Mesh mesh{{{"x", n}}};
  std::vector<rt::Tensor> global;
  for (const Value* v : op.operands) global.push_back(small_values(v->type, rng));
  if (op.code == OpCode::Div && global[1].dtype() == DType::i64)  // integer divisors: 1, not 0
    for (int64_t k = 0; k < global[1].num_elements(); ++k) global[1].data<int64_t>()[k] = 1;
  std::vector<const rt::Tensor*> ptrs;
  for (const rt::Tensor& t : global) ptrs.push_back(&t);
  const TensorType& rt_type = op.result()->type;
  auto want = rt::eval_op(op.code, ptrs, op.attrs, rt_type);
  EXPECT_TRUE(want.ok()) << want.error().message;
  if (!want.ok()) return 0;
  int ran = 0;
  std::vector<ShardingSignature> sigs = sharding_signatures(op);
  // The first signature is all-replicated: every op accepts it.
  EXPECT_EQ(sigs.front().operands, std::vector<Placement>(op.operands.size()));
  EXPECT_EQ(sigs.front().results, std::vector<Placement>(op.results.size()));
  for (size_t k = 1; k < sigs.size(); ++k) {
    const ShardingSignature& s = sigs[k];
    SCOPED_TRACE("signature #" + std::to_string(k) + " result " + s.results[0].str() + " on " +
                 std::to_string(n) + " devices");
    bool fits = static_cast<bool>(local_shape(rt_type.shape, {s.results[0]}, mesh));
    for (size_t i = 0; i < op.operands.size(); ++i) fits = fits && local_shape(global[i].shape(), {s.operands[i]}, mesh);
    if (!fits) continue;
    TensorType local_type{rt_type.dtype, *local_shape(rt_type.shape, {s.results[0]}, mesh)};
    std::vector<std::vector<rt::Tensor>> parts(static_cast<size_t>(n));
    for (size_t i = 0; i < op.operands.size(); ++i) {
      std::vector<rt::Tensor> split;
      if (s.operands[i].is_partial()) split = split_sum(global[i], n, rng);
      for (int dev = 0; dev < n; ++dev)
        parts[dev].push_back(s.operands[i].is_partial() ? split[dev]
                                                        : local_part(global[i], {s.operands[i]}, mesh, {dev}));
    }
    std::vector<rt::Tensor> got;
    for (int dev = 0; dev < n; ++dev) {
      std::vector<const rt::Tensor*> p;
      for (const rt::Tensor& t : parts[dev]) p.push_back(&t);
      auto r = rt::eval_op(op.code, p, op.attrs, local_type);
      EXPECT_TRUE(r.ok()) << r.error().message;
      if (!r.ok()) return ran;
      got.push_back(std::move(*r));
    }
    ++ran;
    const Placement out = s.results[0];
    for (int64_t e = 0; out.is_partial() && e < want->num_elements(); ++e) {
      const double w = element(*want, e);
      double sum = 0, magnitude = std::fabs(w), max = -INFINITY;
      for (const rt::Tensor& g : got) {
        sum += element(g, e);
        magnitude += std::fabs(element(g, e));
        max = std::max(max, element(g, e));
      }
      if (out.kind == Placement::Kind::partial_max) {
        EXPECT_EQ(max, w) << "element " << e;  // a maximum of the parts' maxima is exact
        continue;
      }
      // Small integers: the parts add up exactly, except through a division,
      // which rounds each quotient (f32: within 2 ulps of the sum's
      // magnitudes), and where a divisor is 0 (the parts' infinities may sum
      // to NaN: not compared).
      if (std::isfinite(w))
        EXPECT_NEAR(sum, w, op.code == OpCode::Div ? 2.4e-7 * magnitude : 0) << "element " << e;
    }
    if (!out.is_partial())
      for (int dev = 0; dev < n; ++dev)
        EXPECT_TRUE(same_bits(got[dev], local_part(*want, {out}, mesh, {dev}))) << "device " << dev;
  }
  return ran;
}

TEST(ShardingRules, EverySignatureReassemblesTheOpsResult) {
  std::mt19937 rng(7);
  std::set<OpCode> seen;
  int signatures = 0;
  for (const char* example : {"digits_mlp", "digits_cnn", "tiny_gpt", "tiny_gpt with its tensor-parallel plan"}) {
    const bool tp = std::string_view(example).ends_with("plan");
    const std::string name = tp ? "tiny_gpt" : example;
    Module m = example_pipeline(name);
    if (tp) {  // the vocabulary-parallel rewrite's ops
      ShardingPlan plan{*Mesh::parse("tp=2")};
      const ModelFile model = example_model(name);
      ASSERT_TRUE(apply_tensor_parallel(*m.find("train_step"), {model.config().parallel.tensor_parallel}, plan).ok());
    }
    for (const auto& op : m.find("train_step")->ops) {
      SCOPED_TRACE(std::string(example) + ": " + std::string(op_name(op->code)) + " at " + op->loc.str());
      for (int n : {2, 4}) signatures += check_signatures(*op, n, rng);
      seen.insert(op->code);
    }
  }
  // The examples' train steps reach 30+ op kinds; ops and signatures they do
  // not use are not exercised here.
  EXPECT_GT(signatures, 1500);
  EXPECT_GE(seen.size(), 30u);
}

// The rules' check of SPMD programs: it accepts what the pass makes (every
// ShardedEquivalence case checks it too) and names the op and axis of a
// placement no rule allows.
TEST(ShardingRules, CheckNamesAnOpWhosePlacementsNoRuleAllows) {
  const char* text = R"(module @m attributes {mesh = "tp=2"} {
  func @f(%x: f32[4,4]<S(1)> {input}, %w: f32[4,6]<S(0)> {input}) -> (f32[4,6]<R>) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = false} : f32[4,6]<R> loc("m.json":3:5)
    return %0
  }
}
)";
  auto m = parse_module(text, "s.mlir");
  ASSERT_TRUE(m.ok()) << m.error().message;
  Status st = check_sharding_rules(*m->find("f"), m->mesh());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "m.json:3:5: error: sharding rules: dot on axis 'tp' has (S(1), S(0)) -> R, which its rule does not allow");
  // The partial sum it is: allowed.
  std::string partial = text;
  for (size_t at; (at = partial.find("f32[4,6]<R>")) != std::string::npos;) partial.replace(at, 11, "f32[4,6]<P>");
  auto ok = parse_module(partial, "s.mlir");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_TRUE(check_sharding_rules(*ok->find("f"), ok->mesh()).ok());
}

TEST(ShardingRules, EveryOpHasARuleKind) {
  for (const OpInfo& info : all_ops()) {
    SCOPED_TRACE(std::string(info.name));
    ShardingRuleKind kind = sharding_rule_kind(info.code);
    EXPECT_NE(sharding_rule_kind_name(kind), "?");
    if (info.is_composite() || info.has(kFused)) EXPECT_EQ(kind, ShardingRuleKind::decomposed);
    if (info.has(kCollective)) EXPECT_EQ(kind, ShardingRuleKind::collective);
  }
}

// ---- the pass

std::string collectives_of(const Function& f) {
  std::string s;
  for (const auto& op : f.ops)
    if (op_info(op->code).has(kCollective))
      s += std::string(op_name(op->code)) + " " + op->result()->type.str() + placements_str(op->result()->placements) + "\n";
  return s;
}

Expected<ShardedFunction> shard_example(const Module& m, const std::string& fn, const char* mesh, int zero) {
  const Function& f = *m.find(fn);
  MLC_TRY(ShardingPlan plan, data_parallel_plan(f, *Mesh::parse(mesh), zero));
  return shard_function(f, plan);
}

// With the example's tensor-parallel plan (on the mesh's tp axis), in `m`
// (which it rewrites: vocabulary-parallel embeddings).
Expected<ShardedFunction> shard_example_tp(Module& m, const std::string& example, const std::string& fn,
                                           const char* mesh, int zero, bool sequence_parallel) {
  Function& f = *m.find(fn);
  MLC_TRY(ShardingPlan plan, data_parallel_plan(f, *Mesh::parse(mesh), zero));
  const ModelFile model = example_model(example);
  const ParallelConfig& section = model.config().parallel;
  MLC_CHECK_OK(apply_tensor_parallel(f, {section.tensor_parallel, sequence_parallel}, plan));
  return shard_function(f, plan);
}

TEST(ShardingPass, DataParallelAllReducesEachGradientOnce) {
  Module m = example_pipeline("digits_mlp");
  auto dp = shard_example(m, "train_step", "dp=2", 0);
  ASSERT_TRUE(dp.ok()) << dp.error().message;
  EXPECT_EQ(collectives_of(*dp->function),
            "all_reduce f32[128,64]<R>\nall_reduce f32[128]<R>\nall_reduce f32[10,128]<R>\nall_reduce f32[10]<R>\n"
            "all_reduce f32[]<R>\n");
  auto zero1 = shard_example(m, "train_step", "dp=2", 1);
  ASSERT_TRUE(zero1.ok());
  EXPECT_EQ(collectives_of(*zero1->function),
            "reduce_scatter f32[64,64]<S(0)>\nall_gather f32[128,64]<R>\nreduce_scatter f32[64]<S(0)>\n"
            "all_gather f32[128]<R>\nreduce_scatter f32[5,128]<S(0)>\nall_gather f32[10,128]<R>\n"
            "reduce_scatter f32[5]<S(0)>\nall_gather f32[10]<R>\nall_reduce f32[]<R>\n");
  auto fsdp = shard_example(m, "train_step", "dp=2", 3);
  ASSERT_TRUE(fsdp.ok());
  EXPECT_EQ(collectives_of(*fsdp->function),
            "all_gather f32[128,64]<R>\nall_gather f32[128]<R>\nall_gather f32[10,128]<R>\nall_gather f32[10]<R>\n"
            "all_gather f32[10,128]<R>\nreduce_scatter f32[64,64]<S(0)>\nreduce_scatter f32[64]<S(0)>\n"
            "reduce_scatter f32[5,128]<S(0)>\nreduce_scatter f32[5]<S(0)>\nall_reduce f32[]<R>\n");
  // The ledger explains each: the first FSDP gather is fc1's weight for its forward dot.
  ASSERT_FALSE(fsdp->ledger.empty());
  const LedgerEntry& e = fsdp->ledger.front();
  EXPECT_EQ(e.collective, "all_gather");
  EXPECT_EQ(e.value, "%fc1.weight");
  const std::string consumer_end = "examples/digits_mlp.json:11:14 (fc1)";
  EXPECT_EQ(e.consumer.substr(0, 7), "dot at ");
  EXPECT_EQ(e.consumer.substr(e.consumer.size() - consumer_end.size()), consumer_end);
  EXPECT_EQ(placements_str(e.from) + " -> " + placements_str(e.to), "<S(0)> -> <R>");
  EXPECT_EQ(e.bytes, 64 * 64 * 4);
}

// tiny_gpt's tensor-parallel plan gives Megatron's program: no weight ever
// moves; each rowwise layer (and the vocabulary-parallel embedding) sums its
// output once in forward, each colwise layer's input gradient once in
// backward; the loss reduces a max and sums over the vocabulary shards.
// Embedding gradients too: scatter_add into zeros made as a partial sum
// (a zero constant is placed anywhere for free), so tiny_gpt's data-parallel
// step has one all_reduce per gradient plus the loss's, and nothing else.
TEST(ShardingPass, DataParallelTinyGptReducesEachGradientOnce) {
  Module m = example_pipeline("tiny_gpt");
  auto dp = shard_example(m, "train_step", "dp=2", 0);
  ASSERT_TRUE(dp.ok()) << dp.error().message;
  int all_reduces = 0, others = 0;
  for (const auto& op : dp->function->ops)
    if (op_info(op->code).has(kCollective)) (op->code == OpCode::AllReduce ? all_reduces : others)++;
  EXPECT_EQ(all_reduces, 22 + 1);
  EXPECT_EQ(others, 0);
}

TEST(ShardingPass, TensorParallelPlanIsMegatrons) {
  Module m = example_pipeline("tiny_gpt");
  auto tp = shard_example_tp(m, "tiny_gpt", "train_step", "tp=2", 0, false);
  ASSERT_TRUE(tp.ok()) << tp.error().message;
  std::map<std::string, int> count;
  for (const auto& op : tp->function->ops)
    if (op_info(op->code).has(kCollective))
      ++count[std::string(op_name(op->code)) + (op->code == OpCode::AllReduce ? "/" + op->attrs.get_string("reduce") : "") +
              " " + op->result()->type.str()];
  EXPECT_EQ(count["all_reduce/sum f32[16,32,64]"], 10);  // 5 outputs in forward, 5 input gradients
  EXPECT_EQ(count["all_reduce/max f32[16,32,1]"], 1);    // the loss's max over the vocabulary
  EXPECT_EQ(count["all_gather f32[64,64]"] + count["all_gather f32[128,64]"] + count["all_gather f32[64,128]"], 0);
  for (const LedgerEntry& e : tp->ledger)
    EXPECT_TRUE(e.value.find(".weight") == std::string::npos || e.value[0] != '%') << "moves " << e.value;
  // With sequence parallelism the layer outputs are reduce-scattered over the
  // sequence and gathered again before the next colwise layer.
  Module m2 = example_pipeline("tiny_gpt");
  auto sp = shard_example_tp(m2, "tiny_gpt", "train_step", "tp=2", 0, true);
  ASSERT_TRUE(sp.ok()) << sp.error().message;
  int scatters = 0, gathers = 0;
  for (const auto& op : sp->function->ops) {
    scatters += op->code == OpCode::ReduceScatter && op->attrs.get_int("dim") == 1;
    gathers += op->code == OpCode::AllGather && op->attrs.get_int("dim") == 1 &&
               op->result()->type.shape == Shape{16, 32, 64};
  }
  EXPECT_EQ(scatters, 5);
  EXPECT_GE(gathers, 5);
}

TEST(ShardingPass, OutputVerifiesAndRoundTrips) {
  Module m = example_pipeline("tiny_gpt");
  m.set_mesh(*Mesh::parse("dp=2"));
  PassPipelineOptions o;
  auto pass = create_pass("sharding");
  ASSERT_TRUE(pass->set_option("zero", "3").ok());
  auto changed = pass->run(m);
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_TRUE(*changed);
  Status st = verify_module(m);
  EXPECT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(pass->set_option("zero", "4").error().message,
            "error: pass 'sharding' option 'zero' takes an integer in [0, 3], got '4'");
}

TEST(ShardingPass, ShapesThatDoNotDivideAreErrorsNamingTheArgument) {
  Module m = example_pipeline("digits_mlp");
  auto r = shard_example(m, "train_step", "dp=3", 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "error: sharding: argument 'x' (f32[32,1,8,8]) cannot be placed <S(0)> on mesh dp=3: dim 0 of "
            "[32,1,8,8] (32) does not divide by 3 (sharded over dp=3)");
}

// ---- equivalence with the unsharded step

// Arguments of a train step: floats in [-0.5, 0.5) (optimizer state in [0,
// 0.5): Adam's second moments are not negative), indices in [0, 10), step 1.
// Integer inputs are drawn from [0, int_bound): class labels, token ids.
std::vector<rt::Tensor> step_arguments(const Function& f, int64_t int_bound) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-0.5f, 0.5f);
  std::vector<rt::Tensor> args;
  for (size_t i = 0; i < f.args.size(); ++i) {
    rt::Tensor t(f.args[i]->type);
    for (int64_t k = 0; k < t.num_elements(); ++k) {
      if (t.dtype() == DType::f32)
        t.data<float>()[k] = f.arg_kinds[i] == ArgKind::state ? std::fabs(value(rng)) : value(rng);
      if (t.dtype() == DType::i64) t.data<int64_t>()[k] = f.arg_kinds[i] == ArgKind::step ? 1 : static_cast<int64_t>(rng() % static_cast<uint64_t>(int_bound));
    }
    args.push_back(std::move(t));
  }
  return args;
}

struct MeshCase {
  const char* example;
  const char* mesh;
  int zero;
  bool tensor_parallel = false;  // the example's "parallel" plan on the tp axis
  bool sequence_parallel = false;
  int64_t int_bound = 10;  // integer inputs: digits' classes; tiny_gpt's vocabulary is 64
};

class ShardedEquivalence : public ::testing::TestWithParam<MeshCase> {};

TEST_P(ShardedEquivalence, EveryDeviceComputesItsPartOfTheUnshardedStep) {
  const MeshCase& c = GetParam();
  Module m = example_pipeline(c.example);
  const Function& global = *m.find("train_step");
  Module rewritten = example_pipeline(c.example);
  auto sharded = c.tensor_parallel
                     ? shard_example_tp(rewritten, c.example, "train_step", c.mesh, c.zero, c.sequence_parallel)
                     : shard_example(m, "train_step", c.mesh, c.zero);
  ASSERT_TRUE(sharded.ok()) << sharded.error().message;
  const Function& local = *sharded->function;
  const Mesh mesh = *Mesh::parse(c.mesh);
  Status rules = check_sharding_rules(local, mesh);
  EXPECT_TRUE(rules.ok()) << rules.error().message;
  constexpr int kSteps = 3;

  // Unsharded: three steps, feeding updates back.
  auto interp = rt::Interpreter::create(global);
  ASSERT_TRUE(interp.ok());
  std::vector<rt::Tensor> args = step_arguments(global, c.int_bound);
  const std::vector<rt::Tensor> first_args = args;
  std::vector<std::vector<rt::Tensor>> want;  // results per step
  for (int s = 0; s < kSteps; ++s) {
    auto r = interp->run(args);
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (size_t k = 0; k < r->size(); ++k)
      if (global.updated_arg(k) >= 0) args[global.updated_arg(k)] = (*r)[k];
    want.push_back(std::move(*r));
  }

  // Sharded, on local ranks.
  rt::MeshShape shape;
  for (const MeshAxis& a : mesh.axes) {
    shape.axes.push_back(a.name);
    shape.sizes.push_back(static_cast<int>(a.size));
  }
  std::vector<std::vector<std::vector<rt::Tensor>>> got(static_cast<size_t>(mesh.num_devices()));
  auto local_interp = rt::Interpreter::create(local);
  ASSERT_TRUE(local_interp.ok()) << local_interp.error().message;
  std::vector<Status> statuses = rt::run_local_ranks(shape, {}, [&](rt::World& w) -> Status {
    std::vector<int> coords = w.mesh().coords(w.rank());
    std::vector<rt::Tensor> mine;
    for (size_t i = 0; i < local.args.size(); ++i)
      mine.push_back(local_part(first_args[i], local.args[i]->placements, mesh, coords));
    for (int s = 0; s < kSteps; ++s) {
      MLC_TRY(std::vector<rt::Tensor> r, local_interp->run(mine, &w));
      for (size_t k = 0; k < r.size(); ++k)
        if (local.updated_arg(k) >= 0) mine[local.updated_arg(k)] = r[k];
      got[w.rank()].push_back(std::move(r));
    }
    return {};
  });
  for (const Status& st : statuses) ASSERT_TRUE(st.ok()) << st.error().message;

  // Each device's results are its part of the unsharded results. Sums over the
  // batch are taken in two halves and added, so f32 results differ by rounding
  // only: the reference kernels sum in f64 and round once, so each half and
  // the whole are within half an ulp of exact, and the difference of the two
  // orders is a few ulps per step; 1e-6 relative (8 ulps at 2^-23) over three
  // steps, plus 1e-7 absolute for values near zero.
  double worst = 0;
  for (int s = 0; s < kSteps; ++s)
    for (int64_t dev = 0; dev < mesh.num_devices(); ++dev) {
      std::vector<int> coords = shape.coords(static_cast<int>(dev));
      for (size_t k = 0; k < local.results.size(); ++k) {
        rt::Tensor expect = local_part(want[s][k], local.results[k]->placements, mesh, coords);
        const rt::Tensor& have = got[dev][s][k];
        ASSERT_EQ(have.type(), expect.type()) << "result " << k;
        if (expect.dtype() != DType::f32) {
          EXPECT_TRUE(same_bits(have, expect)) << "result " << k;
          continue;
        }
        for (int64_t e = 0; e < expect.num_elements(); ++e) {
          double a = have.data<float>()[e], b = expect.data<float>()[e];
          worst = std::max(worst, std::fabs(a - b) / (std::fabs(b) + 1e-30));
          ASSERT_LE(std::fabs(a - b), 1e-6 * std::fabs(b) + 1e-7)
              << "step " << s << " device " << dev << " result " << k << " element " << e
              << (local.updated_arg(k) >= 0 ? " (updates %" + local.args[local.updated_arg(k)]->name + ")" : "");
        }
      }
    }
  RecordProperty("worst_relative_difference", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(All, ShardedEquivalence,
                         ::testing::Values(MeshCase{"digits_mlp", "dp=2", 0}, MeshCase{"digits_mlp", "dp=2", 1},
                                           MeshCase{"digits_mlp", "dp=2", 3}, MeshCase{"digits_mlp", "dp=2,fsdp=2", 3},
                                           MeshCase{"digits_cnn", "dp=2", 0}, MeshCase{"digits_cnn", "dp=2", 3},
                                           MeshCase{"tiny_gpt", "dp=2", 0, false, false, 64}, MeshCase{"tiny_gpt", "dp=2", 3, false, false, 64},
                                           MeshCase{"tiny_gpt", "tp=2", 0, true, false, 64},
                                           MeshCase{"tiny_gpt", "tp=2", 0, true, true, 64},
                                           MeshCase{"tiny_gpt", "tp=4", 0, true, false, 64},
                                           MeshCase{"tiny_gpt", "dp=2,tp=2", 0, true, false, 64},
                                           MeshCase{"tiny_gpt", "dp=2,tp=2", 0, true, true, 64},
                                           MeshCase{"tiny_gpt", "tp=2,dp=2", 1, true, false, 64},
                                           MeshCase{"tiny_gpt", "dp=2,tp=2", 3, true, false, 64}),
                         [](const auto& info) {
                           std::string name = std::string(info.param.example) + "_" + info.param.mesh + "_zero" +
                                              std::to_string(info.param.zero) +
                                              (info.param.tensor_parallel ? "_tp" : "") +
                                              (info.param.sequence_parallel ? "_sp" : "");
                           for (char& ch : name)
                             if (ch == '=' || ch == ',') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace mlc
