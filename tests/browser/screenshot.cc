#include "tests/browser/screenshot.h"

#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <utility>

namespace mlc::testing {

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"})
    if (std::system(("command -v " + std::string(name) + " >/dev/null 2>&1").c_str()) == 0) return name;
  return "";
}

std::string headless_chromium(const std::string& chromium, const std::string& profile_dir) {
  return "timeout 60 " + chromium + " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
         profile_dir + " ";
}

namespace {

uint32_t be32(const std::string& s, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24 | static_cast<uint8_t>(s[at + 1]) << 16 |
         static_cast<uint8_t>(s[at + 2]) << 8 | static_cast<uint8_t>(s[at + 3]);
}

int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

}  // namespace

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

}  // namespace mlc::testing
