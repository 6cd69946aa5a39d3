// A manifest value of an artifact (runtime/artifact.h) with typed getters,
// and the readers of its dtypes, shapes and tensor types: what
// runtime/artifact_reader.cc validates every manifest field with. Every
// error names the field's path ("functions[0].executable.slots[3]"), what
// was expected and what was found.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/expected.h"
#include "ir/types.h"
#include "runtime/artifact_format.h"

namespace mlc::rt::artifact_field {

using artifact_format::Json;
using artifact_format::kMaxCount;
using artifact_format::kMaxElements;

// A manifest value and its path ("functions[0].executable.slots[3]"), with
// typed getters whose errors name the path, what was expected and what was found.
class Field {
 public:
  Field(const Json* j, std::string path) : j_(j), path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  const Json& json() const { return *j_; }

  Error error(const std::string& what) const {
    return Error{(path_.empty() ? std::string("the manifest") : "manifest field '" + path_ + "'") + ": " + what};
  }
  static std::string found(const Json& j) {
    std::string s = j.dump();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
  }

  Expected<Field> get(std::string_view key) const {
    if (!j_->is_object()) return error("expected an object, found " + found(*j_));
    auto it = j_->find(key);
    std::string p = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    if (it == j_->end()) return Error{"manifest field '" + p + "' is missing"};
    return Field(&*it, p);
  }
  Expected<int64_t> integer(std::string_view key, int64_t lo, int64_t hi) const {
    MLC_TRY(Field f, get(key));
    return f.as_integer(lo, hi);
  }
  Expected<int64_t> as_integer(int64_t lo, int64_t hi) const {
    const Json& j = *j_;
    if (j.is_number_unsigned()) {
      const uint64_t u = j.get<uint64_t>();
      if (hi >= 0 && u <= static_cast<uint64_t>(hi) && static_cast<int64_t>(u) >= lo) return static_cast<int64_t>(u);
    } else if (j.is_number_integer()) {
      const int64_t v = j.get<int64_t>();
      if (v >= lo && v <= hi) return v;
    }
    return error("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found " + found(j));
  }
  Expected<double> number(std::string_view key) const {
    MLC_TRY(Field f, get(key));
    if (!f.json().is_number() || !std::isfinite(f.json().get<double>()))
      return f.error("expected a finite number, found " + found(f.json()));
    return f.json().get<double>();
  }
  Expected<bool> boolean(std::string_view key) const {
    MLC_TRY(Field f, get(key));
    if (!f.json().is_boolean()) return f.error("expected true or false, found " + found(f.json()));
    return f.json().get<bool>();
  }
  Expected<std::string> string(std::string_view key) const {
    MLC_TRY(Field f, get(key));
    return f.as_string();
  }
  Expected<std::string> as_string() const {
    if (!j_->is_string()) return error("expected a string, found " + found(*j_));
    return j_->get<std::string>();
  }
  Expected<std::vector<Field>> list(std::string_view key, int64_t max = kMaxCount) const {
    MLC_TRY(Field f, get(key));
    return f.as_list(max);
  }
  Expected<std::vector<Field>> as_list(int64_t max = kMaxCount) const {
    if (!j_->is_array()) return error("expected a list, found " + found(*j_));
    if (static_cast<int64_t>(j_->size()) > max)
      return error("expected at most " + std::to_string(max) + " entries, found " + std::to_string(j_->size()));
    std::vector<Field> out;
    for (size_t i = 0; i < j_->size(); ++i) out.emplace_back(&(*j_)[i], path_ + "[" + std::to_string(i) + "]");
    return out;
  }

 private:
  const Json* j_;
  std::string path_;
};

inline Expected<DType> read_dtype(const Field& f, std::string_view key) {
  MLC_TRY(Field d, f.get(key));
  MLC_TRY(std::string name, d.as_string());
  auto t = parse_dtype(name);
  if (!t) return d.error("expected a dtype (f32, f64, bf16, f16, i32, i64, bool), found \"" + name + "\"");
  return *t;
}

inline Expected<Shape> read_shape(const Field& f, std::string_view key, bool allow_batch_symbol = false) {
  MLC_TRY(std::vector<Field> dims, f.list(key, 64));
  Shape shape;
  int64_t elements = 1;
  for (const Field& d : dims) {
    MLC_TRY(int64_t v, d.as_integer(allow_batch_symbol ? -1 : 0, kMaxElements));
    shape.push_back(v);
    if (v > 0) {
      if (elements > kMaxElements / v) return f.error("has more than 2^40 elements");
      elements *= v;
    }
  }
  return shape;
}

inline Expected<TensorType> read_type(const Field& f, std::string_view key) {
  MLC_TRY(Field t, f.get(key));
  MLC_TRY(DType dtype, read_dtype(t, "dtype"));
  MLC_TRY(Shape shape, read_shape(t, "shape"));
  return TensorType{dtype, std::move(shape)};
}

}  // namespace mlc::rt::artifact_field
