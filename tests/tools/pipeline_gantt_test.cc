// The pipeline's Gantt chart (driver/pipeline_gantt.h, `mlc plan --format
// svg`), read back as XML-ish text:
//  - well nested tags, no <script and no event attributes;
//  - per rank one box per F, B, I and W action of that rank in the schedule,
//    each at the simulated times, and a message line per send, on gpipe,
//    1f1b, interleaved (v=2) and zb1p;
//  - `mlc plan --format svg` draws the slots and durations of the text grid
//    `mlc plan` prints for the same plan, with an axis in ms at the given
//    GEMM rate; a mesh without pp is an error that says so.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "driver/pipeline_gantt.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using testing::count;
using testing::RunResult;
using testing::run_mlc;

// "" when every tag of `svg` is closed in order; otherwise what is wrong.
std::string nesting_error(const std::string& svg) {
  std::vector<std::string> open;
  for (size_t at = svg.find('<'); at != std::string::npos; at = svg.find('<', at + 1)) {
    const size_t end = svg.find('>', at);
    if (end == std::string::npos) return "a tag without '>' at " + std::to_string(at);
    const std::string tag = svg.substr(at + 1, end - at - 1);
    if (tag.empty()) return "an empty tag at " + std::to_string(at);
    if (tag.back() == '/') continue;
    const std::string name = tag.substr(tag[0] == '/', tag.find_first_of(" \n") - (tag[0] == '/'));
    if (tag[0] != '/') {
      open.push_back(name);
    } else if (open.empty() || open.back() != name) {
      return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
    } else {
      open.pop_back();
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> is never closed";
}

// The text of rank r's <g> in `svg`.
std::string rank_group(const std::string& svg, int r) {
  const size_t begin = svg.find("<g class=\"rank\" data-rank=\"" + std::to_string(r) + "\">");
  if (begin == std::string::npos) return "";
  return svg.substr(begin, svg.find("</g>", begin) - begin);
}

struct Box {
  std::string kind, action;
  int64_t start = 0, end = 0;
  double x = 0, width = 0;
};

std::vector<Box> boxes_of(const std::string& group) {
  static const std::regex re(
      "<rect class=\"action (F|B|I|W)\" data-action=\"([A-Z0-9.]+)\" data-start=\"(\\d+)\" data-end=\"(\\d+)\" "
      "x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  std::vector<Box> out;
  for (auto it = std::sregex_iterator(group.begin(), group.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1], (*it)[2], std::stoll((*it)[3]), std::stoll((*it)[4]), std::stod((*it)[5]),
                   std::stod((*it)[6])});
  return out;
}

void expect_safe_svg(const std::string& svg) {
  EXPECT_EQ(nesting_error(svg), "");
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find(" on"), std::string::npos);  // onload=, onclick=, ...
  EXPECT_EQ(svg.find("href"), std::string::npos);  // no external resources
  EXPECT_TRUE(svg.starts_with("<svg class=\"pipeline-gantt\" xmlns=\"http://www.w3.org/2000/svg\""));
}

struct GanttCase {
  PipelineScheduleKind kind;
  int ranks, microbatches, virtual_stages;
};

class GanttBoxes : public ::testing::TestWithParam<GanttCase> {};

TEST_P(GanttBoxes, OneBoxPerComputeActionOfEachRankAtItsSimulatedTimes) {
  const GanttCase& c = GetParam();
  auto schedule = make_pipeline_schedule(c.kind, c.ranks, c.microbatches, c.virtual_stages);
  ASSERT_TRUE(schedule) << schedule.error().message;
  PipelineDurations durations;
  durations.stage_scale.assign(static_cast<size_t>(schedule->stages()), 1);
  durations.stage_scale.back() = 2;  // a slower last stage: boxes of two widths
  auto timeline = simulate_pipeline_schedule(*schedule, durations);
  ASSERT_TRUE(timeline) << timeline.error().message;
  GanttOptions options;
  options.title = "a <test> & its title";
  options.ms_per_unit = 0.25;
  const std::string svg = render_pipeline_gantt(*schedule, *timeline, durations, options);
  expect_safe_svg(svg);
  EXPECT_NE(svg.find("a &lt;test&gt; &amp; its title"), std::string::npos);
  int sends = 0;
  double px_per_unit = 0;
  for (int r = 0; r < c.ranks; ++r) {
    std::map<std::string, int> expected;  // kind -> actions
    std::vector<const PipelineTimedAction*> compute;
    for (const PipelineTimedAction& a : timeline->ranks[static_cast<size_t>(r)]) {
      if (is_compute(a.action.kind)) {
        ++expected[std::string(pipeline_action_kind_name(a.action.kind))];
        compute.push_back(&a);
      }
      sends += a.action.kind == PipelineActionKind::SEND_F || a.action.kind == PipelineActionKind::SEND_B;
    }
    const std::vector<Box> boxes = boxes_of(rank_group(svg, r));
    ASSERT_EQ(boxes.size(), compute.size()) << "rank " << r;
    EXPECT_EQ(count(rank_group(svg, r), "<rect class=\"action "), compute.size()) << "rank " << r;
    // One scale for every box and rank: positions and widths in proportion to the times, to the 0.1 px of the text.
    const double span = boxes.back().x + boxes.back().width - boxes.front().x;
    const double scale = span / static_cast<double>(compute.back()->end - compute.front()->start);
    if (px_per_unit == 0) px_per_unit = scale;
    EXPECT_NEAR(scale, px_per_unit, px_per_unit * 1e-3) << "rank " << r;
    std::map<std::string, int> drawn;
    for (size_t k = 0; k < boxes.size(); ++k) {
      ++drawn[boxes[k].kind];
      EXPECT_EQ(boxes[k].action, compute[k]->action.str()) << "rank " << r;
      EXPECT_EQ(boxes[k].start, compute[k]->start) << boxes[k].action;
      EXPECT_EQ(boxes[k].end, compute[k]->end) << boxes[k].action;
      const double duration = static_cast<double>(compute[k]->end - compute[k]->start);
      EXPECT_NEAR(boxes[k].width, scale * duration, 0.15) << boxes[k].action;
      EXPECT_NEAR(boxes[k].x - boxes[0].x, scale * static_cast<double>(compute[k]->start - compute[0]->start), 0.15)
          << boxes[k].action;
    }
    EXPECT_EQ(drawn, expected) << "rank " << r;
  }
  EXPECT_EQ(count(svg, "<line class=\"message "), static_cast<size_t>(sends));
  EXPECT_NE(svg.find("<text class=\"caption\" x=\"80.0\" y=\""), std::string::npos);
  EXPECT_NE(svg.find("textbook " + std::string(pipeline_bubble_formula_text(c.kind)) + " = "), std::string::npos);
  EXPECT_NE(svg.find(">time (ms)</text>"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Schedules, GanttBoxes,
                         ::testing::Values(GanttCase{PipelineScheduleKind::gpipe, 4, 4, 1},
                                           GanttCase{PipelineScheduleKind::one_f_one_b, 4, 8, 1},
                                           GanttCase{PipelineScheduleKind::interleaved, 2, 4, 2},
                                           GanttCase{PipelineScheduleKind::zb1p, 4, 8, 1}),
                         [](const auto& info) {
                           return std::string(pipeline_schedule_kind_name(info.param.kind)) == "1f1b"
                                      ? std::string("one_f_one_b")
                                      : std::string(pipeline_schedule_kind_name(info.param.kind));
                         });

// The text grid's rows: per rank, the action in each time unit ("." idle).
std::vector<std::vector<std::string>> grid_rows(const std::string& plan_text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(plan_text);
  for (std::string line; std::getline(lines, line);) {
    const size_t bar = line.find(" | ");
    if (!line.starts_with("      rank ") || bar == std::string::npos) continue;
    std::istringstream cells(line.substr(bar + 3));
    rows.emplace_back();
    for (std::string cell; cells >> cell;) rows.back().push_back(cell);
  }
  return rows;
}

TEST(PlanSvg, DrawsTheTextGridsSlotsInMs) {
  const std::string plan = "plan examples/gpt8.json --mesh pp=4 --schedule zb1p --microbatches 8";
  RunResult text = run_mlc(plan);
  ASSERT_EQ(text.status, 0) << text.err;
  RunResult svg = run_mlc(plan + " --format svg --gflops 10");
  ASSERT_EQ(svg.status, 0) << svg.err;
  expect_safe_svg(svg.out);
  const auto rows = grid_rows(text.out);
  ASSERT_EQ(rows.size(), 4u) << text.out;
  for (int r = 0; r < 4; ++r) {
    std::vector<std::string> cells(rows[static_cast<size_t>(r)].size(), ".");
    for (const Box& b : boxes_of(rank_group(svg.out, r)))
      for (int64_t u = b.start; u < b.end; ++u) {
        ASSERT_LT(static_cast<size_t>(u), cells.size()) << b.action;
        cells[static_cast<size_t>(u)] = b.action;
      }
    EXPECT_EQ(cells, rows[static_cast<size_t>(r)]) << "rank " << r;
  }
  EXPECT_NE(svg.out.find("bubble 0.1250 simulated; textbook (p-1)(F+I-W)/(m(F+I+W)) = 0.1250 (p=4, m=8, v=1)"),
            std::string::npos)
      << svg.out;
  EXPECT_NE(svg.out.find("10 GFLOP/s (--gflops)"), std::string::npos);
}

TEST(PlanSvg, ErrorsWithoutAPipeline) {
  RunResult dp = run_mlc("plan examples/tiny_gpt.json --mesh dp=2 --format svg");
  EXPECT_EQ(dp.status, 2);
  EXPECT_EQ(dp.err, "mlc: error: --format svg draws a pipeline's schedule, and mesh dp=2 has no pp axis: give one, e.g. "
                    "--mesh pp=4 or --mesh dp=2,pp=2\n");
  RunResult none = run_mlc("plan examples/tiny_gpt.json --format svg");
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err, "examples/tiny_gpt.json: error: mlc plan --format svg draws a pipeline's schedule, and this plan "
                      "has none: give --mesh pp=N (e.g. --mesh pp=4), or a \"pipeline\" in the model file's "
                      "\"parallel\" section\n");
  RunResult search = run_mlc("plan examples/tiny_gpt.json --search --devices 2 --format svg");
  EXPECT_EQ(search.status, 2);
  RunResult replicas = run_mlc("plan examples/gpt8.json --mesh dp=2,pp=2 --format svg --gflops 10");
  EXPECT_EQ(replicas.status, 0) << replicas.err;
  EXPECT_NE(replicas.out.find("8 micro-batches of 1, 1 stage per rank"), std::string::npos);
}

}  // namespace
}  // namespace mlc
