// libFuzzer harness for the CSV reader of `mlc data import` (runtime/csv_table.h)
// and the text tokenizer of `mlc data text` (runtime/text_tokens.h).
//
// Input: any bytes, parsed as a CSV file (parse_csv) and tokenized at both
// levels (tokenize_text). Invariants:
//   1. a rejection is an Error whose message starts with "fuzz.csv:" (a
//      line:column, or ": error: ") and whose lines stay bounded;
//   2. an accepted table is consistent: rows >= 1, rows * columns values and
//      as many integers, one integer flag per column, a header of `columns`
//      names or none; an integer column's values equal its integers;
//   3. the table printed back (%.17e, the header quoted) parses to the same
//      header, integer flags and values (NaN as NaN);
//   4. csv_tensors gives one [rows, columns] tensor, or `columns` tensors of
//      [rows], each i64 or f32, unless a float value is beyond f32's range or
//      the header names a column twice or not at all;
//   5. byte-level tokens are the input's bytes; character-level tokens, where
//      the input is UTF-8, map back through the vocabulary to the input, and
//      the vocabulary is sorted and free of repeats.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "runtime/csv_table.h"
#include "runtime/text_tokens.h"
#include "tests/fuzz/fuzz_report.h"

namespace {

using mlc::rt::CsvTable;

[[noreturn]] void fail(const char* what, const std::string& detail) { mlc::fuzz::fail("fuzz_csv", what, detail); }

std::string print(const CsvTable& t) {
  std::string out;
  for (size_t c = 0; c < t.header.size(); ++c) {
    out += c ? ",\"" : "\"";
    for (char ch : t.header[c]) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    out += "\"";
  }
  if (!t.header.empty()) out += "\n";
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t c = 0; c < t.columns; ++c) {
      const size_t k = static_cast<size_t>(r * t.columns + c);
      char cell[40];
      if (t.integer[static_cast<size_t>(c)]) std::snprintf(cell, sizeof cell, "%lld", static_cast<long long>(t.integers[k]));
      else std::snprintf(cell, sizeof cell, "%.17e", t.values[k]);  // an exponent: never read as an integer
      out += (c ? "," : "") + std::string(cell);
    }
    out += "\n";
  }
  return out;
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void check_table(const CsvTable& t) {
  const size_t cells = static_cast<size_t>(t.rows * t.columns);
  if (t.rows < 1 || t.columns < 1 || t.values.size() != cells || t.integers.size() != cells ||
      t.integer.size() != static_cast<size_t>(t.columns) ||
      (!t.header.empty() && t.header.size() != static_cast<size_t>(t.columns)))
    fail("an inconsistent table", std::to_string(t.rows) + " x " + std::to_string(t.columns));
  for (size_t k = 0; k < cells; ++k)
    if (t.integer[k % static_cast<size_t>(t.columns)] && t.values[k] != static_cast<double>(t.integers[k]))
      fail("an integer cell's value differs from its integer", std::to_string(k));
  const std::string printed = print(t);
  auto back = mlc::rt::parse_csv(printed, "printed.csv");
  if (!back) fail("the printed table does not parse", back.error().message + "\n" + mlc::fuzz::head(printed));
  if (back->header != t.header || back->integer != t.integer || back->rows != t.rows || back->columns != t.columns)
    fail("the printed table parses to another shape or header", mlc::fuzz::head(printed));
  for (size_t k = 0; k < cells; ++k)
    if (!same_value(back->values[k], t.values[k])) fail("the printed table parses to other values", std::to_string(k));
  for (bool columns : {false, true}) {
    auto tensors = mlc::rt::csv_tensors(t, {"fuzz", columns, std::nullopt}, "fuzz.csv");
    if (!tensors) {
      // A value beyond f32's range in a float tensor, or a header naming a column twice or not at all.
      const std::string& m = tensors.error().message;
      const bool range = m.find(", which f32 cannot hold (--dtype f64 keeps it)") != std::string::npos;
      if (!range && (!columns || t.header.empty())) fail("csv_tensors refused a table", m);
      continue;
    }
    if (tensors->size() != (columns ? static_cast<size_t>(t.columns) : 1))
      fail("csv_tensors gave the wrong number of tensors", std::to_string(tensors->size()));
    for (const mlc::rt::NamedTensor& n : *tensors)
      if ((n.tensor.dtype() != mlc::DType::i64 && n.tensor.dtype() != mlc::DType::f32) ||
          n.tensor.shape() != (columns ? mlc::Shape{t.rows} : mlc::Shape{t.rows, t.columns}))
        fail("csv_tensors gave a tensor of the wrong type", n.name + " " + n.tensor.type().str());
  }
}

void check_tokens(std::string_view text) {
  auto bytes = mlc::rt::tokenize_text(text, mlc::rt::TokenLevel::byte, "fuzz.txt");
  if (!bytes || bytes->ids.size() != text.size()) fail("byte-level tokens are not the bytes", "");
  for (size_t k = 0; k < text.size(); ++k)
    if (bytes->ids[k] != static_cast<unsigned char>(text[k])) fail("byte-level tokens are not the bytes", std::to_string(k));
  auto chars = mlc::rt::tokenize_text(text, mlc::rt::TokenLevel::character, "fuzz.txt");
  if (!chars) {
    if (chars.error().message.rfind("fuzz.txt: error: byte ", 0) != 0)
      fail("a tokenizer rejection does not name the byte", chars.error().message);
    return;
  }
  std::string back;
  for (int64_t id : chars->ids) {
    if (id < 0 || static_cast<size_t>(id) >= chars->vocab.size()) fail("a token id outside the vocabulary", std::to_string(id));
    back += chars->vocab[static_cast<size_t>(id)];
  }
  if (back != text) fail("the vocabulary does not map the ids back to the text", mlc::fuzz::first_difference(back, std::string(text)));
  for (size_t k = 1; k < chars->vocab.size(); ++k)
    if (!(chars->vocab[k - 1] < chars->vocab[k])) fail("the vocabulary is not sorted without repeats", std::to_string(k));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = mlc::rt::parse_csv(text, "fuzz.csv");
  if (table) {
    check_table(*table);
  } else {
    if (table.error().message.rfind("fuzz.csv:", 0) != 0) fail("a rejection does not start with the path", table.error().message);
    mlc::fuzz::check_message_bounded("fuzz_csv", table.error().message, "fuzz.csv");
  }
  check_tokens(text);
  return 0;
}
