#include "frontends/pipeline_section.h"

#include "ir/diagnostics.h"
#include "ir/pipeline_stages.h"

namespace mlc {

namespace {

constexpr std::string_view kField = "parallel.pipeline.";

// An integer field of at least `min` (or `dflt` when absent).
Expected<int> count_field(const JsonDoc& doc, const Fields& f, std::string_view key, int64_t min, int64_t max,
                          int64_t dflt, Loc& loc) {
  auto node = f.get(key);
  if (!node) return static_cast<int>(dflt);
  loc = doc.loc(*node);
  if (!node->json->is_number_integer())
    return doc.error(*node, std::string(kField) + std::string(key) + ": expected an integer, found " +
                                json_kind(*node->json));
  MLC_TRY(int64_t v, doc.as_int(*node));
  if (v < min || v > max)
    return doc.error(*node, std::string(kField) + std::string(key) + ": expected " + std::to_string(min) + " to " +
                                std::to_string(max) + ", got " + std::to_string(v));
  return static_cast<int>(v);
}

}  // namespace

Expected<PipelineConfig> parse_pipeline(const JsonDoc& doc, const Node& node, const std::vector<TopLayer>& layers) {
  MLC_TRY(Fields f, Fields::of(doc, node, "'pipeline'"));
  MLC_CHECK_OK(f.allow({"stages", "microbatches", "schedule", "virtual_stages", "split_before"}));
  PipelineConfig c;
  c.given = true;
  c.loc = f.loc();
  MLC_TRY(c.stages, count_field(doc, f, "stages", 1, 4096, 1, c.stages_loc));
  MLC_TRY(c.virtual_stages, count_field(doc, f, "virtual_stages", 1, 4096, 1, c.virtual_stages_loc));
  MLC_TRY(c.microbatches, count_field(doc, f, "microbatches", 1, 1 << 20, c.stages, c.microbatches_loc));
  std::optional<Node> schedule = f.get("schedule");
  if (schedule) {
    c.schedule_loc = doc.loc(*schedule);
    if (!schedule->json->is_string())
      return doc.error(*schedule, std::string(kField) + "schedule: expected a string, found " + json_kind(*schedule->json));
    auto kind = parse_pipeline_schedule_kind(schedule->json->get<std::string>());
    if (!kind) return doc.error(*schedule, kind.error().message);
    c.schedule = *kind;
  } else if (c.virtual_stages > 1) {
    c.schedule = PipelineScheduleKind::interleaved;
  }
  // The combination: the generator's error names the field; locate it there.
  if (auto made = make_pipeline_schedule(c.schedule, c.stages, c.microbatches, c.virtual_stages); !made) {
    const std::string& m = made.error().message;
    for (std::string_view key : {"stages", "microbatches", "virtual_stages", "schedule"})
      if (m.starts_with(std::string(kField) + std::string(key) + ":") && f.get(key)) return doc.error(*f.get(key), m);
    return doc.error(node, m);
  }
  const int total = c.stages * c.virtual_stages;
  if (auto split = f.get("split_before")) {
    if (!split->json->is_array())
      return doc.error(*split, std::string(kField) + "split_before: expected an array of layer names, found " +
                                   json_kind(*split->json));
    size_t previous = 0;
    for (size_t k = 0; k < split->json->size(); ++k) {
      Node entry = split->element(k);
      if (!entry.json->is_string())
        return doc.error(entry, std::string(kField) + "split_before: expected a layer name, found " +
                                    json_kind(*entry.json));
      const std::string name = entry.json->get<std::string>();
      size_t i = 0;
      while (i < layers.size() && layers[i].name != name) ++i;
      if (i == layers.size()) {
        std::string known;
        for (const TopLayer& l : layers) known += (known.empty() ? "" : ", ") + l.name;
        return doc.error(entry, std::string(kField) + "split_before: " + squote(name) +
                                    " names no top-level layer (layers: " + known + ")");
      }
      if (std::string why = pipeline_cut_refusal(layers, i); !why.empty())
        return doc.error(entry, std::string(kField) + "split_before: " + why);
      if (k > 0 && i <= previous)
        return doc.error(entry, std::string(kField) + "split_before: " + squote(name) + " does not come after " +
                                    squote(layers[previous].name) + " in the model; cuts are in model order");
      previous = i;
      c.split_before.push_back(name);
      c.split_before_locs.push_back(doc.loc(entry));
    }
    if (c.split_before.size() + 1 != static_cast<size_t>(total))
      return doc.error(*split, std::string(kField) + "split_before: " + std::to_string(c.split_before.size()) +
                                   " cuts make " + std::to_string(c.split_before.size() + 1) +
                                   " stages, but stages·virtual_stages is " + std::to_string(c.stages) + "·" +
                                   std::to_string(c.virtual_stages) + " = " + std::to_string(total));
  } else if (auto cuts = balanced_pipeline_cuts(layers, std::vector<int64_t>(layers.size(), 1), total); !cuts) {
    return doc.error(f.get("stages") ? *f.get("stages") : node, cuts.error().message);
  }
  return c;
}

}  // namespace mlc
