// Tests of the textual IR printer and parser (ir/printer.h, ir/parser.h):
//  - exact printed format of small modules;
//  - print -> parse -> print identity for Builder-made modules covering every op;
//  - tests/ir/data/roundtrip/*.mlir reprint byte-identically;
//  - tests/ir/data/bad/*.mlir produce exactly the diagnostic in *.mlir.expected;
//  - literal classification, comments, whitespace;
//  - robustness: every truncation and thousands of random mutations of a valid
//    file give a module or an error (never a crash), and large inputs parse in
//    linear time.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ir/builder.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tests/ir/sample_fusion_body.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = MLC_SOURCE_DIR;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> files_with_extension(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ext) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Parses `text`, failing the test with the diagnostic if it does not parse.
Module parse_ok(const std::string& text, const std::string& file = "test.mlir") {
  auto m = parse_module(text, file);
  EXPECT_TRUE(m.ok()) << m.error().message << "\n--- input ---\n" << text;
  if (!m.ok()) return Module{};
  return std::move(m).value();
}

std::string parse_error(const std::string& text, const std::string& file = "test.mlir") {
  auto m = parse_module(text, file);
  EXPECT_FALSE(m.ok()) << "unexpectedly parsed:\n" << text;
  return m.ok() ? "" : m.error().message;
}

void expect_roundtrip(const Module& m) {
  ASSERT_TRUE(verify_module(m).ok()) << verify_module(m).error().message;
  std::string text = print_module(m);
  Module reparsed = parse_ok(text);
  EXPECT_TRUE(verify_module(reparsed).ok());
  EXPECT_EQ(print_module(reparsed), text);
}

// ---- Builder-made modules

Attrs conv_attrs() {
  return {{"stride", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{1, 1}},
          {"dilation", std::vector<int64_t>{1, 1}}, {"groups", int64_t{1}}};
}

// A small CNN + MLP classifier with a training loss and an eval function.
Module make_classifier() {
  Module m;
  m.name = "digits_cnn";
  for (const char* name : {"loss", "eval"}) {
    Function& f = m.add_function(name);
    Value* x = f.add_arg("x", {DType::f32, {4, 1, 8, 8}}, ArgKind::input);
    Value* y = f.add_arg("y", {DType::i64, {4}}, ArgKind::input);
    Value* cw = f.add_arg("conv1.weight", {DType::f32, {2, 1, 3, 3}}, ArgKind::param);
    Value* w = f.add_arg("fc.weight", {DType::f32, {32, 10}}, ArgKind::param);
    Value* b = f.add_arg("fc.bias", {DType::f32, {10}}, ArgKind::param);
    Builder bld(f);
    bld.set_loc(Loc{"examples/digits_cnn.json", 9, 7});
    Value* h = bld.create(OpCode::Conv2d, {x, cw}, conv_attrs());
    bld.set_loc(Loc{});
    h = bld.max(h, bld.scalar(0.0, DType::f32));
    h = bld.create(OpCode::MaxPool2d, {h}, {{"kernel", std::vector<int64_t>{2, 2}},
                                            {"stride", std::vector<int64_t>{2, 2}}});
    h = bld.reshape(h, {4, 32});
    Value* logits = bld.add(bld.create(OpCode::Dot, {h, w}), bld.broadcast_to(b, {4, 10}));
    if (f.name == "loss") {
      f.results.push_back(bld.create(OpCode::CrossEntropy, {logits, y}));
    } else {
      Value* pred = bld.create(OpCode::Argmax, {logits}, {{"axis", int64_t{-1}}});
      Value* hits = bld.cast(bld.compare(pred, y, "eq"), DType::i64);
      f.results.push_back(bld.reduce_sum(hits, {0}, false));
      f.results.push_back(pred);
    }
  }
  return m;
}

// One function that uses every op of the table, with every kind of attribute.
Module make_all_ops() {
  Module m;
  m.name = "all_ops";
  Function& f = m.add_function("everything");
  Value* x = f.add_arg("x", {DType::f32, {2, 3}}, ArgKind::input);
  Value* img = f.add_arg("img", {DType::f32, {1, 2, 6, 6}}, ArgKind::input);
  Value* idx = f.add_arg("idx", {DType::i32, {4}}, ArgKind::input);
  Value* w = f.add_arg("w", {DType::f32, {3}}, ArgKind::param);
  Builder b(f);
  b.set_loc(Loc{"we\"ird\\path.json", 1, 2});
  for (OpCode c : {OpCode::Neg, OpCode::Abs, OpCode::Exp, OpCode::Log, OpCode::Sqrt, OpCode::Rsqrt,
                   OpCode::Tanh, OpCode::Sigmoid, OpCode::Erf, OpCode::Sin, OpCode::Cos,
                   OpCode::Relu, OpCode::Silu, OpCode::Log1p, OpCode::LeakyRelu, OpCode::Elu, OpCode::Softplus,
                   OpCode::Hardswish, OpCode::Mish})
    f.results.push_back(b.unary(c, x));
  b.set_loc(Loc{});
  for (OpCode c : {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Max, OpCode::Min,
                   OpCode::Pow})
    f.results.push_back(b.binary(c, x, x));
  Value* pred = b.compare(x, x, "le");
  f.results.push_back(b.select(pred, x, x));
  f.results.push_back(b.cast(x, DType::bf16));
  f.results.push_back(b.broadcast(w, {2, 3}, {1}));
  f.results.push_back(b.reshape(x, {3, 2}));
  f.results.push_back(b.transpose(x, {1, 0}));
  f.results.push_back(b.create(OpCode::Slice, {x}, {{"start", std::vector<int64_t>{0, 1}},
                                                    {"limit", std::vector<int64_t>{2, 3}},
                                                    {"stride", std::vector<int64_t>{1, 2}}}));
  f.results.push_back(b.create(OpCode::Concat, {x, x, x}, {{"axis", int64_t{0}}}));
  f.results.push_back(testing::sample_fusion(b, x, w));
  // A call of @twice (added below, after @everything): a custom op's use.
  f.results.push_back(b.create(OpCode::Call, {x}, {{"callee", std::string("twice")}}, x->type));
  for (Value* piece : b.create_results(OpCode::Split, {x}, {{"axis", int64_t{-1}}, {"sizes", std::vector<int64_t>{2, 0, 1}}}))
    f.results.push_back(piece);
  f.results.push_back(b.create(OpCode::Pad, {x}, {{"low", std::vector<int64_t>{0, 1}},
                                                  {"high", std::vector<int64_t>{2, 0}},
                                                  {"value", -std::numeric_limits<double>::infinity()}}));
  f.results.push_back(b.reduce_sum(x, {}, true));
  f.results.push_back(b.reduce(OpCode::ReduceMax, x, {-1}, false));
  f.results.push_back(b.reduce(OpCode::ReduceMin, x, {0, 1}, true));
  f.results.push_back(b.create(OpCode::Argmax, {x}, {{"axis", int64_t{1}}}));
  f.results.push_back(b.create(OpCode::Dot, {x, x}, {{"transpose_b", true}}));
  f.results.push_back(b.create(OpCode::Conv2d, {img, img}, {{"stride", std::vector<int64_t>{2, 2}}}));
  f.results.push_back(b.create(OpCode::MaxPool2d, {img}, {{"kernel", std::vector<int64_t>{2, 3}},
                                                          {"stride", std::vector<int64_t>{2, 1}}}));
  f.results.push_back(b.create(OpCode::AvgPool2d, {img}, {{"kernel", std::vector<int64_t>{3, 3}},
                                                          {"stride", std::vector<int64_t>{1, 1}},
                                                          {"padding", std::vector<int64_t>{1, 1}},
                                                          {"count_include_pad", false}}));
  {
    Attrs conv = {{"stride", std::vector<int64_t>{2, 2}}};
    Value* y = b.create(OpCode::Conv2d, {img, img}, conv);
    f.results.push_back(b.create(OpCode::Conv2dInputGrad, {y, img}, conv, img->type));
    f.results.push_back(b.create(OpCode::Conv2dWeightGrad, {img, y}, conv, img->type));
    Attrs pool = {{"kernel", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}};
    Value* p = b.create(OpCode::MaxPool2d, {img}, pool);
    f.results.push_back(b.create(OpCode::MaxPool2dGrad, {img, p}, pool));
    Value* chosen = b.create(OpCode::MaxPool2dIndices, {img}, pool);
    f.results.push_back(b.create(OpCode::MaxPool2dScatter, {p, chosen}, pool, img->type));
    Value* a = b.create(OpCode::AvgPool2d, {img}, pool);
    f.results.push_back(b.create(OpCode::AvgPool2dGrad, {a}, pool, img->type));
    Attrs window = {{"kernel", std::vector<int64_t>{3, 2}}, {"dilation", std::vector<int64_t>{1, 2}}};
    Value* cols = b.create(OpCode::Unfold, {img}, window);
    window.set("output_size", std::vector<int64_t>{6, 6});
    f.results.push_back(b.create(OpCode::Fold, {cols}, window));
  }
  Value* rows = b.create(OpCode::Gather, {x, idx}, {{"axis", int64_t{1}}});
  f.results.push_back(b.create(OpCode::ScatterAdd, {x, idx, rows}, {{"axis", int64_t{1}}}));
  f.results.push_back(b.iota({DType::i64, {2, 5}}, 1));
  f.results.push_back(b.create(OpCode::RandomUniform, {f.results.back(), b.scalar(3, DType::i64)},
                               {{"seed", int64_t{-5}}, {"stream", int64_t{4294967295}}}));
  f.results.push_back(b.constant({1.5, -0.0, 1e-05, 3e300, 5e-324, 0.1},
                                 {DType::f64, {2, 3}}));
  f.results.push_back(b.constant({-7, 9007199254740993.0, 0}, {DType::i64, {3}}));
  f.results.push_back(b.create(OpCode::Constant, {},
                               {{"value", std::numeric_limits<double>::quiet_NaN()}},
                               TensorType{DType::f16, {}}));
  f.results.push_back(b.create(OpCode::Gelu, {x}, {{"approximate", std::string("tanh")}}));
  f.results.push_back(b.create(OpCode::Softmax, {x}, {{"axis", int64_t{-1}}}));
  f.results.push_back(b.create(OpCode::LogSoftmax, {x}, {{"axis", int64_t{0}}}));
  f.results.push_back(b.create(OpCode::LayerNorm, {x, w, w}, {{"eps", 1e-05}}));
  f.results.push_back(b.create(OpCode::RmsNorm, {x, w}, {{"eps", 1e-6}}));
  f.results.push_back(b.create(OpCode::Mse, {x, x}, {{"reduction", std::string("sum")}}));
  Value* labels = b.create(OpCode::Constant, {}, {{"value", std::vector<int64_t>{0, 2}}},
                           TensorType{DType::i32, {2}});
  f.results.push_back(b.create(OpCode::CrossEntropy, {x, labels}));
  f.results.push_back(b.create(OpCode::Cumsum, {x}, {{"axis", int64_t{1}}}));
  f.results.push_back(b.create(OpCode::NllLoss, {x, labels, w}, {{"ignore_index", int64_t{1}}}));
  const Attrs none{{"reduction", std::string("none")}};
  for (OpCode c : {OpCode::L1Loss, OpCode::SmoothL1Loss, OpCode::HuberLoss, OpCode::BinaryCrossEntropy,
                   OpCode::BinaryCrossEntropyWithLogits, OpCode::KlDiv})
    f.results.push_back(b.create(c, {x, x}, none));
  f.results.push_back(b.create(OpCode::CosineEmbeddingLoss, {x, x, labels}, {{"margin", 0.25}}));
  m.add_function("empty");
  // The collectives, over the module's mesh.
  m.set_mesh(*Mesh::parse("dp=2"));
  Function& c = m.add_function("collectives");
  Value* y = c.add_arg("y", {DType::f32, {4, 6}}, ArgKind::input);
  Builder cb(c);
  auto on_dp = [](std::initializer_list<NamedAttr> more) {
    Attrs a{{"mesh_axis", std::string("dp")}};
    for (const NamedAttr& n : more) a.set(n.name, n.value);
    return a;
  };
  c.results.push_back(cb.create(OpCode::AllReduce, {y}, on_dp({{"reduce", std::string("max")}})));
  c.results.push_back(cb.create(OpCode::AllGather, {y}, on_dp({{"dim", int64_t{1}}}), TensorType{DType::f32, {4, 12}}));
  c.results.push_back(cb.create(OpCode::ReduceScatter, {y}, on_dp({{"dim", int64_t{0}}}), TensorType{DType::f32, {2, 6}}));
  c.results.push_back(cb.create(OpCode::AllToAll, {y}, on_dp({{"split_dim", int64_t{1}}, {"concat_dim", int64_t{0}}}),
                                TensorType{DType::f32, {8, 3}}));
  c.results.push_back(cb.create(OpCode::CollectiveBroadcast, {y}, on_dp({{"root", int64_t{1}}})));
  c.results.push_back(cb.create(OpCode::Send, {y}, on_dp({{"peer", int64_t{1}}})));
  c.results.push_back(cb.create(OpCode::Recv, {}, on_dp({{"peer", int64_t{0}}}), TensorType{DType::f32, {4, 6}}));
  c.results.push_back(cb.create(OpCode::ShardSlice, {y}, on_dp({{"dim", int64_t{0}}}), TensorType{DType::f32, {2, 6}}));
  Function& twice = m.add_function("twice");
  Value* a = twice.add_arg("a", {DType::f32, {2, 3}}, ArgKind::input);
  Builder tb(twice);
  twice.results.push_back(tb.add(a, a));
  return m;
}

TEST(Printer, ExactFormat) {
  Module m;
  m.name = "tiny";
  Function& f = m.add_function("f");
  Value* x = f.add_arg("x", {DType::f32, {2}}, ArgKind::input);
  Value* w = f.add_arg("layer.0_w", {DType::f32, {2}}, ArgKind::param);
  Builder b(f);
  b.set_loc(Loc{"m.json", 3, 4});
  Value* s = b.add(x, w);
  b.set_loc(Loc{});
  f.results = {b.max(s, b.broadcast_to(b.scalar(0.0, DType::f32), {2})), s};
  m.add_function("g");
  EXPECT_EQ(print_module(m),
            "module @tiny {\n"
            "  func @f(%x: f32[2] {input}, %layer.0_w: f32[2] {param}) -> (f32[2], f32[2]) {\n"
            "    %0 = add(%x, %layer.0_w) : f32[2] loc(\"m.json\":3:4)\n"
            "    %1 = constant() {value = 0.0} : f32[]\n"
            "    %2 = broadcast(%1) {dims = []} : f32[2]\n"
            "    %3 = max(%0, %2) : f32[2]\n"
            "    return %3, %0\n"
            "  }\n"
            "\n"
            "  func @g() -> () {\n"
            "    return\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(print_function(*m.find("g")), "func @g() -> () {\n  return\n}\n");
  EXPECT_EQ(print_type({DType::boolean, {}}), "bool[]");
  EXPECT_EQ(print_type({DType::bf16, {32, 1, 8, 8}}), "bf16[32,1,8,8]");
  EXPECT_EQ(print_loc(Loc{"a\"b\\c", 1, 0}), "loc(\"a\\\"b\\\\c\":1:0)");
  EXPECT_EQ(print_loc(Loc{}), "");
  Module empty;
  empty.name = "nothing";
  EXPECT_EQ(print_module(empty), "module @nothing {\n}\n");
  expect_roundtrip(m);
  expect_roundtrip(empty);
}

TEST(Printer, MalformedIrStillPrints) {
  Function other("other");
  Value* foreign = other.add_arg("z", {DType::f32, {}}, ArgKind::input);
  Function f("f");
  f.insert_op(0, OpCode::Neg, {foreign}, {}, {DType::f32, {}}, Loc{});
  f.results.push_back(foreign);
  std::string text = print_function(f);
  EXPECT_NE(text.find("%0 = neg(%<undefined>) : f32[]"), std::string::npos) << text;
  EXPECT_NE(text.find("return %<undefined>"), std::string::npos) << text;
}

TEST(RoundTrip, BuilderClassifier) { expect_roundtrip(make_classifier()); }

TEST(RoundTrip, BuilderEveryOp) {
  Module m = make_all_ops();
  expect_roundtrip(m);
  std::string text = print_module(m);
  for (const OpInfo& info : all_ops())
    EXPECT_NE(text.find(" = " + std::string(info.name) + "("), std::string::npos)
        << "op not covered: " << info.name;
  for (const char* literal : {"value = -inf", "eps = 1e-05", "value = nan", "-0.0", "5e-324",
                              "3e+300", "transpose_b = true", "count_include_pad = false",
                              "approximate = \"tanh\"", "loc(\"we\\\"ird\\\\path.json\":1:2)",
                              "dims = []", "9007199254740992"})
    EXPECT_NE(text.find(literal), std::string::npos) << literal << "\n" << text;
}

TEST(RoundTrip, ParsedModulePreservesValues) {
  Module m = make_all_ops();
  Module p = parse_ok(print_module(m));
  ASSERT_EQ(p.functions.size(), m.functions.size());
  const Function& a = *m.functions[0];
  const Function& b = *p.functions[0];
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i]->code, b.ops[i]->code);
    EXPECT_EQ(a.ops[i]->loc, b.ops[i]->loc);
    EXPECT_EQ(result_types(*a.ops[i]), result_types(*b.ops[i]));
    EXPECT_EQ(a.ops[i]->attrs.list().size(), b.ops[i]->attrs.list().size());
  }
  EXPECT_EQ(b.arg_kinds[3], ArgKind::param);
  EXPECT_EQ(b.args[1]->name, "img");
}

TEST(RoundTrip, DataFiles) {
  auto files = files_with_extension(kSourceDir / "tests/ir/data/roundtrip", ".mlir");
  EXPECT_GE(files.size(), 4u);
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::string text = read_file(path);
    auto m = parse_module_file(path.string());
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE(verify_module(*m).ok());
    EXPECT_EQ(print_module(*m), text);
  }
}

TEST(Diagnostics, BadFiles) {
  auto files = files_with_extension(kSourceDir / "tests/ir/data/bad", ".mlir");
  EXPECT_GE(files.size(), 15u);
  for (const fs::path& path : files) {
    std::string rel = "tests/ir/data/bad/" + path.filename().string();
    SCOPED_TRACE(rel);
    std::string expected = read_file(path.string() + ".expected");
    ASSERT_FALSE(expected.empty()) << "missing " << rel << ".expected";
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r'))
      expected.pop_back();
    auto m = parse_module(read_file(path), rel);
    ASSERT_FALSE(m.ok()) << "parsed without error";
    EXPECT_EQ(m.error().message, expected);
  }
}

TEST(Diagnostics, CannotOpen) {
  auto m = parse_module_file("no/such/file.mlir");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message.rfind("no/such/file.mlir: error: cannot open: ", 0), 0u)
      << m.error().message;
}

const char* kHeader = "module @m {\n  func @f(%x: f32[2] {input}) -> (f32[2]) {\n";

const AttrValue& first_const_value(const Module& m) {
  return m.functions.at(0)->ops.at(0)->attrs.list().at(0).value;
}

Module parse_constant(const std::string& value, const std::string& type) {
  return parse_ok("module @m { func @f() -> (" + type + ") { %0 = constant() {value = " + value +
                  "} : " + type + "\n return %0 } }");
}

TEST(Parser, NumberLiterals) {
  EXPECT_TRUE(std::holds_alternative<int64_t>(first_const_value(parse_constant("1", "f32[]"))));
  EXPECT_TRUE(std::holds_alternative<double>(first_const_value(parse_constant("1e3", "f32[]"))));
  EXPECT_TRUE(std::holds_alternative<double>(first_const_value(parse_constant("2E-3", "f32[]"))));
  EXPECT_TRUE(std::holds_alternative<double>(first_const_value(parse_constant("1.0", "f32[]"))));
  EXPECT_EQ(std::get<int64_t>(first_const_value(parse_constant("-9223372036854775808", "i64[]"))),
            std::numeric_limits<int64_t>::min());
  double ninf = std::get<double>(first_const_value(parse_constant("-inf", "f32[]")));
  EXPECT_TRUE(std::isinf(ninf) && ninf < 0);
  EXPECT_TRUE(std::isinf(std::get<double>(first_const_value(parse_constant("inf", "f32[]")))));
  EXPECT_TRUE(std::isnan(std::get<double>(first_const_value(parse_constant("nan", "f32[]")))));
  auto ints = first_const_value(parse_constant("[1, -2]", "i32[2]"));
  EXPECT_EQ(std::get<std::vector<int64_t>>(ints), (std::vector<int64_t>{1, -2}));
  auto floats = first_const_value(parse_constant("[1.5, 2, -inf]", "f32[3]"));
  ASSERT_TRUE(std::holds_alternative<std::vector<double>>(floats));
  EXPECT_EQ(std::get<std::vector<double>>(floats)[1], 2.0);
  auto empty = first_const_value(parse_constant("[]", "f32[0]"));
  EXPECT_TRUE(std::holds_alternative<std::vector<int64_t>>(empty));
  EXPECT_NE(parse_error(std::string(kHeader) + "%0 = constant() {value = 1e999} : f32[]")
                .find("test.mlir:3:26: error: float '1e999' is out of range"),
            std::string::npos);
}

TEST(Parser, CommentsAndWhitespace) {
  std::string text =
      "// leading comment\n"
      "module@m{func@f(%x:f32[2]{input},%p :  f32 [ 2 ] { param })->(f32[2]){ // sig\n"
      "\t%a=add(%x,%p):f32[2]loc(\"f.json\":1:2)// trailing\r\n"
      "%b = mul ( %a , %a ) : f32[2]\n"
      "return %b}}// end";
  Module m = parse_ok(text);
  EXPECT_EQ(print_module(m),
            "module @m {\n"
            "  func @f(%x: f32[2] {input}, %p: f32[2] {param}) -> (f32[2]) {\n"
            "    %0 = add(%x, %p) : f32[2] loc(\"f.json\":1:2)\n"
            "    %1 = mul(%0, %0) : f32[2]\n"
            "    return %1\n"
            "  }\n"
            "}\n");
}

TEST(Parser, ErrorPositions) {
  EXPECT_EQ(parse_error(std::string(kHeader) + "    %0 = add(%x, %x, %x) : f32[2]\n"),
            "test.mlir:3:10: error: add: expected 2 operands, got 3");
  EXPECT_EQ(parse_error(std::string(kHeader) + "    %0 = neg(%x %x) : f32[2]\n"),
            "test.mlir:3:17: error: expected ')' after operands, found '%x'");
  EXPECT_EQ(parse_error(std::string(kHeader) + "    %0 = neg(%x) : f32[2]\n    return %0\n  }\n"),
            "test.mlir:6:1: error: unexpected end of input, expected 'func' or '}'");
  EXPECT_EQ(parse_error(""), "test.mlir:1:1: error: unexpected end of input, expected 'module'");
  EXPECT_EQ(parse_error("module @m {}\n\x01"), "test.mlir:2:1: error: unexpected character '\\x01'");
  EXPECT_EQ(parse_error("module @m {} }"),
            "test.mlir:1:14: error: expected end of input after module, found '}'");
}

// A valid file exercising most of the syntax, for the robustness tests.
std::string sample_text() { return print_module(make_all_ops()); }

TEST(Robustness, EveryTruncation) {
  std::string text = print_module(make_classifier());
  for (size_t n = 0; n < text.size(); ++n) {
    auto m = parse_module(std::string_view(text).substr(0, n), "t.mlir");
    // Only cutting the final newline keeps the module complete.
    if (m.ok()) EXPECT_GE(n, text.size() - 1) << n;
    else EXPECT_EQ(m.error().message.rfind("t.mlir:", 0), 0u) << m.error().message;
  }
}

TEST(Robustness, RandomMutations) {
  const std::string text = sample_text();
  std::mt19937_64 rng(12345);
  const std::string interesting = "%@[]{}(),:=-.\"\\0123456789einfa \n\x80\xff";
  int parsed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s = text;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % s.size();
      char c = (rng() % 2) ? interesting[rng() % interesting.size()] : static_cast<char>(rng() % 256);
      switch (rng() % 3) {
        case 0: s[pos] = c; break;
        case 1: s.insert(pos, 1, c); break;
        default: s.erase(pos, 1 + rng() % 8); break;
      }
      if (s.empty()) s = "x";
    }
    auto m = parse_module(s, "fuzz.mlir");
    if (m.ok()) {
      ++parsed;
      EXPECT_TRUE(verify_module(*m).ok()) << s;
      Module again = parse_ok(print_module(*m));  // whatever parses reprints and reparses
      EXPECT_EQ(print_module(again), print_module(*m));
    } else {
      EXPECT_EQ(m.error().message.rfind("fuzz.mlir:", 0), 0u) << m.error().message;
    }
  }
  EXPECT_LT(parsed, 3000);
}

TEST(Robustness, PathologicalInputs) {
  // Deep nesting is an error at the second '[' and does not recurse.
  std::string deep = std::string(kHeader) + "%0 = transpose(%x) {perm = " +
                     std::string(100000, '[');
  EXPECT_EQ(parse_error(deep), "test.mlir:3:29: error: attribute lists cannot be nested");
  EXPECT_NE(parse_error(std::string(kHeader) + std::string(100000, '(')).find("expected"),
            std::string::npos);
  // Long inputs parse in linear time: 200k ops in a chain, a 1M-element constant.
  std::string chain = std::string(kHeader) + "%0 = neg(%x) : f32[2]\n";
  const int n = 50000;
  for (int i = 1; i < n; ++i)
    chain += "%" + std::to_string(i) + " = neg(%" + std::to_string(i - 1) + ") : f32[2]\n";
  chain += "return %" + std::to_string(n - 1) + "\n}\n}\n";
  auto start = std::chrono::steady_clock::now();
  Module m = parse_ok(chain);
  EXPECT_EQ(m.functions.at(0)->ops.size(), static_cast<size_t>(n));
  std::string big = "module @m { func @f() -> (f32[1000000]) { %0 = constant() {value = [";
  for (int i = 0; i < 1000000; ++i) big += i ? ", 0.5" : "0.5";
  big += "]} : f32[1000000]\n return %0 } }";
  Module c = parse_ok(big);
  std::string printed = print_module(c);
  EXPECT_EQ(print_module(parse_ok(printed)), printed);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 60.0);
  // Huge names and a long run of commas are plain errors.
  EXPECT_NE(parse_error("module @" + std::string(1000000, 'a') + " { func @f() -> () { return " +
                        std::string(100000, ',') + "} }")
                .find("expected '}' after return, found ','"),
            std::string::npos);
}

}  // namespace
}  // namespace mlc
