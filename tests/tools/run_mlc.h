// Running the `mlc` binary from a test: the command, its exit status and what
// it printed, and the metrics it wrote. Shared by the end-to-end suites of
// tests/tools/.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlc::testing {

struct RunResult {
  int status = -1;  // the exit status; -1 if killed by a signal
  std::string out, err;
};

// How many times `what` occurs in `text` (overlaps included).
inline size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A metrics file of `mlc run --metrics` (JSON lines, docs/metrics.md): the
// step lines' losses and the evaluation lines.
struct Metrics {
  std::vector<double> losses;
  std::vector<nlohmann::json> evals;
};

inline Metrics read_metrics(const std::string& path) {
  Metrics m;
  std::istringstream lines(slurp(path));
  std::string line;
  while (std::getline(lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("eval")) m.evals.push_back(j["eval"]);
    else if (j.contains("loss")) m.losses.push_back(j["loss"]);  // not the run, epoch and grads records
  }
  return m;
}

// What one rank of `mlc run` measured: its "memory[ of rank R]: parameters
// ... (N B), optimizer state ... (N B), train-step arena ... (N B)[, schedule
// buffers ... (N B)]" line (schedule_buffers 0 when the line has none).
struct MeasuredMemory {
  int64_t parameters = -1, optimizer_state = -1, arena = -1, schedule_buffers = 0;
};

// Those lines of `out`, in order.
inline std::vector<MeasuredMemory> measured_memory(const std::string& out) {
  static const std::regex line(
      R"(memory(?: of rank \d+)?: parameters [^(]*\((\d+) B\), optimizer state [^(]*\((\d+) B\), )"
      R"(train-step arena [^(]*\((\d+) B\)(?:, schedule buffers [^(]*\((\d+) B\))?)");
  std::vector<MeasuredMemory> ranks;
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it)
    ranks.push_back({std::stoll((*it)[1]), std::stoll((*it)[2]), std::stoll((*it)[3]),
                     (*it)[4].matched ? std::stoll((*it)[4]) : 0});
  return ranks;
}

// A scratch directory of this test process: <tmp>/<prefix>_<pid>.
inline std::filesystem::path scratch_dir(const std::string& prefix) {
  auto dir = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs `sh -c "<setup> mlc ARGS >out 2>err <redirect>"` from the working
// directory (the source root), e.g. setup "ulimit -v 4000000;" and redirect
// "</dev/zero".
inline RunResult run_mlc(const std::string& args, const std::string& setup = "",
                         const std::string& redirect = "") {
  auto dir = scratch_dir("mlc_run");
  std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  std::string cmd = setup + " " + std::string(MLC_BINARY_DIR) + "/bin/mlc " + args + " >" + out +
                    " 2>" + err + " " + redirect;
  int raw = std::system(("sh -c '" + cmd + "'").c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace mlc::testing
