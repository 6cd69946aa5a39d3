#include "frontends/model_depth.h"

#include <vector>

#include "frontends/dsl_parse.h"
#include "frontends/json_print.h"

namespace mlc {

namespace {

Expected<Json> model_dom(std::string_view text, const std::string& path) {
  MLC_TRY(JsonDoc doc, reads_as_model_language(text, path) ? parse_model_language(text, path)
                                                            : JsonDoc::parse(text, path));
  return *doc.root().json;
}

// The top-level repeats of the DOM: the model, or members of its "layers".
std::vector<Json*> top_repeats(Json& root) {
  std::vector<Json*> out;
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) return out;
  Json& model = root["model"];
  if (model.contains("repeat")) out.push_back(&model);
  if (model.contains("layers") && model["layers"].is_object())
    for (auto& [name, layer] : model["layers"].items())
      if (layer.is_object() && layer.contains("repeat") && layer["repeat"].is_number_integer()) out.push_back(&layer);
  return out;
}

}  // namespace

Expected<int64_t> model_repeat_copies(std::string_view text, const std::string& path) {
  MLC_TRY(Json root, model_dom(text, path));
  int64_t copies = 0;
  for (Json* r : top_repeats(root)) {
    const int64_t n = (*r)["repeat"].get<int64_t>();
    if (copies != 0 && copies != n) return int64_t{-1};
    copies = n;
  }
  return copies;
}

Expected<ModelFile> model_at_depth(std::string_view text, const std::string& path, int64_t copies) {
  MLC_TRY(Json root, model_dom(text, path));
  for (Json* r : top_repeats(root)) (*r)["repeat"] = copies;
  if (root.contains("parallel") && root["parallel"].is_object())
    for (const char* field : {"mesh", "zero", "pipeline"}) root["parallel"].erase(field);
  return ModelFile::parse(print_model_json(root), path + " (at depth " + std::to_string(copies) + ")");
}

}  // namespace mlc
