#include "frontends/mixed_precision.h"

#include "ir/diagnostics.h"

namespace mlc {

namespace {

constexpr std::string_view kDtypes = "\"f32\", \"bf16\" or \"f16\"";

Expected<DType> float_dtype(const JsonDoc& doc, const Node& n) {
  MLC_TRY(std::string s, doc.as_string(n));
  if (s == "f32") return DType::f32;
  if (s == "bf16") return DType::bf16;
  if (s == "f16") return DType::f16;
  return doc.error(n, field_prefix(n) + "expected " + std::string(kDtypes) + ", found " + squote(s));
}

// "dynamic" (GradScaler's defaults), "none", or an object of GradScaler's fields.
Expected<LossScaleConfig> parse_loss_scale(const JsonDoc& doc, const Node& n) {
  LossScaleConfig ls;
  if (n.json->is_string()) {
    MLC_TRY(std::string s, doc.as_string(n));
    if (s == "dynamic" || s == "none") {
      ls.enabled = s == "dynamic";
      return ls;
    }
    return doc.error(n, "'loss_scale': expected \"dynamic\", \"none\" or an object, found " + squote(s));
  }
  MLC_TRY(Fields f, Fields::of(doc, n, "'loss_scale'"));
  MLC_CHECK_OK(f.allow({"init_scale", "growth_factor", "backoff_factor", "growth_interval"}));
  ls.enabled = true;
  MLC_TRY(ls.init_scale, f.number("init_scale", ls.init_scale));
  if (ls.init_scale <= 0) return doc.error(*f.get("init_scale"), "'init_scale': must be > 0");
  MLC_TRY(ls.growth_factor, f.number("growth_factor", ls.growth_factor));
  if (ls.growth_factor <= 1) return doc.error(*f.get("growth_factor"), "'growth_factor': must be > 1");
  MLC_TRY(ls.backoff_factor, f.number("backoff_factor", ls.backoff_factor));
  if (ls.backoff_factor <= 0 || ls.backoff_factor >= 1)
    return doc.error(*f.get("backoff_factor"), "'backoff_factor': must be in (0, 1)");
  MLC_TRY(ls.growth_interval, f.positive("growth_interval", ls.growth_interval));
  return ls;
}

}  // namespace

Expected<MixedPrecisionConfig> parse_mixed_precision(const JsonDoc& doc, const Node& node) {
  MixedPrecisionConfig mp;
  mp.loc = doc.loc(node);
  if (node.json->is_string()) {
    MLC_TRY(mp.compute, float_dtype(doc, node));
    mp.loss_scale.enabled = mp.compute == DType::f16;
    return mp;
  }
  if (!node.json->is_object())
    return doc.error(node, "'mixed_precision': expected \"f32\", \"bf16\", \"f16\" or an object, found " +
                               json_kind(*node.json));
  MLC_TRY(Fields f, Fields::of(doc, node, "'mixed_precision'"));
  MLC_CHECK_OK(f.allow({"param", "compute", "reduce", "loss_scale"}));
  if (auto n = f.get("param")) {
    MLC_TRY(mp.param, float_dtype(doc, *n));
  }
  if (auto n = f.get("compute")) {
    MLC_TRY(mp.compute, float_dtype(doc, *n));
  }
  if (auto n = f.get("reduce")) {
    MLC_TRY(mp.reduce, float_dtype(doc, *n));
    if (mp.reduce != DType::f32)
      return doc.error(*n, "'reduce': gradients are reduced in f32 only (found " +
                               squote(std::string(dtype_name(mp.reduce))) + ")");
  }
  mp.loss_scale.enabled = mp.param == DType::f16 || mp.compute == DType::f16;
  if (auto n = f.get("loss_scale")) {
    MLC_TRY(mp.loss_scale, parse_loss_scale(doc, *n));
  }
  return mp;
}

}  // namespace mlc
