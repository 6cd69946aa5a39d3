#!/usr/bin/env bash
# Installs every dependency of mlc from Debian's apt registry and builds it
# into build/ (the CLI lands at build/bin/mlc). Safe to run again.
# Usage: scripts/setup.sh [--no-apt]
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" != "--no-apt" ]]; then
  packages=(build-essential cmake ninja-build ccache pkg-config
            nlohmann-json3-dev libgtest-dev libgmock-dev libopenblas-dev
            libdnnl-dev  # oneDNN: the large GEMMs (runtime/onednn_gemm.h)
            libxsmm-dev  # libxsmm: the small GEMMs (runtime/xsmm_gemm.h)
            ocl-icd-opencl-dev  # its CMake config requires OpenCL (a Recommends that --no-install-recommends skips)
            pocl-opencl-icd  # PoCL: the OpenCL CPU device the host-gpu target runs GPU kernels on (runtime/host_gpu/)
            llvm-19-dev libzstd-dev  # kernel code generation (LLVM 19: IRBuilder, O3, ORC LLJIT)
            mlir-19-tools  # mlir-opt-19, mlir-cpu-runner-19: the tests of `mlc ir --emit mlir`
            libopenmpi-dev openmpi-bin  # the MPI communicator (runtime/comm/mpi.h) and mpirun for its tests
            llvm-19-tools  # FileCheck-19: the FileCheck pass tests (tests/passes/filecheck/)
            clang libclang-rt-14-dev llvm-14  # llvm-14: llvm-symbolizer for sanitizer traces
            zlib1g-dev  # zlib: .npz members (runtime/npz.h), and PNG in the browser test
            chromium)  # the browser test of `mlc report`'s page (tests/browser/): headless Chromium
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build
