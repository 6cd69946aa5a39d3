// mlc report METRICS.jsonl [-o REPORT.html]: reads a metrics file of `mlc
// run --metrics` (driver/metrics_log.h checks every line) and writes the page
// of driver/report.h. Errors: the metrics file's (FILE:LINE: error: ...), or
// the output's.
#include <cstdio>
#include <fstream>

#include "runtime/file_io.h"
#include "tools/cli.h"
#include "tools/help.h"
#include "driver/metrics_log.h"
#include "driver/report.h"

namespace mlc::cli {

namespace {
std::string default_output(const std::string& metrics) {
  std::string base = metrics;
  if (base.size() > 6 && base.compare(base.size() - 6, 6, ".jsonl") == 0) base.resize(base.size() - 6);
  return base + ".html";
}
}  // namespace

int cmd_report(const std::vector<std::string>& argv) {
  const CommandDoc& doc = *find_command_doc("report");
  // `-o` is the usual spelling; parse_args takes long options only.
  std::vector<std::string> args_in;
  for (const std::string& a : argv) args_in.push_back(a == "-o" ? "--output" : a);
  Args args;
  std::string error;
  if (!parse_command_args(doc, args_in, args, error)) return usage_error(error + "\n" + usage_line(doc));
  if (args.positional.size() != 1) return usage_error(usage_line(doc));
  const std::string& path = args.positional[0];
  const std::string output = args.get("output", default_output(path));
  if (output == path) return usage_error("-o " + output + ": the report would overwrite the metrics file");
  if (std::string problem = output_problem(output, "output"); !problem.empty()) return user_error(problem);
  auto log = read_metrics_log(path);
  if (!log) return user_error(log.error().message);
  const std::string page = render_report(*log, path);
  if (Status st = rt::write_file_atomically(output, {page}); !st) return user_error(st.error().message);
  std::printf("wrote %s: %zu steps, %zu evaluations, %zu epochs, %zu gradient records\n", output.c_str(),
              log->steps.size(), log->evals.size(), log->epochs.size(), log->grads.size());
  return kOk;
}

}  // namespace mlc::cli
