#include "runtime/cuda/rank_device.h"

#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/comm/mpi.h"
#include "runtime/cuda/cuda_driver.h"
#include "support/quote.h"

namespace mlc::rt::cuda {

namespace {

Expected<int> parse_index(const char* name, const char* value) {
  const std::string_view v(value);
  int n = 0;
  bool ok = !v.empty() && v.size() <= 4;
  for (char c : v) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + (c - '0');
  }
  if (!ok) return make_error(std::string(name) + " is " + squote(v) + ": expected a process index (0, 1, ...)");
  return n;
}

}  // namespace

Expected<int> rank_device_ordinal(int launched_processes, const char* ompi_local_rank, const char* slurm_local_id,
                                  const char* mlc_cuda_device) {
  if (launched_processes > 1) {
    if (ompi_local_rank && *ompi_local_rank) return parse_index("OMPI_COMM_WORLD_LOCAL_RANK", ompi_local_rank);
    if (slurm_local_id && *slurm_local_id) return parse_index("SLURM_LOCALID", slurm_local_id);
  }
  return parse_device_ordinal(mlc_cuda_device);
}

Expected<int> rank_device_ordinal() {
  return rank_device_ordinal(launched_processes(), std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"),
                             std::getenv("SLURM_LOCALID"), std::getenv("MLC_CUDA_DEVICE"));
}

}  // namespace mlc::rt::cuda
