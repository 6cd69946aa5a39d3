// mlc: the command-line driver. See DESIGN.md §8 and `mlc --help`.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/blas.h"
#include "runtime/thread_pool.h"
#include "tools/cli.h"

namespace {

const char* kUsage =
    "usage: mlc <command> [args]\n"
    "\n"
    "commands:\n"
    "  ir MODEL.json [--after PASS|all|fusion|lower] [--batch N] [--timings]\n"
    "                                             print the IR of a model (after a pass, or every stage)\n"
    "  opt FILE.mlir [--passes a,b,c]             parse, verify, run passes, print\n"
    "  run MODEL.json|MODEL.mlcx [--eval] [--init F] [--data F] [--epochs N | --steps N]\n"
    "      [--metrics OUT.jsonl] [--save F] [--checkpoint-dir D] [--checkpoint-every N] [--resume]\n"
    "      [--seed S] [--backend compiled|interp] [--profile[=PROFILE.json]]\n"
    "                                             train (or with --eval, evaluate) a model\n"
    "  compile MODEL.json [-o MODEL.mlcx] [--target cpu] [--data F]\n"
    "                                             compile a model ahead of time into an artifact\n"
    "  plan MODEL.json [--format text|json]       parameters, memory and FLOPs of a training step\n"
    "\n"
    "Exit status: 0 success, 1 error in the input (diagnostic on stderr), 2 usage error.\n";

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? mlc::cli::kUsageError : mlc::cli::kOk;
  }
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
  } catch (const std::bad_alloc&) {
    return out_of_memory(command, rest);
  } catch (const std::length_error&) {
    return out_of_memory(command, rest);
  }
  return mlc::cli::usage_error("unknown command '" + command + "'\n" + kUsage);
}
