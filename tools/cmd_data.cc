// mlc data: data files for `mlc run` (README.md, `mlc data`; `mlc help data`).
//   mlc data FILE.safetensors [--format json]      what the file holds
//   mlc data import FILE... -o F.safetensors        numpy's .npy/.npz and CSV files (runtime/npy.h, npz.h,
//       [--columns] [--name NAME] [--dtype T]       csv_table.h) as one safetensors file
//   mlc data text FILE.txt -o F.safetensors --seq N  a language model's token file (runtime/text_tokens.h)
//       [--level char|byte] [--eval-fraction F]
// Every output is checked before any input is read; errors name the file.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "ir/dtype_names.h"
#include "runtime/csv_table.h"
#include "runtime/file_io.h"
#include "runtime/npy.h"
#include "runtime/npz.h"
#include "runtime/safetensors.h"
#include "runtime/tensor_cast.h"
#include "runtime/text_tokens.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace mlc::cli {

namespace {

struct Stats {
  double min = 0, max = 0, mean = 0;
};

// Min, max and mean of a non-empty tensor; NaN when any element is NaN.
Stats stats_of(const rt::Tensor& t) {
  Stats s{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 0};
  double sum = 0;
  for (int64_t k = 0; k < t.num_elements(); ++k) {
    const double v = rt::element_as_double(t, k);
    if (std::isnan(v)) return {v, v, v};
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  s.mean = sum / static_cast<double>(t.num_elements());
  return s;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// A metadata value on one line: as it is, or as a JSON string when it holds
// control characters.
std::string one_line(const std::string& v) {
  for (char c : v)
    if (static_cast<unsigned char>(c) < 0x20) return nlohmann::json(v).dump();
  return v;
}

int show(const Args& args) {
  const std::string format = args.get("format", "text");
  if (format != "text" && format != "json") return usage_error("--format takes text or json, got '" + format + "'");
  const std::string& path = args.positional[0];
  auto file = rt::read_safetensors(path);
  if (!file) return user_error(file.error().message);
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  int64_t bytes = 0;
  for (const rt::SafetensorsEntry& e : file->entries) {
    nlohmann::ordered_json t = {{"name", e.name}, {"dtype", e.file_dtype}, {"shape", e.shape}};
    if (e.supported) {
      bytes += e.tensor.num_bytes();
      if (e.tensor.num_elements() > 0) {
        const Stats s = stats_of(e.tensor);
        for (const auto& [key, v] : {std::pair{"min", s.min}, {"max", s.max}, {"mean", s.mean}})
          t[key] = std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v);
      }
    }
    tensors.push_back(std::move(t));
  }
  nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
  for (const auto& [k, v] : file->metadata) metadata[k] = v;
  if (format == "json") {
    std::printf("%s\n", nlohmann::ordered_json({{"file", path}, {"tensors", tensors}, {"metadata", metadata}})
                            .dump(1)
                            .c_str());
    return kOk;
  }
  std::printf("%s: %zu tensor%s\n", path.c_str(), file->entries.size(), file->entries.size() == 1 ? "" : "s");
  size_t width = 0;
  for (const rt::SafetensorsEntry& e : file->entries) width = std::max(width, e.name.size());
  for (size_t i = 0; i < file->entries.size(); ++i) {
    const rt::SafetensorsEntry& e = file->entries[i];
    std::string type = e.file_dtype + shape_to_string(e.shape), name = e.name;
    name.resize(width, ' ');
    type.resize(std::max<size_t>(type.size(), 20), ' ');
    std::string values = !e.supported ? "(no mlc dtype: not read)" : e.tensor.num_elements() == 0 ? "(empty)" : "";
    if (values.empty()) {
      const Stats s = stats_of(e.tensor);
      values = "min " + number(s.min) + "  max " + number(s.max) + "  mean " + number(s.mean);
    }
    std::printf("  %s  %s  %s\n", name.c_str(), type.c_str(), values.c_str());
  }
  if (!file->metadata.empty()) std::printf("metadata:\n");
  for (const auto& [k, v] : file->metadata) std::printf("  %s = %s\n", k.c_str(), one_line(v).c_str());
  return kOk;
}

// The tensors of one input file, named as `mlc help data` says, of `dtype` if given.
Expected<std::vector<rt::NamedTensor>> import_file(const std::string& path, const Args& args,
                                                   std::optional<DType> dtype) {
  const std::filesystem::path p(path);
  const std::string ext = p.extension().string(), stem = args.get("name", p.stem().string());
  MLC_TRY(std::string bytes, rt::read_file(path));
  if (ext == ".csv") {
    MLC_TRY(rt::CsvTable table, rt::parse_csv(bytes, path));
    return rt::csv_tensors(table, {stem, args.has("columns"), dtype}, path);
  }
  std::vector<rt::NamedTensor> arrays;
  if (ext == ".npy") {
    MLC_TRY(rt::Tensor t, rt::parse_npy(bytes, path));
    arrays.push_back({stem, std::move(t)});
  } else {
    MLC_TRY(arrays, rt::parse_npz(bytes, path));
  }
  if (dtype)
    for (rt::NamedTensor& a : arrays) {
      MLC_TRY(a.tensor, rt::cast_exactly(a.tensor, *dtype, path + ": error: tensor '" + a.name + "' (--dtype)"));
    }
  return arrays;
}

int import(const Args& args) {
  const std::vector<std::string> inputs(args.positional.begin() + 1, args.positional.end());
  if (inputs.empty() || !args.has("output"))
    return usage_error("mlc data import takes the files to import and -o F.safetensors");
  for (const std::string& in : inputs) {
    const std::string ext = std::filesystem::path(in).extension().string();
    if (ext != ".npy" && ext != ".npz" && ext != ".csv")
      return usage_error(in + ": mlc data import reads .npy, .npz and .csv files");
  }
  if (args.has("name") && (inputs.size() != 1 || inputs[0].ends_with(".npz")))
    return usage_error("--name names the tensor of one .npy or .csv file (an .npz file's members have their names)");
  std::optional<DType> dtype;
  if (args.has("dtype") && !(dtype = parse_dtype_or_torch_name(args.get("dtype"))))
    return usage_error("--dtype takes " + accepted_dtype_names() + ", got '" + args.get("dtype") + "'");
  const std::string output = args.get("output");
  if (std::string problem = output_problem(output, "output"); !problem.empty()) return user_error(problem);
  std::vector<rt::NamedTensor> tensors;
  std::vector<std::string> from;  // each tensor's file
  for (const std::string& in : inputs) {
    auto read = import_file(in, args, dtype);
    if (!read) return user_error(read.error().message);
    for (rt::NamedTensor& t : *read) {
      for (size_t k = 0; k < tensors.size(); ++k)
        if (tensors[k].name == t.name)
          return user_error(in + ": error: tensor '" + t.name + "' is also in " + from[k] +
                            ": import one of them, or rename it (--name)");
      tensors.push_back(std::move(t));
      from.push_back(in);
    }
  }
  if (tensors.empty()) return user_error(inputs[0] + ": error: no arrays in it");
  std::vector<std::pair<std::string, const rt::Tensor*>> named;
  for (const rt::NamedTensor& t : tensors) named.emplace_back(t.name, &t.tensor);
  if (Status s = rt::write_safetensors(output, named); !s) return user_error(s.error().message);
  std::printf("wrote %s:\n", output.c_str());
  for (size_t k = 0; k < tensors.size(); ++k)
    std::printf("  %s %s (from %s)\n", tensors[k].name.c_str(), tensors[k].tensor.type().str().c_str(),
                from[k].c_str());
  return kOk;
}

int text(const Args& args) {
  if (args.positional.size() != 2 || !args.has("output") || !args.has("seq"))
    return usage_error("mlc data text takes one text file, -o F.safetensors and --seq N");
  char* end = nullptr;
  const std::string seq_text = args.get("seq");
  const long long seq = std::strtoll(seq_text.c_str(), &end, 10);
  if (seq_text.empty() || *end != '\0' || seq < 1 || seq > (1 << 24))
    return usage_error("--seq takes the tokens per sequence, 1 to 16777216, got '" + seq_text + "'");
  const std::string level = args.get("level", "char");
  if (level != "char" && level != "byte") return usage_error("--level takes char or byte, got '" + level + "'");
  double fraction = 0;
  if (args.has("eval-fraction")) {
    const std::string f = args.get("eval-fraction");
    fraction = std::strtod(f.c_str(), &end);
    if (f.empty() || *end != '\0' || !(fraction >= 0 && fraction < 1))
      return usage_error("--eval-fraction takes a number in [0, 1), got '" + f + "'");
  }
  const std::string& path = args.positional[1];
  const std::string output = args.get("output");
  if (std::string problem = output_problem(output, "output"); !problem.empty()) return user_error(problem);
  auto bytes = rt::read_file(path);
  if (!bytes) return user_error(bytes.error().message);
  auto tokens = rt::tokenize_text(*bytes, level == "char" ? rt::TokenLevel::character : rt::TokenLevel::byte, path);
  if (!tokens) return user_error(tokens.error().message);
  auto file = rt::token_file(*tokens, seq, fraction, path);
  if (!file) return user_error(file.error().message);
  std::vector<std::pair<std::string, const rt::Tensor*>> named;
  for (const rt::NamedTensor& t : file->tensors) named.emplace_back(t.name, &t.tensor);
  if (Status s = rt::write_safetensors(output, named, file->metadata); !s) return user_error(s.error().message);
  std::printf("wrote %s: %zu tokens, vocabulary of %s (level %s)", output.c_str(), tokens->ids.size(),
              level == "char" ? (std::to_string(tokens->vocab.size()) + " characters").c_str() : "256 bytes",
              level.c_str());
  for (const rt::NamedTensor& t : file->tensors)
    std::printf("; %s %s", t.name.c_str(), t.tensor.type().str().c_str());
  std::printf("\n");
  return kOk;
}

}  // namespace

int cmd_data(const std::vector<std::string>& argv) {
  const CommandDoc& doc = *find_command_doc("data");
  std::vector<std::string> args_in;
  for (const std::string& a : argv) args_in.push_back(a == "-o" ? "--output" : a);
  Args args;
  std::string error;
  if (!parse_command_args(doc, args_in, args, error)) return usage_error(error + "\n" + usage_line(doc));
  if (args.positional.empty()) return usage_error(usage_line(doc));
  const std::string& mode = args.positional[0];
  const bool importing = mode == "import", texting = mode == "text";
  // Each flag belongs to one form.
  for (const auto& [flag, applies] : {std::pair{"format", !importing && !texting}, {"output", importing || texting},
                                      {"columns", importing}, {"name", importing}, {"dtype", importing},
                                      {"seq", texting}, {"level", texting}, {"eval-fraction", texting}})
    if (args.has(flag) && !applies)
      return usage_error("--" + std::string(flag) + " does not apply to " +
                         (importing ? "mlc data import" : texting ? "mlc data text" : "mlc data FILE.safetensors") +
                         "; `mlc help data` says which form takes it");
  if (importing) return import(args);
  if (texting) return text(args);
  if (args.positional.size() != 1) return usage_error(usage_line(doc));
  return show(args);
}

}  // namespace mlc::cli
