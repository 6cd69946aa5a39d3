#include "driver/metrics_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/file_io.h"

namespace mlc {

namespace {

// The record's step when it is a step record ({"step", "epoch", "loss"}) or
// a grads record: the first records of a step's iteration.
std::optional<int64_t> iteration_start(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("step") || !j["step"].is_number_integer()) return std::nullopt;
  if (j.contains("eval") || j.contains("train")) return std::nullopt;
  if (!j.contains("loss") && !j.contains("grads")) return std::nullopt;
  return j["step"].get<int64_t>();
}

}  // namespace

Expected<MetricsFile> MetricsFile::open(const std::string& path, bool truncate) {
  const int flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (truncate ? O_TRUNC : 0);
  FileDescriptor fd(::open(path.c_str(), flags, 0666));
  if (fd.get() < 0) {
    if (errno == ELOOP) return make_error(path + ": error: is a symbolic link; mlc does not write metrics through links");
    return make_error(path + ": error: cannot open for writing: " + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return make_error(path + ": error: cannot write metrics: not a regular file (" + file_kind(st.st_mode) + ")");
  return MetricsFile(path, std::move(fd));
}

Expected<MetricsFile> MetricsFile::create(const std::string& path) { return open(path, /*truncate=*/true); }

Expected<MetricsFile> MetricsFile::append(const std::string& path) { return open(path, /*truncate=*/false); }

Expected<MetricsFile> MetricsFile::resume(const std::string& path, int64_t step) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return create(path);
  if (S_ISLNK(st.st_mode)) return open(path, false);  // refused, with open's message
  MLC_TRY(std::string text, rt::read_file(path));
  std::string kept;
  nlohmann::json run;
  std::vector<std::pair<int64_t, double>> steps;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) break;  // a last line without its newline: the record being written at a kill
    const std::string_view line(text.data() + at, end - at);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) break;
    if (auto s = iteration_start(j); s && *s >= step) break;
    if (j.is_object() && j.contains("run")) run = j["run"];
    if (j.is_object() && j.contains("loss") && !j.contains("eval") && j["step"].is_number_integer() &&
        j["loss"].is_number())
      steps.emplace_back(j["step"].get<int64_t>(), j["loss"].get<double>());
    kept.append(line).append("\n");
    at = end + 1;
  }
  if (kept.size() != text.size()) MLC_CHECK_OK(rt::write_file_atomically(path, {kept}));
  MLC_TRY(MetricsFile f, append(path));
  f.kept_run_ = std::move(run);
  f.kept_steps_ = std::move(steps);
  return f;
}

void MetricsFile::write(const nlohmann::ordered_json& record) {
  if (!error_.empty()) return;
  const std::string line = record.dump() + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_.get(), line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = path_ + ": error: cannot write metrics: " + std::strerror(errno);
      return;
    }
    done += static_cast<size_t>(n);
  }
}

Status MetricsFile::status() const {
  if (!error_.empty()) return make_error(error_);
  return {};
}

std::vector<double> MetricsFile::kept_losses(int64_t first) const {
  std::vector<double> losses;
  for (const auto& [s, loss] : kept_steps_)
    if (s >= first) losses.push_back(loss);
  return losses;
}

}  // namespace mlc
