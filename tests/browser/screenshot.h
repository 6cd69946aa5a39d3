// What the browser tests share (tests/browser/): finding headless Chromium,
// decoding the PNG screenshots it writes, and finding a colour's pixels in
// them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlc::testing {

// The browser on PATH: "chromium" (Debian) or "chromium-browser"; "" if none.
std::string find_chromium();

// The start of a command line running `chromium` headless, for at most 60
// s, with its profile in `profile_dir` (megabytes: remove it after); a URL
// and what to do (--dump-dom, --screenshot=FILE) follow.
std::string headless_chromium(const std::string& chromium, const std::string& profile_dir);

// An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium's --screenshot
// writes), decoded to RGB.
struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  const uint8_t* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
};

// false with `error` set when `file` is not such a PNG.
bool decode_png(const std::string& file, Image& image, std::string& error);

// The pixels of an image within 24 (Euclidean, RGB) of a colour: how many,
// and the horizontal span they cover.
struct ColourSpread {
  int64_t pixels = 0;
  int min_x = 1 << 30, max_x = -1;
  int span() const { return max_x < 0 ? 0 : max_x - min_x + 1; }
};

// `hex` is "#rrggbb".
ColourSpread spread_of(const Image& image, const std::string& hex);

}  // namespace mlc::testing
