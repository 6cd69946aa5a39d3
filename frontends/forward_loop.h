// A loop of the forward language over a static range, on one line as Python
// allows it: `for t in range(40): h, c = cell(x[:, t], (h, c)); outs += [h]`.
//
// Contracts:
//  - parse_loop reads `for NAME in range(N):` with N an integer literal in
//    1 .. kMaxLoopCount and splits the rest at the ';' outside brackets and
//    strings into the body's statements; errors point into the JSON string.
//  - The body's statements are parsed as ordinary statements (no `return`, no
//    nested loop) and run N times with NAME bound to 0 .. N-1; names they
//    assign stay defined after the loop, as in Python. The work budget counts
//    the body N times.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "frontends/forward_expr.h"
#include "frontends/json_doc.h"

namespace mlc {

inline constexpr int64_t kMaxLoopCount = 65536;

// Whether `text` is a loop statement (starts with the word `for`).
bool is_loop_statement(std::string_view text);

// A loop statement. `parse_one` parses a statement (the text of the whole JSON
// string with all but the statement blanked, so locations hold), defines the
// names it assigns and adds its work to the given program: the loop variable
// is defined as `t = 0` would be, and the body's work is added to `program` N
// times.
using ParseStatement = std::function<Expected<Statement>(const std::string& text, ForwardProgram& work)>;
Expected<Statement> parse_loop(const JsonDoc& doc, const Node& node, std::string_view text,
                               const ParseStatement& parse_one, ForwardProgram& program);

}  // namespace mlc
