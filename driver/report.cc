#include "driver/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "driver/svg_chart.h"

namespace mlc {

namespace {

// matplotlib's tab10, the colours a PyTorch user's plots have.
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// The parameters' lines (matplotlib's Dark2): other colours than the loss
// and accuracy charts', so that each colour on the page means one thing.
const char* const kLayerPalette[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"};

// Light to dark blue (matplotlib's Blues, 0.35 .. 1): earlier steps lighter.
std::string ramp(size_t k, size_t n) {
  const double t = n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 1.0;
  const double from[3] = {0x9e, 0xca, 0xe1}, to[3] = {0x08, 0x30, 0x6b};
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(from[0] + (to[0] - from[0]) * t)),
                static_cast<int>(std::lround(from[1] + (to[1] - from[1]) * t)),
                static_cast<int>(std::lround(from[2] + (to[2] - from[2]) * t)));
  return buf;
}

std::string fact(const nlohmann::json& run, const char* key) {
  auto it = run.find(key);
  if (it == run.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  if (it->is_number()) return format_number(it->get<double>());
  return it->dump();
}

std::string row(const std::string& name, const std::string& value) {
  return "<tr><th>" + escape_html(name) + "</th><td>" + escape_html(value) + "</td></tr>\n";
}

// The x of an epoch's mean: its last recorded step.
std::map<int64_t, int64_t> last_step_of_epochs(const MetricsLog& log) {
  std::map<int64_t, int64_t> last;
  for (const MetricsLog::Step& s : log.steps) last[s.epoch] = std::max(last[s.epoch], s.step);
  return last;
}

std::string loss_chart(const MetricsLog& log, const nlohmann::json& run) {
  ChartSpec c{"loss", "Training loss", "step", "loss"};
  ChartSeries train{"train loss (per step)", "train-loss", kPalette[0]};
  for (const MetricsLog::Step& s : log.steps) train.points.emplace_back(s.step, s.loss);
  c.series.push_back(std::move(train));
  if (!log.epochs.empty()) {
    ChartSeries epoch{"train loss (epoch mean)", "epoch-loss", kPalette[1]};
    epoch.markers = true;
    epoch.stroke_width = 2;
    const std::map<int64_t, int64_t> last = last_step_of_epochs(log);
    const double per_epoch = run.contains("steps_per_epoch") && run["steps_per_epoch"].is_number()
                                 ? run["steps_per_epoch"].get<double>() : 0;
    for (const MetricsLog::Epoch& e : log.epochs) {
      auto it = last.find(e.epoch);
      const double x = it != last.end() ? static_cast<double>(it->second)
                       : per_epoch > 0 ? (static_cast<double>(e.epoch) + 1) * per_epoch - 1 : NAN;
      epoch.points.emplace_back(x, e.loss);
    }
    c.series.push_back(std::move(epoch));
  }
  ChartSeries eval{"eval loss", "eval-loss", kPalette[2]};
  eval.markers = true;
  eval.stroke_width = 2;
  for (const MetricsLog::Eval& e : log.evals)
    if (e.step >= 0) eval.points.emplace_back(e.step, e.loss);
  if (!eval.points.empty()) c.series.push_back(std::move(eval));
  return render_chart(c);
}

std::string accuracy_chart(const MetricsLog& log) {
  ChartSpec c{"accuracy", "Evaluation accuracy", "step (optimizer steps taken)", "accuracy"};
  ChartSeries acc{"eval accuracy", "eval-accuracy", kPalette[3]};
  acc.markers = true;
  acc.stroke_width = 2;
  for (const MetricsLog::Eval& e : log.evals)
    if (e.step >= 0 && e.accuracy) acc.points.emplace_back(e.step, *e.accuracy);
  c.series.push_back(std::move(acc));
  c.height = 300;
  return render_chart(c);
}

// The parameters of the grads records, in first-seen order.
std::vector<std::string> layer_names(const MetricsLog& log) {
  std::vector<std::string> names;
  for (const MetricsLog::Grads& g : log.grads)
    for (const GradStats& s : g.layers)
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
  return names;
}

double index_of(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<double>(std::find(names.begin(), names.end(), name) - names.begin());
}

std::string grad_charts(const MetricsLog& log) {
  const std::vector<std::string> names = layer_names(log);
  // At most 12 steps, evenly spaced, the last always.
  std::vector<size_t> shown;
  const size_t n = log.grads.size(), most = 12;
  for (size_t k = 0; k < std::min(n, most); ++k)
    shown.push_back(n <= most ? k : (k * (n - 1)) / (most - 1));
  std::string o;
  ChartSpec flow{"grad-flow", "Gradient flow: mean |g| per parameter", "parameter", "mean |g|"};
  flow.log_y = true;
  flow.categories = names;
  flow.height = 460;
  for (size_t k = 0; k < shown.size(); ++k) {
    const MetricsLog::Grads& g = log.grads[shown[k]];
    ChartSeries s{"step " + std::to_string(g.step), "grad-step-" + std::to_string(g.step), ramp(k, shown.size())};
    s.markers = true;
    for (const GradStats& l : g.layers) s.points.emplace_back(index_of(names, l.name), l.mean_abs);
    flow.series.push_back(std::move(s));
  }
  o += render_chart(flow);

  const MetricsLog::Grads& last = log.grads.back();
  ChartSpec bars{"grad-bars", "Gradients at step " + std::to_string(last.step) + " (max and mean |g|, L2 norm)",
                 "parameter", "gradient"};
  bars.log_y = true;
  bars.overlay = true;
  bars.categories = names;
  bars.height = 460;
  ChartSeries max{"max |g|", "grad-max", "#17becf"}, mean{"mean |g|", "grad-mean", "#1f3fbf"},
      norm{"L2 norm", "grad-norm", kPalette[4]};
  max.bars = mean.bars = true;
  max.opacity = 0.45;
  mean.opacity = 0.85;
  norm.markers = true;
  for (const GradStats& l : last.layers) {
    max.points.emplace_back(index_of(names, l.name), l.max_abs);
    mean.points.emplace_back(index_of(names, l.name), l.mean_abs);
    norm.points.emplace_back(index_of(names, l.name), l.norm);
  }
  bars.series = {std::move(max), std::move(mean), std::move(norm)};
  o += render_chart(bars);

  ChartSpec norms{"grad-norms", "Gradient L2 norm per parameter over steps", "step", "L2 norm of the gradient"};
  norms.log_y = true;
  for (size_t k = 0; k < names.size(); ++k) {
    ChartSeries s{names[k], "grad-norm-" + std::to_string(k), kLayerPalette[k % 8]};
    s.markers = log.grads.size() <= 30;
    for (const MetricsLog::Grads& g : log.grads)
      for (const GradStats& l : g.layers)
        if (l.name == names[k]) s.points.emplace_back(g.step, l.norm);
    norms.series.push_back(std::move(s));
  }
  o += render_chart(norms);
  return o;
}

std::string facts_table(const MetricsLog& log, const std::string& source) {
  const nlohmann::json& run = log.run;
  std::string t = "<table class=\"facts\">\n";
  t += row("metrics file", source);
  if (!run.empty()) {
    const std::string mesh = fact(run, "mesh");
    t += row("backend", fact(run, "backend"));
    t += row("devices", mesh.empty() ? "one device" : "mesh " + mesh);
    t += row("batch size", fact(run, "batch_size"));
    t += row("optimizer", fact(run, "optimizer") + ", lr " + fact(run, "lr"));
    t += row("examples", fact(run, "train_examples") + " train, " + fact(run, "eval_examples") + " eval");
    t += row("steps", fact(run, "total_steps") + " (" + fact(run, "epochs") + " epochs of " +
                          fact(run, "steps_per_epoch") + " steps; this run started at step " + fact(run, "start_step") + ")");
    t += row("eval_every, grad_stats_every", fact(run, "eval_every") + ", " + fact(run, "grad_stats_every") + " (0: off)");
  }
  if (!log.steps.empty())
    t += row("final train loss", format_number(log.steps.back().loss) + " (step " +
                                     std::to_string(log.steps.back().step) + ")");
  for (auto it = log.evals.rbegin(); it != log.evals.rend(); ++it) {
    if (it->step < 0) continue;
    t += row("last evaluation", "loss " + format_number(it->loss) +
                                    (it->accuracy ? ", accuracy " + format_number(*it->accuracy) : "") + " after " +
                                    std::to_string(it->step) + " steps");
    break;
  }
  return t + "</table>\n";
}

std::string epochs_table(const MetricsLog& log) {
  std::string t = "<table class=\"data\" id=\"epochs\">\n<tr><th>epoch</th><th>mean train loss</th><th>steps</th>"
                  "<th>eval loss</th><th>eval accuracy</th></tr>\n";
  std::map<int64_t, const MetricsLog::Eval*> eval_of_epoch;  // the epoch's last evaluation
  for (const MetricsLog::Eval& e : log.evals)
    if (e.epoch >= 0) eval_of_epoch[e.epoch] = &e;
  for (const MetricsLog::Epoch& e : log.epochs) {
    const MetricsLog::Eval* ev = eval_of_epoch.count(e.epoch) ? eval_of_epoch[e.epoch] : nullptr;
    t += "<tr><td>" + std::to_string(e.epoch) + "</td><td>" + format_number(e.loss) + "</td><td>" +
         std::to_string(e.steps) + "</td><td>" + (ev ? format_number(ev->loss) : "") + "</td><td>" +
         (ev && ev->accuracy ? format_number(*ev->accuracy) : "") + "</td></tr>\n";
  }
  return t + "</table>\n";
}

const char* kStyle = R"(body{font-family:sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 6px}
table{border-collapse:collapse;font-size:13px}th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
table.data td{text-align:right}
svg.chart{display:block;margin:6px 0;font-size:12px}
svg .chart-title{font-size:15px;font-weight:bold;fill:#222}
svg .plot-area{fill:#fff;stroke:none}
svg .grid{stroke:#e6e6e6;stroke-width:1}
svg .axis,svg .axis-tick{stroke:#444;stroke-width:1}
svg .tick,svg .legend,svg .axis-label{fill:#333}
svg .no-data{fill:#888;font-size:14px}
p.note{color:#555;font-size:13px}
)";

}  // namespace

std::string render_report(const MetricsLog& log, const std::string& source) {
  const std::string model =
      log.run.contains("model") && log.run["model"].is_string() ? log.run["model"].get<std::string>()
                                                                 : std::filesystem::path(source).stem().string();
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  escape_html(model) + ": mlc training report</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  o += "<h1>" + escape_html(model) + ": training report</h1>\n";
  o += facts_table(log, source);
  o += "<h2>Loss</h2>\n" + loss_chart(log, log.run);
  bool accuracy = false;
  for (const MetricsLog::Eval& e : log.evals) accuracy |= e.step >= 0 && e.accuracy.has_value();
  if (accuracy) o += "<h2>Accuracy</h2>\n" + accuracy_chart(log);
  o += "<h2>Gradients</h2>\n";
  if (log.grads.empty())
    o += "<p class=\"note\">No gradient statistics in this file: set \"grad_stats_every\" in the model file's "
         "\"train\" section, or run with --grad-stats-every N.</p>\n";
  else
    o += "<p class=\"note\">Per parameter, of the gradient after backward and before clipping and the optimizer "
         "update (PyTorch's plot_grad_flow). Non-positive values are left off the log scale.</p>\n" + grad_charts(log);
  if (!log.epochs.empty()) o += "<h2>Epochs</h2>\n" + epochs_table(log);
  return o + "</body>\n</html>\n";
}

}  // namespace mlc
