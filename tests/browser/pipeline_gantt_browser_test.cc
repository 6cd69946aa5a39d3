// `mlc plan --format svg`'s Gantt chart (driver/pipeline_gantt.h) as a
// browser shows it: gpt8's pipeline on 4 ranks, 1F1B and ZB-H1 with 8
// micro-batches, each SVG file opened by headless Chromium.
//  - Chromium parses it as an SVG document (no XML error page) holding a box
//    per compute action: 4 ranks x 8 micro-batches x (F, B) or (F, I, W).
//  - Its screenshot shows every kind's boxes: the fill colour the SVG gives
//    the kind's boxes covers many pixels, spread along the time axis (a
//    legend swatch is 14 x 14 px).
// Without Chromium on PATH the test skips (ctest: Skipped). ctest label: browser.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/browser/screenshot.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using testing::count;
using testing::run_mlc;
using testing::slurp;

struct GanttCase {
  const char* schedule;
  std::vector<std::string> kinds;
};

class GanttInBrowser : public ::testing::TestWithParam<GanttCase> {};

TEST_P(GanttInBrowser, ShowsEveryKindsBoxes) {
  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  const GanttCase& c = GetParam();
  const auto dir = testing::scratch_dir(std::string("mlc_gantt_browser_") + c.schedule);
  const std::string svg = (dir / "gantt.svg").string(), dom_path = (dir / "dom.svg").string(),
                    shot = (dir / "shot.png").string();
  auto r = run_mlc(std::string("plan examples/gpt8.json --mesh pp=4 --microbatches 8 --gflops 10 --format svg "
                               "--schedule ") + c.schedule);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ofstream(svg) << r.out;

  const std::string browser = testing::headless_chromium(chromium, (dir / "profile").string());
  ASSERT_EQ(std::system((browser + "--dump-dom file://" + svg + " >" + dom_path + " 2>/dev/null").c_str()), 0);
  const std::string dom = slurp(dom_path);
  EXPECT_EQ(dom.find("parsererror"), std::string::npos) << dom.substr(0, 2000);
  EXPECT_EQ(count(dom, "<rect class=\"action "), 4 * 8 * c.kinds.size()) << dom.substr(0, 2000);
  // Each kind's fill, as the SVG gives it.
  std::map<std::string, std::string> fill;
  const std::regex re("<rect class=\"action ([FBIW])\"[^>]* fill=\"(#[0-9a-f]{6})\"");
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), re); it != std::sregex_iterator(); ++it)
    fill[(*it)[1]] = (*it)[2];
  ASSERT_EQ(fill.size(), c.kinds.size());

  ASSERT_EQ(std::system((browser + "--window-size=1100,400 --screenshot=" + shot + " file://" + svg +
                         " >/dev/null 2>&1").c_str()), 0);
  std::filesystem::remove_all(dir / "profile");  // Chromium's, megabytes
  testing::Image image;
  std::string error;
  ASSERT_TRUE(testing::decode_png(slurp(shot), image, error)) << error;
  ASSERT_EQ(image.width, 1100);
  for (const std::string& kind : c.kinds) {
    ASSERT_TRUE(fill.count(kind)) << kind;
    const testing::ColourSpread s = testing::spread_of(image, fill[kind]);
    EXPECT_GE(s.pixels, 10000) << kind << " (" << fill[kind] << ")";  // 32 boxes of 34 px by 15 or more
    EXPECT_GE(s.span(), 600) << kind << " (" << fill[kind] << "): " << s.pixels << " pixels";
  }
}

INSTANTIATE_TEST_SUITE_P(Schedules, GanttInBrowser,
                         ::testing::Values(GanttCase{"1f1b", {"F", "B"}}, GanttCase{"zb1p", {"F", "I", "W"}}),
                         [](const auto& info) { return std::string(info.index == 0 ? "one_f_one_b" : "zb1p"); });

}  // namespace
}  // namespace mlc
