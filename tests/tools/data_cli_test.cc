// `mlc data` end to end (tools/cmd_data.cc): what a safetensors file holds;
// numpy's .npy and .npz files (numpy's own, tests/oracle/npy_files.py, and
// one this test writes byte by byte) and CSV tables imported exactly; text
// turned into a token file that tiny_gpt trains from, whose vocabulary turns
// the ids back into the text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "runtime/safetensors.h"
#include "runtime/tensor_cast.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using testing::RunResult;
using testing::slurp;

std::string scratch(const std::string& name) { return (testing::scratch_dir("mlc_data_cli") / name).string(); }

RunResult mlc(const std::string& args) { return testing::run_mlc(args); }

rt::SafetensorsFile read(const std::string& path) {
  auto f = rt::read_safetensors(path);
  EXPECT_TRUE(f.ok()) << f.error().message;
  return f.ok() ? std::move(*f) : rt::SafetensorsFile{};
}

// The file `mlc data import ARGS -o F` writes.
rt::SafetensorsFile imported(const std::string& args) {
  const std::string out = scratch("imported.safetensors");
  RunResult r = mlc("data import " + args + " -o " + out);
  EXPECT_EQ(r.status, 0) << r.err;
  return read(out);
}

// "NAME dtype[shape]" of each tensor, in file order.
std::vector<std::string> types(const rt::SafetensorsFile& f) {
  std::vector<std::string> out;
  for (const rt::SafetensorsEntry& e : f.entries) out.push_back(e.name + " " + e.tensor.type().str());
  return out;
}

// The values of expected.json's arrays, exactly, in every imported file.
void expect_numpy_arrays(const rt::SafetensorsFile& f, const std::string& what) {
  const nlohmann::json expected = nlohmann::json::parse(slurp("tests/data/npy/expected.json"));
  ASSERT_EQ(f.entries.size(), expected.size()) << what;
  for (const auto& [name, want] : expected.items()) {
    SCOPED_TRACE(what + ": " + name);
    const rt::SafetensorsEntry* e = f.find(name);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(std::string(dtype_name(e->tensor.dtype())), want["dtype"].get<std::string>());
    EXPECT_EQ(e->tensor.shape(), want["shape"].get<Shape>());
    ASSERT_EQ(e->tensor.num_elements(), static_cast<int64_t>(want["values"].size()));
    for (int64_t k = 0; k < e->tensor.num_elements(); ++k) {
      const nlohmann::json& v = want["values"][static_cast<size_t>(k)];
      if (e->tensor.dtype() == DType::i64)
        EXPECT_EQ(e->tensor.data<int64_t>()[k], v.get<int64_t>()) << k;
      else
        EXPECT_EQ(rt::element_as_double(e->tensor, k), v.is_boolean() ? double(v.get<bool>()) : v.get<double>()) << k;
    }
  }
}

// numpy.savez (stored) and numpy.savez_compressed (deflated) of the same
// arrays: every dtype numpy writes that mlc reads, Fortran order, a scalar
// and an empty array.
TEST(DataImport, NumpyArchivesStoredAndDeflated) {
  for (const char* archive : {"arrays.npz", "arrays_deflated.npz"}) {
    const std::string out = scratch(std::string(archive) + ".safetensors");
    RunResult r = mlc("data import tests/data/npy/" + std::string(archive) + " -o " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("  u8 i64[2,2] (from tests/data/npy/" + std::string(archive) + ")\n"), std::string::npos)
        << r.out;
    expect_numpy_arrays(read(out), archive);
  }
}

// A .npy file written here, byte by byte as numpy.lib.format documents it
// (version 2.0, a header padded to 64 bytes): its f32 bits come back exactly,
// NaN payload, negative zero and subnormals included; a Fortran-ordered file
// is read in C order; big-endian data is refused.
TEST(DataImport, NpyFilesAreReadBitForBit) {
  const uint32_t bits[] = {0x7fc00123u, 0x80000000u, 0x00000001u, 0x3f800000u, 0xff7fffffu, 0x12345678u};
  std::string header = "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}";
  header.append(64 - (12 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x02\x00", 8);
  for (int k = 0; k < 4; ++k) file += static_cast<char>((header.size() >> (8 * k)) & 0xff);
  file += header;
  file.append(reinterpret_cast<const char*>(bits), sizeof bits);
  const std::string npy = scratch("weights.npy"), out = scratch("weights.safetensors");
  std::ofstream(npy, std::ios::binary) << file;
  RunResult r = mlc("data import " + npy + " tests/data/npy/fortran.npy -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const rt::SafetensorsFile f = read(out);
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].name, "weights");
  EXPECT_EQ(f.entries[0].tensor.type(), (TensorType{DType::f32, {2, 3}}));
  EXPECT_EQ(std::memcmp(f.entries[0].tensor.bytes(), bits, sizeof bits), 0);
  EXPECT_EQ(f.entries[1].name, "fortran");
  EXPECT_EQ(f.entries[1].tensor.type(), (TensorType{DType::i32, {2, 3}}));
  const int32_t c_order[] = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(std::memcmp(f.entries[1].tensor.bytes(), c_order, sizeof c_order), 0);

  RunResult big = mlc("data import tests/data/npy/big_endian.npy -o " + out);
  EXPECT_EQ(big.status, 1);
  EXPECT_EQ(big.err.rfind("tests/data/npy/big_endian.npy: error: byte 10: descr '>f4': big-endian data; ", 0), 0u)
      << big.err;
}

// CSV: one 2-D tensor per file (i64 when every cell is an integer, else
// f32), or with --columns one per column named by the header; --name and
// --dtype; a malformed table names its line and column.
TEST(DataImport, CsvTables) {
  const std::string plain = scratch("points.csv"), headed = scratch("iris.csv");
  std::ofstream(plain) << "1,2,3\n4,5,6\r\n\n7,8,9\n";
  std::ofstream(headed) << "sepal, petal ,\"class\"\n5.1,1.4,0\n4.9,1.5,2\n";
  rt::SafetensorsFile f = imported(plain + " " + headed);
  EXPECT_EQ(types(f), (std::vector<std::string>{"points i64[3,3]", "iris f32[2,3]"}));
  EXPECT_EQ(f.entries[0].tensor.data<int64_t>()[8], 9);
  EXPECT_EQ(f.entries[1].tensor.data<float>()[3], 4.9f);
  f = imported(headed + " --columns");
  EXPECT_EQ(types(f), (std::vector<std::string>{"sepal f32[2]", "petal f32[2]", "class i64[2]"}));
  EXPECT_EQ(f.entries[2].tensor.data<int64_t>()[1], 2);
  f = imported(plain + " --columns --name p --dtype float64");
  EXPECT_EQ(types(f), (std::vector<std::string>{"p_0 f64[3]", "p_1 f64[3]", "p_2 f64[3]"}));

  const std::string out = scratch("csv.safetensors");
  RunResult lossy = mlc("data import " + headed + " --dtype i64 -o " + out);
  EXPECT_EQ(lossy.status, 1);
  EXPECT_EQ(lossy.err, headed + ": error: tensor 'iris' (--dtype): element 0 is 5.0999999999999996, which i64 "
                                "cannot hold\n");
  const std::string ragged = scratch("ragged.csv");
  std::ofstream(ragged) << "a,b\n1,2\n3\n4,x\n";
  RunResult bad = mlc("data import " + ragged + " -o " + out);
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err, ragged + ":3:1: error: expected 2 cells (as line 1), found 1\n");
}

// `mlc data FILE`: every tensor with its dtype, shape and values' range,
// and the metadata; --format json the same as one object.
TEST(DataShow, TensorsAndMetadata) {
  RunResult r = mlc("data examples/data/tiny_gpt_tokens.safetensors");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("examples/data/tiny_gpt_tokens.safetensors: 4 tensors\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  tokens  I64[256,33]           min 0  max 63  mean "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  noise   U8[256,33]            (no mlc dtype: not read)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("metadata:\n  torch = 1.13.0a0\n"), std::string::npos) << r.out;
  RunResult j = mlc("data examples/data/tiny_gpt_tokens.safetensors --format json");
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["tensors"][0]["name"], "tokens");
  EXPECT_EQ(doc["tensors"][0]["shape"], nlohmann::json::parse("[256, 33]"));
  EXPECT_EQ(doc["tensors"][0]["max"], 63.0);
  EXPECT_FALSE(doc["tensors"][3].contains("min"));  // U8: not read
  EXPECT_EQ(doc["metadata"]["seed"], "1234");
  RunResult flag = mlc("data examples/data/tiny_gpt_tokens.safetensors --seq 4");
  EXPECT_EQ(flag.status, 2);
  EXPECT_EQ(flag.err, "mlc: error: --seq does not apply to mlc data FILE.safetensors; `mlc help data` says which "
                      "form takes it\n");
}

// Text to tokens and back: each row is seq + 1 consecutive ids, the next row
// starting at the last one's last token; the vocabulary in the metadata maps
// the ids back to the text; tiny_gpt (an Embedding of 64, sequences of 32)
// trains on it with its eval split.
TEST(DataText, TokensRoundTripAndTrainTinyGpt) {
  std::string text;
  for (int k = 0; text.size() < 3000; ++k)
    text += "the quick brown fox jumps over the lazy dog " + std::to_string(k % 10) + " caf\xC3\xA9\n";
  const std::string txt = scratch("corpus.txt"), out = scratch("corpus.safetensors");
  std::ofstream(txt, std::ios::binary) << text;
  RunResult r = mlc("data text " + txt + " -o " + out + " --seq 32 --eval-fraction 0.1");
  ASSERT_EQ(r.status, 0) << r.err;
  const rt::SafetensorsFile f = read(out);
  std::map<std::string, std::string> meta(f.metadata.begin(), f.metadata.end());
  EXPECT_EQ(meta["format"], "mlc-tokens/1");
  EXPECT_EQ(meta["level"], "char");
  EXPECT_EQ(meta["seq"], "32");
  EXPECT_EQ(meta["source"], "corpus.txt");
  const std::vector<std::string> vocab = nlohmann::json::parse(meta["vocab"]).get<std::vector<std::string>>();
  EXPECT_EQ(meta["vocab_size"], std::to_string(vocab.size()));
  EXPECT_LE(vocab.size(), 64u);
  EXPECT_TRUE(std::is_sorted(vocab.begin(), vocab.end()));
  EXPECT_NE(std::find(vocab.begin(), vocab.end(), "\xC3\xA9"), vocab.end());  // é is one character
  ASSERT_EQ(f.entries.size(), 2u);
  const rt::Tensor& train = f.entries[0].tensor;
  const rt::Tensor& eval = f.entries[1].tensor;
  EXPECT_EQ(f.entries[1].name, "eval_tokens");
  // The text's characters: 3000 and some bytes, each é two of them.
  const int64_t chars = static_cast<int64_t>(text.size()) - std::count(text.begin(), text.end(), '\xC3');
  const int64_t rows = (chars - 1) / 32, eval_rows = (rows + 9) / 10;
  EXPECT_EQ(train.type(), (TensorType{DType::i64, {rows - eval_rows, 33}}));
  EXPECT_EQ(eval.type(), (TensorType{DType::i64, {eval_rows, 33}}));
  std::string back;
  for (const rt::Tensor* t : {&train, &eval})
    for (int64_t row = 0; row < t->shape()[0]; ++row)
      for (int64_t j = back.empty() ? 0 : 1; j < 33; ++j) back += vocab.at(static_cast<size_t>(t->data<int64_t>()[row * 33 + j]));
  EXPECT_EQ(back, text.substr(0, back.size()));
  EXPECT_EQ(static_cast<int64_t>(back.size()) - std::count(back.begin(), back.end(), '\xC3'), rows * 32 + 1);

  nlohmann::json model = nlohmann::json::parse(slurp("examples/tiny_gpt.json"));
  model["data"] = {{"file", out},
                   {"train", {{"tokens", "tokens[:, :-1]"}, {"targets", "tokens[:, 1:]"}}},
                   {"eval", {{"tokens", "eval_tokens[:, :-1]"}, {"targets", "eval_tokens[:, 1:]"}}}};
  model.erase("parallel");
  const std::string model_path = scratch("tiny_gpt_text.json");
  std::ofstream(model_path) << model.dump(1);
  RunResult trained = mlc("run " + model_path + " --steps 2");
  ASSERT_EQ(trained.status, 0) << trained.err;
  EXPECT_EQ(trained.out.rfind("trained 2 steps: final loss ", 0), 0u) << trained.out;

  // Bytes are tokens too; text that is not UTF-8 is only bytes.
  const std::string latin1 = scratch("latin1.txt");
  std::ofstream(latin1, std::ios::binary) << "caf\xE9 au lait";
  RunResult chars_only = mlc("data text " + latin1 + " -o " + out + " --seq 4");
  EXPECT_EQ(chars_only.status, 1);
  EXPECT_EQ(chars_only.err, latin1 + ": error: byte 3: expected UTF-8 text (--level char), found '\\xe9', which "
                                     "starts no character; --level byte reads any bytes\n");
  RunResult bytes = mlc("data text " + latin1 + " -o " + out + " --seq 4 --level byte");
  ASSERT_EQ(bytes.status, 0) << bytes.err;
  const rt::SafetensorsFile b = read(out);
  EXPECT_EQ(b.entries[0].tensor.type(), (TensorType{DType::i64, {2, 5}}));
  EXPECT_EQ(b.entries[0].tensor.data<int64_t>()[3], 0xE9);
  EXPECT_EQ(b.find("eval_tokens"), nullptr);
}

}  // namespace
}  // namespace mlc
