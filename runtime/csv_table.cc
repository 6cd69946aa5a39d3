#include "runtime/csv_table.h"

#include <charconv>
#include <cstdlib>
#include <set>

#include "runtime/tensor_cast.h"
#include "support/quote.h"

namespace mlc::rt {

namespace {

struct Cell {
  std::string text;
  size_t line = 0, column = 0;
  bool quoted = false;
};

class CsvReader {
 public:
  CsvReader(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  Error error(size_t line, size_t column, const std::string& what) const {
    return make_error(path_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " + what);
  }

  // The next non-blank line's cells; false at the end of the text.
  Expected<bool> row(std::vector<Cell>& cells) {
    cells.clear();
    while (i_ < text_.size()) {
      const size_t end = line_end();
      if (text_.substr(i_, end - i_).find_first_not_of(" \t\r") != std::string_view::npos) break;
      next_line(end);
    }
    if (i_ >= text_.size()) return false;
    const size_t end = line_end();
    for (;;) {
      MLC_TRY(Cell c, cell(end));
      cells.push_back(std::move(c));
      if (i_ >= end) break;
      ++i_;  // ','
    }
    next_line(end);
    return true;
  }

 private:
  size_t line_end() const {
    const size_t nl = text_.find('\n', i_);
    return nl == std::string_view::npos ? text_.size() : nl;
  }
  void next_line(size_t end) {
    i_ = end + 1;
    line_start_ = i_;
    ++line_;
  }
  size_t column() const { return i_ - line_start_ + 1; }
  void skip_spaces(size_t end) {
    while (i_ < end && (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\r')) ++i_;
  }

  // One cell of the line ending at `end`; stops at its ',' or the line's end.
  Expected<Cell> cell(size_t end) {
    skip_spaces(end);
    Cell c{"", line_, column(), false};
    if (i_ < end && text_[i_] == '"') {
      c.quoted = true;
      for (++i_;; ++i_) {
        if (i_ >= end) return error(line_, column(), "expected the closing quote of the cell at column " +
                                                         std::to_string(c.column) + ", found the end of the line");
        if (text_[i_] != '"') {
          c.text += text_[i_];
        } else if (i_ + 1 < end && text_[i_ + 1] == '"') {
          c.text += '"';
          ++i_;
        } else {
          ++i_;
          break;
        }
      }
      skip_spaces(end);
      if (i_ < end && text_[i_] != ',')
        return error(line_, column(), "expected ',' or the end of the line after a quoted cell, found " +
                                          squote(text_.substr(i_, 1)));
      return c;
    }
    const size_t start = i_;
    while (i_ < end && text_[i_] != ',') ++i_;
    std::string_view raw = text_.substr(start, i_ - start);
    raw = raw.substr(0, raw.find_last_not_of(" \t\r") + 1);
    c.text = std::string(raw);
    return c;
  }

  std::string_view text_;
  const std::string& path_;
  size_t i_ = 0, line_start_ = 0, line_ = 1;
};

// A number as strtod reads it (hexadecimal floats aside): the value, and
// whether it is written as an integer that fits i64.
bool read_number(const std::string& s, double& value, int64_t& integer, bool& is_integer) {
  if (s.empty() || s.find_first_of("xX") != std::string::npos || s.find('\0') != std::string::npos) return false;
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  const char* digits = s.c_str() + (s[0] == '+' ? 1 : 0);
  auto [at, ec] = std::from_chars(digits, s.c_str() + s.size(), integer);
  is_integer = ec == std::errc() && at == s.c_str() + s.size();
  return true;
}

std::string found(const Cell& c) { return c.text.empty() ? "an empty cell" : squote(c.text); }

}  // namespace

Expected<CsvTable> parse_csv(std::string_view text, const std::string& path) {
  CsvReader reader(text, path);
  CsvTable t;
  std::vector<Cell> cells;
  size_t first_line = 0;
  for (bool first = true;; first = false) {
    MLC_TRY(bool more, reader.row(cells));
    if (!more) break;
    if (first) {
      first_line = cells[0].line;
      t.columns = static_cast<int64_t>(cells.size());
      t.integer.assign(cells.size(), true);
      double v;
      int64_t i;
      bool is_integer;
      for (const Cell& c : cells)
        if (!read_number(c.text, v, i, is_integer)) {
          for (const Cell& h : cells) t.header.push_back(h.text);
          break;
        }
      if (!t.header.empty()) continue;
    }
    if (static_cast<int64_t>(cells.size()) != t.columns)
      return reader.error(cells[0].line, 1, "expected " + std::to_string(t.columns) + " cells (as line " +
                                                std::to_string(first_line) + "), found " + std::to_string(cells.size()));
    if (t.values.size() + cells.size() > static_cast<size_t>(kMaxElements))
      return reader.error(cells[0].line, 1, "expected at most 2^40 cells in all, found more");
    for (size_t c = 0; c < cells.size(); ++c) {
      double v = 0;
      int64_t i = 0;
      bool is_integer = false;
      if (!read_number(cells[c].text, v, i, is_integer))
        return reader.error(cells[c].line, cells[c].column, "expected a number, found " + found(cells[c]));
      t.values.push_back(v);
      t.integers.push_back(is_integer ? i : 0);
      if (!is_integer) t.integer[c] = false;
    }
    ++t.rows;
  }
  if (t.rows == 0)
    return make_error(path + ": error: expected rows of numbers, found " +
                      (t.header.empty() ? std::string("no rows") : "a header alone"));
  return t;
}

Expected<std::vector<NamedTensor>> csv_tensors(const CsvTable& table, const CsvImport& how, const std::string& path) {
  // Columns [first, first + count) as a [rows, count] tensor, or [rows] with `flat`.
  auto tensor = [&](int64_t first, int64_t count, bool flat, const std::string& name) -> Expected<Tensor> {
    bool integer = true;
    for (int64_t c = first; c < first + count; ++c) integer = integer && table.integer[static_cast<size_t>(c)];
    const Shape shape = flat ? Shape{table.rows} : Shape{table.rows, count};
    Tensor t(integer ? DType::i64 : DType::f64, shape);
    for (int64_t r = 0; r < table.rows; ++r)
      for (int64_t c = first; c < first + count; ++c) {
        const size_t cell = static_cast<size_t>(r * table.columns + c), out = static_cast<size_t>(r * count + c - first);
        if (integer) t.data<int64_t>()[out] = table.integers[cell];
        else t.data<double>()[out] = table.values[cell];
      }
    auto cast = cast_exactly(t, how.dtype.value_or(integer ? DType::i64 : DType::f32),
                             path + ": error: tensor " + squote(name) + (how.dtype ? " (--dtype)" : ""));
    if (!cast && !how.dtype) return make_error(cast.error().message + " (--dtype f64 keeps it)");
    return cast;
  };
  std::vector<NamedTensor> out;
  if (!how.columns) {
    MLC_TRY(Tensor t, tensor(0, table.columns, false, how.name));
    out.push_back({how.name, std::move(t)});
    return out;
  }
  std::set<std::string> names;
  for (int64_t c = 0; c < table.columns; ++c) {
    const std::string name =
        table.header.empty() ? how.name + "_" + std::to_string(c) : table.header[static_cast<size_t>(c)];
    if (name.empty())
      return make_error(path + ": error: column " + std::to_string(c + 1) + " has an empty header cell: a tensor "
                        "per column (--columns) needs a name for each");
    if (!names.insert(name).second)
      return make_error(path + ": error: two columns are named " + squote(name) + " in the header");
    MLC_TRY(Tensor t, tensor(c, 1, true, name));
    out.push_back({name, std::move(t)});
  }
  return out;
}

}  // namespace mlc::rt
