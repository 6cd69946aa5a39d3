// The command line's documentation, and the one source of each command's
// flags: `mlc help`, `mlc help COMMAND`, `mlc COMMAND --help` and the usage
// errors print from it, and each command parses its arguments with
// parse_command_args, so a flag cannot be accepted without being explained
// (tests/tools/cli_test.cc checks every command's help against its flags).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/cli.h"

namespace mlc::cli {

struct FlagDoc {
  enum class Kind { plain_switch, valued, optional_value };  // --x; --x V; --x or --x=V
  const char* name;   // without "--"
  const char* value;  // the value's placeholder ("N", "F.safetensors"); "" for switches
  const char* help;   // what it does, its default, what it needs
  Kind kind = Kind::valued;
};

struct CommandDoc {
  const char* name;       // "run"
  const char* operands;   // "MODEL.json|MODEL.mlcx"
  const char* summary;    // one line for `mlc help`
  const char* details;    // paragraphs for `mlc help COMMAND`
  std::vector<FlagDoc> flags;
  // When set, more of `mlc help COMMAND` after the flags, made from a table
  // elsewhere (`mlc help opt`: every pass's options, passes/pass.h).
  std::string (*more)() = nullptr;
};

const std::vector<CommandDoc>& command_docs();
// nullptr when there is no such command.
const CommandDoc* find_command_doc(std::string_view name);

// "run, compile, plan, ir, opt, convert, check-grad, help, version".
std::string command_names();
// `mlc help`: every command with its summary, the exit codes, the environment.
std::string overview_help();
// `mlc help COMMAND` and `mlc COMMAND --help`: synopsis, details, every flag explained.
std::string command_help(const CommandDoc& doc);
// The start of a usage error: "usage: mlc run MODEL.json|MODEL.mlcx [flags]; `mlc help run` explains them".
std::string usage_line(const CommandDoc& doc);

// parse_args with `doc`'s flags.
bool parse_command_args(const CommandDoc& doc, const std::vector<std::string>& argv, Args& out, std::string& error);

// "mlc 0.7.0 (artifact format 2)", then "targets:" and a line per target
// mlc knows, with whether this machine can compile for it and run it (cheap
// probes: runtime/target.h availability, compiler/gpu/gpu_compile.h
// gpu_compiler_availability):
//   targets:
//     cpu-x86_64
//     host-gpu (OpenCL: <device name>)       or (not in this build), (no OpenCL device)
//     cuda (NVRTC 13.0 for compiling: found; driver: CUDA 13.0 with 1 GPU)
//                                            or (NVRTC for compiling: not found; driver: none)
std::string version_text();

}  // namespace mlc::cli
