// Line and bar charts as inline SVG text, for `mlc report` (driver/report.h):
// no scripts, no external resources, so a page that embeds them renders
// anywhere, offline.
//
// Contract of render_chart: one <svg class="chart" id=ID> of `width` x
// `height` with the title, axes with tick labels (linear axes at 1-2-5
// steps; a log y axis at powers of ten, with 2 and 5 between when it spans
// under three decades), axis labels, a legend naming every series, and
//  - per line series one <polyline class="series CLASS" data-points="N"> of
//    its N drawable points in x order (non-finite values, and values <= 0
//    on a log axis, are left out), plus a <circle class="marker CLASS"> per
//    point when `markers`;
//  - per bar series one <rect class="bar CLASS"> per drawable value, bars of
//    the series of one category side by side (overlaid when `overlay`);
//  - with `categories`, a categorical x axis (category k at x = k) labelled
//    with their names (rotated), one <text class="category"> each.
// A chart with nothing drawable still draws its axes and says "no data".
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mlc {

struct ChartSeries {
  std::string label;      // the legend's text
  std::string css_class;  // a class name: letters, digits, '-'
  std::string color;      // "#rrggbb"
  std::vector<std::pair<double, double>> points;  // (x, y); for bars x is the category index
  bool markers = false;   // circles at the points (lines only)
  bool bars = false;      // bars instead of a line (categorical charts)
  double opacity = 1;
  double stroke_width = 1.5;
};

struct ChartSpec {
  std::string id, title, x_label, y_label;
  bool log_y = false;
  bool overlay = false;                 // bars of one category drawn over each other (PyTorch's plot_grad_flow)
  std::vector<std::string> categories;  // non-empty: a categorical x axis
  std::vector<ChartSeries> series;
  int width = 900, height = 360;
};

std::string render_chart(const ChartSpec& spec);

// `text` with &, <, >, " and ' escaped for HTML and SVG.
std::string escape_html(const std::string& text);

// A number for a tick label or a table: 3 significant digits, or
// exponent form outside [1e-3, 1e5).
std::string format_number(double v);

// Ticks at multiples of a 1-2-5 step in [lo, hi], about `target` of them;
// `step` gets the step.
std::vector<double> linear_ticks(double lo, double hi, int target, double& step);

// A tick label: exact for ticks of a 1-2-5 step (`step` > 0), compact for decades.
std::string tick_label(double v, double step);

// A coordinate or length in SVG text: one decimal.
std::string svg_coord(double v);

}  // namespace mlc
