// Shared by the per-op suites of tests/compiler/ (compiled_test.cc,
// emit_mlir_test.cc): a case is one op on arguments that the suite fills in
// its own ways (`Fill`, its enum), the function holding just that op, the
// unit of the tolerances and the names of the parameterized tests.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/op_table.h"
#include "tests/ir/sample_fusion_body.h"

namespace mlc::testing {

template <class Fill>
struct OpArg {
  TensorType type;
  Fill fill{};
  int64_t bound = 0;  // indices: exclusive upper bound
};

template <class Fill>
struct OpCase {
  std::string label;
  OpCode code;
  std::vector<OpArg<Fill>> args;
  Attrs attrs;
  std::optional<TensorType> declared;
  double ulps = 0;  // tolerance, in units of epsilon() times the result's magnitude (each suite says how)
};

template <class Fill>
void PrintTo(const OpCase<Fill>& c, std::ostream* os) {
  *os << op_name(c.code) << " " << c.label;
}

// Module `module_name` with one function @f(%a0, %a1, ...) returning the case's op.
template <class Fill>
Module one_op_module(const OpCase<Fill>& c, const std::string& module_name) {
  Module m;
  m.name = module_name;
  Function& f = m.add_function("f");
  std::vector<Value*> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(f.add_arg("a" + std::to_string(i), c.args[i].type, ArgKind::input));
  Builder b(f);
  if (c.code == OpCode::Fusion) {  // the sample body over (x, bias)
    auto fused = b.try_create_fusion(args, sample_fusion_body(args[0]->type, args[1]->type));
    EXPECT_TRUE(fused.ok()) << fused.error().message;
    if (fused.ok()) f.results = *fused;
  } else if (c.declared) f.results = {b.create(c.code, args, c.attrs, c.declared)};
  else f.results = b.create_results(c.code, args, c.attrs);  // every result of a multi-result op
  return m;
}

// The spacing of the dtype's values at 1 (0 for integers and bool).
inline double epsilon(DType t) {
  switch (t) {
    case DType::f32: return std::numeric_limits<float>::epsilon();
    case DType::f64: return std::numeric_limits<double>::epsilon();
    case DType::bf16: return 1.0 / 128;
    case DType::f16: return 1.0 / 1024;
    default: return 0;
  }
}

// "<op>_<label>_<index>", anything but letters and digits as '_'.
template <class Case>
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = std::string(op_name(info.param.code)) + (info.param.label.empty() ? "" : "_" + info.param.label);
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s + "_" + std::to_string(info.index);
}

}  // namespace mlc::testing
