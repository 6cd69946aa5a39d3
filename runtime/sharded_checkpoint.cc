#include "runtime/sharded_checkpoint.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "runtime/checksum.h"
#include "runtime/file_io.h"
#include "runtime/safetensors.h"
#include "runtime/tensor_chunks.h"
#include "support/json_parse.h"

namespace mlc::rt {

namespace fs = std::filesystem;
using json::Json;

namespace {

constexpr const char* kFormat = "mlc-sharded-checkpoint/1";
// root { tensors [ tensor { shards [ shard { index [ : six levels.
constexpr json::Limits kIndexJsonLimits{6, int64_t{1} << 22, true};

// Reads an index's JSON into checked values; every error is
// "<path>: error: invalid checkpoint index: <where>: <what>".
class IndexReader {
 public:
  explicit IndexReader(const std::string& path) : path_(path) {}

  Error error(const std::string& where, const std::string& what) const {
    return make_error(path_ + ": error: invalid checkpoint index: " + (where.empty() ? "" : where + ": ") + what);
  }

  // `j` is an object with exactly the fields `names`.
  Status fields(const Json& j, const std::string& where, std::initializer_list<const char*> names) const {
    if (!j.is_object()) return error(where, "expected an object");
    for (const char* name : names)
      if (!j.contains(name)) return error(where, "no field " + quoted(name));
    for (auto it = j.begin(); it != j.end(); ++it)
      if (std::find_if(names.begin(), names.end(), [&](const char* n) { return it.key() == n; }) == names.end())
        return error(where, "unknown field '" + it.key().substr(0, 80) + "'");
    return {};
  }

  // "'key'"
  static std::string quoted(const char* key) { return std::string("'").append(key).append("'"); }

  Expected<std::string> string(const Json& j, const std::string& where, const char* key) const {
    if (!j.at(key).is_string()) return error(where, quoted(key) + " is not a string");
    return j.at(key).get<std::string>();
  }

  Expected<int64_t> integer(const Json& j, const std::string& where, const char* key) const {
    const Json& v = j.at(key);
    if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<int64_t>();
    if (v.is_number_unsigned() && v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return static_cast<int64_t>(v.get<uint64_t>());
    return error(where, quoted(key) + " is not a 64-bit integer");
  }

  // An array of non-negative 64-bit integers.
  Expected<std::vector<int64_t>> sizes(const Json& j, const std::string& where, const char* key) const {
    const Json& v = j.at(key);
    std::vector<int64_t> out;
    if (!v.is_array()) return error(where, quoted(key) + " is not an array");
    for (const Json& x : v) {
      if (!x.is_number_unsigned() || x.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return error(where, quoted(key) + " holds something other than a non-negative integer");
      out.push_back(static_cast<int64_t>(x.get<uint64_t>()));
    }
    return out;
  }

 private:
  const std::string& path_;
};

Expected<ShardRef> parse_shard(const IndexReader& r, const Json& j, const std::string& where) {
  MLC_CHECK_OK(r.fields(j, where, {"file", "index", "checksum"}));
  ShardRef s;
  MLC_TRY(s.file, r.string(j, where, "file"));
  const bool plain_name = !s.file.empty() && s.file != "." && s.file != ".." &&
                          s.file.find_first_of(std::string("/\\\0", 3)) == std::string::npos;
  if (!plain_name)
    return r.error(where, "'file' must name a file in the index's directory, got '" + s.file.substr(0, 80) + "'");
  MLC_TRY(s.index, r.sizes(j, where, "index"));
  MLC_TRY(std::string sum, r.string(j, where, "checksum"));
  auto [end, ec] = std::from_chars(sum.data(), sum.data() + sum.size(), s.checksum, 16);
  if (sum.size() != 16 || ec != std::errc() || end != sum.data() + sum.size() || sum != hex64(s.checksum))
    return r.error(where, "'checksum' is not 16 lowercase hex digits: '" + sum.substr(0, 40) + "'");
  return s;
}

Expected<IndexedTensor> parse_tensor(const IndexReader& r, const Json& j, const Mesh& mesh, size_t position) {
  std::string where = "tensor #" + std::to_string(position);
  MLC_CHECK_OK(r.fields(j, where, {"name", "dtype", "shape", "placements", "shards"}));
  IndexedTensor t;
  MLC_TRY(t.name, r.string(j, where, "name"));
  where = "tensor '" + t.name.substr(0, 200) + "'";
  MLC_TRY(std::string dtype, r.string(j, where, "dtype"));
  std::optional<DType> d = parse_dtype(dtype);
  if (!d) return r.error(where, "unknown dtype '" + dtype.substr(0, 40) + "'");
  MLC_TRY(Shape shape, r.sizes(j, where, "shape"));
  if (!checked_num_elements(shape))
    return r.error(where, "shape " + shape_to_string(shape) + " has more than 2^40 elements");
  t.type = TensorType{*d, shape};
  MLC_TRY(std::string placements, r.string(j, where, "placements"));
  auto p = parse_placements(placements);
  if (!p) return r.error(where, p.error().message);
  t.placements = *p;
  for (const Placement& x : t.placements)
    if (x.is_partial()) return r.error(where, "placement P (a partial sum) is not stored in checkpoints");
  auto local = local_shape(shape, t.placements, mesh);
  if (!local)
    return r.error(where, "placements " + placements + " on mesh " + mesh.str() + ": " + local.error().message);
  // One shard per chunk of the grid, each chunk once.
  const std::vector<int64_t> grid = shard_grid(t.placements, mesh, t.type.rank());
  int64_t chunks = 1;
  for (int64_t n : grid) chunks *= n;  // at most the mesh's devices
  const Json& shards = j.at("shards");
  if (!shards.is_array()) return r.error(where, "'shards' is not an array");
  if (static_cast<int64_t>(shards.size()) != chunks)
    return r.error(where, "placements " + placements + " on mesh " + mesh.str() + " cut it into " +
                              std::to_string(chunks) + " chunks, but " + std::to_string(shards.size()) +
                              " shards are listed");
  std::vector<bool> seen(static_cast<size_t>(chunks));
  for (size_t k = 0; k < shards.size(); ++k) {
    const std::string shard_where = where + ", shard #" + std::to_string(k);
    MLC_TRY(ShardRef s, parse_shard(r, shards[k], shard_where));
    int64_t flat = 0;
    bool in_grid = s.index.size() == grid.size();
    for (size_t dim = 0; in_grid && dim < grid.size(); ++dim) {
      in_grid = s.index[dim] < grid[dim];
      flat = flat * grid[dim] + s.index[dim];
    }
    if (!in_grid)
      return r.error(shard_where, "'index' " + shape_to_string(s.index) + " is not a chunk of the grid " +
                                      shape_to_string(grid));
    if (seen[static_cast<size_t>(flat)])
      return r.error(shard_where, "chunk " + shape_to_string(s.index) + " is listed twice");
    seen[static_cast<size_t>(flat)] = true;
    t.shards.push_back(std::move(s));
  }
  return t;
}

// The chunk `s` of tensor `t` from its shard file: its local type and checksum checked.
Expected<const Tensor*> shard_chunk(const SafetensorsFile& f, const IndexedTensor& t, const ShardRef& s,
                                    const Mesh& mesh, const std::string& index_path) {
  auto chunk = f.get(t.name);
  if (!chunk) return make_error(chunk.error().message + " (a shard of checkpoint " + index_path + ")");
  const TensorType local{t.type.dtype, *local_shape(t.type.shape, t.placements, mesh)};
  if ((*chunk)->type() != local)
    return make_error(f.path + ": error: checkpoint shard: tensor '" + t.name + "' is " + (*chunk)->type().str() +
                      ", but " + index_path + " says its chunk " + shape_to_string(s.index) + " is " + local.str());
  if (fnv1a64((*chunk)->bytes(), static_cast<size_t>((*chunk)->num_bytes())) != s.checksum)
    return make_error(f.path + ": error: checkpoint shard is corrupt: tensor '" + t.name + "' (chunk " +
                      shape_to_string(s.index) + ") does not match its checksum in " + index_path);
  return *chunk;
}

}  // namespace

std::string format_checkpoint_index(const CheckpointIndex& x) {
  constexpr auto replace = Json::error_handler_t::replace;
  const Json head = {{"format", kFormat},
                     {"model", x.model},
                     {"step", x.position.step},
                     {"seed", x.position.seed},
                     {"batch_size", x.position.batch_size},
                     {"steps_per_epoch", x.position.steps_per_epoch},
                     {"shuffle", x.position.shuffle},
                     {"mesh", x.mesh.str()}};
  std::string text = head.dump(-1, ' ', false, replace);
  text.pop_back();  // the closing brace: the tensors follow, one a line
  text += ",\"tensors\":[\n";
  for (size_t i = 0; i < x.tensors.size(); ++i) {
    const IndexedTensor& t = x.tensors[i];
    Json shards = Json::array();
    for (const ShardRef& s : t.shards)
      shards.push_back({{"file", s.file}, {"index", s.index}, {"checksum", hex64(s.checksum)}});
    const Json line = {{"name", t.name},
                       {"dtype", dtype_name(t.type.dtype)},
                       {"shape", t.type.shape},
                       {"placements", placements_str(t.placements)},
                       {"shards", std::move(shards)}};
    text += line.dump(-1, ' ', false, replace) + (i + 1 < x.tensors.size() ? ",\n" : "\n");
  }
  return text + "]}\n";
}

Expected<CheckpointIndex> parse_checkpoint_index(std::string_view text, const std::string& path) {
  Json j;
  if (auto failure = json::parse(text, kIndexJsonLimits, j)) {
    std::string detail = json::describe(*failure, kIndexJsonLimits);
    if (const size_t at = detail.find("parse error"); at != std::string::npos) detail = detail.substr(at);
    return make_error(path + ": error: checkpoint index is not valid JSON (truncated or corrupt): " +
                      detail.substr(0, 200));
  }
  const IndexReader r(path);
  MLC_CHECK_OK(r.fields(j, "", {"format", "model", "step", "seed", "batch_size", "steps_per_epoch", "shuffle",
                                "mesh", "tensors"}));
  MLC_TRY(std::string format, r.string(j, "", "format"));
  if (format != kFormat)
    return make_error(path + ": error: checkpoint index format '" + format.substr(0, 60) + "', expected '" +
                      kFormat + "'");
  CheckpointIndex x;
  MLC_TRY(x.model, r.string(j, "", "model"));
  MLC_TRY(x.position.step, r.integer(j, "", "step"));
  if (!j.at("seed").is_number_unsigned()) return r.error("", "'seed' is not a non-negative 64-bit integer");
  x.position.seed = j.at("seed").get<uint64_t>();
  MLC_TRY(x.position.batch_size, r.integer(j, "", "batch_size"));
  MLC_TRY(x.position.steps_per_epoch, r.integer(j, "", "steps_per_epoch"));
  if (!j.at("shuffle").is_boolean()) return r.error("", "'shuffle' is not true or false");
  x.position.shuffle = j.at("shuffle").get<bool>();
  MLC_TRY(std::string mesh, r.string(j, "", "mesh"));
  auto parsed_mesh = Mesh::parse(mesh);
  if (!parsed_mesh) return r.error("", parsed_mesh.error().message);
  x.mesh = *parsed_mesh;
  const Json& tensors = j.at("tensors");
  if (!tensors.is_array()) return r.error("", "'tensors' is not an array");
  std::set<std::string> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    MLC_TRY(IndexedTensor t, parse_tensor(r, tensors[i], x.mesh, i));
    if (!names.insert(t.name).second) return r.error("tensor '" + t.name.substr(0, 200) + "'", "listed twice");
    x.tensors.push_back(std::move(t));
  }
  return x;
}

Status write_checkpoint_index(const std::string& path, const CheckpointIndex& index) {
  const std::string text = format_checkpoint_index(index);
  if (auto back = parse_checkpoint_index(text, path); !back)
    return make_error("mlc internal error: refusing to write a checkpoint index that does not read back: " +
                      back.error().message);
  return write_file_atomically(path, {text});
}

Expected<std::vector<uint64_t>> write_checkpoint_shard(const std::string& path,
                                                       const std::vector<NamedTensor>& chunks) {
  std::vector<std::pair<std::string, const Tensor*>> named;
  std::vector<uint64_t> sums;
  for (const NamedTensor& c : chunks) {
    named.emplace_back(c.name, &c.tensor);
    sums.push_back(fnv1a64(c.tensor.bytes(), static_cast<size_t>(c.tensor.num_bytes())));
  }
  MLC_CHECK_OK(write_safetensors(path, named));
  return sums;
}

namespace {

// read_sharded_checkpoint; with `optional_state`, the state is read only where
// the index holds exactly `state`'s tensors (else left out, `state_left_out`
// set when the index holds tensors besides the parameters).
Expected<TrainState> read_sharded(const std::string& path, const std::string& model_name,
                                  const std::vector<NamedTensor>& params, const std::vector<NamedTensor>& state,
                                  bool optional_state, bool& state_left_out) {
  std::error_code size_error;
  const auto size = fs::file_size(path, size_error);
  if (!size_error && size > static_cast<uintmax_t>(kMaxCheckpointIndexBytes))
    return make_error(path + ": error: the checkpoint index is " + std::to_string(size) +
                      " bytes, more than the limit of " + std::to_string(kMaxCheckpointIndexBytes) +
                      " bytes (docs/limits.md)");
  MLC_TRY(std::string text, read_file(path));
  MLC_TRY(CheckpointIndex index, parse_checkpoint_index(text, path));
  if (index.model != model_name)
    return make_error(path + ": error: checkpoint of model '" + index.model + "', not '" + model_name + "'");
  std::unordered_map<std::string, const IndexedTensor*> by_name;
  for (const IndexedTensor& t : index.tensors) by_name.emplace(t.name, &t);
  bool with_state = index.tensors.size() == params.size() + state.size();
  if (!with_state && !optional_state)
    return make_error(path + ": error: checkpoint holds " + std::to_string(index.tensors.size()) +
                      " tensors, the model and optimizer need " + std::to_string(params.size() + state.size()));
  if (optional_state)
    for (const NamedTensor& e : state) {
      auto it = by_name.find(e.name);
      if (it == by_name.end() || it->second->type != e.tensor.type()) with_state = false;
    }
  state_left_out = !with_state && index.tensors.size() > params.size();

  // The shard files, each read once; per file the chunks taken from it.
  const fs::path dir = fs::path(path).parent_path();
  std::map<std::string, SafetensorsFile> files;
  std::set<std::pair<std::string, std::string>> taken;  // (file, tensor)
  auto file = [&](const std::string& name) -> Expected<const SafetensorsFile*> {
    auto it = files.find(name);
    if (it == files.end()) {
      auto f = read_safetensors((dir / name).string());
      if (!f) return make_error(f.error().message + " (a shard of checkpoint " + path + ")");
      it = files.emplace(name, std::move(*f)).first;
    }
    return &it->second;
  };
  auto take = [&](const std::vector<NamedTensor>& expected) -> Expected<std::vector<NamedTensor>> {
    std::vector<NamedTensor> out;
    for (const NamedTensor& e : expected) {
      auto it = by_name.find(e.name);
      if (it == by_name.end())
        return make_error(path + ": error: checkpoint has no tensor '" + e.name +
                          "' (the checkpoint does not match the model)");
      const IndexedTensor& t = *it->second;
      if (t.type != e.tensor.type())
        return make_error(path + ": error: checkpoint tensor '" + e.name + "' is " + t.type.str() +
                          " but the model needs " + e.tensor.type().str());
      const std::vector<int64_t> grid = shard_grid(t.placements, index.mesh, t.type.rank());
      std::map<std::vector<int64_t>, const Tensor*> chunks;
      for (const ShardRef& s : t.shards) {
        MLC_TRY(const SafetensorsFile* f, file(s.file));
        if (!taken.emplace(s.file, t.name).second)
          return make_error(path + ": error: invalid checkpoint index: tensor '" + t.name + "' has two chunks in " +
                            s.file);
        MLC_TRY(chunks[s.index], shard_chunk(*f, t, s, index.mesh, path));
      }
      out.push_back({e.name, assemble_grid(t.type, grid, [&](const std::vector<int64_t>& i) -> const Tensor& {
                       return *chunks.at(i);
                     })});
    }
    return out;
  };
  TrainState s;
  static_cast<TrainPosition&>(s) = index.position;
  MLC_TRY(s.params, take(params));
  if (with_state) {
    MLC_TRY(s.state, take(state));
  }
  std::set<std::pair<std::string, std::string>> named;  // (file, tensor) of the index
  for (const IndexedTensor& t : index.tensors)
    for (const ShardRef& r : t.shards) named.emplace(r.file, t.name);
  for (const auto& [name, f] : files)
    for (const SafetensorsEntry& e : f.entries)
      if (!named.count({name, e.name}))
        return make_error(f.path + ": error: checkpoint shard holds tensor '" + e.name + "', which " + path +
                          " does not name in it");
  return s;
}

}  // namespace

Expected<TrainState> read_sharded_checkpoint(const std::string& path, const std::string& model_name,
                                             const std::vector<NamedTensor>& params,
                                             const std::vector<NamedTensor>& state) {
  bool left_out = false;
  return read_sharded(path, model_name, params, state, false, left_out);
}

Expected<TrainState> read_sharded_checkpoint_parameters(const std::string& path, const std::string& model_name,
                                                        const std::vector<NamedTensor>& params,
                                                        const std::vector<NamedTensor>& state, bool& state_left_out) {
  return read_sharded(path, model_name, params, state, true, state_left_out);
}

}  // namespace mlc::rt
