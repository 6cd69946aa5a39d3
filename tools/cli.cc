#include "tools/cli.h"

#include <algorithm>
#include <cstdio>

#include "runtime/output_path.h"

namespace mlc::cli {

bool Args::has(const std::string& name) const {
  for (const auto& [n, v] : options)
    if (n == name) return true;
  return false;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  for (const auto& [n, v] : options)
    if (n == name) return v;
  return fallback;
}

bool parse_args(const std::vector<std::string>& argv, const std::vector<std::string>& switches,
                const std::vector<std::string>& valued, Args& out, std::string& error,
                const std::vector<std::string>& optional_valued) {
  auto contains = [](const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() < 3 || a.rfind("--", 0) != 0) {
      out.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (contains(optional_valued, name)) {
      // the value, if any, is inline
    } else if (contains(switches, name)) {
      if (inline_value) {
        error = "option --" + name + " takes no value";
        return false;
      }
    } else if (contains(valued, name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) {
          error = "option --" + name + " needs a value";
          return false;
        }
        value = argv[++i];
      }
    } else {
      error = "unknown option --" + name;
      return false;
    }
    out.options.emplace_back(name, value);
  }
  return true;
}

bool parse_parallel(const Args& args, ParallelFlags& out, std::string& error, int* pipeline_ranks) {
  if (args.has("mesh")) {
    auto mesh = Mesh::parse(args.get("mesh"));
    if (!mesh) {
      error = "--mesh: " + mesh.error().message;
      return false;
    }
    if (pipeline_ranks) {  // mlc plan: the pp axis is the pipeline's, the rest the plan's mesh
      *pipeline_ranks = 0;
      if (auto pp = mesh->find("pp")) {
        *pipeline_ranks = static_cast<int>(mesh->axes[*pp].size);
        mesh->axes.erase(mesh->axes.begin() + static_cast<std::ptrdiff_t>(*pp));
      }
    }
    if (Status axes = check_mesh_axes(*mesh); !axes) {
      error = "--mesh: " + axes.error().message;
      return false;
    }
    out.mesh = *mesh;
  }
  if (args.has("zero")) {
    const std::string z = args.get("zero");
    if (z.size() != 1 || z[0] < '0' || z[0] > '3') {
      error = "--zero takes 0, 1, 2 or 3, got '" + z + "'";
      return false;
    }
    if (!out.mesh) {
      error = "--zero shards over the data axes of a mesh: give --mesh too (e.g. --mesh dp=2 --zero 1)";
      return false;
    }
    out.zero = z[0] - '0';
  }
  for (auto [flag, into] : {std::pair{"microbatches", &out.microbatches}, {"virtual-stages", &out.virtual_stages}}) {
    if (!args.has(flag)) continue;
    const std::string n = args.get(flag);
    char* end = nullptr;
    const long v = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || v < 1 || v > (1 << 20)) {
      error = "--" + std::string(flag) + " takes a positive integer, got '" + n + "'";
      return false;
    }
    *into = static_cast<int>(v);
  }
  if (args.has("schedule")) {
    auto kind = parse_pipeline_schedule_kind(args.get("schedule"));
    if (!kind) {
      error = "--schedule: expected gpipe, 1f1b, interleaved or zb1p, got '" + args.get("schedule") + "'";
      return false;
    }
    out.schedule = *kind;
  }
  return true;
}

std::string output_problem(const std::string& path, const std::string& flag, bool directory) {
  const std::string problem = directory ? rt::output_directory_problem(path) : rt::output_file_problem(path);
  return problem.empty() ? "" : path + ": error: --" + flag + ": " + problem;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "mlc: error: %s\n", message.c_str());
  return kUsageError;
}

int user_error(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return kUserError;
}

}  // namespace mlc::cli
