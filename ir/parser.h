// Textual IR parser: reads exactly what ir/printer.h writes.
//
// Grammar (tokens may be separated by any whitespace; `//` starts a comment that
// runs to the end of the line):
//
//   module   := 'module' '@' name '{' function* '}'
//   function := 'func' '@' name '(' [arg (',' arg)*] ')' '->' '(' [type (',' type)*] ')'
//               '{' op* 'return' [use (',' use)*] '}'
//   arg      := '%' ident ':' type '{' ('input' | 'param') '}'   ident: [A-Za-z_][A-Za-z0-9_.]*
//   op       := '%' name (',' '%' name)* '=' opname '(' [use (',' use)*] ')'
//               ['{' [attr (',' attr)*] '}'] ':' types ['meta' '{' attr '}']
//               ['loc' '(' string ':' int ':' int ')'] [body]
//   body     := 'body' '(' ['%' ident ':' type (',' '%' ident ':' type)*] ')'
//               '{' op* 'return' use (',' use)* '}'     (fusion ops only, and
//               only outside a body: bodies do not nest)
//   types    := type                        (one result)
//             | '(' type (',' type)* ')'   (several results, one type per name)
//   attr     := ident '=' value
//   value    := int | float | 'inf' | '-inf' | 'nan' | 'true' | 'false' | string
//             | '[' [number (',' number)*] ']'
//   type     := dtype '[' [int (',' int)*] ']'                       f32[32,1,8,8], i64[]
//
// Numbers: a literal without '.', 'e' or 'E' is an Int; `inf`, `-inf`, `nan` are
// floats. A list is an integer list unless one element is a float (then a float
// list, valid only as a constant's value); `[]` is an empty integer list.
// Lists do not nest. Strings escape `"` and `\` with a backslash.
//
// Every op goes through complete_attrs and infer_result_types with its declared types
// as it is parsed, so a parsed module is verified: the declared type must equal
// the inferred one, and the returned values must have the declared result types.
//
// Errors: never crashes or aborts on any input (no recursion, linear time,
// overflow-checked literals). Every failure is an Error whose message is
// "file:line:col: error: <what>", line:col pointing at the offending token
// (for op inference errors: at the op's name).
#pragma once

#include <string>
#include <string_view>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

// `filename` is used only in diagnostics.
Expected<Module> parse_module(std::string_view text, const std::string& filename);
// Reads (ir/source_file.h: a regular file of at most kMaxIrFileBytes, or "-"
// for standard input) and parses a file: "<path>: error: cannot open: <reason>".
// Running out of memory is an Error naming the file, never an abort.
Expected<Module> parse_module_file(const std::string& path);

}  // namespace mlc
