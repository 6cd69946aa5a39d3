// Pipeline schedules as data (ir/pipeline_schedule.h): the generators'
// parameters, the validator on every generated schedule and on broken ones,
// the simulated bubble against the textbook formulas, and the printed grid.
#include "ir/pipeline_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace mlc {
namespace {

using K = PipelineScheduleKind;
constexpr K kKinds[] = {K::gpipe, K::one_f_one_b, K::interleaved, K::zb1p};

std::string make_error_of(K kind, int p, int m, int v) {
  auto s = make_pipeline_schedule(kind, p, m, v);
  return s ? "ok" : s.error().message;
}

// A schedule written by hand, one string of actions per rank.
PipelineSchedule schedule(int p, int m, int v, std::vector<const char*> ranks) {
  PipelineSchedule s{p, v, m, K::gpipe, {}};
  for (const char* r : ranks) s.actions.push_back(parse_pipeline_actions(r).value());
  return s;
}

std::string check(const PipelineSchedule& s) {
  Status st = validate_pipeline_schedule(s);
  return st ? "ok" : st.error().message;
}

bool valid_parameters(K kind, int p, int m, int v) {
  if (kind == K::interleaved) return v >= 2 && m % p == 0;
  return v == 1 && (kind == K::gpipe || m >= p);
}

TEST(PipelineSchedule, ActionTextParsesBack) {
  auto a = parse_pipeline_actions("F3.1  SEND_F3.1 RECV_B4.0 B0.12 I2.2 W2.2 SEND_B1.0 RECV_F0.7");
  ASSERT_TRUE(a);
  std::string joined;
  for (const PipelineAction& x : *a) joined += (joined.empty() ? "" : " ") + x.str();
  EXPECT_EQ(joined, "F3.1 SEND_F3.1 RECV_B4.0 B0.12 I2.2 W2.2 SEND_B1.0 RECV_F0.7");
  EXPECT_EQ((*a)[0], (PipelineAction{PipelineActionKind::F, 3, 1}));
  const std::string expected =
      ": expected F, B, I, W, SEND_F, RECV_F, SEND_B or RECV_B followed by <stage>.<microbatch>";
  for (const char* bad : {"X0.1", "F0", "F.1", "F0.", "F0.1x", "SEND0.1", "F-1.0", "F99999999.0"})
    EXPECT_EQ(parse_pipeline_actions(bad).error().message, "pipeline action '" + std::string(bad) + "'" + expected);
}

TEST(PipelineSchedule, KindNamesAndTheirErrors) {
  for (K k : kKinds) EXPECT_EQ(parse_pipeline_schedule_kind(pipeline_schedule_kind_name(k)).value(), k);
  EXPECT_EQ(parse_pipeline_schedule_kind("x").error().message,
            "parallel.pipeline.schedule: expected gpipe, 1f1b, interleaved or zb1p, got 'x'");
}

TEST(PipelineSchedule, InvalidParametersNameTheField) {
  EXPECT_EQ(make_error_of(K::one_f_one_b, 4, 2, 1),
            "parallel.pipeline.microbatches: 1f1b needs at least as many micro-batches as stages (2 < 4)");
  EXPECT_EQ(make_error_of(K::zb1p, 4, 3, 1),
            "parallel.pipeline.microbatches: zb1p needs at least as many micro-batches as stages (3 < 4)");
  EXPECT_EQ(make_error_of(K::gpipe, 4, 2, 1), "ok");  // GPipe runs any m
  EXPECT_EQ(make_error_of(K::interleaved, 4, 6, 2),
            "parallel.pipeline.microbatches: interleaved needs a multiple of the 4 pipeline ranks, got 6");
  EXPECT_EQ(make_error_of(K::interleaved, 4, 8, 1),
            "parallel.pipeline.virtual_stages: interleaved needs at least 2 stages per rank, got 1");
  EXPECT_EQ(make_error_of(K::gpipe, 2, 4, 2), "parallel.pipeline.virtual_stages: gpipe runs one stage per rank, got 2");
  EXPECT_EQ(make_error_of(K::one_f_one_b, 2, 4, 3),
            "parallel.pipeline.virtual_stages: 1f1b runs one stage per rank, got 3");
  EXPECT_EQ(make_error_of(K::gpipe, 0, 4, 1), "parallel.pipeline.stages: expected 1 to 4096 pipeline ranks, got 0");
  EXPECT_EQ(make_error_of(K::gpipe, 2, 0, 1),
            "parallel.pipeline.microbatches: expected 1 to 4096 micro-batches, got 0");
  EXPECT_EQ(make_error_of(K::interleaved, 2, 4, 0),
            "parallel.pipeline.virtual_stages: expected 1 to 4096 stages per rank, got 0");
  EXPECT_EQ(make_error_of(K::interleaved, 4096, 4096, 2),
            "parallel.pipeline.microbatches: 8192 stages × 4096 micro-batches is more than 1048576 (stage, "
            "micro-batch) pairs");
}

// Every generator's schedule validates, on a grid of parameters; and its
// bubble is the textbook one with F=1, B=2 (I=W=1).
TEST(PipelineSchedule, EveryGeneratedScheduleValidates) {
  int checked = 0;
  for (K kind : kKinds)
    for (int p : {1, 2, 3, 4, 8})
      for (int m = 1; m <= 16; ++m)
        for (int v : {1, 2, 3}) {
          std::string what = std::string(pipeline_schedule_kind_name(kind)) + " p=" + std::to_string(p) +
                             " m=" + std::to_string(m) + " v=" + std::to_string(v);
          auto s = make_pipeline_schedule(kind, p, m, v);
          ASSERT_EQ(s.ok(), valid_parameters(kind, p, m, v)) << what;
          if (!s) continue;
          ASSERT_EQ(check(*s), "ok") << what << "\n" << pipeline_actions_str(*s);
          ++checked;
        }
  EXPECT_EQ(checked, 284);
}

TEST(PipelineSchedule, OneRankHasNoCommunication) {
  auto s = make_pipeline_schedule(K::interleaved, 1, 2, 2).value();
  EXPECT_EQ(pipeline_actions_str(s), "rank 0: F0.0 F1.0 B1.0 F0.1 B0.0 F1.1 B1.1 B0.1\n");
}

TEST(PipelineSchedule, OneFOneBActionLists) {
  auto s = make_pipeline_schedule(K::one_f_one_b, 2, 3, 1).value();
  EXPECT_EQ(pipeline_actions_str(s),
            "rank 0: F0.0 SEND_F0.0 F0.1 SEND_F0.1 RECV_B1.0 B0.0 F0.2 SEND_F0.2 RECV_B1.1 B0.1 RECV_B1.2 B0.2\n"
            "rank 1: RECV_F0.0 F1.0 B1.0 SEND_B1.0 RECV_F0.1 F1.1 B1.1 SEND_B1.1 RECV_F0.2 F1.2 B1.2 SEND_B1.2\n");
}

// Stage 1's output goes back to rank 0 (stage 2), stage 2's gradient to rank 1.
TEST(PipelineSchedule, InterleavedActionLists) {
  auto s = make_pipeline_schedule(K::interleaved, 2, 2, 2).value();
  EXPECT_EQ(pipeline_actions_str(s),
            "rank 0: F0.0 SEND_F0.0 F0.1 SEND_F0.1 RECV_F1.0 F2.0 SEND_F2.0 RECV_F1.1 F2.1 SEND_F2.1 RECV_B3.0 B2.0 "
            "SEND_B2.0 RECV_B3.1 B2.1 SEND_B2.1 RECV_B1.0 B0.0 RECV_B1.1 B0.1\n"
            "rank 1: RECV_F0.0 F1.0 SEND_F1.0 RECV_F0.1 F1.1 SEND_F1.1 RECV_F2.0 F3.0 RECV_F2.1 F3.1 B3.0 SEND_B3.0 "
            "B3.1 SEND_B3.1 RECV_B2.0 B1.0 SEND_B1.0 RECV_B2.1 B1.1 SEND_B1.1\n");
}

// ---- broken schedules ----

TEST(PipelineSchedule, SwappedSendAndReceiveDeadlock) {
  // Rank 1 sends its gradient only after receiving micro-batch 1's
  // activation, which rank 0 sends only after the gradient arrived.
  auto s = schedule(2, 2, 1,
                    {"F0.0 SEND_F0.0 RECV_B1.0 B0.0 F0.1 SEND_F0.1 RECV_B1.1 B0.1",
                     "RECV_F0.0 F1.0 B1.0 RECV_F0.1 SEND_B1.0 F1.1 B1.1 SEND_B1.1"});
  EXPECT_EQ(check(s),
            "pipeline schedule: deadlock: rank 0 waits at RECV_B1.0 (action 2) for SEND_B1.0 on rank 1; "
            "rank 1 waits at RECV_F0.1 (action 3) for SEND_F0.1 on rank 0");
}

TEST(PipelineSchedule, MissingBackward) {
  auto s = schedule(2, 1, 1, {"F0.0 SEND_F0.0", "RECV_F0.0 F1.0 B1.0 SEND_B1.0"});
  EXPECT_EQ(check(s), "pipeline schedule: stage 0, micro-batch 0 has no backward (B0.0, or I0.0 and W0.0)");
  s = schedule(1, 2, 1, {"F0.0 F0.1 B0.0"});
  EXPECT_EQ(check(s), "pipeline schedule: stage 0, micro-batch 1 has no backward (B0.1, or I0.1 and W0.1)");
  s = schedule(1, 1, 1, {"B0.0"});
  EXPECT_EQ(check(s), "pipeline schedule: stage 0, micro-batch 0 has no forward F0.0");
}

TEST(PipelineSchedule, BackwardBeforeItsForward) {
  auto s = schedule(1, 2, 1, {"F0.0 B0.1 B0.0 F0.1"});
  EXPECT_EQ(check(s), "pipeline schedule: rank 0, action 1 B0.1 comes before its forward (action 3)");
}

TEST(PipelineSchedule, WeightGradientBeforeItsInputGradient) {
  auto s = schedule(1, 1, 1, {"F0.0 W0.0 I0.0"});
  EXPECT_EQ(check(s), "pipeline schedule: rank 0, action 1 W0.0 comes before its I0.0 (action 2)");
  s = schedule(1, 1, 1, {"F0.0 I0.0"});
  EXPECT_EQ(check(s), "pipeline schedule: stage 0, micro-batch 0 has I0.0 but no W0.0");
  s = schedule(1, 1, 1, {"F0.0 B0.0 I0.0 W0.0"});
  EXPECT_EQ(check(s),
            "pipeline schedule: rank 0, action 2 I0.0: the rank also has B0.0 (action 1); a stage's micro-batch "
            "has either B, or I and W");
}

TEST(PipelineSchedule, MisplacedAndUnmatchedCommunication) {
  EXPECT_EQ(check(schedule(2, 1, 1, {"F0.0 F1.0", ""})),
            "pipeline schedule: rank 0, action 1 F1.0: belongs on rank 1");
  EXPECT_EQ(check(schedule(2, 1, 1, {"F0.0 F0.0", ""})),
            "pipeline schedule: rank 0, action 1 F0.0: appears twice (first as action 0)");
  EXPECT_EQ(check(schedule(2, 1, 1, {"F2.0"})), "pipeline schedule: 1 action lists for 2 ranks");
  EXPECT_EQ(check(schedule(2, 1, 1, {"F2.0", ""})),
            "pipeline schedule: rank 0, action 0 F2.0: stage out of range (2 stages)");
  EXPECT_EQ(check(schedule(1, 1, 1, {"F0.0 SEND_F0.0 B0.0"})),
            "pipeline schedule: rank 0, action 1 SEND_F0.0: no stage on another rank to send to");
  EXPECT_EQ(check(schedule(2, 1, 1, {"F0.0 RECV_B0.0", ""})),
            "pipeline schedule: rank 0, action 1 RECV_B0.0: no stage on another rank to receive from");
  // A send nobody receives, a receive nobody sends, an input never received.
  EXPECT_EQ(check(schedule(2, 1, 1, {"F0.0 SEND_F0.0 RECV_B1.0 B0.0", "F1.0 B1.0 SEND_B1.0"})),
            "pipeline schedule: rank 0, action 1 SEND_F0.0 has no matching RECV_F0.0 on rank 1");
  EXPECT_EQ(check(schedule(2, 1, 1, {"F0.0 RECV_B1.0 B0.0", "RECV_F0.0 F1.0 B1.0 SEND_B1.0"})),
            "pipeline schedule: rank 1, action 0 RECV_F0.0 has no matching SEND_F0.0 on rank 0 to receive from");
  EXPECT_EQ(check(schedule(2, 1, 1, {"F0.0 B0.0", "F1.0 B1.0"})),
            "pipeline schedule: rank 0, action 1 B0.0 needs RECV_B1.0, which rank 0 does not have");
}

TEST(PipelineSchedule, ReceivesOutOfChannelOrder) {
  auto s = schedule(2, 2, 1,
                    {"F0.0 SEND_F0.0 F0.1 SEND_F0.1 RECV_B1.0 B0.0 RECV_B1.1 B0.1",
                     "RECV_F0.1 RECV_F0.0 F1.0 B1.0 SEND_B1.0 F1.1 B1.1 SEND_B1.1"});
  EXPECT_EQ(check(s),
            "pipeline schedule: rank 0's message 0 to rank 1 is SEND_F0.0 but rank 1 receives RECV_F0.1 as message 0 "
            "from it (receives from a rank must be in the order of its sends)");
}

// ---- simulated bubbles ----

PipelineTimeline simulate(K kind, int p, int m, int v, PipelineDurations d = {}) {
  return simulate_pipeline_schedule(make_pipeline_schedule(kind, p, m, v).value(), d).value();
}

TEST(PipelineSchedule, GPipeAndOneFOneBBubbleIsExactlyTheFormula) {
  for (K kind : {K::gpipe, K::one_f_one_b})
    for (int p : {1, 2, 3, 4, 8})
      for (int m = p; m <= 16; ++m) {
        PipelineTimeline t = simulate(kind, p, m, 1);
        EXPECT_EQ(t.makespan, 3 * (m + p - 1)) << p << " " << m;
        for (int r = 0; r < p; ++r) EXPECT_EQ(t.idle[r], 3 * (p - 1));
        EXPECT_DOUBLE_EQ(t.bubble_fraction, double(p - 1) / m);
      }
}

TEST(PipelineSchedule, InterleavedBubbleIsExactlyTheFormula) {
  for (int p : {2, 3, 4, 8})
    for (int v : {2, 3})
      for (int m = p; m <= 16; m += p) {
        PipelineTimeline t = simulate(K::interleaved, p, m, v);
        EXPECT_DOUBLE_EQ(t.bubble_fraction, double(p - 1) / (v * m)) << p << " " << m << " " << v;
      }
}

// With the paper's equal costs (F = I = W, the costs the order is made
// for), the simulated bubble is exactly the paper's (p-1)/(3m).
TEST(PipelineSchedule, ZeroBubbleH1BubbleIsThePapersWithEqualCosts) {
  for (int p : {1, 2, 3, 4, 8})
    for (int m = p; m <= 16; ++m)
      EXPECT_DOUBLE_EQ(simulate(K::zb1p, p, m, 1).bubble_fraction, double(p - 1) / (3 * m)) << p << " " << m;
}

// With other costs the order (made for equal costs) stays between the
// paper's formula, (p-1)(F+I-W)/(m(F+I+W)), and 1F1B's (p-1)/m; it meets the
// paper's where W <= I and W <= F (the paper's setting: W is the cheaper
// half).
TEST(PipelineSchedule, ZeroBubbleH1BubbleWithOtherCostsIsBounded) {
  for (int f = 1; f <= 3; ++f)
    for (int i = 1; i <= 3; ++i)
      for (int w = 1; w <= 3; ++w)
        for (int p : {2, 3, 4, 8})
          for (int m = p; m <= 16; ++m) {
            PipelineDurations d;
            d.forward = f, d.input_grad = i, d.weight_grad = w;
            auto s = make_pipeline_schedule(K::zb1p, p, m, 1).value();
            double bubble = simulate_pipeline_schedule(s, d)->bubble_fraction;
            double paper = pipeline_bubble_formula(s, d);
            std::string what = "F=" + std::to_string(f) + " I=" + std::to_string(i) + " W=" + std::to_string(w) +
                               " p=" + std::to_string(p) + " m=" + std::to_string(m);
            EXPECT_GE(bubble, paper - 1e-12) << what;
            EXPECT_LE(bubble, double(p - 1) / m + 1e-12) << what;
            if (w <= i && w <= f) {
              EXPECT_NEAR(bubble, paper, 1e-12) << what;
            }
          }
}

TEST(PipelineSchedule, PeakStash) {
  for (int p : {1, 2, 4, 8})
    for (int m = p; m <= 16; ++m) {
      EXPECT_EQ(simulate(K::gpipe, p, m, 1).peak_stashed[0], m);
      EXPECT_EQ(simulate(K::one_f_one_b, p, m, 1).peak_stashed[0], p);
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(simulate(K::one_f_one_b, p, m, 1).peak_stashed[r], p - r);
        EXPECT_LE(simulate(K::zb1p, p, m, 1).peak_stashed[r], p);
      }
    }
}

// Interleaved rank 0 stashes its warm-up forwards and one more (Megatron-LM's
// 2(p-1) + (v-1)p warm-up; all m·v forwards when m = p), each one stage of
// its v.
TEST(PipelineSchedule, InterleavedPeakStash) {
  for (int p : {2, 4, 8})
    for (int v : {2, 3})
      for (int m = p; m <= 16; m += p) {
        int expected = m == p ? m * v : std::min(m * v, 2 * (p - 1) + (v - 1) * p + 1);
        EXPECT_EQ(simulate(K::interleaved, p, m, v).peak_stashed[0], expected) << p << " " << v << " " << m;
      }
}

TEST(PipelineSchedule, SendLatencyDelaysReceives) {
  PipelineDurations d;
  d.send_latency = 1;
  PipelineTimeline t = simulate(K::gpipe, 2, 1, 1, d);
  // F0.0 [0,1), latency 1, F1.0 [2,3), B1.0 [3,5), latency 1, B0.0 [6,8).
  EXPECT_EQ(t.makespan, 8);
  EXPECT_EQ(t.busy, (std::vector<int64_t>{3, 3}));
}

// ---- printed grids (p=2, m=4) ----

std::string grid(K kind, int v) {
  auto s = make_pipeline_schedule(kind, 2, 4, v).value();
  return print_pipeline_schedule(s, simulate_pipeline_schedule(s).value());
}

TEST(PipelineSchedule, PrintedGridGPipe) {
  EXPECT_EQ(grid(K::gpipe, 1), R"(gpipe p=2 m=4 v=1 (F=1 B=2)
rank 0 | F0.0 F0.1 F0.2 F0.3 .    .    .    B0.0 B0.0 B0.1 B0.1 B0.2 B0.2 B0.3 B0.3
rank 1 | .    F1.0 F1.1 F1.2 F1.3 B1.0 B1.0 B1.1 B1.1 B1.2 B1.2 B1.3 B1.3 .    .
bubble 0.2500, formula (p-1)/m = 0.2500
peak stashed activations per rank: 4 4
)");
}

TEST(PipelineSchedule, PrintedGridOneFOneB) {
  EXPECT_EQ(grid(K::one_f_one_b, 1), R"(1f1b p=2 m=4 v=1 (F=1 B=2)
rank 0 | F0.0 F0.1 .    .    B0.0 B0.0 F0.2 B0.1 B0.1 F0.3 B0.2 B0.2 .    B0.3 B0.3
rank 1 | .    F1.0 B1.0 B1.0 F1.1 B1.1 B1.1 F1.2 B1.2 B1.2 F1.3 B1.3 B1.3 .    .
bubble 0.2500, formula (p-1)/m = 0.2500
peak stashed activations per rank: 2 1
)");
}

TEST(PipelineSchedule, PrintedGridInterleaved) {
  EXPECT_EQ(grid(K::interleaved, 2), R"(interleaved p=2 m=4 v=2 (F=1 B=2)
rank 0 | F0.0 F0.1 F2.0 F2.1 F0.2 .    B2.0 B2.0 F0.3 B2.1 B2.1 F2.2 B0.0 B0.0 F2.3 B0.1 B0.1 .    B2.2 B2.2 .    B2.3 B2.3 B0.2 B0.2 B0.3 B0.3
rank 1 | .    F1.0 F1.1 F3.0 B3.0 B3.0 F3.1 B3.1 B3.1 F1.2 B1.0 B1.0 F1.3 B1.1 B1.1 F3.2 B3.2 B3.2 F3.3 B3.3 B3.3 B1.2 B1.2 B1.3 B1.3 .    .
bubble 0.1250, formula (p-1)/(v*m) = 0.1250
peak stashed activations per rank: 5 3
)");
}

TEST(PipelineSchedule, PrintedGridZeroBubbleH1) {
  EXPECT_EQ(grid(K::zb1p, 1), R"(zb1p p=2 m=4 v=1 (F=1 I=1 W=1)
rank 0 | F0.0 F0.1 .    I0.0 W0.0 F0.2 I0.1 W0.1 F0.3 I0.2 W0.2 I0.3 W0.3
rank 1 | .    F1.0 I1.0 F1.1 I1.1 W1.0 F1.2 I1.2 W1.1 F1.3 I1.3 W1.2 W1.3
bubble 0.0833, formula (p-1)(F+I-W)/(m(F+I+W)) = 0.0833
peak stashed activations per rank: 2 2
)");
}

}  // namespace
}  // namespace mlc
