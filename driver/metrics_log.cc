#include "driver/metrics_log.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "runtime/file_io.h"

#include "support/json_parse.h"
#include "support/quote.h"

namespace mlc {

namespace {

using Json = nlohmann::json;

std::string kind_of(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

// Reads the fields of one record; errors are "FILE:LINE: error: ...".
class Record {
 public:
  Record(const std::string& path, int64_t line, const Json& j) : where_(path + ":" + std::to_string(line)), j_(j) {}

  Error error(const std::string& what) const { return make_error(where_ + ": error: " + what); }

  // A field of `object` (the record itself when null).
  Expected<const Json*> field(const std::string& key, const Json* object = nullptr, const std::string& in = "") const {
    const Json& o = object ? *object : j_;
    auto it = o.find(key);
    if (it == o.end()) return error((in.empty() ? "" : in + ": ") + "missing field '" + key + "'");
    return &*it;
  }
  // A number, or null for NaN (a run writes NaN and infinities as null).
  Expected<double> number(const std::string& key, const Json* object = nullptr, const std::string& in = "") const {
    MLC_TRY(const Json* v, field(key, object, in));
    if (v->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v->is_number()) return error("'" + key + "': expected a number, found " + kind_of(*v) + " " + unquoted(v->dump()));
    return v->get<double>();
  }
  Expected<int64_t> count(const std::string& key, const Json* object = nullptr, const std::string& in = "") const {
    MLC_TRY(const Json* v, field(key, object, in));
    if (!v->is_number_integer() || v->get<int64_t>() < 0)
      return error("'" + key + "': expected an integer >= 0, found " + unquoted(v->dump()));
    return v->get<int64_t>();
  }
  // An optional count: `dflt` when absent.
  Expected<int64_t> count_or(const std::string& key, int64_t dflt, const Json* object = nullptr) const {
    const Json& o = object ? *object : j_;
    if (!o.contains(key)) return dflt;
    return count(key, object);
  }
  Expected<const Json*> object(const std::string& key) const {
    MLC_TRY(const Json* v, field(key));
    if (!v->is_object()) return error("'" + key + "': expected an object, found " + kind_of(*v));
    return v;
  }

 private:
  std::string where_;
  const Json& j_;
};

Expected<GradStats> layer_stats(const Record& r, const Json& layer, size_t k) {
  const std::string in = "'grads'[" + std::to_string(k) + "]";
  if (!layer.is_object()) return r.error(in + ": expected an object, found " + kind_of(layer));
  GradStats s;
  MLC_TRY(const Json* name, r.field("name", &layer, in));
  if (!name->is_string()) return r.error(in + ": 'name': expected a string, found " + unquoted(name->dump()));
  s.name = name->get<std::string>();
  MLC_TRY(s.mean_abs, r.number("mean_abs", &layer, in));
  MLC_TRY(s.max_abs, r.number("max_abs", &layer, in));
  MLC_TRY(s.norm, r.number("norm", &layer, in));
  MLC_TRY(s.elements, r.count_or("elements", 0, &layer));
  return s;
}

}  // namespace

Expected<MetricsLog> read_metrics_log(const std::string& path) {
  // open_regular_file (through rt::read_file): a FIFO or device is refused
  // before anything is read, never waited on.
  Expected<std::string> text = rt::read_file(path);
  if (!text) {
    if (text.error().message.find(": error: cannot open: ") == std::string::npos) return text.error();
    return make_error(text.error().message + " (write a metrics file with `mlc run MODEL.json --metrics " + path + "`)");
  }
  std::istringstream in(std::move(*text));
  MetricsLog log;
  log.path = path;
  std::map<int64_t, MetricsLog::Step> steps;
  std::map<int64_t, MetricsLog::Epoch> epochs;
  std::map<int64_t, MetricsLog::Eval> evals;
  std::vector<MetricsLog::Eval> unplaced;
  std::map<int64_t, MetricsLog::Grads> grads;
  int64_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json j;
    try {
      j = Json::parse(line);
    } catch (const Json::parse_error& e) {
      std::string what = json::bounded_message(e.what());
      if (auto colon = what.find("syntax error"); colon != std::string::npos) what = what.substr(colon);
      return make_error(path + ":" + std::to_string(number) + ":" + std::to_string(e.byte) +
                        ": error: expected a JSON object on each line: " + what);
    }
    const Record r(path, number, j);
    if (!j.is_object()) return r.error("expected a JSON object (a metrics record), found " + kind_of(j));
    ++log.lines;
    if (j.contains("run")) {
      MLC_TRY(const Json* run, r.object("run"));
      log.run = *run;
    } else if (j.contains("grads")) {
      MetricsLog::Grads g;
      MLC_TRY(g.step, r.count("step"));
      MLC_TRY(g.epoch, r.count("epoch"));
      MLC_TRY(const Json* layers, r.field("grads"));
      if (!layers->is_array()) return r.error("'grads': expected an array of layers, found " + kind_of(*layers));
      for (size_t k = 0; k < layers->size(); ++k) {
        MLC_TRY(GradStats s, layer_stats(r, (*layers)[k], k));
        g.layers.push_back(std::move(s));
      }
      grads[g.step] = std::move(g);
    } else if (j.contains("eval")) {
      MetricsLog::Eval e;
      MLC_TRY(const Json* eval, r.object("eval"));
      MLC_TRY(e.loss, r.number("loss", eval, "'eval'"));
      if (eval->contains("accuracy")) {
        MLC_TRY(e.accuracy, r.number("accuracy", eval, "'eval'"));
      }
      MLC_TRY(e.examples, r.count_or("examples", 0, eval));
      MLC_TRY(e.epoch, r.count_or("epoch", -1));
      MLC_TRY(e.step, r.count_or("step", -1));
      if (e.step >= 0) evals[e.step] = e;
      else unplaced.push_back(e);
    } else if (j.contains("train")) {
      MetricsLog::Epoch e;
      MLC_TRY(const Json* train, r.object("train"));
      MLC_TRY(e.epoch, r.count("epoch"));
      MLC_TRY(e.loss, r.number("loss", train, "'train'"));
      MLC_TRY(e.steps, r.count("steps", train, "'train'"));
      epochs[e.epoch] = e;
    } else if (j.contains("loss")) {
      MetricsLog::Step s;
      MLC_TRY(s.step, r.count("step"));
      MLC_TRY(s.epoch, r.count("epoch"));
      MLC_TRY(s.loss, r.number("loss"));
      steps[s.step] = s;
    } else {
      std::string keys;
      for (auto it = j.begin(); it != j.end(); ++it) keys += (keys.empty() ? "'" : ", '") + it.key() + "'";
      return r.error("expected a metrics record with one of the keys 'loss' (a step), 'eval', 'train' (an epoch), "
                     "'grads' or 'run'; found " + (keys.empty() ? std::string("{}") : "keys " + keys));
    }
  }
  if (log.lines == 0) return make_error(path + ": error: the metrics file has no records (expected JSON lines "
                                        "written by `mlc run --metrics`)");
  for (auto& [k, v] : steps) log.steps.push_back(v);
  for (auto& [k, v] : epochs) log.epochs.push_back(v);
  for (auto& [k, v] : evals) log.evals.push_back(v);
  log.evals.insert(log.evals.end(), unplaced.begin(), unplaced.end());
  for (auto& [k, v] : grads) log.grads.push_back(std::move(v));
  return log;
}

}  // namespace mlc
