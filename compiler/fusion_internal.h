// What the fusion pass's two files share: compiler/fusion.cc (loop groups,
// gemm updates, the plan) and compiler/gemm_epilogue_fusion.cc (gemm
// epilogues). Not part of fusion.h's interface.
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/fusion.h"
#include "ir/graph.h"

namespace mlc::fusion_internal {

// Each value's readers in program order, an op once per operand that reads it.
using Users = std::unordered_map<const Value*, std::vector<const Op*>>;
Users users_of(const Function& f);

// Each op's position in f.ops.
using OpIndex = std::unordered_map<const Op*, size_t>;
OpIndex op_index(const Function& f);

// The splat value of a float constant op as its dtype holds it (as the
// interpreter materializes it), or nullopt.
std::optional<double> splat_value(const Op* op);

// The gemm epilogues plan_fusion forms (fusion.h): the dots in program order,
// each with its match unless that shares an op (constants aside) with an
// earlier one.
std::vector<GemmEpilogueMatch> choose_gemm_epilogues(const Function& f, const Users& users, const OpIndex& index);

}  // namespace mlc::fusion_internal
