// A loop of the forward language over a static range, on one line as Python
// allows it: `for t in range(40): h, c = cell(x[:, t], (h, c)); outs = outs + [h]`.
//
// Contracts:
//  - parse_loop_header reads `for NAME in range(N):` with N an integer literal
//    in 1 .. kMaxLoopCount and splits the rest at the ';' outside brackets and
//    strings into the body's statements (offsets into `text`); errors point
//    into the JSON string.
//  - The body's statements are parsed as ordinary statements (no `return`, no
//    nested loop) and run N times with NAME bound to 0 .. N-1; names they
//    assign stay defined after the loop, as in Python. The work budget counts
//    the body N times.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontends/json_doc.h"

namespace mlc {

inline constexpr int64_t kMaxLoopCount = 65536;

struct LoopHeader {
  std::string var;
  int64_t count = 0;
  std::vector<std::pair<size_t, size_t>> parts;  // [begin, end) of each body statement in the text
};

// Whether `text` is a loop statement (starts with the word `for`).
bool is_loop_statement(std::string_view text);

Expected<LoopHeader> parse_loop_header(const JsonDoc& doc, const Node& node, std::string_view text);

// `text` with every character outside [begin, end) made a space (offsets kept).
std::string only_part(std::string_view text, size_t begin, size_t end);

}  // namespace mlc
