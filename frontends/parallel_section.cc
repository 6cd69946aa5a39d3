#include "frontends/parallel_section.h"

#include <map>

#include "frontends/pipeline_section.h"
#include "ir/diagnostics.h"
#include "ir/mesh.h"
#include "ir/parallel_plan.h"

namespace mlc {

namespace {

std::vector<std::string_view> segments(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t pos = 0;;) {
    size_t dot = s.find('.', pos);
    out.push_back(s.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos));
    if (dot == std::string_view::npos) return out;
    pos = dot + 1;
  }
}

}  // namespace

bool pattern_owns(std::string_view pattern, std::string_view param) {
  auto p = segments(pattern), n = segments(param);
  if (n.size() != p.size() + 1) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != "*" && p[i] != n[i]) return false;
  return true;
}

Expected<ParallelConfig> parse_parallel(const JsonDoc& doc, const Node& node, const std::vector<ParamInfo>& params,
                                        const std::vector<TopLayer>& layers) {
  MLC_TRY(Fields f, Fields::of(doc, node, "'parallel'"));
  MLC_CHECK_OK(f.allow({"mesh", "zero", "tensor_parallel", "sequence_parallel", "pipeline"}));
  ParallelConfig c;
  c.loc = f.loc();
  if (auto mesh = f.get("mesh")) {
    MLC_TRY(c.mesh, doc.as_string(*mesh));
    auto parsed = Mesh::parse(c.mesh);
    if (!parsed) return doc.error(*mesh, "'mesh': " + parsed.error().message);
    if (Status axes = check_mesh_axes(*parsed); !axes) return doc.error(*mesh, "'mesh': " + axes.error().message);
    c.mesh_loc = doc.loc(*mesh);
  }
  MLC_TRY(int64_t zero, f.integer("zero", 0));
  if (zero < 0 || zero > 3) return doc.error(*f.get("zero"), "'zero': must be 0, 1, 2 or 3, got " + std::to_string(zero));
  c.zero = static_cast<int>(zero);
  MLC_TRY(c.sequence_parallel, f.boolean("sequence_parallel", false));
  if (auto pipeline = f.get("pipeline")) {
    MLC_TRY(c.pipeline, parse_pipeline(doc, *pipeline, layers));
  }
  auto plan = f.get("tensor_parallel");
  if (!plan) {
    if (c.sequence_parallel)
      return doc.key_error(*f.get("sequence_parallel"), "'sequence_parallel' needs a 'tensor_parallel' plan");
    return c;
  }
  MLC_CHECK_OK(doc.expect_object(*plan));
  std::map<std::string, std::string> claimed;  // parameter -> the pattern that matched it
  for (auto it = plan->json->begin(); it != plan->json->end(); ++it) {
    Node entry = plan->member(it);
    const std::string& pattern = entry.key;
    MLC_TRY(std::string style, doc.as_string(entry));
    if (style != "colwise" && style != "rowwise")
      return doc.error(entry, squote(pattern) + ": unknown style " + squote(style) +
                                  " (expected \"colwise\" or \"rowwise\")");
    const bool rowwise = style == "rowwise";
    int matched = 0;
    for (const ParamInfo& p : params) {
      if (!pattern_owns(pattern, p.name)) continue;
      auto [at, fresh] = claimed.emplace(p.name, pattern);
      if (!fresh)
        return doc.key_error(entry, squote(pattern) + " matches " + squote(p.name) + ", which " +
                                        squote(at->second) + " already matched");
      const bool bias = p.name.ends_with(".bias") && p.type.rank() == 1;
      if (p.type.rank() != 2 && !bias)
        return doc.key_error(entry, squote(pattern) + " matches " + squote(p.name) + " (" + p.type.str() + ", of a layer of type " +
                                        p.layer_type + "): tensor parallelism applies to 2-D weights (Linear, "
                                        "Embedding, attention and SwiGLU projections) and their biases");
      ++matched;
      TensorParallelParam t{p.name, -1, false, doc.key_loc(entry)};
      if (bias) {
        if (rowwise) continue;  // added once, after the partial sums are reduced: replicated
        t.dim = 0;
      } else if (p.layer_type == "Embedding") {
        t.dim = rowwise ? 0 : 1;
        t.rowwise = rowwise;
      } else {
        t.dim = rowwise ? 1 : 0;
        t.rowwise = rowwise;
      }
      c.tensor_parallel.push_back(std::move(t));
    }
    if (matched == 0)
      return doc.key_error(entry, squote(pattern) + " matches no parameter; patterns name the module that owns a "
                                      "weight, with '*' for one segment (\"layers.*.attn.wq\" owns "
                                      "\"layers.0.attn.wq.weight\")");
  }
  return c;
}

}  // namespace mlc
