// Textual IR printer.
//
// Contract: prints exactly the syntax that ir/parser.h reads, so that
// print -> parse -> print is byte-identical for every verified module:
//
//   module @digits_cnn {
//     func @loss(%x: f32[32,1,8,8] {input}, %w: f32[16,1,3,3] {param}) -> (f32[]) {
//       %0 = conv2d(%x, %w) {stride = [1, 1], ...} : f32[32,16,8,8] loc("m.json":9:7)
//       ...
//       return %7
//     }
//
//     func @eval(...) -> (...) {
//       ...
//     }
//   }
//
//  - Two spaces of indentation per level; functions separated by one blank line;
//    the text ends with a newline. A module without functions is "module @m {\n}\n".
//  - Arguments print with their names (`%conv1.weight`); op results are renumbered
//    %0, %1, ... in program order per function (op results in order, so op #k of
//    a function of single-result ops is %k). An op with several results prints
//    them all and their types in parentheses:
//    `%3, %4 = split(%2) {axis = 1, sizes = [2, 6]} : (f32[4,2], f32[4,6])`.
//  - Result types are always parenthesized: `-> (f32[])`, `-> ()`.
//  - Attributes print in their stored order with attr_value_to_string; the `{...}`
//    is omitted when the op has none. ` loc("file":line:col)` only for known locs.
//  - The `return` line is always present (bare `return` without results).
//  - A fusion op's body follows the op's line, its ops and return two spaces
//    deeper, numbered from %0 on their own, arguments by name:
//      %4 = fusion(%2, %b) : f32[2,3] body(%in0: f32[2,3], %in1: f32[3]) {
//        %0 = broadcast(%in1) {dims = [1]} : f32[2,3]
//        %1 = add(%in0, %0) : f32[2,3]
//        return %1
//      }
//  - In a sharded module (`attributes {mesh = "dp=2"}`) every value's type is
//    followed by its placements, one per mesh axis (ir/mesh.h):
//    `%x: f32[16,64]<S(0)> {input}`, `%3 = dot(%x, %w) : f32[16,10]<S(0)>`.
// The printer never fails: on malformed IR (operands that are not values of the
// function) it prints `%<undefined>`, which the parser then rejects.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mlc {

std::string print_type(const TensorType& type);  // "f32[32,1,8,8]", "i64[]"
std::string print_loc(const Loc& loc);            // "loc(\"f.json\":3:7)", "" if unknown
// A function at top level (no indentation before `func`), ending with "}\n".
std::string print_function(const Function& f);
std::string print_module(const Module& m);

}  // namespace mlc
