// mlc check-grad MODEL: each custom op's declared backward against central
// finite differences of its forward (driver/check_grad.h), one line per input
// of each op at each call-site signature, then a verdict. Exit 0 when every
// check passes, 1 when one fails (named on stderr) or the model has a
// mistake, 2 on a usage error.
#include <cstdio>
#include <string>

#include "frontends/custom_ops.h"
#include "driver/check_grad.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace mlc::cli {

namespace {
bool parse_uint(const std::string& s, uint64_t lo, uint64_t hi, uint64_t& out) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::stoull(s);
  return out >= lo && out <= hi;
}
}  // namespace

int cmd_check_grad(const std::vector<std::string>& argv) {
  Args args;
  std::string error;
  const CommandDoc& doc = *find_command_doc("check-grad");
  if (!parse_command_args(doc, argv, args, error)) return usage_error(error);
  if (args.positional.size() != 1) return usage_error(usage_line(doc));
  GradCheckOptions options;
  if (args.has("seed") && !parse_uint(args.get("seed"), 0, UINT64_MAX >> 1, options.seed))
    return usage_error("--seed takes a non-negative integer, got '" + args.get("seed") + "'");
  if (args.has("cotangents")) {
    uint64_t k = 0;
    if (!parse_uint(args.get("cotangents"), 1, 64, k))
      return usage_error("--cotangents takes an integer in [1, 64], got '" + args.get("cotangents") + "'");
    options.cotangents = static_cast<int>(k);
  }
  const std::string& path = args.positional[0];
  auto model = ModelFile::load(path);
  if (!model) return user_error(model.error().message);
  if (model->custom_ops().empty()) return user_error(path + ": error: the model file has no \"custom_ops\" to check");
  auto checks = check_custom_op_gradients(*model, options);
  if (!checks) return user_error(checks.error().message);
  int failed = 0;
  std::string first_failure;
  for (const InputGradCheck& c : *checks) {
    std::printf("%-40s input %-10s max abs error %.3g, max rel error %.3g (%lld of %lld elements x %d cotangents): %s\n",
                c.signature.c_str(), c.input.c_str(), c.max_abs_error, c.max_rel_error,
                static_cast<long long>(c.checked), static_cast<long long>(c.elements), options.cotangents,
                c.pass ? "PASS" : "FAIL");
    if (!c.pass && failed++ == 0) first_failure = "custom op '" + c.op + "' input '" + c.input + "' at " + c.signature;
  }
  for (const CustomOp& op : model->custom_ops().all()) {
    bool called = false;
    for (const InputGradCheck& c : *checks) called |= c.op == op.name;
    if (!called) std::printf("%-40s not called by the model: not checked\n", op.name.c_str());
  }
  if (failed) {
    std::fprintf(stderr, "%s: error: check-grad: the backward of %s does not match finite differences of its "
                         "forward (tolerance %g x max(1, |gradient|))%s\n",
                 path.c_str(), first_failure.c_str(), kGradTolerance,
                 failed > 1 ? (" and " + std::to_string(failed - 1) + " more").c_str() : "");
    return kUserError;
  }
  std::printf("check-grad: %zu input%s of %zu custom op%s pass\n", checks->size(), checks->size() == 1 ? "" : "s",
              model->custom_ops().all().size(), model->custom_ops().all().size() == 1 ? "" : "s");
  return kOk;
}

}  // namespace mlc::cli
