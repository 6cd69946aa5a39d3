// Pass options from their tables (passes/pass.h PassOption): parsing and
// checking a value once for every pass, and the listing `mlc help opt` prints.
#include <charconv>

#include "passes/pass.h"

namespace mlc {

namespace {

std::string joined(const std::vector<std::string>& words, const char* sep) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

}  // namespace

std::string PassOption::expected() const {
  if (type == Type::integer) return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return "one of " + joined(choices, ", ");
}

PassOption integer_option(std::string name, int* target, int64_t min, int64_t max, std::string help) {
  PassOption o;
  o.name = std::move(name);
  o.type = PassOption::Type::integer;
  o.help = std::move(help);
  o.default_value = std::to_string(*target);
  o.min = min;
  o.max = max;
  o.store = [target](int64_t v) { *target = static_cast<int>(v); };
  return o;
}

PassOption choice_option(std::string name, std::vector<std::string> choices, size_t current,
                         std::function<void(size_t)> store, std::string help) {
  PassOption o;
  o.name = std::move(name);
  o.type = PassOption::Type::choice;
  o.help = std::move(help);
  o.default_value = choices.at(current);
  o.choices = std::move(choices);
  o.store = [store = std::move(store)](int64_t i) { store(static_cast<size_t>(i)); };
  return o;
}

Status Pass::set_option(std::string_view key, std::string_view value) {
  const std::string pass(name());
  std::vector<PassOption> table = options();
  std::vector<std::string> names;
  for (const PassOption& o : table) names.push_back(o.name);
  const PassOption* option = nullptr;
  for (const PassOption& o : table)
    if (o.name == key) option = &o;
  if (!option)
    return make_error("error: pass '" + pass + "' has no option '" + std::string(key) + "' (it takes" +
                      (names.empty() ? " none" : ": " + joined(names, ", ")) + ")");
  int64_t v = 0;
  bool ok = false;
  if (option->type == PassOption::Type::integer) {
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    ok = ec == std::errc() && end == value.data() + value.size() && v >= option->min && v <= option->max;
  } else {
    for (size_t i = 0; i < option->choices.size(); ++i)
      if (option->choices[i] == value) {
        v = static_cast<int64_t>(i);
        ok = true;
      }
  }
  if (!ok)
    return make_error("error: pass '" + pass + "' option '" + option->name + "' takes " + option->expected() +
                      ", got '" + std::string(value) + "'");
  option->store(v);
  return {};
}

std::string pass_options_help() {
  std::string s;
  for (const std::string& name : pass_names()) {
    std::string head = "  " + name;
    std::vector<PassOption> table = create_pass(name)->options();
    if (table.empty()) {
      s += head + "\n";
      continue;
    }
    for (const PassOption& o : table) {
      head.resize(18, ' ');
      const std::string values =
          o.type == PassOption::Type::integer ? std::to_string(o.min) + ".." + std::to_string(o.max) : joined(o.choices, "|");
      s += head + o.name + "=" + values + " (default " + o.default_value + "): " + o.help + "\n";
      head.clear();
    }
  }
  return s;
}

}  // namespace mlc
