// Numeric CSV files, read into tensors: what `mlc data import A.csv` reads
// (README.md, `mlc data`).
//
// Reading contract (parse_csv):
//  - Rows are lines ("\n" or "\r\n"); cells are separated by ','; blank
//    lines are skipped; a cell may be quoted ("...", with "" for a quote),
//    and spaces around a cell are dropped.
//  - The first row is a header when any of its cells is not a number; then
//    it names the columns. Every other row holds numbers: decimal integers
//    or floats as C's strtod reads them (1, -2.5, 1e-3, nan, inf). Every row
//    has as many cells as the first.
//  - Every error starts with "<path>:<line>:<column>: error: " and says what
//    was expected and what was found:
//        "a.csv:3:5: error: expected a number, found 'abc'"
//        "a.csv:4:1: error: expected 3 cells (as line 1), found 2"
//
// Tensors (csv_tensors): the whole table is one 2-D tensor [rows, columns]
// named `name`; with `columns`, each column is a 1-D tensor [rows], named by
// its header cell, or "<name>_<i>" (i from 0) without a header. A tensor is
// i64 when every cell of it is written as an integer (no '.', exponent, nan
// or inf) and fits i64, else f32 (a value beyond f32's range is an error
// naming it); `dtype` converts every tensor to that dtype instead
// (cast_exactly, runtime/tensor_cast.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/expected.h"
#include "runtime/parameters.h"

namespace mlc::rt {

struct CsvTable {
  std::vector<std::string> header;  // empty without a header row
  int64_t rows = 0, columns = 0;
  std::vector<double> values;        // row-major, rows * columns
  std::vector<int64_t> integers;     // the same cells where `integer` holds
  std::vector<bool> integer;         // per column: every cell an integer that fits i64
};

// Parses a whole CSV file held in memory; `path` is only used in messages.
Expected<CsvTable> parse_csv(std::string_view text, const std::string& path);

struct CsvImport {
  std::string name;               // the table's tensor, or the columns' prefix
  bool columns = false;           // a tensor per column
  std::optional<DType> dtype;     // instead of i64/f32 by content
};

// The table's tensors, as above; `path` is only used in messages.
Expected<std::vector<NamedTensor>> csv_tensors(const CsvTable& table, const CsvImport& how, const std::string& path);

}  // namespace mlc::rt
