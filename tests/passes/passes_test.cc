// Properties of the cse, dce, fold-constants, simplify and canonicalize passes
// on Builder-made functions: they are registered, keep modules verifiable,
// keep what a function computes bit for bit (checked with the reference
// interpreter), reach a fixed point, respect the round cap and handle long
// chains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "ir/builder.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/canonicalize.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/decompose.h"
#include "passes/fold_constants.h"
#include "passes/simplify.h"
#include "runtime/interpreter.h"

namespace mlc {
namespace {

const std::vector<std::string> kMyPasses = {"simplify", "fold-constants", "cse", "dce",
                                            "canonicalize"};

// The MLP loss of a 2-layer classifier, with composites (relu, cross_entropy).
Module make_mlp() {
  Module m;
  m.name = "mlp";
  Function& f = m.add_function("loss");
  Value* x = f.add_arg("x", {DType::f32, {4, 6}}, ArgKind::input);
  Value* y = f.add_arg("y", {DType::i64, {4}}, ArgKind::input);
  Value* w1 = f.add_arg("w1", {DType::f32, {6, 5}}, ArgKind::param);
  Value* b1 = f.add_arg("b1", {DType::f32, {5}}, ArgKind::param);
  Value* w2 = f.add_arg("w2", {DType::f32, {5, 3}}, ArgKind::param);
  Builder b(f);
  Value* h = b.add(b.create(OpCode::Dot, {x, w1}), b.broadcast_to(b1, {4, 5}));
  h = b.create(OpCode::Relu, {h});
  Value* logits = b.create(OpCode::Dot, {h, w2});
  f.results.push_back(b.create(OpCode::CrossEntropy, {logits, y}));
  return m;
}

// A function full of canonicalization opportunities: foldable scalars,
// identities, duplicates, dead code, shape round trips.
Module make_messy() {
  Module m;
  m.name = "messy";
  Function& f = m.add_function("f");
  Value* x = f.add_arg("x", {DType::f32, {2, 3}}, ArgKind::input);
  Value* g = f.add_arg("g", {DType::f32, {3}}, ArgKind::param);
  Builder b(f);
  Value* one = b.create(OpCode::Exp, {b.scalar(0.0, DType::f32)});
  Value* scale = b.div(b.scalar(1.0, DType::f32), b.create(OpCode::Sqrt, {b.scalar(3.0, DType::f32)}));
  Value* t = b.transpose(b.transpose(x, {1, 0}), {1, 0});
  Value* r = b.reshape(b.reshape(t, {6}), {2, 3});
  Value* a1 = b.mul(r, b.broadcast_to(one, {2, 3}));
  Value* a2 = b.mul(r, b.broadcast_to(one, {2, 3}));
  Value* s = b.add(a1, b.broadcast_to(scale, {2, 3}));
  Value* ln = b.create(OpCode::LayerNorm, {s, g, g}, {{"eps", 1e-5}});
  b.create(OpCode::Softmax, {a2}, {{"axis", int64_t{0}}});  // dead
  Value* sel = b.select(b.compare(a1, a2, "ge"), ln, ln);
  f.results.push_back(b.create(OpCode::Gelu, {sel}));
  Value* same = b.create(OpCode::Cast, {sel}, {}, TensorType{DType::f32, {2, 3}});  // identity
  f.results.push_back(b.reduce_sum(b.cast(same, DType::f64), {0, 1}, false));
  return m;
}

std::vector<rt::Tensor> random_args(const Function& f, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<rt::Tensor> args;
  for (const Value* v : f.args) {
    rt::Tensor t(v->type);
    if (v->type.dtype == DType::f32) {
      std::normal_distribution<float> dist(0.0f, 1.0f);
      for (float& e : t.span<float>()) e = dist(rng);
    } else {  // class indices
      int64_t classes = 3;
      for (int64_t& e : t.span<int64_t>()) e = static_cast<int64_t>(rng() % classes);
    }
    args.push_back(std::move(t));
  }
  return args;
}

std::vector<rt::Tensor> run(const Function& f, const std::vector<rt::Tensor>& args) {
  auto interp = rt::Interpreter::create(f);
  EXPECT_TRUE(interp.ok()) << interp.error().message;
  if (!interp.ok()) return {};
  auto out = interp->run(args);
  EXPECT_TRUE(out.ok()) << out.error().message;
  return out.ok() ? std::move(out).value() : std::vector<rt::Tensor>{};
}

void expect_same_results(const Function& before, const Function& after) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    auto args = random_args(before, seed);
    auto want = run(before, args);
    auto got = run(after, args);
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(want[i].type(), got[i].type());
      EXPECT_EQ(std::memcmp(want[i].bytes(), got[i].bytes(), want[i].num_bytes()), 0)
          << "result " << i << " differs (seed " << seed << ")";
    }
  }
}

Module clone_module(const Module& m) {
  Module c;
  c.name = m.name;
  for (const auto& f : m.functions) c.functions.push_back(f->clone());
  return c;
}

TEST(Passes, Registered) {
  std::vector<std::string> names = pass_names();
  for (const std::string& name : kMyPasses) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    auto pass = create_pass(name);
    ASSERT_NE(pass, nullptr) << name;
    EXPECT_EQ(pass->name(), name);
  }
}

TEST(PassList, ParsesNamesAndOptions) {
  auto list = parse_pass_list("cse,canonicalize{max-rounds=4},dce");
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].name, "cse");
  EXPECT_TRUE((*list)[0].options.empty());
  EXPECT_EQ((*list)[1].name, "canonicalize");
  ASSERT_EQ((*list)[1].options.size(), 1u);
  EXPECT_EQ((*list)[1].options[0], std::make_pair(std::string("max-rounds"), std::string("4")));
  auto two = parse_pass_list("x{a=1,b=2}");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ((*two)[0].options.size(), 2u);
  EXPECT_TRUE(parse_pass_list("").ok());
}

TEST(PassList, MalformedListsNameThePosition) {
  auto error = [](const char* text) {
    auto l = parse_pass_list(text);
    return l.ok() ? std::string("ok") : l.error().message;
  };
  EXPECT_EQ(error("cse{a"), "error: pass list 'cse{a': unbalanced '{' at column 4");
  EXPECT_EQ(error("cse,"), "error: pass list 'cse,': a pass name is missing at column 5");
  EXPECT_EQ(error(",cse"), "error: pass list ',cse': a pass name is missing at column 1");
  EXPECT_EQ(error("cse{x}"), "error: pass list 'cse{x}': an option is key=value, got 'x' at column 5");
  EXPECT_EQ(error("cse{a=1}dce"), "error: pass list 'cse{a=1}dce': expected ',' after a pass, got 'd' at column 9");
  EXPECT_EQ(error("c}se"), "error: pass list 'c}se': unexpected '}' at column 2");
}

// Runs the pass list `list` on an empty module: "ok" or the error.
std::string run_pass_list(const char* list) {
  Module m;
  auto specs = parse_pass_list(list);
  EXPECT_TRUE(specs.ok());
  auto r = run_passes(m, *specs);
  return r.ok() ? std::string("ok") : r.error().message;
}

TEST(PassOptions, UnknownKeysAndBadValuesAreErrors) {
  EXPECT_EQ(run_pass_list("canonicalize{max-rounds=3}"), "ok");
  EXPECT_EQ(run_pass_list("cse{x=1}"), "error: pass 'cse' has no option 'x' (it takes none)");
  EXPECT_EQ(run_pass_list("canonicalize{rounds=2}"), "error: pass 'canonicalize' has no option 'rounds' (it takes: max-rounds)");
  EXPECT_EQ(run_pass_list("canonicalize{max-rounds=0}"),
            "error: pass 'canonicalize' option 'max-rounds' takes an integer in [1, 1024], got '0'");
  EXPECT_EQ(run_pass_list("canonicalize{max-rounds=2x}"),
            "error: pass 'canonicalize' option 'max-rounds' takes an integer in [1, 1024], got '2x'");
}

// Every pass's options come from its table: set_option checks values by the
// declared type, and `mlc help opt` lists the same table.
TEST(PassOptions, ValuesAreCheckedByTheTablesType) {
  EXPECT_EQ(run_pass_list("autocast{compute=bf16,param=f16,loss_scale=dynamic}"), "ok");
  EXPECT_EQ(run_pass_list("autocast{compute=f64}"), "error: pass 'autocast' option 'compute' takes one of f32, bf16, f16, got 'f64'");
  EXPECT_EQ(run_pass_list("autocast{loss_scale=static}"),
            "error: pass 'autocast' option 'loss_scale' takes one of none, dynamic, got 'static'");
  EXPECT_EQ(run_pass_list("autocast{scale=1}"),
            "error: pass 'autocast' has no option 'scale' (it takes: compute, param, loss_scale)");
  EXPECT_EQ(run_pass_list("sharding{zero=-1}"), "error: pass 'sharding' option 'zero' takes an integer in [0, 3], got '-1'");
  EXPECT_EQ(run_pass_list("sharding{zero=}"), "error: pass 'sharding' option 'zero' takes an integer in [0, 3], got ''");
  EXPECT_EQ(run_pass_list("sharding{stage=1}"), "error: pass 'sharding' has no option 'stage' (it takes: zero)");

  auto sharding = create_pass("sharding");
  std::vector<PassOption> table = sharding->options();
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].name, "zero");
  EXPECT_EQ(table[0].type, PassOption::Type::integer);
  EXPECT_EQ(table[0].default_value, "0");
  ASSERT_TRUE(sharding->set_option("zero", "2"));
  EXPECT_EQ(sharding->options()[0].default_value, "2");  // the option is bound to the pass's own value
  EXPECT_EQ(create_pass("canonicalize")->options()[0].default_value, std::to_string(kMaxCanonicalizeRounds));
  EXPECT_TRUE(create_pass("cse")->options().empty());
}

TEST(PassOptions, HelpListsEveryPassAndItsTable) {
  const std::string help = pass_options_help();
  for (const std::string& name : pass_names()) EXPECT_NE(help.find("  " + name), std::string::npos) << name;
  EXPECT_NE(help.find("\n  canonicalize    max-rounds=1..1024 (default 16): most rounds of its rewrites (simplify, "
                      "cse, ...)\n"),
            std::string::npos)
      << help;
  EXPECT_EQ(help.find("  autocast        compute=f32|bf16|f16 (default f32): "), 0u) << help;
  EXPECT_NE(help.find("\n                  param=f32|bf16|f16 (default f32): "), std::string::npos) << help;
  EXPECT_NE(help.find("\n  sharding        zero=0..3 (default 0): ZeRO stage over the last data axis (3: FSDP)\n"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("\n  cse\n"), std::string::npos) << help;
}

// The pass form over a module's mesh attribute refuses an axis without an
// implementation, as --mesh does, rather than replicating everything on it.
TEST(PassOptions, ShardingRefusesMeshAxesWithoutAnImplementation) {
  Module m;
  m.set_mesh(Mesh::parse("foo=2").value());
  auto r = create_pass("sharding")->run(m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "error: sharding: mesh foo=2: unknown axis 'foo'; supported axes: dp, ddp, fsdp (data), tp (tensor), pp (pipeline)");
}

TEST(Passes, EachPassKeepsModulesVerifiableAndResultsExact) {
  for (Module (*make)() : {make_mlp, make_messy})
    for (bool decomposed : {false, true})
      for (const std::string& name : kMyPasses) {
        Module m = make();
        if (decomposed) {
          ASSERT_TRUE(run_passes(m, {"decompose"}).ok());
        }
        Module before = clone_module(m);
        SCOPED_TRACE(m.name + " " + name + (decomposed ? " (decomposed)" : ""));
        auto ran = run_passes(m, {name});
        ASSERT_TRUE(ran.ok()) << ran.error().message;
        Status ok = verify_module(m);
        EXPECT_TRUE(ok.ok()) << ok.error().message << "\n" << print_module(m);
        expect_same_results(*before.functions[0], *m.functions[0]);
      }
}

TEST(Passes, CanonicalizeReachesAFixedPoint) {
  Module m = make_messy();
  ASSERT_TRUE(run_passes(m, {"decompose"}).ok());
  Module before = clone_module(m);
  int rounds = 0;
  EXPECT_TRUE(canonicalize(*m.functions[0], kMaxCanonicalizeRounds, &rounds));
  EXPECT_GE(rounds, 2);  // folding exp(0) to 1 enables mul(x, 1) -> x a round later
  EXPECT_LT(rounds, kMaxCanonicalizeRounds);
  std::string text = print_module(m);
  for (const std::string& name : kMyPasses) {
    auto again = run_passes(m, {name});
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(*again) << name << " still changes the canonical form";
  }
  EXPECT_EQ(print_module(m), text);
  EXPECT_LT(m.functions[0]->ops.size(), before.functions[0]->ops.size());
  expect_same_results(*before.functions[0], *m.functions[0]);
  // The shape round trips, the identity cast and the multiplies by exp(0) are gone.
  for (const auto& op : m.functions[0]->ops) {
    EXPECT_NE(op->code, OpCode::Transpose);
    EXPECT_NE(op->code, OpCode::Reshape);
    if (op->code == OpCode::Cast) {
      EXPECT_NE(op->result()->type, op->operands[0]->type);
    }
    if (op->code == OpCode::Mul) {
      for (const Value* v : op->operands) EXPECT_NE(v, m.functions[0]->args[0]);
    }
  }
}

TEST(Passes, CanonicalizeStopsAtTheRoundCap) {
  Module m = make_messy();
  Function& f = *m.functions[0];
  int rounds = 0;
  EXPECT_TRUE(canonicalize(f, 1, &rounds));
  EXPECT_EQ(rounds, 1);
  EXPECT_TRUE(verify_function(f).ok());
  EXPECT_TRUE(canonicalize(f, kMaxCanonicalizeRounds, &rounds));  // more to do
  EXPECT_GE(rounds, 1);
  EXPECT_FALSE(canonicalize(f, 0, &rounds));
  EXPECT_EQ(rounds, 0);
}

TEST(Passes, UnchangedFunctionsReportNoChange) {
  Module m;
  Function& f = m.add_function("f");
  Value* x = f.add_arg("x", {DType::f32, {3}}, ArgKind::input);
  Builder b(f);
  f.results.push_back(b.create(OpCode::Tanh, {x}));
  for (const std::string& name : kMyPasses) {
    auto ran = run_passes(m, {name});
    ASSERT_TRUE(ran.ok());
    EXPECT_FALSE(*ran) << name;
  }
}

// A function of 3n live ops (neg, add, exp) plus n duplicate and n dead ops.
Module make_chain(int n) {
  Module m;
  Function& f = m.add_function("chain");
  Value* v = f.add_arg("x", {DType::f32, {2}}, ArgKind::input);
  Builder b(f);
  for (int i = 0; i < n; ++i) {
    Value* n1 = b.create(OpCode::Neg, {v});
    Value* n2 = b.create(OpCode::Neg, {v});  // duplicate of n1
    b.create(OpCode::Exp, {n2});              // dead
    v = b.create(OpCode::Exp, {b.add(n1, n2)});
  }
  f.results.push_back(v);
  return m;
}

// A long chain canonicalizes to a valid module (the passes are linear: one
// hash map or one walk per round; timing belongs in bench/, not here).
TEST(Passes, LongChainsCanonicalize) {
  constexpr int kLarge = 20000;
  Module large = make_chain(kLarge);
  ASSERT_TRUE(run_passes(large, {"canonicalize"}).ok());
  EXPECT_EQ(large.functions[0]->ops.size(), static_cast<size_t>(3 * kLarge));
  EXPECT_TRUE(verify_module(large).ok());
}

}  // namespace
}  // namespace mlc
