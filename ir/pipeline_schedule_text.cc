// Text of pipeline schedules (ir/pipeline_schedule.h): action and schedule
// names, parsing them back, and the timeline grid `mlc plan` prints.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>

#include "ir/pipeline_schedule.h"
#include "support/quote.h"

namespace mlc {

namespace {

constexpr std::array<std::string_view, 8> kKindNames = {"F", "B", "I", "W", "SEND_F", "RECV_F", "SEND_B", "RECV_B"};
constexpr std::array<std::string_view, 4> kScheduleNames = {"gpipe", "1f1b", "interleaved", "zb1p"};
constexpr int kMaxParsedIndex = 1 << 20;

// A decimal number in [0, kMaxParsedIndex), all of `s`.
bool parse_index(std::string_view s, int& out) {
  if (s.empty() || s.size() > 7 || s[0] < '0' || s[0] > '9') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out < kMaxParsedIndex;
}

Expected<PipelineAction> parse_action(std::string_view word) {
  auto bad = [&] {
    return make_error("pipeline action " + squote(word) +
                      ": expected F, B, I, W, SEND_F, RECV_F, SEND_B or RECV_B followed by <stage>.<microbatch>");
  };
  // The longest kind name that prefixes the word ("SEND_F" before "F" is not
  // an issue: no kind name prefixes another).
  for (size_t k = 0; k < kKindNames.size(); ++k) {
    if (!word.starts_with(kKindNames[k])) continue;
    std::string_view rest = word.substr(kKindNames[k].size());
    size_t dot = rest.find('.');
    PipelineAction a;
    a.kind = static_cast<PipelineActionKind>(k);
    if (dot == std::string_view::npos || !parse_index(rest.substr(0, dot), a.stage) ||
        !parse_index(rest.substr(dot + 1), a.microbatch))
      return bad();
    return a;
  }
  return bad();
}

std::string fixed4(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

void rtrim(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

std::string_view pipeline_action_kind_name(PipelineActionKind kind) { return kKindNames[static_cast<size_t>(kind)]; }

bool is_compute(PipelineActionKind kind) {
  return kind == PipelineActionKind::F || kind == PipelineActionKind::B || kind == PipelineActionKind::I ||
         kind == PipelineActionKind::W;
}

std::string PipelineAction::str() const {
  return std::string(pipeline_action_kind_name(kind)) + std::to_string(stage) + "." + std::to_string(microbatch);
}

Expected<std::vector<PipelineAction>> parse_pipeline_actions(std::string_view text) {
  std::vector<PipelineAction> out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    size_t end = std::min(text.find(' ', i), text.size());
    MLC_TRY(PipelineAction a, parse_action(text.substr(i, end - i)));
    out.push_back(a);
    i = end;
  }
  return out;
}

std::string_view pipeline_schedule_kind_name(PipelineScheduleKind kind) {
  return kScheduleNames[static_cast<size_t>(kind)];
}

Expected<PipelineScheduleKind> parse_pipeline_schedule_kind(std::string_view text) {
  for (size_t k = 0; k < kScheduleNames.size(); ++k)
    if (text == kScheduleNames[k]) return static_cast<PipelineScheduleKind>(k);
  return make_error("parallel.pipeline.schedule: expected gpipe, 1f1b, interleaved or zb1p, got " + squote(text));
}

std::string pipeline_actions_str(const PipelineSchedule& schedule) {
  std::string out;
  for (size_t r = 0; r < schedule.actions.size(); ++r) {
    out += "rank " + std::to_string(r) + ":";
    for (const PipelineAction& a : schedule.actions[r]) out += " " + a.str();
    out += "\n";
  }
  return out;
}

std::string_view pipeline_bubble_formula_text(PipelineScheduleKind kind) {
  switch (kind) {
    case PipelineScheduleKind::interleaved: return "(p-1)/(v*m)";
    case PipelineScheduleKind::zb1p: return "(p-1)(F+I-W)/(m(F+I+W))";
    default: return "(p-1)/m";
  }
}

double pipeline_bubble_formula(const PipelineSchedule& s, const PipelineDurations& d) {
  double p1 = s.ranks - 1, m = s.microbatches;
  switch (s.kind) {
    case PipelineScheduleKind::interleaved: return p1 / (s.virtual_stages * m);
    case PipelineScheduleKind::zb1p:
      return p1 * double(d.forward + d.input_grad - d.weight_grad) /
             (m * double(d.forward + d.input_grad + d.weight_grad));
    default: return p1 / m;
  }
}

std::string print_pipeline_schedule(const PipelineSchedule& s, const PipelineTimeline& t,
                                    const PipelineDurations& d) {
  bool split = s.kind == PipelineScheduleKind::zb1p;
  std::string out = std::string(pipeline_schedule_kind_name(s.kind)) + " p=" + std::to_string(s.ranks) +
                    " m=" + std::to_string(s.microbatches) + " v=" + std::to_string(s.virtual_stages) +
                    " (F=" + std::to_string(d.forward) +
                    (split ? " I=" + std::to_string(d.input_grad) + " W=" + std::to_string(d.weight_grad)
                           : " B=" + std::to_string(d.backward)) +
                    (d.send_latency ? " latency=" + std::to_string(d.send_latency) : "") + ")";
  for (size_t k = 0; k < d.stage_scale.size(); ++k)
    out += (k == 0 ? " x stage " : ", ") + std::to_string(k) + ":" + std::to_string(d.stage_scale[k]);
  out += "\n";
  size_t width = 1;
  for (const auto& rank : t.ranks)
    for (const PipelineTimedAction& a : rank)
      if (is_compute(a.action.kind)) width = std::max(width, a.action.str().size());
  for (size_t r = 0; r < t.ranks.size(); ++r) {
    std::vector<std::string> cells(static_cast<size_t>(t.makespan), ".");
    for (const PipelineTimedAction& a : t.ranks[r])
      if (is_compute(a.action.kind))
        for (int64_t u = a.start; u < a.end; ++u) cells[static_cast<size_t>(u)] = a.action.str();
    std::string line = "rank " + std::to_string(r) + " |";
    for (const std::string& c : cells) line += " " + c + std::string(width - c.size(), ' ');
    rtrim(line);
    out += line + "\n";
  }
  out += "bubble " + fixed4(t.bubble_fraction) + ", formula " + std::string(pipeline_bubble_formula_text(s.kind)) +
         " = " + fixed4(pipeline_bubble_formula(s, d)) + "\npeak stashed activations per rank:";
  for (int n : t.peak_stashed) out += " " + std::to_string(n);
  return out + "\n";
}

}  // namespace mlc
