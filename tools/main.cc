// mlc: the command-line driver. See docs/architecture.md (Layout) and `mlc help` (tools/help.h).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/blas.h"
#include "runtime/thread_pool.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace {

// OpenBLAS 0.3.21 does not recognise recent Xeons and falls back to slow
// generic kernels; it reads OPENBLAS_CORETYPE only when the library loads, so
// set it and re-execute once. MLC_NO_REEXEC=1 disables this.
void select_blas_kernels(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") || std::getenv("MLC_NO_REEXEC")) return;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) return;
  setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: carry on with the defaults
}

int out_of_memory(const std::string& command, const std::vector<std::string>& args) {
  std::string file = "mlc";
  for (const std::string& a : args)
    if (a.rfind("--", 0) != 0) {
      file = a;
      break;
    }
  std::fprintf(stderr, "%s: error: out of memory in 'mlc %s'\n", file.c_str(), command.c_str());
  return mlc::cli::kUserError;
}

// `mlc help [COMMAND]`, `mlc COMMAND --help`, `mlc --version`: printed on
// stdout, exit 0 (std::nullopt: not a request for help).
std::optional<int> help_request(const std::vector<std::string>& args) {
  using namespace mlc::cli;
  const std::string& first = args[0];
  if (first == "--version" || first == "version") {
    std::printf("%s\n", version_text().c_str());
    return kOk;
  }
  if (first == "--help" || first == "-h" || first == "help") {
    if (first != "help" || args.size() == 1) {
      std::fputs(overview_help().c_str(), stdout);
      return kOk;
    }
    const CommandDoc* doc = find_command_doc(args[1]);
    if (!doc) return usage_error("help: no command '" + args[1] + "' (commands: " + command_names() + ")");
    std::fputs(command_help(*doc).c_str(), stdout);
    return kOk;
  }
  const CommandDoc* doc = find_command_doc(first);
  for (size_t i = 1; doc && i < args.size(); ++i)
    if (args[i] == "--help" || args[i] == "-h") {
      std::fputs(command_help(*doc).c_str(), stdout);
      return kOk;
    }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return mlc::cli::usage_error("no command\n" + mlc::cli::overview_help());
  if (auto handled = help_request({argv + 1, argv + argc})) return *handled;
  select_blas_kernels(argv);
  // MLC_THREADS: threads for compiled kernels and BLAS (default 1).
  const char* threads = std::getenv("MLC_THREADS");
  mlc::rt::set_num_threads(threads ? std::max(1, std::atoi(threads)) : 1);
  std::string command = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  // Loaders and builders report running out of memory themselves, naming the
  // file and what they were building; this is the net under everything else
  // (a training run's tensors, a pass), so that no input ends in an abort.
  try {
    if (command == "ir") return mlc::cli::cmd_ir(rest);
    if (command == "opt") return mlc::cli::cmd_opt(rest);
    if (command == "run") return mlc::cli::cmd_run(rest);
    if (command == "plan") return mlc::cli::cmd_plan(rest);
    if (command == "compile") return mlc::cli::cmd_compile(rest);
    if (command == "convert") return mlc::cli::cmd_convert(rest);
    if (command == "report") return mlc::cli::cmd_report(rest);
    if (command == "predict") return mlc::cli::cmd_predict(rest);
    if (command == "generate") return mlc::cli::cmd_generate(rest);
    if (command == "data") return mlc::cli::cmd_data(rest);
    if (command == "check-grad") return mlc::cli::cmd_check_grad(rest);
  } catch (const std::bad_alloc&) {
    return out_of_memory(command, rest);
  } catch (const std::length_error&) {
    return out_of_memory(command, rest);
  }
  return mlc::cli::usage_error("unknown command '" + command + "' (commands: " + mlc::cli::command_names() +
                               "; `mlc help` explains them)");
}
