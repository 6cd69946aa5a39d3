// The pass interface: a named Module -> Module rewrite.
//
// `run` returns whether it changed the module, or an Error. Passes keep the
// module valid: every op still verifies and ops stay in program order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

// One option of a pass, declared as MLIR declares pass options (a name, a
// type, a default and a description) in the table the pass's options()
// returns. Pass::set_option parses and checks a value against the table, once
// for every pass, and `mlc help opt` lists the tables (pass_options_help).
struct PassOption {
  enum class Type { integer, choice };
  std::string name;
  Type type = Type::integer;
  std::string help;
  std::string default_value;         // as `mlc help opt` shows it
  int64_t min = 0, max = 0;          // integer: the values accepted
  std::vector<std::string> choices;  // choice: the words accepted
  // Stores a checked value in the pass: the integer, or the index of the word.
  std::function<void(int64_t)> store;
  // What the option takes: "an integer in [1, 1024]", "one of f32, bf16, f16".
  std::string expected() const;
};
// An integer option in [min, max] bound to `*target`, whose value now is the default.
PassOption integer_option(std::string name, int* target, int64_t min, int64_t max, std::string help);
// An option taking one of `choices`, choices[current] the default; `store`
// receives the index of the word given.
PassOption choice_option(std::string name, std::vector<std::string> choices, size_t current,
                         std::function<void(size_t)> store, std::string help);

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<bool> run(Module& module) = 0;
  // The options this pass takes, bound to this instance; none by default.
  virtual std::vector<PassOption> options() { return {}; }
  // Sets option `key` (as in `canonicalize{max-rounds=4}`) from its table. An
  // unknown key is an Error listing the options; a bad value one naming the
  // pass, the option, what it takes and what was given:
  //   "error: pass 'sharding' option 'zero' takes an integer in [0, 3], got '4'"
  Status set_option(std::string_view key, std::string_view value);
};

// One entry of a pass list: `name` or `name{key=value,key=value}`.
struct PassSpec {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;
};
// Parses "a,b{k=v,k2=v2},c" (commas inside braces separate options). Errors
// name the position: "error: pass list: unbalanced '{' at column 3".
Expected<std::vector<PassSpec>> parse_pass_list(std::string_view text);
// Applies a per-function rewrite (returning whether it changed the function)
// to every function of `module`; the body of most passes' `run`.
template <class Rewrite>
bool rewrite_each_function(Module& module, Rewrite rewrite) {
  bool changed = false;
  for (auto& f : module.functions) changed |= rewrite(*f);
  return changed;
}

// The pass named `name` (as given to `mlc opt --passes`), or nullptr.
std::unique_ptr<Pass> create_pass(std::string_view name);
// Names of every registered pass, in a stable order.
std::vector<std::string> pass_names();
// Every registered pass with its options' names, values, defaults and help,
// one line per option, for `mlc help opt`.
std::string pass_options_help();
// Runs passes in order; each name may carry options (`name{k=v}`, see
// parse_pass_list). An unknown name is an error listing the known ones.
Expected<bool> run_passes(Module& module, const std::vector<std::string>& names);
Expected<bool> run_passes(Module& module, const std::vector<PassSpec>& passes);

}  // namespace mlc
