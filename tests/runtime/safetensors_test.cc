// Tests of the safetensors reader/writer: round trips, the exact byte layout,
// unsupported dtypes, and one exact diagnostic per kind of corrupt file.
#include "runtime/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace mlc::rt {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Helpers.

std::string u64le(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return s;
}

// A file made of a length prefix, `header` and `data`.
std::string st_bytes(std::string_view header, std::string_view data = {}) {
  return u64le(header.size()) + std::string(header) + std::string(data);
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> dir_listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A tensor whose bytes follow a fixed pattern (0/1 for bool).
Tensor patterned(DType dtype, Shape shape, int seed = 0) {
  Tensor t(dtype, std::move(shape));
  for (int64_t i = 0; i < t.num_bytes(); ++i)
    t.bytes()[i] = dtype == DType::boolean ? std::byte((i + seed) % 2)
                                           : std::byte((i * 37 + 11 + seed) & 0xFF);
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.type() == b.type() && std::memcmp(a.bytes(), b.bytes(), a.num_bytes()) == 0;
}

// The error message of parsing `bytes` as "bad.safetensors" ("" if it parsed).
std::string parse_error(std::string_view bytes) {
  auto f = parse_safetensors(bytes, "bad.safetensors");
  return f ? "" : f.error().message;
}

class SafetensorsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("mlc_safetensors_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// ---------------------------------------------------------------------------
// Round trips.

TEST_F(SafetensorsFileTest, RoundTripsEveryDtypeIncludingScalarAndEmpty) {
  // Element sizes do not increase along this order, so it is kept as given.
  std::vector<std::pair<std::string, Tensor>> given;
  given.emplace_back("f64", patterned(DType::f64, {3}));
  given.emplace_back("i64", patterned(DType::i64, {2, 2}));
  given.emplace_back("f32", patterned(DType::f32, {2, 3}));
  given.emplace_back("i32", patterned(DType::i32, {5}));
  given.emplace_back("scalar", patterned(DType::f32, {}));
  given.emplace_back("empty", patterned(DType::f32, {2, 0, 3}));
  given.emplace_back("bf16", patterned(DType::bf16, {3}));
  given.emplace_back("f16", patterned(DType::f16, {1, 5}));
  given.emplace_back("bool", patterned(DType::boolean, {7}));
  std::vector<std::pair<std::string, const Tensor*>> tensors;
  for (const auto& [name, t] : given) tensors.emplace_back(name, &t);

  ASSERT_TRUE(write_safetensors(path("t.safetensors"), tensors).ok());
  auto file = read_safetensors(path("t.safetensors"));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->path, path("t.safetensors"));
  EXPECT_TRUE(file->metadata.empty());
  ASSERT_EQ(file->entries.size(), given.size());
  for (size_t i = 0; i < given.size(); ++i) {
    const SafetensorsEntry& e = file->entries[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(e.name, given[i].first);
    EXPECT_TRUE(e.supported);
    EXPECT_EQ(e.file_dtype, safetensors_dtype_name(given[i].second.dtype()));
    EXPECT_EQ(e.shape, given[i].second.shape());
    EXPECT_TRUE(same_bytes(e.tensor, given[i].second));
    auto got = file->get(e.name);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, &e.tensor);
  }
  EXPECT_EQ(file->find("scalar")->tensor.num_elements(), 1);
  EXPECT_EQ(file->find("empty")->tensor.num_elements(), 0);
}

TEST_F(SafetensorsFileTest, RoundTripsMetadataInOrder) {
  Tensor w = patterned(DType::f32, {4});
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"zeta", "1"}, {"alpha", "h\xC3\xA9llo \"quoted\" \\ \n"}, {"empty", ""}, {"step", "42"}};
  ASSERT_TRUE(write_safetensors(path("m.safetensors"), {{"w", &w}}, metadata).ok());
  auto file = read_safetensors(path("m.safetensors"));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->metadata, metadata);
}

TEST_F(SafetensorsFileTest, WritesNoTensorsAsAPaddedEmptyObject) {
  ASSERT_TRUE(write_safetensors(path("e.safetensors"), {}).ok());
  EXPECT_EQ(read_bytes(path("e.safetensors")), u64le(8) + "{}      ");
  auto file = read_safetensors(path("e.safetensors"));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_TRUE(file->entries.empty());
}

// ---------------------------------------------------------------------------
// Layout.

TEST_F(SafetensorsFileTest, WritesTheExactBytes) {
  Tensor w(DType::f32, {2});
  w.data<float>()[0] = 1.0f;
  w.data<float>()[1] = -2.0f;
  Tensor h(DType::f16, {3});
  h.data<uint16_t>()[0] = 0x3C00;  // 1
  h.data<uint16_t>()[1] = 0xC000;  // -2
  h.data<uint16_t>()[2] = 0x7C00;  // inf
  ASSERT_TRUE(write_safetensors(path("x.safetensors"), {{"w", &w}, {"h", &h}}, {{"k", "v"}}).ok());

  std::string json =
      R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("h":{"dtype":"F16","shape":[3],"data_offsets":[8,14]},"__metadata__":{"k":"v"}})";
  ASSERT_EQ(json.size(), 133u);  // padded by three spaces to N = 136, so 8 + N = 144
  std::string expected = std::string("\x88\0\0\0\0\0\0\0", 8) + json + "   " +
                         std::string("\x00\x00\x80\x3F\x00\x00\x00\xC0", 8) +  // 1.0f, -2.0f
                         std::string("\x00\x3C\x00\xC0\x00\x7C", 6);           // f16 1, -2, inf
  EXPECT_EQ(read_bytes(path("x.safetensors")), expected);
}

TEST_F(SafetensorsFileTest, KeepsTheGivenOrderWhenItIsAligned) {
  Tensor h = patterned(DType::f16, {2});  // 4 bytes: the f32 after it stays aligned
  Tensor w = patterned(DType::f32, {1});
  ASSERT_TRUE(write_safetensors(path("o.safetensors"), {{"h", &h}, {"w", &w}}).ok());
  auto file = read_safetensors(path("o.safetensors"));
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_EQ(file->entries.size(), 2u);
  EXPECT_EQ(file->entries[0].name, "h");
  EXPECT_EQ(file->entries[1].name, "w");
}

TEST_F(SafetensorsFileTest, SortsByElementSizeWhenTheGivenOrderWouldNeedGaps) {
  Tensor b = patterned(DType::boolean, {3});
  Tensor h = patterned(DType::f16, {1});
  Tensor w = patterned(DType::f32, {1});
  Tensor d = patterned(DType::f64, {1});
  Tensor w2 = patterned(DType::f32, {3});
  ASSERT_TRUE(write_safetensors(path("s.safetensors"),
                                {{"b", &b}, {"h", &h}, {"w", &w}, {"d", &d}, {"w2", &w2}})
                  .ok());
  // No gaps, each tensor aligned: [d 0..8) [w 8..12) [w2 12..24) [h 24..26) [b 26..29).
  std::string bytes = read_bytes(path("s.safetensors"));
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ((8 + n) % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + n + 29);
  EXPECT_NE(bytes.find(R"("d":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},)"
                       R"("w":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},)"
                       R"("w2":{"dtype":"F32","shape":[3],"data_offsets":[12,24]},)"
                       R"("h":{"dtype":"F16","shape":[1],"data_offsets":[24,26]},)"
                       R"("b":{"dtype":"BOOL","shape":[3],"data_offsets":[26,29]})"),
            std::string::npos);
  auto file = read_safetensors(path("s.safetensors"));
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_EQ(file->entries.size(), 5u);
  EXPECT_TRUE(same_bytes(file->find("b")->tensor, b));
  EXPECT_TRUE(same_bytes(file->find("d")->tensor, d));
}

// A file written by another writer: spaces in the JSON, metadata first, keys
// not in offset order, an alignment gap and trailing padding.
TEST(Safetensors, ReadsAHandMadeFile) {
  std::string header =
      R"({"__metadata__": {"format": "pt"}, "b": {"dtype": "I64", "shape": [1],)"
      R"( "data_offsets": [8, 16]}, "a": {"dtype": "I32", "shape": [], "data_offsets": [0, 4]}})";
  header.append(8 - header.size() % 8, ' ');
  std::string data = std::string("\x07\x00\x00\x00", 4) + std::string(4, '\xEE') +
                     std::string("\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 8);
  auto file = parse_safetensors(st_bytes(header, data), "hand.safetensors");
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_EQ(file->entries.size(), 2u);
  EXPECT_EQ(file->entries[0].name, "a");  // sorted by data offset
  EXPECT_EQ(file->entries[0].shape, Shape{});
  EXPECT_EQ(file->entries[0].tensor.data<int32_t>()[0], 7);
  EXPECT_EQ(file->entries[1].name, "b");
  EXPECT_EQ(file->entries[1].tensor.data<int64_t>()[0], -2);
  EXPECT_EQ(file->metadata, (std::vector<std::pair<std::string, std::string>>{{"format", "pt"}}));
}

// A file written by the PyTorch oracle (oracle/st.py), when a copy is checked
// in next to the tests. Writing its tensors back gives the same bytes.
TEST_F(SafetensorsFileTest, ReadsAndRewritesTheOracleInitFile) {
  const std::string oracle = MLC_SOURCE_DIR "/tests/data/oracle/digits_cnn/init.safetensors";
  if (!fs::exists(oracle)) GTEST_SKIP() << "no " << oracle;
  auto file = read_safetensors(oracle);
  ASSERT_TRUE(file.ok()) << file.error().message;
  std::vector<std::pair<std::string, Shape>> expected = {
      {"conv1.weight", {16, 1, 3, 3}}, {"conv1.bias", {16}}, {"conv2.weight", {32, 16, 3, 3}},
      {"conv2.bias", {32}},            {"fc.weight", {10, 128}}, {"fc.bias", {10}}};
  ASSERT_EQ(file->entries.size(), expected.size());
  std::vector<std::pair<std::string, const Tensor*>> tensors;
  for (size_t i = 0; i < expected.size(); ++i) {
    const SafetensorsEntry& e = file->entries[i];
    EXPECT_EQ(e.name, expected[i].first);
    EXPECT_EQ(e.file_dtype, "F32");
    EXPECT_EQ(e.tensor.type(), (TensorType{DType::f32, expected[i].second}));
    tensors.emplace_back(e.name, &e.tensor);
  }
  auto model = std::find_if(file->metadata.begin(), file->metadata.end(),
                            [](const auto& kv) { return kv.first == "model"; });
  ASSERT_NE(model, file->metadata.end());
  EXPECT_EQ(model->second, "digits_cnn");

  ASSERT_TRUE(write_safetensors(path("copy.safetensors"), tensors, file->metadata).ok());
  EXPECT_EQ(read_bytes(path("copy.safetensors")), read_bytes(oracle));
}

// ---------------------------------------------------------------------------
// Unsupported dtypes and lookups.

TEST(Safetensors, KeepsUnsupportedDtypesAsEntriesWithoutData) {
  std::string header =
      R"({"tokens":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},)"
      R"("noise":{"dtype":"U8","shape":[2,3],"data_offsets":[16,22]},)"
      R"("half":{"dtype":"F4","shape":[4],"data_offsets":[22,24]}})";
  auto file = parse_safetensors(st_bytes(header, std::string(24, '\x01')), "d.safetensors");
  ASSERT_TRUE(file.ok()) << file.error().message;
  const SafetensorsEntry* noise = file->find("noise");
  ASSERT_NE(noise, nullptr);
  EXPECT_FALSE(noise->supported);
  EXPECT_EQ(noise->file_dtype, "U8");
  EXPECT_EQ(noise->shape, (Shape{2, 3}));
  EXPECT_EQ(noise->tensor.bytes(), nullptr);
  EXPECT_TRUE(file->get("tokens").ok());
  EXPECT_EQ(file->get("noise").error().message,
            "d.safetensors: error: tensor 'noise' has dtype U8, which mlc does not support "
            "(supported: F32, F64, BF16, F16, I32, I64, BOOL)");
  EXPECT_EQ(file->get("half").error().message,
            "d.safetensors: error: tensor 'half' has dtype F4, which mlc does not support "
            "(supported: F32, F64, BF16, F16, I32, I64, BOOL)");
}

TEST(Safetensors, MissingTensorListsAtMostTenNames) {
  std::string few = R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                    R"("b":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}})";
  auto file = parse_safetensors(st_bytes(few), "f.safetensors");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->find("x"), nullptr);
  EXPECT_EQ(file->get("x").error().message, "f.safetensors: error: no tensor 'x' (the file has: a, b)");

  std::string many = "{";
  for (int i = 0; i < 12; ++i)
    many += (i ? "," : "") + ("\"t" + std::to_string(i)) + R"(":{"dtype":"F32","shape":[0],"data_offsets":[0,0]})";
  many += "}";
  file = parse_safetensors(st_bytes(many), "f.safetensors");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->get("x").error().message,
            "f.safetensors: error: no tensor 'x' (the file has: t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, ...)");

  file = parse_safetensors(st_bytes("{}"), "f.safetensors");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->get("x").error().message, "f.safetensors: error: no tensor 'x' (the file has no tensors)");
}

TEST(Safetensors, DtypeNames) {
  EXPECT_EQ(safetensors_dtype_name(DType::f32), "F32");
  EXPECT_EQ(safetensors_dtype_name(DType::f64), "F64");
  EXPECT_EQ(safetensors_dtype_name(DType::bf16), "BF16");
  EXPECT_EQ(safetensors_dtype_name(DType::f16), "F16");
  EXPECT_EQ(safetensors_dtype_name(DType::i32), "I32");
  EXPECT_EQ(safetensors_dtype_name(DType::i64), "I64");
  EXPECT_EQ(safetensors_dtype_name(DType::boolean), "BOOL");
}

// ---------------------------------------------------------------------------
// Corrupt files: one exact diagnostic each.

// `{"w": F32 [2] at [0, 8)}` with its 8 data bytes, padded so 8 + N = 64.
std::string valid_file() {
  std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  header.append(56 - header.size(), ' ');
  return st_bytes(header, std::string(8, '\x11'));
}

// A one-tensor header with the given entry body.
std::string one_entry(std::string_view name, std::string_view entry, std::string_view data = {}) {
  return st_bytes("{\"" + std::string(name) + "\":" + std::string(entry) + "}", data);
}

TEST(SafetensorsCorrupt, ValidFixtureParses) { EXPECT_EQ(parse_error(valid_file()), ""); }

TEST(SafetensorsCorrupt, TruncatedInsideTheLength) {
  EXPECT_EQ(parse_error(""),
            "bad.safetensors: error: file has 0 bytes, too few for a safetensors file (at least 8)");
  EXPECT_EQ(parse_error(valid_file().substr(0, 5)),
            "bad.safetensors: error: file has 5 bytes, too few for a safetensors file (at least 8)");
}

// Another kind of file (here a model file's JSON and a text) is called that,
// not a header length of 7881701915721992827.
TEST(SafetensorsCorrupt, AnotherKindOfFileIsCalledThat) {
  EXPECT_EQ(parse_error("{\n  \"name\": \"digits_mlp\"\n}\n"),
            "bad.safetensors: error: not a safetensors file: it starts with \"{\\n  \\\"name\\\": \", where a "
            "safetensors file has an 8-byte header length and then a JSON header '{'");
  EXPECT_EQ(parse_error(std::string("# mlc\n\x01\xff and more text")),
            "bad.safetensors: error: not a safetensors file: it starts with \"# mlc\\n\\x01\\xff and\", where a "
            "safetensors file has an 8-byte header length and then a JSON header '{'");
}

TEST(SafetensorsCorrupt, TruncatedInsideTheHeader) {
  EXPECT_EQ(parse_error(valid_file().substr(0, 8)),
            "bad.safetensors: error: header length 56 exceeds the 0 bytes after the length field "
            "(truncated file?)");
  EXPECT_EQ(parse_error(valid_file().substr(0, 40)),
            "bad.safetensors: error: header length 56 exceeds the 32 bytes after the length field "
            "(truncated file?)");
}

TEST(SafetensorsCorrupt, TruncatedInsideTheData) {
  EXPECT_EQ(parse_error(valid_file().substr(0, 64)),
            "bad.safetensors: error: tensor 'w': data_offsets [0, 8] end beyond the data section, "
            "which has 0 bytes (truncated file?)");
  EXPECT_EQ(parse_error(valid_file().substr(0, 71)),
            "bad.safetensors: error: tensor 'w': data_offsets [0, 8] end beyond the data section, "
            "which has 7 bytes (truncated file?)");
}

TEST_F(SafetensorsFileTest, EveryTruncationOfAWrittenFileFails) {
  Tensor a = patterned(DType::f32, {3, 2});
  Tensor b = patterned(DType::boolean, {5});
  ASSERT_TRUE(write_safetensors(path("t.safetensors"), {{"a", &a}, {"b", &b}}, {{"k", "v"}}).ok());
  std::string bytes = read_bytes(path("t.safetensors"));
  ASSERT_EQ(parse_error(bytes), "");
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string message = parse_error(std::string_view(bytes).substr(0, n));
    EXPECT_EQ(message.rfind("bad.safetensors: error: ", 0), 0u) << "prefix of " << n << " bytes: " << message;
  }
}

TEST(SafetensorsCorrupt, HugeHeaderLength) {
  EXPECT_EQ(parse_error(u64le(~uint64_t{0}) + "{}"),
            "bad.safetensors: error: header length 18446744073709551615 exceeds the limit of "
            "100000000 bytes");
  EXPECT_EQ(parse_error(u64le(100'000'001) + "{}"),
            "bad.safetensors: error: header length 100000001 exceeds the limit of 100000000 bytes");
}

TEST(SafetensorsCorrupt, HeaderIsNotJson) {
  EXPECT_EQ(parse_error(st_bytes(R"({"w": {"dtype": "F32",)")),
            "bad.safetensors: error: header is not valid JSON: [json.exception.parse_error.101] parse "
            "error at line 1, column 23: syntax error while parsing object key - unexpected end "
            "of input; expected string literal");
  EXPECT_EQ(parse_error(st_bytes("")),
            "bad.safetensors: error: header is not valid JSON: [json.exception.parse_error.101] parse "
            "error at line 1, column 1: syntax error while parsing value - unexpected end of "
            "input; expected '[', '{', or a literal");
}

TEST(SafetensorsCorrupt, HeaderIsNotUtf8) {
  EXPECT_EQ(parse_error(st_bytes("{\"w\xFF\": 1}")),
            "bad.safetensors: error: header is not valid UTF-8 (byte 0xff at header offset 3)");
  // An overlong encoding of '/'.
  EXPECT_EQ(parse_error(st_bytes("{\"\xC0\xAF\": 1}")),
            "bad.safetensors: error: header is not valid UTF-8 (byte 0xc0 at header offset 2)");
  // A sequence cut by the end of the header.
  EXPECT_EQ(parse_error(st_bytes("{} \xE2\x82")),
            "bad.safetensors: error: header is not valid UTF-8 (byte 0xe2 at header offset 3)");
}

TEST(SafetensorsCorrupt, HeaderIsNotAnObject) {
  EXPECT_EQ(parse_error(st_bytes("[1, 2]")),
            "bad.safetensors: error: header must be a JSON object, got array");
}

TEST(SafetensorsCorrupt, HeaderNestsTooDeep) {
  EXPECT_EQ(parse_error(st_bytes(R"({"w": {"dtype": [[[[[[[[[[1]]]]]]]]]]}})")),
            "bad.safetensors: error: header JSON is nested more than 8 levels deep");
  // Deeper than any recursive algorithm could take: still just an error.
  std::string deep = R"({"w": {"shape": )" + std::string(100'000, '[') +
                     std::string(100'000, ']') + "}}";
  EXPECT_EQ(parse_error(st_bytes(deep)),
            "bad.safetensors: error: header JSON is nested more than 8 levels deep");
}

// Regression: a header of nested arrays up to the 100 MB limit was parsed
// whole (3.8 GB) before its depth was checked. The parser now stops at the
// ninth bracket.
TEST(SafetensorsCorrupt, HeaderOfNestedArraysUpToTheLimitStopsAtTheDepthLimit) {
  const size_t half = 50'000'000;
  std::string deep(half, '[');
  deep.append(half, ']');
  EXPECT_EQ(parse_error(st_bytes(deep)),
            "bad.safetensors: error: header JSON is nested more than 8 levels deep");
}

// A header of many tensors is read in linear time (members are appended, not
// looked up) and duplicate names are still found.
TEST(Safetensors, ManyTensorsAndADuplicateAmongThem) {
  const int n = 100'000;
  std::string header = "{";
  for (int i = 0; i < n; ++i)
    header += (i ? ",\"t" : "\"t") + std::to_string(i) +
              "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[" + std::to_string(4 * i) + "," +
              std::to_string(4 * i + 4) + "]}";
  std::string data(4 * n, '\0');
  auto f = parse_safetensors(st_bytes(header + "}", data), "many.safetensors");
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ(f->entries.size(), static_cast<size_t>(n));
  EXPECT_EQ(f->find("t99999"), &f->entries.back());
  EXPECT_EQ(parse_error(st_bytes(header + ",\"t7\":{}}", data)),
            "bad.safetensors: error: duplicate tensor name 't7' in the header");
}

TEST(SafetensorsCorrupt, EntryIsNotAnObject) {
  EXPECT_EQ(parse_error(one_entry("w", "[1, 2]")),
            "bad.safetensors: error: tensor 'w': entry must be a JSON object, got [1,2]");
}

TEST(SafetensorsCorrupt, MissingField) {
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': missing field 'shape'");
}

TEST(SafetensorsCorrupt, UnexpectedField) {
  EXPECT_EQ(parse_error(one_entry(
                "w", R"({"dtype": "F32", "shape": [0], "data_offsets": [0, 0], "offsets": 1})")),
            "bad.safetensors: error: tensor 'w': unexpected field 'offsets' (expected dtype, shape, "
            "data_offsets)");
}

TEST(SafetensorsCorrupt, DtypeIsNotAString) {
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": 32, "shape": [0], "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': dtype must be a string, got 32");
}

TEST(SafetensorsCorrupt, UnknownDtype) {
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "f32", "shape": [0], "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': unknown dtype 'f32'");
}

TEST(SafetensorsCorrupt, NegativeDim) {
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "shape": [2, -3], "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': shape must be an array of non-negative integers, got [2,-3]");
}

TEST(SafetensorsCorrupt, ShapeIsNotIntegers) {
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "shape": [1e12], "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': shape must be an array of non-negative integers, got "
            "[1000000000000.0]");
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "shape": 4, "data_offsets": [0, 16]})")),
            "bad.safetensors: error: tensor 'w': shape must be an array of non-negative integers, got 4");
}

TEST(SafetensorsCorrupt, ShapeOverflows) {
  EXPECT_EQ(parse_error(one_entry(
                "w", R"({"dtype": "F32", "shape": [1000000000000, 1000000000000], "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': shape [1000000000000,1000000000000] has more than 2^40 "
            "elements");
  // A zero dim does not excuse an absurd one.
  EXPECT_EQ(parse_error(one_entry(
                "w", R"({"dtype": "F32", "shape": [0, 18446744073709551615], "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': shape [0,18446744073709551615] has a dim above 2^40");
}

TEST(SafetensorsCorrupt, OffsetsAreNotTwoIntegers) {
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "shape": [0], "data_offsets": [0]})")),
            "bad.safetensors: error: tensor 'w': data_offsets must be two non-negative integers "
            "[begin, end], got [0]");
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "shape": [0], "data_offsets": [-4, 0]})")),
            "bad.safetensors: error: tensor 'w': data_offsets must be two non-negative integers "
            "[begin, end], got [-4,0]");
}

TEST(SafetensorsCorrupt, OffsetsBeginAfterEnd) {
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "shape": [1], "data_offsets": [8, 4]})",
                                  std::string(8, '\0'))),
            "bad.safetensors: error: tensor 'w': data_offsets [8, 4] have begin > end");
}

TEST(SafetensorsCorrupt, OffsetsBeyondTheData) {
  EXPECT_EQ(parse_error(one_entry(
                "w", R"({"dtype": "F32", "shape": [1], "data_offsets": [18446744073709551611, 18446744073709551615]})",
                std::string(8, '\0'))),
            "bad.safetensors: error: tensor 'w': data_offsets [18446744073709551611, "
            "18446744073709551615] end beyond the data section, which has 8 bytes (truncated file?)");
}

TEST(SafetensorsCorrupt, SizeDoesNotMatchTheShape) {
  EXPECT_EQ(parse_error(one_entry(
                "conv1.weight", R"({"dtype": "F32", "shape": [16,1,3,3], "data_offsets": [0, 100]})",
                std::string(100, '\0'))),
            "bad.safetensors: error: tensor 'conv1.weight': data_offsets [0, 100] hold 100 bytes but "
            "shape [16,1,3,3] of F32 needs 576");
  EXPECT_EQ(parse_error(one_entry("q", R"({"dtype": "F4", "shape": [3], "data_offsets": [0, 2]})",
                                  std::string(2, '\0'))),
            "bad.safetensors: error: tensor 'q': shape [3] of F4 is not a whole number of bytes");
}

TEST(SafetensorsCorrupt, OverlappingTensors) {
  std::string header = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                       R"( "e": {"dtype": "F32", "shape": [0], "data_offsets": [4, 4]},)"
                       R"( "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})";
  EXPECT_EQ(parse_error(st_bytes(header, std::string(12, '\0'))),
            "bad.safetensors: error: tensors 'a' (data_offsets [0, 8]) and 'b' (data_offsets [4, 12]) "
            "overlap");
}

TEST(SafetensorsCorrupt, MetadataIsNotStrings) {
  EXPECT_EQ(parse_error(st_bytes(R"({"__metadata__": {"step": 3}})")),
            "bad.safetensors: error: __metadata__ value for 'step' must be a string, got 3");
  EXPECT_EQ(parse_error(st_bytes(R"({"__metadata__": ["a", "b"]})")),
            "bad.safetensors: error: __metadata__ must be a JSON object of strings, got [\"a\",\"b\"]");
}

TEST(SafetensorsCorrupt, DuplicateKeys) {
  std::string e = R"({"dtype": "F32", "shape": [0], "data_offsets": [0, 0]})";
  EXPECT_EQ(parse_error(st_bytes(R"({"w": )" + e + R"(, "w": )" + e + "}")),
            "bad.safetensors: error: duplicate tensor name 'w' in the header");
  EXPECT_EQ(parse_error(one_entry("w", R"({"dtype": "F32", "dtype": "F64", "shape": [0], "data_offsets": [0, 0]})")),
            "bad.safetensors: error: tensor 'w': duplicate field 'dtype'");
  EXPECT_EQ(parse_error(st_bytes(R"({"__metadata__": {"k": "1", "k": "2"}})")),
            "bad.safetensors: error: __metadata__: duplicate key 'k'");
  EXPECT_EQ(parse_error(st_bytes(R"({"__metadata__": {}, "__metadata__": {}})")),
            "bad.safetensors: error: duplicate key '__metadata__' in the header");
}

TEST(SafetensorsCorrupt, BoolBytesAreNotZeroOrOne) {
  EXPECT_EQ(parse_error(one_entry("m", R"({"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]})",
                                  std::string("\x01\x00\x07", 3))),
            "bad.safetensors: error: tensor 'm': BOOL element 2 is 7, not 0 or 1");
}

// Every single-byte change of a valid file either parses or fails cleanly
// (meaningful under the sanitizers: no crash, no out-of-bounds read).
TEST(SafetensorsCorrupt, ByteMutationsNeverCrash) {
  Tensor a = patterned(DType::f32, {3, 2});
  Tensor b = patterned(DType::boolean, {5});
  std::string header =
      R"({"a":{"dtype":"F32","shape":[3,2],"data_offsets":[0,24]},)"
      R"("b":{"dtype":"BOOL","shape":[5],"data_offsets":[24,29]},"__metadata__":{"k":"v"}})";
  std::string data(reinterpret_cast<const char*>(a.bytes()), 24);
  data.append(reinterpret_cast<const char*>(b.bytes()), 5);
  const std::string original = st_bytes(header, data);
  ASSERT_EQ(parse_error(original), "");
  const char replacements[] = {'\0', '\x01', '\xFF', '\x80', '"', '[', ']', '{', '}',
                               ',', ':', '-', '9', ' ', 'e', '.'};
  int failures = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    for (char r : replacements) {
      std::string bytes = original;
      bytes[i] = r;
      auto f = parse_safetensors(bytes, "bad.safetensors");
      if (!f) {
        ++failures;
        EXPECT_EQ(f.error().message.rfind("bad.safetensors: error: ", 0), 0u);
        continue;
      }
      for (const SafetensorsEntry& e : f->entries) {
        if (e.supported) {
          EXPECT_EQ(e.tensor.shape(), e.shape);
        }
      }
    }
  }
  EXPECT_GT(failures, 0);
}

// ---------------------------------------------------------------------------
// Files on disk.

TEST_F(SafetensorsFileTest, MissingFile) {
  auto f = read_safetensors(path("nope.safetensors"));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message, path("nope.safetensors") + ": error: cannot open: No such file or directory");
}

TEST_F(SafetensorsFileTest, DirectoryIsNotAFile) {
  auto f = read_safetensors(dir_.string());
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message, dir_.string() + ": error: not a regular file (a directory)");
}

TEST_F(SafetensorsFileTest, ReadsACorruptFileAsAnError) {
  write_bytes(path("c.safetensors"), valid_file().substr(0, 70));
  auto f = read_safetensors(path("c.safetensors"));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message, path("c.safetensors") +
                                   ": error: tensor \'w\': data_offsets [0, 8] end beyond the data "
                                   "section, which has 6 bytes (truncated file?)");
}

TEST_F(SafetensorsFileTest, WriteIntoAMissingDirectoryFailsCleanly) {
  Tensor w = patterned(DType::f32, {2});
  std::string target = path("missing/w.safetensors");
  Status s = write_safetensors(target, {{"w", &w}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, target + ": error: cannot create a temporary file '" + target + ".tmp." +
                                   std::to_string(::getpid()) + ".*' next to it: No such file or directory");
  EXPECT_TRUE(dir_listing(dir_).empty());
}

TEST_F(SafetensorsFileTest, FailedRenameRemovesTheTemporaryFile) {
  fs::create_directories(dir_ / "taken" / "child");  // a non-empty directory cannot be replaced
  Tensor w = patterned(DType::f32, {2});
  std::string target = path("taken");
  Status s = write_safetensors(target, {{"w", &w}});
  ASSERT_FALSE(s.ok());
  // "<target>.tmp.<pid>.<12 random hex digits>" (runtime/file_io.h)
  const std::string prefix = target + ": error: cannot rename '" + target + ".tmp." + std::to_string(::getpid()) + ".";
  const std::string suffix = "' over it: Is a directory";
  EXPECT_EQ(s.error().message.substr(0, prefix.size()), prefix);
  EXPECT_EQ(s.error().message.size(), prefix.size() + 12 + suffix.size()) << s.error().message;
  EXPECT_TRUE(s.error().message.ends_with(suffix)) << s.error().message;
  EXPECT_EQ(dir_listing(dir_), std::vector<std::string>{"taken"});
  EXPECT_TRUE(fs::is_directory(dir_ / "taken" / "child"));
}

TEST_F(SafetensorsFileTest, WritingReplacesAnExistingFile) {
  Tensor a = patterned(DType::f32, {64});
  Tensor b = patterned(DType::i64, {3}, 5);
  std::string target = path("w.safetensors");
  ASSERT_TRUE(write_safetensors(target, {{"a", &a}, {"b", &b}}, {{"v", "1"}}).ok());
  ASSERT_TRUE(write_safetensors(target, {{"b", &b}}).ok());
  auto file = read_safetensors(target);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_EQ(file->entries.size(), 1u);
  EXPECT_EQ(file->entries[0].name, "b");
  EXPECT_TRUE(same_bytes(file->entries[0].tensor, b));
  EXPECT_TRUE(file->metadata.empty());
  EXPECT_EQ(dir_listing(dir_), std::vector<std::string>{"w.safetensors"});
}

TEST_F(SafetensorsFileTest, RejectsBadWriteRequestsWithoutCreatingAFile) {
  Tensor w = patterned(DType::f32, {2});
  Tensor unset;
  std::string p = path("r.safetensors");
  auto message = [&](const std::vector<std::pair<std::string, const Tensor*>>& tensors,
                     const std::vector<std::pair<std::string, std::string>>& metadata = {}) {
    Status s = write_safetensors(p, tensors, metadata);
    return s.ok() ? std::string() : s.error().message;
  };
  EXPECT_EQ(message({{"w", &w}, {"w", &w}}), p + ": error: duplicate tensor name 'w'");
  EXPECT_EQ(message({{"__metadata__", &w}}), p + ": error: '__metadata__' cannot name a tensor");
  EXPECT_EQ(message({{"w", nullptr}}), p + ": error: tensor 'w': null tensor");
  EXPECT_EQ(message({{"w", &unset}}), p + ": error: tensor 'w': tensor has no data (default-constructed)");
  EXPECT_EQ(message({{"w\xFF", &w}}), p + ": error: tensor name is not valid UTF-8");
  EXPECT_EQ(message({{"w", &w}}, {{"k", "1"}, {"k", "2"}}), p + ": error: duplicate metadata key 'k'");
  EXPECT_EQ(message({{"w", &w}}, {{"k", "\xC3"}}), p + ": error: metadata is not valid UTF-8");
  EXPECT_TRUE(dir_listing(dir_).empty());
}

}  // namespace
}  // namespace mlc::rt
