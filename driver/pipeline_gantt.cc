#include "driver/pipeline_gantt.h"

#include <algorithm>
#include <cstdio>

#include "driver/plan_parallel.h"
#include "driver/svg_chart.h"

namespace mlc {

namespace {

using Kind = PipelineActionKind;

std::string_view kind_meaning(Kind kind) {
  switch (kind) {
    case Kind::F: return "forward";
    case Kind::B: return "backward";
    case Kind::I: return "input gradient";
    default: return "weight gradient";
  }
}

// The receive that matches `send` on the peer's rank; nullptr if none.
const PipelineTimedAction* matching_receive(const PipelineSchedule& s, const PipelineTimeline& t,
                                            const PipelineAction& send, int& peer) {
  const bool forward = send.kind == Kind::SEND_F;
  peer = s.rank_of_stage(send.stage + (forward ? 1 : -1));
  for (const PipelineTimedAction& a : t.ranks[static_cast<size_t>(peer)])
    if (a.action.kind == (forward ? Kind::RECV_F : Kind::RECV_B) && a.action.stage == send.stage &&
        a.action.microbatch == send.microbatch)
      return &a;
  return nullptr;
}

std::string fixed(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

std::string_view pipeline_gantt_colour(Kind kind) {
  switch (kind) {
    case Kind::F: return "#1f77b4";
    case Kind::B: return "#ff7f0e";
    case Kind::I: return "#2ca02c";
    default: return "#9467bd";
  }
}

std::string render_pipeline_gantt(const PipelineSchedule& s, const PipelineTimeline& t, const PipelineDurations& d,
                                  const GanttOptions& o) {
  const double left = 80, right = 24, row = 34, gap = 12, plot_top = 64;
  const double plot_width = o.width - left - right;
  const size_t ranks = t.ranks.size();
  const double plot_height = static_cast<double>(ranks) * (row + gap) - gap;
  const double plot_bottom = plot_top + plot_height;
  std::vector<std::string> caption = {
      "bubble " + fixed(t.bubble_fraction, 4) + " simulated; textbook " +
      std::string(pipeline_bubble_formula_text(s.kind)) + " = " + fixed(pipeline_bubble_formula(s, d), 4) +
      " (p=" + std::to_string(s.ranks) + ", m=" + std::to_string(s.microbatches) +
      ", v=" + std::to_string(s.virtual_stages) + ")"};
  caption.insert(caption.end(), o.notes.begin(), o.notes.end());
  const double caption_top = plot_bottom + 62;
  const int height = static_cast<int>(caption_top + 16.0 * static_cast<double>(caption.size()) + 8);
  const double makespan = static_cast<double>(std::max<int64_t>(t.makespan, 1));
  auto sx = [&](double units) { return left + units / makespan * plot_width; };
  auto row_top = [&](size_t r) { return plot_top + static_cast<double>(r) * (row + gap); };
  auto attr = [](const char* name, double v) { return std::string(" ") + name + "=\"" + svg_coord(v) + "\""; };

  std::string out = "<svg class=\"pipeline-gantt\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(o.width) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
                    std::to_string(o.width) + " " + std::to_string(height) +
                    "\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<title>" + escape_html(o.title) + "</title>\n";
  out += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + std::to_string(o.width) + "\" height=\"" +
         std::to_string(height) + "\" fill=\"#ffffff\"/>\n";
  out += "<text class=\"chart-title\"" + attr("x", o.width / 2.0) + " y=\"22\" text-anchor=\"middle\" font-size=\"15\">" +
         escape_html(o.title) + "</text>\n";

  // The legend: the kinds this schedule runs, then the messages.
  std::vector<Kind> kinds;
  for (const auto& rank : s.actions)
    for (const PipelineAction& a : rank)
      if (is_compute(a.kind) && std::find(kinds.begin(), kinds.end(), a.kind) == kinds.end()) kinds.push_back(a.kind);
  std::sort(kinds.begin(), kinds.end());
  double lx = left;
  for (Kind k : kinds) {
    const std::string name(pipeline_action_kind_name(k));
    out += "<rect class=\"legend-swatch " + name + "\"" + attr("x", lx) + " y=\"36\" width=\"14\" height=\"14\" fill=\"" +
           std::string(pipeline_gantt_colour(k)) + "\"/>";
    out += "<text class=\"legend\"" + attr("x", lx + 19) + " y=\"47\">" + name + " " +
           std::string(kind_meaning(k)) + "</text>\n";
    lx += 40 + 7.0 * static_cast<double>(kind_meaning(k).size());
  }
  out += "<line class=\"legend-message\"" + attr("x1", lx) + attr("x2", lx + 16) +
         " y1=\"43\" y2=\"43\" stroke=\"#333333\" stroke-width=\"1\"/>";
  out += "<text class=\"legend\"" + attr("x", lx + 21) + " y=\"47\">send/recv (activation; dashed: gradient)</text>\n";

  // The time axis: ticks at a 1-2-5 step of ms, or of units.
  const double scale = o.ms_per_unit > 0 ? o.ms_per_unit : 1;
  double step = 0;
  for (double tick : linear_ticks(0, makespan * scale, 10, step)) {
    const double x = sx(tick / scale);
    out += "<line class=\"grid\"" + attr("x1", x) + attr("x2", x) + attr("y1", plot_top - 4) +
           attr("y2", plot_bottom + 5) + " stroke=\"#e0e0e0\" stroke-width=\"1\"/>";
    out += "<text class=\"tick x-tick\"" + attr("x", x) + attr("y", plot_bottom + 20) + " text-anchor=\"middle\">" +
           tick_label(tick, step) + "</text>\n";
  }
  out += "<line class=\"axis\"" + attr("x1", left) + attr("x2", left + plot_width) + attr("y1", plot_bottom + 5) +
         attr("y2", plot_bottom + 5) + " stroke=\"#000000\" stroke-width=\"1\"/>\n";
  out += "<text class=\"axis-label\"" + attr("x", left + plot_width / 2) + attr("y", plot_bottom + 40) +
         " text-anchor=\"middle\">time (" + (o.ms_per_unit > 0 ? "ms" : "units") + ")</text>\n";

  // A row per rank: its compute actions as boxes.
  for (size_t r = 0; r < ranks; ++r) {
    const double y = row_top(r);
    out += "<g class=\"rank\" data-rank=\"" + std::to_string(r) + "\">\n";
    out += "<text class=\"rank-label\"" + attr("x", left - 10) + attr("y", y + row / 2 + 4) +
           " text-anchor=\"end\">rank " + std::to_string(r) + "</text>\n";
    for (const PipelineTimedAction& a : t.ranks[r]) {
      if (!is_compute(a.action.kind)) continue;
      const double x0 = sx(static_cast<double>(a.start)), x1 = sx(static_cast<double>(a.end));
      const std::string label = std::to_string(a.action.stage) + "." + std::to_string(a.action.microbatch);
      const std::string kind(pipeline_action_kind_name(a.action.kind));
      out += "<rect class=\"action " + kind + "\" data-action=\"" + a.action.str() + "\" data-start=\"" +
             std::to_string(a.start) + "\" data-end=\"" + std::to_string(a.end) + "\"" + attr("x", x0) +
             attr("y", y) + attr("width", x1 - x0) + attr("height", row) + " fill=\"" +
             std::string(pipeline_gantt_colour(a.action.kind)) + "\" stroke=\"#ffffff\" stroke-width=\"1\"><title>" +
             a.action.str() + ": " + std::string(kind_meaning(a.action.kind)) + " of stage " +
             std::to_string(a.action.stage) + ", micro-batch " + std::to_string(a.action.microbatch) + ", " +
             format_number(static_cast<double>(a.start) * scale) + " to " +
             format_number(static_cast<double>(a.end) * scale) + (o.ms_per_unit > 0 ? " ms" : "") + "</title></rect>";
      if (x1 - x0 >= 7.0 * static_cast<double>(label.size()) + 4)
        out += "<text class=\"label\"" + attr("x", (x0 + x1) / 2) + attr("y", y + row / 2 + 4) +
               " text-anchor=\"middle\" fill=\"#ffffff\" font-size=\"11\">" + label + "</text>";
      out += "\n";
    }
    out += "</g>\n";
  }
  // Sends: a thin line from the sender's row to the receiver's.
  for (size_t r = 0; r < ranks; ++r)
    for (const PipelineTimedAction& a : t.ranks[r]) {
      if (a.action.kind != Kind::SEND_F && a.action.kind != Kind::SEND_B) continue;
      int peer = 0;
      const PipelineTimedAction* recv = matching_receive(s, t, a.action, peer);
      if (!recv) continue;  // a validated schedule has one
      const bool down = static_cast<size_t>(peer) > r, forward = a.action.kind == Kind::SEND_F;
      out += std::string("<line class=\"message ") + (forward ? "F" : "B") + "\" data-action=\"" + a.action.str() +
             "\"" + attr("x1", sx(static_cast<double>(a.start))) + attr("y1", row_top(r) + (down ? row : 0)) +
             attr("x2", sx(static_cast<double>(recv->start))) +
             attr("y2", row_top(static_cast<size_t>(peer)) + (down ? 0 : row)) +
             " stroke=\"#333333\" stroke-width=\"1\"" + (forward ? "" : " stroke-dasharray=\"3,2\"") + "/>\n";
    }
  for (size_t k = 0; k < caption.size(); ++k)
    out += "<text class=\"caption\"" + attr("x", left) + attr("y", caption_top + 16.0 * static_cast<double>(k)) + ">" +
           escape_html(caption[k]) + "</text>\n";
  return out + "</svg>\n";
}

Expected<std::string> pipeline_gantt_svg(const ModelFile& model, const PipelineFlags& flags,
                                         std::optional<double> gflops) {
  MLC_TRY(std::optional<PipelineTiming> timed, pipeline_timing(model, flags));
  const ModelConfig& config = model.config();
  if (!timed)
    return make_error(config.path + ": error: mlc plan --format svg draws a pipeline's schedule, and this plan has "
                      "none: give --mesh pp=N (e.g. --mesh pp=4), or a \"pipeline\" in the model file's \"parallel\" "
                      "section");
  const PipelineSchedule& s = timed->schedule;
  GanttOptions o;
  o.title = config.name + ": " + std::string(pipeline_schedule_kind_name(s.kind)) + " schedule, " +
            std::to_string(s.ranks) + " pipeline ranks, " + std::to_string(s.microbatches) + " micro-batches of " +
            std::to_string(timed->micro) + ", " + std::to_string(s.virtual_stages) + " stage" +
            (s.virtual_stages == 1 ? "" : "s") + " per rank";
  const HostRates rates = host_rates(gflops);
  const double unit = static_cast<double>(timed->unit_flops);
  o.ms_per_unit = rates.gemm_gflops > 0 ? unit / (rates.gemm_gflops * 1e6) : 0;
  const bool split = s.kind == PipelineScheduleKind::zb1p;
  std::string factors;
  for (size_t k = 0; k < timed->durations.stage_scale.size(); ++k)
    factors += (k ? ", " : "") + std::to_string(timed->durations.stage_scale[k]);
  o.notes.push_back("durations as mlc plan's grid: stage s's F is its factor (" + factors + ") x " +
                    format_number(unit) + " FLOPs; " + (split ? "I = W = F" : "B = 2F") +
                    "; sends and receives take no time");
  o.notes.push_back("(the time unit: a quarter of the slowest stage's forward FLOPs of a micro-batch, or coarser)");
  if (o.ms_per_unit > 0)
    o.notes.push_back("ms: those FLOPs at this host's f32 GEMM rate, " + format_number(rates.gemm_gflops) +
                      " GFLOP/s (" + rates.source + ")");
  return render_pipeline_gantt(s, timed->timeline, timed->durations, o);
}

}  // namespace mlc
