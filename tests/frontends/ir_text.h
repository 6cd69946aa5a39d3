// The printed IR of a module without its locations, to compare two model
// files that must build the same IR (one from the .mlc form and one from JSON,
// or two spellings of one forward).
#pragma once

#include <regex>
#include <string>

#include "ir/printer.h"

namespace mlc::testing {

inline std::string ir_without_locations(const Module& m) {
  static const std::regex loc(R"( loc\([^)]*\))");
  return std::regex_replace(print_module(m), loc, "");
}

}  // namespace mlc::testing
