// mlc opt FILE.mlir [--passes a,b{key=value},c]: parses and verifies textual
// IR ("-" reads stdin), runs the named passes in order (with their options,
// passes/pass.h) and prints the result.
#include <cstdio>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace mlc::cli {

int cmd_opt(const std::vector<std::string>& argv) {
  Args args;
  std::string error;
  if (!parse_command_args(*find_command_doc("opt"), argv, args, error)) return usage_error(error);
  if (args.positional.size() != 1) return usage_error(usage_line(*find_command_doc("opt")));
  const std::string& path = args.positional[0];
  Expected<Module> module = parse_module_file(path);
  if (!module) return user_error(module.error().message);
  auto passes = parse_pass_list(args.get("passes"));
  if (!passes) return user_error(passes.error().message);
  auto changed = run_passes(*module, *passes);
  if (!changed) return user_error(changed.error().message);
  Status valid = verify_module(*module);
  if (!valid) return user_error("mlc internal error: invalid IR after passes: " + valid.error().message);
  std::fputs(print_module(*module).c_str(), stdout);
  return kOk;
}

}  // namespace mlc::cli
