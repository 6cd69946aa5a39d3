#include "compiler/gpu/resource_usage.h"

#include <cctype>
#include <vector>

namespace mlc::gpu {
namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  while (!s.empty()) {
    const size_t end = s.find('\n');
    lines.push_back(s.substr(0, end));
    if (end == std::string_view::npos) break;
    s.remove_prefix(end + 1);
  }
  return lines;
}

// The number written just before `unit` in `line` ("16 registers" -> 16), or
// -1 where `unit` does not follow a number.
int64_t number_before(std::string_view line, std::string_view unit) {
  for (size_t at = line.find(unit); at != std::string_view::npos; at = line.find(unit, at + 1)) {
    size_t begin = at;
    while (begin > 0 && line[begin - 1] == ' ') --begin;
    size_t end = begin;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
    if (begin == end || end - begin > 15) continue;
    int64_t v = 0;
    for (size_t i = begin; i < end; ++i) v = v * 10 + (line[i] - '0');
    return v;
  }
  return -1;
}

}  // namespace

std::string to_string(const ResourceUsage& u) {
  return std::to_string(u.registers) + " registers, " + std::to_string(u.shared_bytes) + " bytes smem, " +
         std::to_string(u.stack_bytes) + " bytes stack, " + std::to_string(u.spill_store_bytes) + "/" +
         std::to_string(u.spill_load_bytes) + " bytes spilled/reloaded";
}

Expected<ResourceUsage> parse_ptxas_info(std::string_view log, std::string_view kernel) {
  const std::string entry = "Compiling entry function '" + std::string(kernel) + "'";
  const std::string properties = "Function properties for " + std::string(kernel);
  ResourceUsage u;
  bool in_entry = false, in_properties = false, found_entry = false, found_registers = false;
  for (std::string_view line : split_lines(log)) {
    if (line.find("Compiling entry function '") != std::string_view::npos) {
      in_entry = line.find(entry) != std::string_view::npos;
      found_entry |= in_entry;
      in_properties = false;
      continue;
    }
    if (!in_entry) continue;
    if (line.find("Function properties for ") != std::string_view::npos) {
      const size_t at = line.find(properties);
      in_properties = at != std::string_view::npos && at + properties.size() == line.size();
      continue;
    }
    if (in_properties && line.find("bytes stack frame") != std::string_view::npos) {
      u.stack_bytes = number_before(line, " bytes stack frame");
      u.spill_store_bytes = number_before(line, " bytes spill stores");
      u.spill_load_bytes = number_before(line, " bytes spill loads");
      in_properties = false;
      continue;
    }
    if (line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
      u.registers = static_cast<int>(number_before(line, " registers"));
      const int64_t smem = number_before(line, " bytes smem");
      u.shared_bytes = smem < 0 ? 0 : smem;
      found_registers = u.registers >= 0;
    }
  }
  const std::string where = "kernel " + std::string(kernel) + ": ";
  if (!found_entry) return make_error(where + "the ptxas log has no entry function '" + std::string(kernel) +
                                      "' (does the source define it, extern \"C\" __global__?)");
  if (!found_registers || u.stack_bytes < 0 || u.spill_store_bytes < 0 || u.spill_load_bytes < 0)
    return make_error(where + "cannot read ptxas's resource usage from the log (expected \"Used N registers\" and "
                      "\"N bytes stack frame, N bytes spill stores, N bytes spill loads\")");
  return u;
}

int64_t max_shared_bytes_per_block(const std::string& /*arch*/) { return int64_t{48} << 10; }

Status check_resource_usage(const std::string& kernel, const ResourceUsage& u, const std::string& arch) {
  if (u.spill_store_bytes > 0 || u.spill_load_bytes > 0)
    return make_error("kernel " + kernel + ": ptxas spills registers on " + arch + " (" +
                      std::to_string(u.spill_store_bytes) + " bytes stored, " + std::to_string(u.spill_load_bytes) +
                      " bytes loaded per thread; " + std::to_string(u.registers) + " registers)");
  if (const int64_t limit = max_shared_bytes_per_block(arch); u.shared_bytes > limit)
    return make_error("kernel " + kernel + ": " + std::to_string(u.shared_bytes) +
                      " bytes of static shared memory on " + arch + ", more than a block's " + std::to_string(limit));
  return {};
}

}  // namespace mlc::gpu
