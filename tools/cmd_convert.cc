// mlc convert MODEL.json|MODEL.mlc [-o OUT.mlc|OUT.json]: writes a model file in
// the other form (the model language <-> JSON), or in the form OUT's extension
// names. The input must be a valid model file (it is loaded first, so its
// mistakes are reported as `mlc run` would); the output builds the same IR.
// Without -o the result goes to stdout; with it, OUT is written atomically.
#include <cstdio>

#include "frontends/dsl_parse.h"
#include "frontends/dsl_print.h"
#include "frontends/json_print.h"
#include "frontends/model_file.h"
#include "frontends/model_limits.h"
#include "ir/source_file.h"
#include "runtime/file_io.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace mlc::cli {

int cmd_convert(const std::vector<std::string>& argv) {
  std::vector<std::string> args_in;
  for (const std::string& a : argv) args_in.push_back(a == "-o" ? "--output" : a);
  Args args;
  std::string error;
  const CommandDoc& doc = *find_command_doc("convert");
  if (!parse_command_args(doc, args_in, args, error)) return usage_error(error);
  if (args.positional.size() != 1) return usage_error(usage_line(doc));
  const std::string& in = args.positional[0];
  std::string out = args.get("output");
  bool to_mlc;
  if (out.empty()) {
    to_mlc = false;  // decided once the input's form is known
  } else if (is_model_language_path(out)) {
    to_mlc = true;
  } else if (out.size() >= 5 && out.substr(out.size() - 5) == ".json") {
    to_mlc = false;
  } else {
    return usage_error("-o " + out + ": the output's name must end in .mlc or .json (it names the form)");
  }
  if (!out.empty())
    if (std::string problem = output_problem(out, "output"); !problem.empty()) return user_error(problem);
  auto file = read_source_file(in, kMaxModelFileBytes, "model file");
  if (!file) return user_error(file.error().message);
  auto model = ModelFile::parse(file->text, file->name);
  if (!model) return user_error(model.error().message);
  bool from_mlc = reads_as_model_language(file->text, file->name);
  if (out.empty()) to_mlc = !from_mlc;
  auto dom = from_mlc ? parse_model_language(file->text, file->name)
                      : JsonDoc::parse(file->text, file->name);
  if (!dom) return user_error(dom.error().message);
  const Json& root = *dom->root().json;
  std::string text = to_mlc ? print_model_language(root) : print_model_json(root);
  if (out.empty()) {
    std::fputs(text.c_str(), stdout);
    return kOk;
  }
  if (Status st = rt::write_file_atomically(out, {text}); !st) return user_error(st.error().message);
  return kOk;
}

}  // namespace mlc::cli
