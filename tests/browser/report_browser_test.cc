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
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using testing::count;
using testing::run_mlc;
using testing::slurp;

// The browser on PATH: "chromium" (Debian) or "chromium-browser"; "" if none.
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"})
    if (std::system(("command -v " + std::string(name) + " >/dev/null 2>&1").c_str()) == 0) return name;
  return "";
}

// An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium's --screenshot
// writes), decoded to RGB.
struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  const uint8_t* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
};

uint32_t be32(const std::string& s, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24 | static_cast<uint8_t>(s[at + 1]) << 16 |
         static_cast<uint8_t>(s[at + 2]) << 8 | static_cast<uint8_t>(s[at + 3]);
}

int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

bool decode_png(const std::string& file, Image& image, std::string& error) {
  if (file.size() < 8 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return error = "not a PNG", false;
  std::string idat;
  int channels = 0;
  for (size_t at = 8; at + 8 <= file.size();) {
    const uint32_t length = be32(file, at);
    const std::string type = file.substr(at + 4, 4);
    if (at + 12 + length > file.size()) return error = "truncated chunk " + type, false;
    if (type == "IHDR") {
      image.width = static_cast<int>(be32(file, at + 8));
      image.height = static_cast<int>(be32(file, at + 12));
      const int depth = static_cast<uint8_t>(file[at + 16]), color = static_cast<uint8_t>(file[at + 17]);
      const int interlace = static_cast<uint8_t>(file[at + 20]);
      if (depth != 8 || (color != 2 && color != 6) || interlace != 0)
        return error = "unsupported PNG: depth " + std::to_string(depth) + ", colour type " + std::to_string(color), false;
      channels = color == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      idat += file.substr(at + 8, length);
    }
    at += 12 + length;
  }
  if (!channels) return error = "no IHDR", false;
  const size_t stride = static_cast<size_t>(image.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      size != raw.size())
    return error = "bad image data", false;
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  image.rgb.resize(static_cast<size_t>(image.width) * image.height * 3);
  for (int y = 0; y < image.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* line = &raw[y * (stride + 1) + 1];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(channels) ? cur[i - channels] : 0, b = prev[i];
      const int c = i >= static_cast<size_t>(channels) ? prev[i - channels] : 0;
      const int pred = filter == 0 ? 0 : filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : paeth(a, b, c);
      cur[i] = static_cast<uint8_t>(line[i] + pred);
    }
    for (int x = 0; x < image.width; ++x)
      for (int k = 0; k < 3; ++k) image.rgb[(static_cast<size_t>(y) * image.width + x) * 3 + k] = cur[x * channels + k];
    std::swap(prev, cur);
  }
  return true;
}

// The pixels of `image` within 24 (Euclidean, RGB) of #rrggbb: how many, and
// the horizontal span they cover.
struct ColourSpread {
  int64_t pixels = 0;
  int min_x = 1 << 30, max_x = -1;
  int span() const { return max_x < 0 ? 0 : max_x - min_x + 1; }
};

ColourSpread spread_of(const Image& image, const std::string& hex) {
  const int want[3] = {std::stoi(hex.substr(1, 2), nullptr, 16), std::stoi(hex.substr(3, 2), nullptr, 16),
                       std::stoi(hex.substr(5, 2), nullptr, 16)};
  ColourSpread s;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const uint8_t* p = image.at(x, y);
      double d = 0;
      for (int k = 0; k < 3; ++k) d += (p[k] - want[k]) * (p[k] - want[k]);
      if (std::sqrt(d) > 24) continue;
      ++s.pixels;
      s.min_x = std::min(s.min_x, x);
      s.max_x = std::max(s.max_x, x);
    }
  return s;
}

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

  const std::string browser = "timeout 60 " + chromium + " --headless --no-sandbox --disable-gpu --hide-scrollbars "
                              "--user-data-dir=" + (dir / "profile").string() + " ";
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
