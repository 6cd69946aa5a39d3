// The GPU a rank's executors use. Under a launcher that started several
// processes (mpirun, srun: runtime/comm/mpi.h launched_processes() > 1),
// one process per GPU: the process's index among those on its machine,
// OpenMPI's OMPI_COMM_WORLD_LOCAL_RANK, else Slurm's SLURM_LOCALID (as llm.c
// picks its GPU). Otherwise $MLC_CUDA_DEVICE (runtime/cuda/cuda_driver.h
// cuda_device_ordinal, default 0), which a launched process ignores.
//
// Contract: an Error names the variable and its value ("SLURM_LOCALID is
// 'x': expected a process index (0, 1, ...)"). An index the machine has no
// GPU for is refused where the device is opened ("cuda:2: this machine has 2
// GPUs": start at most one process per GPU on each machine).
#pragma once

#include "ir/expected.h"

namespace mlc::rt::cuda {

// The rule above over given values (null: unset); for tests.
Expected<int> rank_device_ordinal(int launched_processes, const char* ompi_local_rank, const char* slurm_local_id,
                                  const char* mlc_cuda_device);
// The rule above over this process's environment.
Expected<int> rank_device_ordinal();

}  // namespace mlc::rt::cuda
