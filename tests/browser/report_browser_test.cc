// The page of `mlc report` as a browser shows it: a real short training run
// of examples/digits_cnn.json (95 steps: two epochs complete, evaluations
// every 10 steps, gradient statistics every 10), its report rendered by
// headless Chromium (Debian package chromium; scripts/setup.sh installs it).
//  - The DOM Chromium parsed holds the charts' polylines with one point per
//    record and the parameters' names.
//  - Its screenshot shows each curve: pixels of the series' colour spread
//    across a plot (a legend swatch is 22 px wide, a curve hundreds).
// Without Chromium on PATH the test skips (ctest: Skipped). ctest label: browser.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/browser/screenshot.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using testing::count;
using testing::decode_png;
using testing::find_chromium;
using testing::Image;
using testing::ColourSpread;
using testing::spread_of;
using testing::run_mlc;
using testing::slurp;

// The number of points of the polyline of class `series` in `dom`, -1 if none.
int polyline_points(const std::string& dom, const std::string& series) {
  std::smatch m;
  const std::regex re("<polyline class=\"series " + series + "\"[^>]* points=\"([^\"]*)\"");
  if (!std::regex_search(dom, m, re)) return -1;
  const std::string points = m[1];
  return points.empty() ? 0 : static_cast<int>(count(points, " ")) + 1;
}

TEST(ReportInBrowser, ShowsARealRunsCurvesAndGradientFlow) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  const auto dir = testing::scratch_dir("mlc_report_browser");
  const std::string metrics = (dir / "m.jsonl").string(), page = (dir / "report.html").string();
  auto r = run_mlc("run examples/digits_cnn.json --steps 95 --eval-every 10 --grad-stats-every 10 --metrics " + metrics);
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_mlc("report " + metrics + " -o " + page);
  ASSERT_EQ(r.status, 0) << r.err;

  const std::string browser = testing::headless_chromium(chromium, (dir / "profile").string());
  const std::string dom_path = (dir / "dom.html").string(), shot = (dir / "shot.png").string();
  ASSERT_EQ(std::system((browser + "--dump-dom file://" + page + " >" + dom_path + " 2>/dev/null").c_str()), 0);
  const std::string dom = slurp(dom_path);
  EXPECT_EQ(polyline_points(dom, "train-loss"), 95);
  EXPECT_EQ(polyline_points(dom, "epoch-loss"), 2);  // epochs 0 and 1 (45 steps each)
  // After 10, 20, .., 90 steps, at the ends of epochs 0 and 1 (45, 90) and the run's (95).
  EXPECT_EQ(polyline_points(dom, "eval-loss"), 11);
  EXPECT_EQ(polyline_points(dom, "eval-accuracy"), 11);
  for (int step = 0; step <= 90; step += 10)
    EXPECT_EQ(polyline_points(dom, "grad-step-" + std::to_string(step)), 6) << "step " << step;
  for (const char* layer : {"conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc.weight", "fc.bias"})
    EXPECT_EQ(count(dom, std::string(">") + layer + "</text>"), 3u) << layer;  // two x axes and a legend
  EXPECT_EQ(count(dom, "<rect class=\"bar grad-max\""), 6u);
  EXPECT_NE(dom.find("<h1>digits_cnn: training report</h1>"), std::string::npos);

  ASSERT_EQ(std::system((browser + "--window-size=1000,3000 --screenshot=" + shot + " file://" + page +
                         " >/dev/null 2>&1").c_str()), 0);
  std::filesystem::remove_all(dir / "profile");  // Chromium's, megabytes
  Image image;
  std::string error;
  ASSERT_TRUE(decode_png(slurp(shot), image, error)) << error;
  ASSERT_EQ(image.width, 1000);
  const std::pair<const char*, const char*> curves[] = {{"train loss", "#1f77b4"}, {"epoch mean", "#ff7f0e"},
                                                        {"eval loss", "#2ca02c"},  {"accuracy", "#d62728"},
                                                        {"gradient flow, step 90", "#08306b"}};
  for (const auto& [what, colour] : curves) {
    const ColourSpread s = spread_of(image, colour);
    EXPECT_GE(s.span(), 300) << what << " (" << colour << "): " << s.pixels << " pixels";
    EXPECT_GE(s.pixels, 150) << what << " (" << colour << ")";
  }
}

}  // namespace
}  // namespace mlc
