// The readers of `mlc data import` and `mlc data text` (runtime/npy.h,
// npz.h, csv_table.h, text_tokens.h, tensor_cast.h): what they accept, and
// for malformed input the exact message: the file, the byte offset or
// line:column, what was expected and what was found.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/csv_table.h"
#include "runtime/npy.h"
#include "runtime/npz.h"
#include "runtime/tensor_cast.h"
#include "runtime/text_tokens.h"

namespace mlc::rt {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A version 1.0 .npy file of `header` (padded as numpy pads it) and `data`.
std::string npy(std::string header, const std::string& data) {
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string npy_error(const std::string& bytes) {
  auto t = parse_npy(bytes, "a.npy");
  return t.ok() ? "accepted" : t.error().message;
}

TEST(Npy, WritesWhatItReadsBitForBit) {
  for (DType d : {DType::f16, DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean}) {
    Tensor t(d, {2, 3});
    for (int64_t k = 0; k < t.num_bytes(); ++k) t.bytes()[k] = std::byte(d == DType::boolean ? k % 2 : k * 37 % 251);
    auto file = format_npy(t);
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(file->size() % 64, static_cast<size_t>(t.num_bytes()) % 64);  // the header ends on 64 bytes
    auto back = parse_npy(*file, "t.npy");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->type(), t.type());
    EXPECT_EQ(std::memcmp(back->bytes(), t.bytes(), static_cast<size_t>(t.num_bytes())), 0);
  }
  EXPECT_FALSE(format_npy(Tensor(DType::bf16, {1})).ok());
}

TEST(Npy, NarrowAndUnsignedIntegersWidenToI64) {
  const std::string data("\xff\x80\x01\x00", 4);
  auto u = parse_npy(npy("{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", data), "u.npy");
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->dtype(), DType::i64);
  EXPECT_EQ(u->data<int64_t>()[0], 255);
  auto i = parse_npy(npy("{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }", data), "i.npy");
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->data<int64_t>()[0], -1);
  EXPECT_EQ(i->data<int64_t>()[1], -128);
  auto s = parse_npy(npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", data), "s.npy");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->data<int64_t>()[0], -32513);  // 0x80ff
  EXPECT_EQ(s->data<int64_t>()[1], 1);
}

TEST(Npy, MalformedFilesNameTheByteAndWhatWasExpected) {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eight(8, '\0');
  EXPECT_EQ(npy_error("PK\x03\x04 not numpy"),
            "a.npy: error: byte 0: expected the .npy magic \"\\x93NUMPY\", found 'PK\\x03\\x04 n'");
  std::string v4 = npy(ok, eight);
  v4[6] = 4;
  EXPECT_EQ(npy_error(v4), "a.npy: error: byte 6: expected format version 1.0, 2.0 or 3.0, found 4.0");
  std::string long_header = npy(ok, eight);
  long_header[9] = '\x7f';
  EXPECT_EQ(npy_error(long_header),
            "a.npy: error: byte 8: expected a header length of at most the 126 bytes left in the file, found 32630");
  EXPECT_EQ(npy_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(6, '\0'))),
            "a.npy: error: byte 128: data: expected 8 bytes (shape (2,) of '<f4'), found 6");
  EXPECT_EQ(npy_error(npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", eight)),
            "a.npy: error: byte 44: expected True or False for 'fortran_order', found '0'");
  EXPECT_EQ(npy_error(npy("{'descr': '<f4', 'shape': (2,), }", eight)),
            "a.npy: error: byte 43: expected the key 'fortran_order' before the dict's end, found ' '");
  EXPECT_EQ(npy_error(npy("{'descr': '<f4', 'descr': '<f4', }", eight)),
            "a.npy: error: byte 27: expected each key once, found 'descr' again");
  EXPECT_EQ(npy_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", eight)),
            "a.npy: error: byte 64: expected a dim, a non-negative integer, found '-'");
  EXPECT_EQ(npy_error(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", eight)),
            "a.npy: error: byte 10: descr '<c8': expected one of <f2 <f4 <f8 <i4 <i8 |b1 |i1 <i2 |u1 <u2 <u4 "
            "(numpy: float16/32/64, int8 to int64, uint8 to uint32, bool)");
  EXPECT_EQ(npy_error(npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", "\x01\x02")),
            "a.npy: error: byte 129: data: expected a bool, 0 or 1, found 2");
  EXPECT_EQ(npy_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 2), }", eight)),
            "a.npy: error: byte 10: shape (1099511627776, 2) has more than 2^40 elements");
}

TEST(Npz, NumpysArchivesAndTheirDamage) {
  const std::string stored = slurp("tests/data/npy/arrays.npz");
  auto arrays = parse_npz(stored, "a.npz");
  ASSERT_TRUE(arrays.ok()) << arrays.error().message;
  EXPECT_EQ(arrays->size(), 12u);
  EXPECT_EQ((*arrays)[0].name, "f32");
  // A flipped byte of the first member's data: its CRC-32 no longer matches.
  std::string damaged = stored;
  damaged[200] ^= 1;
  auto crc = parse_npz(damaged, "a.npz");
  ASSERT_FALSE(crc.ok());
  EXPECT_EQ(crc.error().message.rfind("a.npz: error: byte 57: member 'f32.npy': corrupt: CRC-32 0x", 0), 0u)
      << crc.error().message;
  auto cut = parse_npz(stored.substr(0, stored.size() - 30), "a.npz");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "a.npz: error: byte " + std::to_string(stored.size() - 30) +
                                     ": expected a zip archive's end record (PK\\5\\6) in the last 65,557 bytes, "
                                     "found none (an .npz file is a zip archive, as numpy.savez writes)");
  // Deflated data cut short (the end record and central directory kept).
  const std::string deflated = slurp("tests/data/npy/arrays_deflated.npz");
  ASSERT_TRUE(parse_npz(deflated, "d.npz").ok());
  std::string garbled = deflated;
  for (size_t k = 80; k < 90; ++k) garbled[k] = '\xff';
  auto bad = parse_npz(garbled, "d.npz");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("d.npz: error: byte ", 0), 0u) << bad.error().message;
  EXPECT_NE(bad.error().message.find(": member 'f32.npy': "), std::string::npos) << bad.error().message;
  // An archive without members has no arrays.
  EXPECT_EQ(parse_npz(std::string("PK\x05\x06", 4) + std::string(18, '\0'), "e.npz")->size(), 0u);
}

std::string csv_error(const std::string& text) {
  auto t = parse_csv(text, "t.csv");
  return t.ok() ? "accepted" : t.error().message;
}

TEST(Csv, HeaderNumbersAndTheirMistakes) {
  auto t = parse_csv("x, \"y \"\"z\"\"\"\n1, 2.5\n-3,1e3\n", "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->header, (std::vector<std::string>{"x", "y \"z\""}));
  EXPECT_EQ(t->rows, 2);
  EXPECT_EQ(t->values, (std::vector<double>{1, 2.5, -3, 1000}));
  EXPECT_EQ(t->integer, (std::vector<bool>{true, false}));
  EXPECT_EQ(csv_error("1,2\n3,abc\n"), "t.csv:2:3: error: expected a number, found 'abc'");
  EXPECT_EQ(csv_error("1,2\n3,\n"), "t.csv:2:3: error: expected a number, found an empty cell");
  EXPECT_EQ(csv_error("1,2\n3,4,5\n"), "t.csv:2:1: error: expected 2 cells (as line 1), found 3");
  EXPECT_EQ(csv_error("a,\"b\n1,2\n"), "t.csv:1:5: error: expected the closing quote of the cell at column 3, "
                                       "found the end of the line");
  EXPECT_EQ(csv_error("a,\"b\" c\n"), "t.csv:1:7: error: expected ',' or the end of the line after a quoted cell, "
                                      "found 'c'");
  EXPECT_EQ(csv_error("a,b\n"), "t.csv: error: expected rows of numbers, found a header alone");
  EXPECT_EQ(csv_error("0x10\n"), "t.csv: error: expected rows of numbers, found a header alone");
  auto big = parse_csv("9223372036854775807\n9223372036854775808\n", "b.csv");
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(big->integer[0]);  // past i64: a float column
}

TEST(TensorCast, RefusesWhatTheDtypeCannotHold) {
  Tensor t(DType::f64, {3});
  t.data<double>()[0] = 1;
  t.data<double>()[1] = 2.5;
  auto i = cast_exactly(t, DType::i64, "x");
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.error().message, "x: element 1 is 2.5, which i64 cannot hold");
  t.data<double>()[1] = 1e40;
  auto f = cast_exactly(t, DType::f32, "x");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message, "x: element 1 is 1e+40, which f32 cannot hold");
  auto h = cast_exactly(t, DType::f16, "x");
  ASSERT_FALSE(h.ok());
  t.data<double>()[1] = 0;
  auto b = cast_exactly(t, DType::boolean, "x");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->data<uint8_t>()[0], 1);
}

TEST(TextTokens, CharactersBytesAndSequences) {
  auto chars = tokenize_text("ba\xC3\xA9" "ab", TokenLevel::character, "t.txt");
  ASSERT_TRUE(chars.ok());
  EXPECT_EQ(chars->vocab, (std::vector<std::string>{"a", "b", "\xC3\xA9"}));
  EXPECT_EQ(chars->ids, (std::vector<int64_t>{1, 0, 2, 0, 1}));
  auto file = token_file(*chars, 2, 0, "dir/t.txt");
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(file->tensors.size(), 1u);
  const Tensor& tokens = file->tensors[0].tensor;
  EXPECT_EQ(tokens.type(), (TensorType{DType::i64, {2, 3}}));
  EXPECT_EQ(std::vector<int64_t>(tokens.data<int64_t>(), tokens.data<int64_t>() + 6),
            (std::vector<int64_t>{1, 0, 2, 2, 0, 1}));
  EXPECT_EQ(file->metadata, (std::vector<std::pair<std::string, std::string>>{
                                {"format", "mlc-tokens/1"}, {"level", "char"}, {"vocab", "[\"a\",\"b\",\"é\"]"},
                                {"vocab_size", "3"}, {"seq", "2"}, {"source", "t.txt"}}));
  auto none = token_file(*chars, 8, 0, "t.txt");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "t.txt: error: expected at least 9 tokens for one sequence of --seq 8 (and its next token), found 5");
  auto all_eval = token_file(*chars, 2, 0.9, "t.txt");
  ASSERT_FALSE(all_eval.ok());
  EXPECT_EQ(all_eval.error().message,
            "t.txt: error: 2 sequences of --seq 2 leave none to train on after --eval-fraction takes 2");
  auto bad = tokenize_text("ok\xC3(", TokenLevel::character, "t.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "t.txt: error: byte 2: expected UTF-8 text (--level char), found '\\xc3', which "
                                 "starts no character; --level byte reads any bytes");
  auto bytes = tokenize_text("ok\xC3(", TokenLevel::byte, "t.txt");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->ids, (std::vector<int64_t>{'o', 'k', 0xC3, '('}));
}

}  // namespace
}  // namespace mlc::rt
