// Tests of the IR verifier (ir/verifier.h): valid IR passes; each broken
// invariant (built by editing a Builder-made function directly) is reported
// with the op's location, name and index.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/parser.h"
#include "ir/verifier.h"

namespace mlc {
namespace {

// %0 = add(x, b); %1 = relu(%0); %2 = reduce_sum(%1) {dims = [0], keepdim = false}
struct Fixture {
  Module m;
  Function* f = nullptr;
  Value* x = nullptr;
  Value* b = nullptr;

  Fixture() {
    m.name = "model";
    f = &m.add_function("main");
    x = f->add_arg("x", {DType::f32, {3}}, ArgKind::input);
    b = f->add_arg("b", {DType::f32, {3}}, ArgKind::param);
    Builder bld(*f);
    bld.set_loc(Loc{"model.json", 3, 4});
    Value* h = bld.add(x, b);
    bld.set_loc(Loc{"model.json", 5, 1});
    h = bld.unary(OpCode::Relu, h);
    bld.set_loc(Loc{});
    f->results.push_back(bld.reduce_sum(h, {0}, false));
  }
  Op& op(size_t i) { return *f->ops.at(i); }
  std::string error() {
    Status st = verify_module(m);
    EXPECT_FALSE(st.ok()) << "verified unexpectedly";
    return st.ok() ? "" : st.error().message;
  }
};

TEST(Verifier, ValidFunctionAndModule) {
  Fixture t;
  EXPECT_TRUE(verify_function(*t.f).ok());
  EXPECT_TRUE(verify_module(t.m).ok());
  Module empty;
  EXPECT_TRUE(verify_module(empty).ok());
}

TEST(Verifier, InferenceFailureUsesOpLoc) {
  Fixture t;
  t.b->type = {DType::f32, {4}};
  EXPECT_EQ(t.error(), "model.json:3:4: error: verifier: add (op #0): operand shapes [3] and [4] do not broadcast");
}

TEST(Verifier, DeclaredTypeMismatch) {
  Fixture t;
  t.op(1).result()->type = {DType::f64, {3}};
  EXPECT_EQ(t.error(),
            "model.json:5:1: error: verifier: relu (op #1): declared result type f64[3] does not "
            "match the inferred f32[3]");
}

TEST(Verifier, UseBeforeDefinition) {
  Fixture t;
  std::swap(t.f->ops[0], t.f->ops[1]);
  EXPECT_EQ(t.error(), "model.json:5:1: error: verifier: relu (op #0): operand #0 is used before its definition");
}

TEST(Verifier, OperandFromAnotherFunction) {
  Fixture t;
  Function other("other");
  Value* foreign = other.add_arg("x", {DType::f32, {3}}, ArgKind::input);
  t.op(0).operands[1] = foreign;
  EXPECT_EQ(t.error(), "model.json:3:4: error: verifier: add (op #0): operand #1 is not a value of this function");
  t.op(0).operands[1] = nullptr;
  EXPECT_EQ(t.error(), "model.json:3:4: error: verifier: add (op #0): operand #1 is null");
}

TEST(Verifier, MissingAttribute) {
  Fixture t;
  t.op(2).attrs = Attrs{{"keepdim", false}};
  EXPECT_EQ(t.error(), "error: verifier: reduce_sum (op #2): missing attribute 'dims' (integer list)");
}

TEST(Verifier, DefaultNotFilledIn) {
  Fixture t;
  t.op(2).attrs = Attrs{{"dims", std::vector<int64_t>{0}}};
  EXPECT_EQ(t.error(),
            "error: verifier: reduce_sum (op #2): attributes are not complete and in schema order "
            "(expected {dims = [0], keepdim = false}, found {dims = [0]})");
}

TEST(Verifier, AttributeOrder) {
  Fixture t;
  auto& list = t.op(2).attrs.list();
  std::swap(list[0], list[1]);
  EXPECT_NE(t.error().find("not complete and in schema order"), std::string::npos);
}

TEST(Verifier, AttributeKindAndUnknown) {
  Fixture t;
  t.op(2).attrs = Attrs{{"dims", std::vector<int64_t>{0}}, {"keepdim", int64_t{1}}};
  EXPECT_EQ(t.error(), "error: verifier: reduce_sum (op #2): attribute 'keepdim' must be bool, got 1");
  t.op(2).attrs = Attrs{{"dims", std::vector<int64_t>{0}}, {"keepdim", false}, {"axis", int64_t{0}}};
  EXPECT_EQ(t.error(),
            "error: verifier: reduce_sum (op #2): unknown attribute 'axis' (expected: dims, keepdim)");
  t.op(0).attrs = Attrs{{"alpha", 1.0}};
  EXPECT_EQ(t.error(), "model.json:3:4: error: verifier: add (op #0): unknown attribute 'alpha' (the op takes none)");
}

TEST(Verifier, WrongArity) {
  Fixture t;
  t.op(1).operands.push_back(t.x);
  EXPECT_EQ(t.error(), "model.json:5:1: error: verifier: relu (op #1): expected 1 operand, got 2");
}

TEST(Verifier, ResultNotInFunction) {
  Fixture t;
  Function other("other");
  t.f->results.push_back(other.add_arg("y", {DType::f32, {}}, ArgKind::input));
  EXPECT_EQ(t.error(), "error: verifier: function @main: result #1 is not a value of the function");
}

TEST(Verifier, ResultUpdates) {
  Fixture t;
  t.f->results.push_back(t.f->ops[0]->result());  // f32[3], may update %b
  t.f->result_updates = {-1, 1};
  EXPECT_TRUE(verify_module(t.m).ok());
  t.f->result_updates = {1};
  EXPECT_EQ(t.error(), "error: verifier: function @main: 2 results but 1 result update entries");
  t.f->result_updates = {-1, 0};
  EXPECT_EQ(t.error(), "error: verifier: function @main: result #1 updates '%x', which is {input}, "
                       "not a {param}, {state} or {buffer} argument");
  t.f->result_updates = {1, -1};
  EXPECT_EQ(t.error(), "error: verifier: function @main: result #0 has type f32[] but updates '%b' of type f32[3]");
  t.f->result_updates = {-1, 7};
  EXPECT_EQ(t.error(), "error: verifier: function @main: result #1 updates argument #7, out of range");
}

TEST(Verifier, ResultProducerAndDuplicates) {
  Fixture t;
  t.op(1).result()->producer = &t.op(0);
  EXPECT_EQ(t.error(), "model.json:5:1: error: verifier: relu (op #1): result value is not produced by this op");
  Fixture u;
  u.op(1).results[0] = u.op(0).result();
  EXPECT_NE(u.error().find("relu (op #1): result value is not produced by this op"), std::string::npos);
}

// An op with several results: each result must name its op and its own index,
// and the stored types must be exactly the inferred ones.
TEST(Verifier, MultiResultOps) {
  Fixture t;
  Builder bld(*t.f);
  bld.set_loc(Loc{"model.json", 8, 2});
  std::vector<Value*> pieces =
      bld.create_results(OpCode::Split, {t.x}, {{"axis", int64_t{0}}, {"sizes", std::vector<int64_t>{1, 2}}});
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[1]->result_index, 1);
  t.f->results.push_back(pieces[1]);
  EXPECT_TRUE(verify_module(t.m).ok());
  pieces[1]->result_index = 0;
  EXPECT_EQ(t.error(), "model.json:8:2: error: verifier: split (op #3): result #1 is not produced by this op");
  pieces[1]->result_index = 1;
  pieces[0]->type = {DType::f32, {2}};
  EXPECT_EQ(t.error(),
            "model.json:8:2: error: verifier: split (op #3): declared result #0 type f32[2] does not match the inferred f32[1]");
  pieces[0]->type = {DType::f32, {1}};
  t.op(3).results.pop_back();
  EXPECT_EQ(t.error(), "model.json:8:2: error: verifier: split (op #3): 1 result declared, but the op has 2");
}

// Builder::try_create is for single-result ops; create_results takes any op.
TEST(Builder, SingleResultCreateRefusesASplit) {
  Fixture t;
  Builder bld(*t.f);
  bld.set_loc(Loc{"model.json", 9, 1});
  auto v = bld.try_create(OpCode::Split, {t.x}, {{"axis", int64_t{0}}, {"sizes", std::vector<int64_t>{2, 1}}});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "model.json:9:1: error: split: has 2 results; create it with create_results");
  EXPECT_EQ(t.f->ops.size(), 3u);  // nothing was inserted
  // A split into one piece has one result.
  auto whole = bld.try_create(OpCode::Split, {t.x}, {{"axis", int64_t{0}}, {"sizes", std::vector<int64_t>{3}}});
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ((*whole)->type, t.x->type);
}

TEST(Verifier, Arguments) {
  Fixture t;
  t.b->name = "x";
  EXPECT_EQ(t.error(), "error: verifier: function @main: duplicate argument name 'x'");
  t.b->name = "12";  // would read as a numbered op result
  EXPECT_EQ(t.error(),
            "error: verifier: function @main: argument #1 has invalid name '12' (must be "
            "[A-Za-z0-9_.]+, not only digits)");
  t.b->name = "b-1";
  EXPECT_EQ(t.error(),
            "error: verifier: function @main: argument #1 has invalid name 'b-1' (must be "
            "[A-Za-z0-9_.]+, not only digits)");
  t.b->name = "0.bias";  // a top-level repeat's parameter, as in nn.Sequential
  EXPECT_TRUE(verify_module(t.m).ok());
  t.b->name = "layers.0.bias";
  EXPECT_TRUE(verify_module(t.m).ok());
  t.f->arg_kinds[1] = ArgKind::step;  // f32[3]: not a step counter
  EXPECT_EQ(t.error(),
            "error: verifier: function @main: argument #1 '%layers.0.bias' is the step counter "
            "{step}, so it must be i64[], not f32[3]");
  t.f->arg_kinds[1] = ArgKind::param;
  EXPECT_TRUE(verify_module(t.m).ok());
  t.f->arg_kinds.pop_back();
  EXPECT_EQ(t.error(), "error: verifier: function @main: 2 arguments but 1 argument kinds");
  t.f->arg_kinds.push_back(ArgKind::param);
  t.b->type.shape = {-1};
  EXPECT_NE(t.error().find("argument #1 '%layers.0.bias' has shape [-1] that is negative"),
            std::string::npos);
}

TEST(Verifier, ModuleNames) {
  Fixture t;
  t.m.add_function("main");
  EXPECT_EQ(t.error(), "error: verifier: duplicate function name '@main'");
  t.m.functions.pop_back();
  t.m.add_function("has space");
  EXPECT_EQ(t.error(),
            "error: verifier: function @has space: invalid function name (must match "
            "[A-Za-z0-9_.-]+)");
  t.m.functions.pop_back();
  t.m.name = "a{b";
  EXPECT_EQ(t.error(), "error: verifier: invalid module name 'a{b' (must match [A-Za-z0-9_.-]*)");
}

TEST(Verifier, ParsedModulesVerify) {
  auto m = parse_module(
      "module @m {\n"
      "  func @f(%x: f32[2,3] {input}) -> (f32[3,2], f32[]) {\n"
      "    %0 = transpose(%x) {perm = [1, 0]} : f32[3,2]\n"
      "    %1 = reduce_max(%0) {dims = [0, 1], keepdim = false} : f32[]\n"
      "    return %0, %1\n"
      "  }\n"
      "}\n",
      "m.mlir");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(verify_module(*m).ok());
  // The parser numbers ops like the verifier's "op #k".
  m->functions[0]->ops[1]->attrs.list()[0].value = std::vector<int64_t>{0, 0};
  EXPECT_EQ(verify_module(*m).error().message,
            "error: verifier: reduce_max (op #1): dims [0, 0] must be distinct and within rank 2 "
            "of f32[3,2]");
}

TEST(Verifier, ModuleAttributes) {
  Fixture t;
  t.m.attrs.set("target", std::string("cpu"));
  EXPECT_TRUE(verify_module(t.m).ok());
  t.m.attrs.set("target", std::string("gpu"));
  EXPECT_EQ(t.error(), "error: verifier: module attribute 'target' must be one of \"cpu\", \"cuda\", got \"gpu\"");
  t.m.attrs = Attrs{{"mesh", int64_t{2}}};
  EXPECT_EQ(t.error(), "error: verifier: module attribute 'mesh' must be string, got 2");
  t.m.attrs = Attrs{{"mesh", std::string("dp=2,tp")}};
  EXPECT_EQ(t.error(), "error: verifier: module attribute 'mesh': mesh 'dp=2,tp': expected 'name=size', found 'tp'");
  t.m.attrs = Attrs{{"pipeline", int64_t{2}}};
  EXPECT_EQ(t.error(), "error: verifier: unknown module attribute 'pipeline' (known: target, mesh)");
}

}  // namespace
}  // namespace mlc
