#include "runtime/output_path.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "runtime/file_io.h"

namespace mlc::rt {

namespace {

namespace fs = std::filesystem;

std::string shown(const fs::path& dir) { return dir.empty() ? "." : dir.string(); }

// "" when a file can be created in the existing directory `dir`: creates
// one (create_temp_file's name for `dir`/`name`) and removes it.
std::string creatable_in(const fs::path& dir, const std::string& name) {
  auto probe = create_temp_file((dir.empty() ? fs::path(name) : dir / name).string());
  if (!probe) {
    const std::string& m = probe.error().message;
    const size_t reason = m.rfind(": ");
    return "cannot create a file in directory '" + shown(dir) + "'" +
           (reason == std::string::npos ? "" : m.substr(reason));
  }
  ::unlink(probe->path.c_str());
  return "";
}

// The nearest existing ancestor of `dir` (`dir` itself if it exists), and
// whether it is a directory; "" when it is, else what is wrong.
std::string existing_ancestor(fs::path dir, fs::path& found) {
  std::error_code ec;
  fs::path missing;
  while (!dir.empty() && !fs::exists(fs::symlink_status(dir, ec)) && dir != dir.root_path()) {
    missing = dir;
    dir = dir.parent_path();
  }
  found = dir;
  if (!fs::is_directory(dir.empty() ? fs::path(".") : dir, ec))
    return "'" + shown(dir) + "' is a file, not a directory";
  if (!missing.empty()) return "directory '" + missing.string() + "' does not exist";
  return "";
}

}  // namespace

std::string output_file_problem(const std::string& path) {
  if (path.empty()) return "no file name given";
  const fs::path p(path);
  std::error_code ec;
  if (!p.has_filename() || fs::is_directory(p, ec)) return "'" + path + "' is a directory: give a file name in it";
  fs::path dir;
  if (std::string problem = existing_ancestor(p.parent_path(), dir); !problem.empty()) {
    // A missing directory is named whole: the one the file goes into.
    if (problem.starts_with("directory")) return "directory '" + p.parent_path().string() + "' does not exist";
    return problem;
  }
  return creatable_in(dir, p.filename().string());
}

std::string output_directory_problem(const std::string& dir) {
  if (dir.empty()) return "no directory given";
  fs::path found;
  std::string problem = existing_ancestor(fs::path(dir), found);
  if (!problem.empty() && !problem.starts_with("directory")) return problem;
  return creatable_in(found, ".mlc-write-check");
}

}  // namespace mlc::rt
