// Gradient checks of the spatial compositions (frontends/spatial_ops.h): each
// is built in f64 on a random input, loss = sum(y * w) for a fixed random w,
// differentiated by the autodiff pass and compared on the reference
// interpreter with central differences (h = 1e-6; f64 leaves ~1e-9 of
// rounding, so 1e-6 relative is a real check). Inputs are random, so maxima
// have no ties and the pieces are smooth at the point.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "frontends/spatial_ops.h"
#include "ir/builder.h"
#include "passes/autodiff.h"
#include "runtime/interpreter.h"

namespace mlc {
namespace {

using Emit = std::function<Expected<Value*>(Builder&, Value*)>;

struct SpatialCase {
  std::string name;
  Shape input;
  Emit emit;
};

void PrintTo(const SpatialCase& c, std::ostream* os) { *os << c.name; }

const Loc kAt{};

InterpolateArgs resize(std::array<int64_t, 2> size, bool bilinear, bool align,
                       std::optional<std::array<double, 2>> scale = std::nullopt) {
  InterpolateArgs a;
  a.size = size;
  a.bilinear = bilinear;
  a.align_corners = align;
  a.scale_factor = scale;
  return a;
}

std::vector<SpatialCase> cases() {
  auto interp = [](InterpolateArgs a) {
    return [a](Builder& b, Value* x) { return emit_interpolate(b, x, a, "interpolate", kAt); };
  };
  auto pad = [](std::vector<int64_t> p, std::string mode) {
    return [p, mode](Builder& b, Value* x) { return emit_pad_mode(b, x, p, mode, 0.5, "pad", kAt); };
  };
  auto pool = [](std::array<int64_t, 2> out, bool max) {
    return [out, max](Builder& b, Value* x) { return emit_adaptive_pool2d(b, x, out, max, "pool", kAt); };
  };
  return {
      {"nearest_up", {1, 2, 3, 4}, interp(resize({7, 9}, false, false))},
      {"nearest_scale", {1, 2, 5, 4}, interp(resize({7, 6}, false, false, std::array<double, 2>{1.5, 1.5}))},
      {"bilinear", {1, 2, 3, 4}, interp(resize({5, 7}, true, false))},
      {"bilinear_down", {1, 1, 6, 7}, interp(resize({4, 3}, true, false))},
      {"bilinear_align_corners", {2, 1, 3, 4}, interp(resize({5, 6}, true, true))},
      {"pad_constant", {2, 3, 4}, pad({1, 2, 0, 1}, "constant")},
      {"pad_reflect", {1, 2, 4, 5}, pad({2, 1, 3, 1}, "reflect")},
      {"pad_replicate", {2, 2, 3}, pad({2, 3}, "replicate")},
      {"pixel_shuffle", {2, 8, 2, 3}, [](Builder& b, Value* x) { return emit_pixel_shuffle(b, x, 2, false, "ps", kAt); }},
      {"pixel_unshuffle", {1, 2, 4, 6}, [](Builder& b, Value* x) { return emit_pixel_shuffle(b, x, 2, true, "pu", kAt); }},
      {"adaptive_avg_unequal", {2, 2, 5, 7}, pool({3, 4}, false)},
      {"adaptive_max_unequal", {2, 2, 5, 7}, pool({3, 4}, true)},
      {"adaptive_avg_equal", {1, 2, 4, 6}, pool({2, 3}, false)},
      {"adaptive_max_unbatched", {2, 5, 5}, pool({2, 3}, true)},
      {"group_norm", {2, 4, 3, 2},
       [](Builder& b, Value* x) {
         Value* w = b.constant({0.5, -1.5, 2.0, 1.0}, {DType::f64, {4}});
         Value* bias = b.constant({0.1, 0.2, -0.3, 0.0}, {DType::f64, {4}});
         return emit_group_norm(b, x, 2, 1e-5, w, bias, "gn", kAt);
       }},
  };
}

rt::Tensor random_f64(const Shape& shape, std::mt19937_64& rng) {
  rt::Tensor t(TensorType{DType::f64, shape});
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<double>()[i] = u(rng);
  return t;
}

class SpatialGradCheck : public ::testing::TestWithParam<SpatialCase> {};

TEST_P(SpatialGradCheck, MatchesCentralDifferences) {
  const SpatialCase& c = GetParam();
  Module m;
  m.name = "spatial_gradcheck";
  Function& f = m.add_function("loss");
  Value* x = f.add_arg("x", {DType::f64, c.input}, ArgKind::param);
  Builder b(f);
  auto y = c.emit(b, x);
  ASSERT_TRUE(y.ok()) << y.error().message;
  Value* w = f.add_arg("w", (*y)->type, ArgKind::input);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < (*y)->type.rank(); ++d) dims.push_back(d);
  f.results = {b.reduce_sum(b.mul(*y, w), dims, false)};
  auto grad_fn = differentiate(m, f);
  ASSERT_TRUE(grad_fn.ok()) << grad_fn.error().message;
  auto loss = rt::Interpreter::create(f);
  auto grad = rt::Interpreter::create(**grad_fn);
  ASSERT_TRUE(loss.ok() && grad.ok());
  std::mt19937_64 rng(7);
  std::vector<rt::Tensor> values{random_f64(c.input, rng), random_f64((*y)->type.shape, rng)};
  auto grads = grad->run(values);
  ASSERT_TRUE(grads.ok()) << grads.error().message;
  const rt::Tensor& analytic = (*grads)[1];
  const double h = 1e-6;
  double* xs = values[0].data<double>();
  for (int64_t i = 0; i < values[0].num_elements(); ++i) {
    xs[i] += h;
    double up = (*loss->run(values))[0].data<double>()[0];
    xs[i] -= 2 * h;
    double down = (*loss->run(values))[0].data<double>()[0];
    xs[i] += h;
    double numeric = (up - down) / (2 * h);
    EXPECT_NEAR(analytic.data<double>()[i], numeric, 1e-6 * std::max(1.0, std::fabs(numeric))) << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Compositions, SpatialGradCheck, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace mlc
