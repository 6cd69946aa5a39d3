// The model language (frontends/dsl_parse.h, dsl_print.h): every example ships
// in both forms and both build the same IR; conversion both ways keeps the
// model; values keep their positions in the .mlc text.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontends/dsl_parse.h"
#include "frontends/dsl_print.h"
#include "frontends/json_print.h"
#include "frontends/model_file.h"
#include "tests/frontends/ir_text.h"
#include "tests/frontends/source_root.h"
#include "ir/printer.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

using testing::ir_without_locations;
using testing::read_text;

std::vector<fs::path> files_with(const std::string& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The examples: examples/ and PyTorch's examples in examples/pytorch/.
std::vector<fs::path> example_files(const std::string& ext) {
  std::vector<fs::path> out = files_with("examples", ext);
  for (const fs::path& p : files_with("examples/pytorch", ext)) out.push_back(p);
  return out;
}

// Members compared by key (a container's own fields may change order), arrays
// and the order of layers exactly.
void expect_same_model(const Json& a, const Json& b, const std::string& where) {
  EXPECT_EQ(nlohmann::json(a), nlohmann::json(b)) << where;
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) continue;
      if (it.key() == "layers" && it->is_object()) {
        std::vector<std::string> ka, kb;
        for (auto l = it->begin(); l != it->end(); ++l) ka.push_back(l.key());
        for (auto l = b[it.key()].begin(); l != b[it.key()].end(); ++l) kb.push_back(l.key());
        EXPECT_EQ(ka, kb) << where << ": layer order";
      }
      expect_same_model(*it, b[it.key()], where + "." + it.key());
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i)
      expect_same_model(a[i], b[i], where + "[" + std::to_string(i) + "]");
  }
}

TEST(ModelLanguage, EveryExampleShipsInBothFormsAndBuildsTheSameIR) {
  auto jsons = example_files(".json");
  ASSERT_GE(jsons.size(), 3u);
  for (const fs::path& json : jsons) {
    fs::path mlc = fs::path(json).replace_extension(".mlc");
    SCOPED_TRACE(mlc.string());
    ASSERT_TRUE(fs::exists(mlc)) << "every example ships in both forms";
    auto a = ModelFile::load(json.string());
    auto b = ModelFile::load(mlc.string());
    ASSERT_TRUE(a.ok()) << a.error().message;
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(a->config().params.size(), b->config().params.size());
    int64_t batch = a->config().trial_batch();
    EXPECT_EQ(batch, b->config().trial_batch());
    auto ma = a->build(batch);
    auto mb = b->build(batch);
    ASSERT_TRUE(ma.ok() && mb.ok());
    EXPECT_EQ(ir_without_locations(*ma), ir_without_locations(*mb));
    // The locations are the .mlc's own.
    EXPECT_NE(print_module(*mb).find("loc(\"" + mlc.string() + "\":"), std::string::npos);
    // And the settings (data, train, parallel) are the same values.
    auto da = JsonDoc::parse(read_text(json), json.string());
    auto db = parse_model_language(read_text(mlc), mlc.string());
    ASSERT_TRUE(da.ok() && db.ok());
    expect_same_model(*da->root().json, *db->root().json, "root");
  }
  for (const fs::path& mlc : example_files(".mlc"))
    EXPECT_TRUE(fs::exists(fs::path(mlc).replace_extension(".json"))) << mlc;
}

// Every valid model of the fuzz corpus, the examples and the loss oracle's: JSON -> language ->
// JSON keeps the model, and printing is a fixed point.
TEST(ModelLanguage, ConversionKeepsTheModel) {
  std::vector<fs::path> models = example_files(".json");
  for (const fs::path& p : files_with("tests/fuzz/corpus/model", ".json")) models.push_back(p);
  // The "init" sections of tests/oracle/init_functions.py.
  for (const fs::path& p : files_with("tests/data/oracle/init", ".json")) models.push_back(p);
  // The attention layers of tests/oracle/attention.py (keyword calls of layers, nested layers).
  for (const fs::path& p : files_with("tests/data/oracle/attention", ".json")) models.push_back(p);
  // The losses and activations of tests/oracle/losses.py (strings in forward statements).
  for (const fs::path& p : files_with("tests/data/oracle/losses", ".json")) models.push_back(p);
  // The spatial layers and functional forms of tests/oracle/spatial_layers.py.
  for (const fs::path& p : files_with("tests/data/oracle/spatial", ".json")) models.push_back(p);
  int converted = 0;
  for (const fs::path& p : models) {
    SCOPED_TRACE(p.string());
    std::string text = read_text(p);
    if (!ModelFile::parse(text, p.string()).ok()) continue;
    auto doc = JsonDoc::parse(text, p.string());
    ASSERT_TRUE(doc.ok());
    const Json& root = *doc->root().json;
    std::string mlc = print_model_language(root);
    auto back = parse_model_language(mlc, "converted.mlc");
    ASSERT_TRUE(back.ok()) << back.error().message << "\n" << mlc;
    expect_same_model(root, *back->root().json, "root");
    EXPECT_EQ(print_model_language(*back->root().json), mlc);
    auto model = ModelFile::parse(mlc, "converted.mlc");
    ASSERT_TRUE(model.ok()) << model.error().message << "\n" << mlc;
    auto original = ModelFile::parse(text, p.string());
    auto ma = original->build(1);
    auto mb = model->build(1);
    ASSERT_TRUE(ma.ok() && mb.ok());
    EXPECT_EQ(ir_without_locations(*ma), ir_without_locations(*mb));
    // And back to JSON: the same DOM, member order included.
    std::string json = print_model_json(*back->root().json);
    auto again = JsonDoc::parse(json, "converted.json");
    ASSERT_TRUE(again.ok()) << again.error().message << "\n" << json;
    expect_same_model(root, *again->root().json, "root");
    ++converted;
  }
  EXPECT_GE(converted, 30);
}

constexpr const char* kModel = R"(# a comment
name = m   # trailing comment
inputs:
    x: f32[batch, 4]
    y: i64[batch]

model(x):
    fc = Linear(4, 3,
                bias=False)   # a call spans lines inside its parentheses
    forward:
        h = fc(
            x)
        return relu(h)

loss = cross_entropy(targets=y)
train:
    batch_size = 8; steps = 2
    optimizer = adamw(lr=1e-3, betas=(0.9, 0.95))
)";

TEST(ModelLanguage, ValuesAndPositions) {
  auto doc = parse_model_language(kModel, "m.mlc");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const Json& root = *doc->root().json;
  EXPECT_EQ(root["name"], "m");
  EXPECT_EQ(root["inputs"]["x"]["dtype"], "f32");
  EXPECT_EQ(root["inputs"]["x"]["shape"], Json::parse(R"(["batch", 4])"));
  EXPECT_EQ(root["model"]["inputs"], Json::parse(R"(["x"])"));
  const Json& fc = root["model"]["layers"]["fc"];
  EXPECT_EQ(fc, Json::parse(R"({"type": "Linear", "in_features": 4, "out_features": 3, "bias": false})"));
  EXPECT_EQ(root["model"]["forward"][0], "h = fc(\n            x)");
  EXPECT_EQ(root["train"]["batch_size"], 8);
  EXPECT_EQ(root["train"]["steps"], 2);
  EXPECT_EQ(root["train"]["optimizer"]["betas"], Json::parse("[0.9, 0.95]"));
  EXPECT_EQ(root["train"]["optimizer"]["lr"], 1e-3);
  // Positions: a call at its type's name, a keyword at its name, a member's key.
  Node model = doc->root().child("model");
  Node layer = model.child("layers").child("fc");
  EXPECT_EQ(doc->loc(layer).str(), "m.mlc:8:10");
  EXPECT_EQ(doc->key_loc(layer).str(), "m.mlc:8:5");
  EXPECT_EQ(doc->key_loc(layer.child("bias")).str(), "m.mlc:9:17");
  EXPECT_EQ(doc->loc(layer.child("out_features")).str(), "m.mlc:8:20");
  // A statement maps each byte back, across its lines.
  StringLocator s = doc->string_locator(model.child("forward").element(0));
  EXPECT_EQ(s.at(0).str(), "m.mlc:11:9");
  EXPECT_EQ(s.at(20).str(), "m.mlc:12:13");
}

TEST(ModelLanguage, ErrorsInsideStatementsAndSlicesPointIntoTheText) {
  std::string text = kModel;
  text.replace(text.find("relu(h)"), 7, "relu(q)");
  auto m = ModelFile::parse(text, "m.mlc");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message, "m.mlc:13:21: error: forward: unknown name 'q' (defined here: x, h)");
  std::string data = std::string(kModel) +
                     "data:\n    file = \"d.safetensors\"\n    train:\n        x = images[:, ::2]\n"
                     "        y = labels\n";
  auto d = ModelFile::parse(data, "m.mlc");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message.rfind("m.mlc:22:", 0), 0u) << d.error().message;
  EXPECT_NE(d.error().message.find("slice steps are not supported"), std::string::npos);
}

// A custom op reads as its header's inputs and statement blocks, and prints
// back the same way.
TEST(ModelLanguage, CustomOpsAreStatementBlocks) {
  const std::string text = R"J(custom_ops:
    legendre3(x):
        forward:
            return 0.5 * (5 * x * x * x - 3 * x)
        backward:
            x:
                return grad * 1.5 * (5 * x * x - 1)
    scaled(a, b):
        forward = ["return a * b"]
        backward:
            a:
                return grad * b
            b = ["return grad * a"]
)J";
  auto doc = parse_model_language(text, "c.mlc");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(*doc->root().json, Json::parse(R"J({"custom_ops": {
    "legendre3": {"inputs": ["x"], "forward": ["return 0.5 * (5 * x * x * x - 3 * x)"],
                  "backward": {"x": ["return grad * 1.5 * (5 * x * x - 1)"]}},
    "scaled": {"inputs": ["a", "b"], "forward": ["return a * b"],
               "backward": {"a": ["return grad * b"], "b": ["return grad * a"]}}}})J"));
  std::string printed = print_model_language(*doc->root().json);
  EXPECT_EQ(printed, R"J(custom_ops:
    legendre3(x):
        forward:
            return 0.5 * (5 * x * x * x - 3 * x)
        backward:
            x:
                return grad * 1.5 * (5 * x * x - 1)
    scaled(a, b):
        forward:
            return a * b
        backward:
            a:
                return grad * b
            b:
                return grad * a
)J");
  // Statements keep their columns.
  Node st = doc->root().child("custom_ops").child("legendre3").child("backward").child("x").element(0);
  EXPECT_EQ(doc->string_locator(st).at(7).str(), "c.mlc:7:24");
}

// Inputs may spell their dtypes as PyTorch does (torch.float32, torch.long,
// ...), in both forms: the same model as with f32 and i64.
TEST(ModelLanguage, InputsTakePyTorchDtypeNames) {
  const std::pair<const char*, DType> names[] = {
      {"float32", DType::f32}, {"float", DType::f32},   {"float64", DType::f64}, {"double", DType::f64},
      {"float16", DType::f16}, {"half", DType::f16},    {"bfloat16", DType::bf16}, {"int64", DType::i64},
      {"long", DType::i64},    {"int32", DType::i32},   {"int", DType::i32},     {"bool", DType::boolean}};
  for (const auto& [name, dtype] : names) {
    SCOPED_TRACE(name);
    std::string text = kModel;
    text.insert(text.find("    y: i64[batch]"), std::string("    z: ") + name + "[batch, 4]\n");
    auto dsl = ModelFile::parse(text, "m.mlc");
    ASSERT_TRUE(dsl.ok()) << dsl.error().message;
    auto z = [](const ModelFile& m) {
      for (const InputInfo& in : m.config().inputs)
        if (in.name == "z") return in.dtype;
      return DType::f32;
    };
    EXPECT_EQ(z(*dsl), dtype);
    auto json_doc = parse_model_language(text, "m.mlc");
    ASSERT_TRUE(json_doc.ok());
    EXPECT_EQ((*json_doc->root().json)["inputs"]["z"]["dtype"], name);
    auto json = ModelFile::parse(nlohmann::json(*json_doc->root().json).dump(), "m.json");
    ASSERT_TRUE(json.ok()) << json.error().message;
    EXPECT_EQ(z(*json), dtype);
    // The converter writes the name as it was given.
    EXPECT_NE(print_model_language(*json_doc->root().json).find(std::string("z: ") + name + "[batch, 4]"),
              std::string::npos);
  }
  std::string text = kModel;
  text.replace(text.find("x: f32["), 6, "x: uint8");
  auto bad = ModelFile::parse(text, "m.mlc");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("m.mlc:4:8: error: unknown dtype 'uint8'", 0), 0u) << bad.error().message;
}

TEST(ModelLanguage, StandardInputIsReadByItsFirstCharacter) {
  EXPECT_TRUE(reads_as_model_language("name = m\n", "-"));
  EXPECT_FALSE(reads_as_model_language("  {\"name\": \"m\"}", "-"));
  EXPECT_TRUE(reads_as_model_language("{", "m.mlc"));
  EXPECT_FALSE(reads_as_model_language("name = m", "m.json"));
}

TEST(ModelLanguage, TheConverterQuotesWhatWouldReadAsSomethingElse) {
  Json root = Json::parse(R"({"name": "True", "a": "f32[3]", "b": "x[:, 1]", "c": "two words",
    "d": {"type": "sgd", "weird-key": 1}, "e": [{"type": "Linear", "in_features": 2}], "f": null,
    "g": "nn", "model": {"layers": {"forward": {"layers": {}}}}})");
  std::string text = print_model_language(root);
  EXPECT_NE(text.find("name = \"True\""), std::string::npos) << text;
  EXPECT_NE(text.find("a = \"f32[3]\""), std::string::npos) << text;
  EXPECT_NE(text.find("b = x[:, 1]"), std::string::npos) << text;
  EXPECT_NE(text.find("\"forward\":"), std::string::npos) << text;
  auto back = parse_model_language(text, "q.mlc");
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << text;
  expect_same_model(root, *back->root().json, "root");
}

}  // namespace
}  // namespace mlc
