// The model file's "parallel" section (docs/model-format.md#parallel): the
// default device mesh and ZeRO stage of `mlc run`/`plan`/`ir` (their --mesh
// and --zero override it), and the tensor-parallel plan by parameter-name
// patterns, as PyTorch's parallelize_module takes it:
//
//   "parallel": {
//     "mesh": "dp=2,tp=2", "zero": 1,
//     "tensor_parallel": {"layers.*.attn.wq": "colwise", "layers.*.attn.wo": "rowwise",
//                         "tok_emb": "rowwise", "head": "colwise"},
//     "sequence_parallel": true,
//     "pipeline": {"stages": 2, "microbatches": 4, "schedule": "1f1b"}  (frontends/pipeline_section.h)
//   }
//
// Contracts:
//  - The mesh's axes have an implementation (ir/parallel_plan.h
//    check_mesh_axes); an error is at the mesh's value.
//  - A pattern is a dotted module path whose segments may be "*" (any one
//    segment); it names the module owning a weight ("layers.*.attn.wq" owns
//    "layers.0.attn.wq.weight" and ".bias"). Every pattern must match, no
//    parameter may be matched twice, and the styles apply to 2-D weights
//    only (and their biases); errors are at the pattern's key or value.
//  - Styles resolve to the dim sharded over the mesh's "tp" axis: a Linear-
//    like weight [out, in] is colwise S(0) (its bias S(0)) and rowwise S(1)
//    (its bias replicated); an Embedding [num, dim] is rowwise S(0) (vocabulary
//    parallel) and colwise S(1).
#pragma once

#include <vector>

#include "frontends/json_doc.h"
#include "ir/model_config.h"

namespace mlc {

// `layers`: the model's top-level layers, which the "pipeline" object's
// split_before names (frontends/pipeline_section.h).
Expected<ParallelConfig> parse_parallel(const JsonDoc& doc, const Node& node, const std::vector<ParamInfo>& params,
                                        const std::vector<TopLayer>& layers = {});

// Whether the dotted `pattern` ("layers.*.attn.wq") names the module that owns `param`.
bool pattern_owns(std::string_view pattern, std::string_view param);

}  // namespace mlc
