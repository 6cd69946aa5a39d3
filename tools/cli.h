// The `mlc` command line: one function per subcommand (tools/cmd_*.cc).
// Exit codes: 0 success, 1 user error (a diagnostic on stderr), 2 usage error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver/program.h"

namespace mlc::cli {

inline constexpr int kOk = 0;
inline constexpr int kUserError = 1;
inline constexpr int kUsageError = 2;

// Parsed `--flag value` / `--flag=value` / `--switch` arguments after the subcommand.
struct Args {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  // name without "--", value ("" for switches)

  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
};

// `switches` take no value; `valued` options take one; `optional_valued`
// options take one only as `--flag=value` (`--flag` alone has the value "").
// Unknown options are usage errors (message in `error`).
bool parse_args(const std::vector<std::string>& argv, const std::vector<std::string>& switches,
                const std::vector<std::string>& valued, Args& out, std::string& error,
                const std::vector<std::string>& optional_valued = {});

int cmd_ir(const std::vector<std::string>& argv);
int cmd_opt(const std::vector<std::string>& argv);
int cmd_run(const std::vector<std::string>& argv);
int cmd_plan(const std::vector<std::string>& argv);
int run_plan_search(const Args& args);  // mlc plan --search (tools/cmd_plan_search.cc)
// --gflops G (a GEMM rate for mlc plan's cost model): `out` stays nullopt
// when not given; false with `error` set for anything but a positive number.
bool parse_gflops(const Args& args, std::optional<double>& out, std::string& error);
int cmd_compile(const std::vector<std::string>& argv);
int cmd_convert(const std::vector<std::string>& argv);
int cmd_report(const std::vector<std::string>& argv);
int cmd_predict(const std::vector<std::string>& argv);  // tools/cmd_predict.cc
int cmd_data(const std::vector<std::string>& argv);  // tools/cmd_data.cc
int cmd_generate(const std::vector<std::string>& argv);  // tools/cmd_generate.cc
int cmd_check_grad(const std::vector<std::string>& argv);  // custom ops (tools/cmd_check_grad.cc)

// `--mesh dp=2,tp=2` and `--zero 0|1|2|3` (ir/parallel_plan.h ParallelFlags;
// make_parallel_plan puts them over the model file's "parallel" section):
// false with a usage message in `error` when malformed, a mesh axis without an
// implementation (check_mesh_axes), or --zero without --mesh:
//   "--mesh: unknown axis 'foo'; supported axes: dp, ddp, fsdp (data), tp (tensor)"
// With `pipeline_ranks` (mlc plan only), a "pp" axis is accepted: its size is
// written there (0 without one) and the axis removed from out.mesh.
bool parse_parallel(const Args& args, ParallelFlags& out, std::string& error, int* pipeline_ranks = nullptr);

// "" when the output `path` of --`flag` can be written (a file, or with
// `directory` a directory to create files in; runtime/output_path.h), else
// the error: "PATH: error: --FLAG: what is wrong". Commands check every output
// before the work that produces it.
std::string output_problem(const std::string& path, const std::string& flag, bool directory = false);

// Prints "mlc: error: <message>" for usage errors and returns kUsageError.
int usage_error(const std::string& message);
// Prints a diagnostic and returns kUserError.
int user_error(const std::string& message);

}  // namespace mlc::cli
