// IR verifier: checks the invariants every stage may rely on.
//
// verify_function(f) checks that:
//  - arg_kinds has one entry per argument; argument names are unique and match
//    [A-Za-z_][A-Za-z0-9_.]* (so the printed text parses back); argument types are valid;
//  - every op has at least one result; result k is a value produced by that op
//    with result_index k, defined once;
//  - every operand is a value of the function defined before its use;
//  - every op's attributes are complete and ordered per the op's schema
//    (complete_attrs leaves them unchanged);
//  - infer_result_types(operand types, attrs, declared = the result types)
//    succeeds, i.e. inference yields exactly the stored result types;
//  - the function's results are values of the function;
//  - a fusion op has a body (verify_fusion_body), and no other op has one.
// verify_module(m) also checks that function names are unique and that module and
// function names match [A-Za-z0-9_.-]* (functions: non-empty), and that every
// call op names a function of the module that holds no call, whose argument
// and result types are the call's operand and result types.
//
// Errors name the op and its index in f.ops (which is also its printed result
// number %k) and use the op's loc:
//   "model.json:3:4: error: verifier: add (op #5): operand shapes [3] and [4] do not broadcast"
// Function-level errors: "error: verifier: function @loss: duplicate argument name 'x'".
#pragma once

#include <span>
#include <string>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

//
// With a mesh (the module's), values carry placements on every value of a
// function or on none, each valid for the mesh (ir/mesh.h), a result that
// updates an argument is placed like it, and every collective fits the mesh
// (ir/collectives.h: its axis exists and its sizes change by the axis size).
Status verify_function(const Function& f, const Mesh& mesh = {});
Status verify_module(const Module& m);

// "" if call op `call` of function `caller` of `m` names a function of `m`
// other than `caller` that holds no call, whose argument and result types are
// the call's operand and result types; else what is wrong.
std::string check_call(const Module& m, const Function& caller, const Op& call);

// A fusion op's body (Op::body) for operands of `operand_types` and, unless
// `result_types` is empty, results of those types: a verified function whose
// arguments are all {input}, one per operand and of its type, that holds no
// fusion op and returns values of the result types. Errors say what differs
// ("body argument #1 is f32[3], operand #1 is f32[4]"), without a location.
Status verify_fusion_body(const Function& body, std::span<const TensorType* const> operand_types,
                          std::span<const TensorType> result_types);

}  // namespace mlc
