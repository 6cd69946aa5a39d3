#include "driver/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mlc {

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf";
  char buf[32];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e5)) std::snprintf(buf, sizeof buf, "%.2e", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string svg_coord(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string tick_label(double v, double step) {
  if (std::fabs(v) < step * 1e-9) v = 0;
  char buf[32];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e5)) std::snprintf(buf, sizeof buf, "%.0e", v);
  else std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::vector<double> linear_ticks(double lo, double hi, int target, double& step) {
  const double raw = (hi - lo) / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

namespace {

std::string num(double v) { return svg_coord(v); }

struct Box {
  double left, top, width, height;
};

bool drawable(double y, bool log) { return std::isfinite(y) && (!log || y > 0); }

}  // namespace

std::string render_chart(const ChartSpec& c) {
  const bool categorical = !c.categories.empty(), log = c.log_y;
  // The data ranges.
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  bool any_bars = false;
  for (const ChartSeries& s : c.series)
    for (auto [x, y] : s.points) {
      if (!std::isfinite(x) || !drawable(y, log)) continue;
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y);
      y_hi = std::max(y_hi, y);
      any_bars |= s.bars;
    }
  const bool empty = !std::isfinite(y_lo);
  if (categorical) {
    x_lo = -0.5;
    x_hi = static_cast<double>(c.categories.size()) - 0.5;
  } else if (empty) {
    x_lo = 0, x_hi = 1;
  } else if (x_lo == x_hi) {
    x_lo -= 1, x_hi += 1;
  }
  if (empty) {
    y_lo = log ? 0.1 : 0, y_hi = 1;
  }
  if (log) {
    y_lo = std::pow(10.0, std::floor(std::log10(y_lo)));
    y_hi = std::pow(10.0, std::ceil(std::log10(y_hi)));
    if (y_lo == y_hi) y_lo /= 10, y_hi *= 10;
  } else {
    if (any_bars) y_lo = std::min(y_lo, 0.0);
    if (y_lo == y_hi) y_lo -= 0.5, y_hi += 0.5;
    const double pad = (y_hi - y_lo) * 0.05;
    y_hi += pad;
    if (!(any_bars && y_lo == 0)) y_lo -= pad;
  }

  // The legend, in rows under the title.
  const double legend_top = 40, row_height = 18, swatch = 22;
  std::vector<std::pair<double, double>> legend_at;  // (x, y) of each entry
  double lx = 80, ly = legend_top;
  for (const ChartSeries& s : c.series) {
    const double w = swatch + 6 + 7.0 * static_cast<double>(s.label.size()) + 18;
    if (lx + w > c.width - 20 && lx > 80) lx = 80, ly += row_height;
    legend_at.emplace_back(lx, ly);
    lx += w;
  }
  const double plot_top = (c.series.empty() ? legend_top : ly + row_height) + 6;
  // Rotated category labels need room below the axis: about 4.7 px down per character.
  size_t longest = 0;
  for (const std::string& k : c.categories) longest = std::max(longest, k.size());
  const double bottom = categorical ? std::min(170.0, 50 + 4.7 * static_cast<double>(longest)) : 56;
  const Box plot{80, plot_top, c.width - 80.0 - 24, c.height - plot_top - bottom};
  auto sx = [&](double x) { return plot.left + (x - x_lo) / (x_hi - x_lo) * plot.width; };
  auto sy = [&](double y) {
    const double f = log ? (std::log10(y) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo))
                         : (y - y_lo) / (y_hi - y_lo);
    return plot.top + (1 - f) * plot.height;
  };

  std::string o = "<svg class=\"chart\" id=\"" + escape_html(c.id) + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  std::to_string(c.width) + "\" height=\"" + std::to_string(c.height) + "\" viewBox=\"0 0 " +
                  std::to_string(c.width) + " " + std::to_string(c.height) + "\" role=\"img\">\n";
  o += "<title>" + escape_html(c.title) + "</title>\n";
  o += "<text class=\"chart-title\" x=\"" + num(c.width / 2.0) + "\" y=\"22\" text-anchor=\"middle\">" +
       escape_html(c.title) + "</text>\n";
  o += "<rect class=\"plot-area\" x=\"" + num(plot.left) + "\" y=\"" + num(plot.top) + "\" width=\"" + num(plot.width) +
       "\" height=\"" + num(plot.height) + "\"/>\n";

  // Y axis: grid lines and tick labels.
  std::vector<double> y_ticks;
  double y_step = 0;
  if (log) {
    const int d_lo = static_cast<int>(std::lround(std::log10(y_lo))), d_hi = static_cast<int>(std::lround(std::log10(y_hi)));
    for (int d = d_lo; d <= d_hi; ++d) {
      y_ticks.push_back(std::pow(10.0, d));
      if (d_hi - d_lo < 3 && d < d_hi)
        for (double m : {2.0, 5.0}) y_ticks.push_back(m * std::pow(10.0, d));
    }
  } else {
    y_ticks = linear_ticks(y_lo, y_hi, 6, y_step);
  }
  for (double t : y_ticks) {
    const double y = sy(t);
    o += "<line class=\"grid\" x1=\"" + num(plot.left) + "\" x2=\"" + num(plot.left + plot.width) + "\" y1=\"" + num(y) +
         "\" y2=\"" + num(y) + "\"/>";
    o += "<text class=\"tick y-tick\" x=\"" + num(plot.left - 6) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" +
         tick_label(t, log ? t : y_step) + "</text>\n";
  }
  // X axis.
  if (categorical) {
    const double slot = plot.width / static_cast<double>(c.categories.size());
    for (size_t k = 0; k < c.categories.size(); ++k) {
      const double x = sx(static_cast<double>(k));
      o += "<line class=\"axis-tick\" x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(plot.top + plot.height) +
           "\" y2=\"" + num(plot.top + plot.height + 4) + "\"/>";
      o += "<text class=\"tick category\" transform=\"translate(" + num(x + 4) + "," + num(plot.top + plot.height + 10) +
           ") rotate(-40)\" text-anchor=\"end\"" + (slot < 14 ? " font-size=\"9\"" : "") + ">" +
           escape_html(c.categories[k]) + "</text>\n";
    }
  } else {
    double x_step = 0;
    for (double t : linear_ticks(x_lo, x_hi, 8, x_step)) {
      const double x = sx(t);
      o += "<line class=\"axis-tick\" x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(plot.top + plot.height) +
           "\" y2=\"" + num(plot.top + plot.height + 5) + "\"/>";
      o += "<text class=\"tick x-tick\" x=\"" + num(x) + "\" y=\"" + num(plot.top + plot.height + 18) +
           "\" text-anchor=\"middle\">" + tick_label(t, x_step) + "</text>\n";
    }
  }
  o += "<line class=\"axis\" x1=\"" + num(plot.left) + "\" x2=\"" + num(plot.left) + "\" y1=\"" + num(plot.top) +
       "\" y2=\"" + num(plot.top + plot.height) + "\"/>";
  o += "<line class=\"axis\" x1=\"" + num(plot.left) + "\" x2=\"" + num(plot.left + plot.width) + "\" y1=\"" +
       num(plot.top + plot.height) + "\" y2=\"" + num(plot.top + plot.height) + "\"/>\n";
  o += "<text class=\"axis-label\" x=\"" + num(plot.left + plot.width / 2) + "\" y=\"" + num(c.height - 8.0) +
       "\" text-anchor=\"middle\">" + escape_html(c.x_label) + "</text>\n";
  o += "<text class=\"axis-label\" transform=\"translate(16," + num(plot.top + plot.height / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + escape_html(c.y_label) + (log ? " (log scale)" : "") + "</text>\n";
  if (empty)
    o += "<text class=\"no-data\" x=\"" + num(plot.left + plot.width / 2) + "\" y=\"" + num(plot.top + plot.height / 2) +
         "\" text-anchor=\"middle\">no data</text>\n";

  // The series: bars first, lines over them.
  size_t bar_series = 0;
  for (const ChartSeries& s : c.series) bar_series += s.bars;
  const double slot = categorical ? plot.width / static_cast<double>(c.categories.size()) : 0;
  size_t bar_index = 0;
  for (const ChartSeries& s : c.series) {
    if (!s.bars) continue;
    const double group = slot * 0.8;
    const double w = c.overlay ? group : group / static_cast<double>(std::max<size_t>(bar_series, 1));
    for (auto [x, y] : s.points) {
      if (!drawable(y, log)) continue;
      const double left = sx(x) - group / 2 + (c.overlay ? 0 : w * static_cast<double>(bar_index));
      const double top = sy(y), base = log ? plot.top + plot.height : sy(std::max(y_lo, 0.0));
      o += "<rect class=\"bar " + s.css_class + "\" x=\"" + num(left) + "\" y=\"" + num(std::min(top, base)) +
           "\" width=\"" + num(std::max(w, 1.0)) + "\" height=\"" + num(std::fabs(base - top)) + "\" fill=\"" + s.color +
           "\" fill-opacity=\"" + num(s.opacity) + "\"><title>" + escape_html(s.label) + ": " + format_number(y) +
           "</title></rect>\n";
    }
    ++bar_index;
  }
  for (const ChartSeries& s : c.series) {
    if (s.bars) continue;
    std::vector<std::pair<double, double>> pts;
    for (auto [x, y] : s.points)
      if (std::isfinite(x) && drawable(y, log)) pts.emplace_back(x, y);
    std::sort(pts.begin(), pts.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::string coords;
    for (auto [x, y] : pts) coords += (coords.empty() ? "" : " ") + num(sx(x)) + "," + num(sy(y));
    o += "<polyline class=\"series " + s.css_class + "\" data-points=\"" + std::to_string(pts.size()) +
         "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-opacity=\"" + num(s.opacity) + "\" stroke-width=\"" +
         num(s.stroke_width) + "\" stroke-linejoin=\"round\" points=\"" + coords + "\"/>\n";
    if (s.markers || pts.size() == 1)
      for (auto [x, y] : pts)
        o += "<circle class=\"marker " + s.css_class + "\" cx=\"" + num(sx(x)) + "\" cy=\"" + num(sy(y)) +
             "\" r=\"3.5\" fill=\"" + s.color + "\"><title>" + escape_html(s.label) + " at " + format_number(x) + ": " +
             format_number(y) + "</title></circle>\n";
  }
  // The legend.
  for (size_t k = 0; k < c.series.size(); ++k) {
    const ChartSeries& s = c.series[k];
    const auto [x, y] = legend_at[k];
    if (s.bars)
      o += "<rect class=\"swatch\" x=\"" + num(x) + "\" y=\"" + num(y - 9) + "\" width=\"" + num(swatch) +
           "\" height=\"10\" fill=\"" + s.color + "\" fill-opacity=\"" + num(s.opacity) + "\"/>";
    else
      o += "<line class=\"swatch\" x1=\"" + num(x) + "\" x2=\"" + num(x + swatch) + "\" y1=\"" + num(y - 4) + "\" y2=\"" +
           num(y - 4) + "\" stroke=\"" + s.color + "\" stroke-width=\"3\"/>";
    o += "<text class=\"legend\" x=\"" + num(x + swatch + 6) + "\" y=\"" + num(y) + "\">" + escape_html(s.label) +
         "</text>\n";
  }
  return o + "</svg>\n";
}

}  // namespace mlc
