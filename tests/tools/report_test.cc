// `mlc report` (driver/report.h, driver/metrics_log.h): every malformed
// metrics file's exact diagnostic, and what the page holds for a known file
// (the browser test, tests/browser/, renders a real run's page).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/run_mlc.h"
#include "driver/metrics_log.h"
#include "driver/report.h"

namespace mlc {
namespace {

using testing::count;
using testing::run_mlc;
using testing::slurp;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = (testing::scratch_dir("mlc_report_test") / name).string();
  std::ofstream(path) << text;
  return path;
}

// The error of reading `text` as a metrics file, with its path replaced by "F".
std::string error_of(const std::string& text) {
  const std::string path = write_file("bad.jsonl", text);
  auto log = read_metrics_log(path);
  if (log.ok()) return "(no error)";
  std::string message = log.error().message;
  for (size_t at; (at = message.find(path)) != std::string::npos;) message.replace(at, path.size(), "F");
  return message;
}

TEST(MetricsLog, MalformedFilesAreLocatedErrors) {
  const std::string step = "{\"step\":0,\"epoch\":0,\"loss\":2.5}\n";
  EXPECT_EQ(error_of(""), "F: error: the metrics file has no records (expected JSON lines written by `mlc run --metrics`)");
  EXPECT_EQ(error_of(step + "{\"step\":1,\n"),
            "F:2:11: error: expected a JSON object on each line: syntax error while parsing object key - unexpected "
            "end of input; expected string literal");
  EXPECT_EQ(error_of("[1, 2]\n"), "F:1: error: expected a JSON object (a metrics record), found an array");
  EXPECT_EQ(error_of(step + "\n{\"foo\": 1, \"bar\": 2}\n"),
            "F:3: error: expected a metrics record with one of the keys 'loss' (a step), 'eval', 'train' (an epoch), "
            "'grads' or 'run'; found keys 'bar', 'foo'");
  EXPECT_EQ(error_of("{\"step\":0,\"epoch\":0,\"loss\":\"x\"}\n"),
            "F:1: error: 'loss': expected a number, found a string \"x\"");
  EXPECT_EQ(error_of("{\"epoch\":0,\"loss\":1.5}\n"), "F:1: error: missing field 'step'");
  EXPECT_EQ(error_of("{\"step\":-1,\"epoch\":0,\"loss\":1.5}\n"), "F:1: error: 'step': expected an integer >= 0, found -1");
  EXPECT_EQ(error_of("{\"epoch\":0,\"step\":4,\"eval\":{\"accuracy\":0.5}}\n"), "F:1: error: 'eval': missing field 'loss'");
  EXPECT_EQ(error_of("{\"epoch\":0,\"train\":[]}\n"), "F:1: error: 'train': expected an object, found an array");
  EXPECT_EQ(error_of("{\"epoch\":0,\"step\":0,\"grads\":[{\"mean_abs\":1,\"max_abs\":1,\"norm\":1}]}\n"),
            "F:1: error: 'grads'[0]: missing field 'name'");
  EXPECT_EQ(error_of("{\"epoch\":0,\"step\":0,\"grads\":{}}\n"),
            "F:1: error: 'grads': expected an array of layers, found an object");
  EXPECT_EQ(error_of("{\"run\": 3}\n"), "F:1: error: 'run': expected an object, found a number");
}

TEST(MetricsLog, LaterRecordsOfAStepWinAndNullIsNaN) {
  // A resumed run appends from its checkpoint: steps 1 and 2 appear twice.
  const std::string path = write_file("resumed.jsonl",
                                      "{\"step\":0,\"epoch\":0,\"loss\":3}\n{\"step\":1,\"epoch\":0,\"loss\":2}\n"
                                      "{\"step\":2,\"epoch\":0,\"loss\":null}\n{\"step\":1,\"epoch\":0,\"loss\":2.5}\n"
                                      "{\"step\":2,\"epoch\":0,\"loss\":1.5}\n{\"eval\":{\"loss\":1}}\n");
  auto log = read_metrics_log(path);
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_EQ(log->steps.size(), 3u);
  EXPECT_EQ(log->steps[1].loss, 2.5);
  EXPECT_EQ(log->steps[2].loss, 1.5);
  ASSERT_EQ(log->evals.size(), 1u);  // `mlc run --eval`'s: no step
  EXPECT_EQ(log->evals[0].step, -1);
  auto nan = read_metrics_log(write_file("nan.jsonl", "{\"step\":0,\"epoch\":0,\"loss\":null}\n"));
  ASSERT_TRUE(nan.ok());
  EXPECT_TRUE(std::isnan(nan->steps[0].loss));
}

// A known file: the polylines have one point per drawable record, the
// parameters are the gradient charts' categories, names are escaped.
TEST(Report, DrawsEveryRecord) {
  std::string text =
      "{\"run\":{\"model\":\"m<1>\",\"backend\":\"compiled\",\"mesh\":\"dp=2\",\"batch_size\":8,\"steps_per_epoch\":3,"
      "\"total_steps\":6,\"epochs\":2,\"start_step\":0,\"optimizer\":\"sgd\",\"lr\":0.1}}\n";
  for (int s = 0; s < 6; ++s) {
    text += "{\"step\":" + std::to_string(s) + ",\"epoch\":" + std::to_string(s / 3) + ",\"loss\":" +
            std::to_string(3.0 - 0.4 * s) + "}\n";
    if (s % 2 == 0)
      text += "{\"epoch\":" + std::to_string(s / 3) + ",\"step\":" + std::to_string(s) +
              ",\"grads\":[{\"name\":\"fc.weight\",\"mean_abs\":0.01,\"max_abs\":0.1,\"norm\":0.5,\"elements\":4},"
              "{\"name\":\"fc.bias\",\"mean_abs\":0,\"max_abs\":0.2,\"norm\":0.3,\"elements\":2}]}\n";
    if (s % 3 == 2) text += "{\"epoch\":" + std::to_string(s / 3) + ",\"train\":{\"loss\":2,\"steps\":3}}\n";
    if (s % 2 == 1)
      text += "{\"epoch\":" + std::to_string(s / 3) + ",\"step\":" + std::to_string(s + 1) +
              ",\"eval\":{\"loss\":2.2,\"accuracy\":0.5,\"correct\":5,\"positions\":10,\"examples\":10}}\n";
  }
  auto log = read_metrics_log(write_file("known.jsonl", text));
  ASSERT_TRUE(log.ok()) << log.error().message;
  const std::string page = render_report(*log, "known.jsonl");
  EXPECT_NE(page.find("<h1>m&lt;1&gt;: training report</h1>"), std::string::npos);
  EXPECT_NE(page.find("mesh dp=2"), std::string::npos);
  EXPECT_NE(page.find("class=\"series train-loss\" data-points=\"6\""), std::string::npos);
  EXPECT_NE(page.find("class=\"series epoch-loss\" data-points=\"2\""), std::string::npos);
  EXPECT_NE(page.find("class=\"series eval-loss\" data-points=\"3\""), std::string::npos);
  EXPECT_NE(page.find("class=\"series eval-accuracy\" data-points=\"3\""), std::string::npos);
  // Gradient flow: one line per recorded step (0, 2, 4); fc.bias's mean |g|
  // of 0 is left off the log scale.
  for (const char* step : {"grad-step-0", "grad-step-2", "grad-step-4"})
    EXPECT_NE(page.find(std::string("class=\"series ") + step + "\" data-points=\"1\""), std::string::npos) << step;
  EXPECT_EQ(count(page, "<rect class=\"bar grad-max\""), 2u);
  EXPECT_EQ(count(page, "<rect class=\"bar grad-mean\""), 1u);
  EXPECT_EQ(count(page, ">fc.weight</text>"), 3u);  // x labels of two charts and a legend entry
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
}

TEST(ReportCli, WritesThePageOrSaysWhatIsWrong) {
  const std::string metrics = write_file("cli.jsonl", "{\"step\":0,\"epoch\":0,\"loss\":1}\n");
  const std::string page = (testing::scratch_dir("mlc_report_test") / "cli.html").string();
  auto r = run_mlc("report " + metrics + " -o " + page);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + page + ": 1 steps, 0 evaluations, 0 epochs, 0 gradient records\n");
  EXPECT_NE(slurp(page).find("data-points=\"1\""), std::string::npos);
  r = run_mlc("report " + metrics);  // default: METRICS with .html
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(page));
  r = run_mlc("report /nonexistent/m.jsonl -o " + page);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "/nonexistent/m.jsonl: error: cannot open: No such file or directory (write a metrics file with "
                   "`mlc run MODEL.json --metrics /nonexistent/m.jsonl`)\n");
  r = run_mlc("report " + metrics + " -o " + metrics);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the report would overwrite the metrics file"), std::string::npos) << r.err;
  r = run_mlc("report");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("usage: mlc report METRICS.jsonl [flags]; `mlc help report` explains them"), std::string::npos)
      << r.err;
  r = run_mlc("run examples/digits_mlp.json --eval-every x");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--eval-every needs an integer >= 0, got 'x'"), std::string::npos) << r.err;
  r = run_mlc("run examples/digits_mlp.json --grad-stats-every -2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--grad-stats-every needs an integer >= 0, got '-2'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mlc
