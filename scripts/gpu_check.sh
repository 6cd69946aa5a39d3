#!/usr/bin/env bash
# The GPU check: run from the repository root on a machine with an NVIDIA GPU,
# its driver and the CUDA toolkit, with gpu-bundle/ (scripts/gpu_bundle.sh)
# beside the tree, or with MLC_BIN_DIR naming a build's bin/ folder. Made to
# finish within 8 minutes on a fresh machine; each step has a timeout, a
# failing step does not stop the next, and a summary ends the output.
#
#   1. the bundle unpacked (checksum), the machine: nvidia-smi, driver, CUDA
#      toolkit, NVRTC and cuBLASLt found, glibc, CPU
#   2. runtime_tests: the cuda target and its NCCL collectives on the GPU
#      (CudaGpu*, ctest -L gpu) and every other cuda suite (fake driver and
#      NCCL, the real libraries: Cuda*, Cublas*, Cubin*, Nccl*)
#   3. compiler_tests: NVRTC (NvrtcTest, every example's kernels for sm_80 and
#      sm_90) and every op of the table on the GPU against the interpreter
#      (AllOps/CompiledCuda.*, in parallel shards)
#   4. every example, --device cuda against the interpreter (12 steps:
#      every loss within 1e-5 relative, final parameters within 1e-4; also a
#      tanh-GELU MLP whose GEMMs all take epilogues, f32 and bf16), and
#      digits_mlp and tiny_gpt from PyTorch's initial weights against
#      PyTorch's recorded run (tests/data/oracle: every loss, final parameters)
#   5. CUDA graph replay against --no-graph (every instruction launched
#      eagerly), and an artifact (mlc compile --target cuda:sm_XX) against
#      the model file: saved parameters and losses bit for bit; with two GPUs
#      or more, tiny_gpt on --mesh dp=2 (NCCL) against one GPU
#   6. bench/gpu_bench.py: GPT-2 124M, mlc next to PyTorch's torch.compile
# Steps 2-3 run in the background while 4-5 run; the benchmark runs alone.
#
# Output goes to stdout and to RESULTS/check.log; every step's own log and
# files are in RESULTS ($OUT if set, else gpu-results/). Exit status 0 when
# every step passed. Without a GPU it says so and stops after step 1.
#
# Environment: MLC_BIN_DIR (binaries instead of the bundle's), MLC_CHECK_BUDGET
# (seconds, default 450: later steps shrink their timeouts to fit),
# MLC_CHECK_SKIP (steps to leave out, e.g. "bench compiler").
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
results=${OUT:-$repo/gpu-results}
mkdir -p "$results"
results=$(cd "$results" && pwd)
exec > >(tee "$results/check.log") 2>&1
budget=${MLC_CHECK_BUDGET:-450}
skip=" ${MLC_CHECK_SKIP:-} "
declare -a summary=()
failed=0

say() { printf '\n==== %s (%ds)\n' "$*" "$SECONDS"; }
record() {  # name, status, seconds, note
  summary+=("$(printf '%-8s %-34s %4ds  %s' "$2" "$1" "$3" "${4:-}")")
  [[ "$2" == PASS || "$2" == SKIP ]] || failed=1
}
left() { echo $((budget - SECONDS)); }
# min(want, what is left of the budget - reserve), at least 10 s
fit() { local t=$(( $(left) - ${2:-0} )); ((t > $1)) && t=$1; ((t < 10)) && t=10; echo "$t"; }
skipped() { [[ "$skip" == *" $1 "* ]]; }

# A step: name, timeout, command...; output to stdout and RESULTS/name.log.
step() {
  local name=$1 limit=$2 t0=$SECONDS rc
  shift 2
  say "$name (timeout ${limit}s)"
  if skipped "$name"; then record "$name" SKIP 0 "MLC_CHECK_SKIP"; return 0; fi
  timeout -k 10 "$limit" bash -c '"$@"' "$name" "$@" 2>&1 | tee "$results/$name.log"
  rc=${PIPESTATUS[0]}
  if ((rc == 124 || rc == 137)); then record "$name" TIMEOUT $((SECONDS - t0)) "after ${limit}s"
  elif ((rc == 0)); then record "$name" PASS $((SECONDS - t0))
  else record "$name" FAIL $((SECONDS - t0)) "exit status $rc; $results/$name.log"; fi
  return "$rc"
}

# A background step: output only to RESULTS/name.log, shown by collect().
# (Waited for by pid: a bare `wait` would also wait for the tee above.)
declare -a bg_names=() bg_pids=()
bg_step() {
  local name=$1 limit=$2
  shift 2
  if skipped "$name"; then record "$name" SKIP 0 "MLC_CHECK_SKIP"; return 0; fi
  echo "(started $name in the background, timeout ${limit}s: $results/$name.log)"
  ( t0=$SECONDS; timeout -k 10 "$limit" bash -c '"$@"' "$name" "$@" > "$results/$name.log" 2>&1
    echo "$? $((SECONDS - t0)) $limit" > "$results/$name.status" ) &
  bg_pids+=("$!")
  bg_names+=("$name")
}
collect() {
  local name rc secs limit pid
  for pid in "${bg_pids[@]}"; do wait "$pid"; done
  for name in "${bg_names[@]}"; do
    say "$name (ran in the background)"
    # One skipped test's message, not all of them (where a library is missing); the whole log is kept.
    awk '/: Skipped$/ { if (seen++) { skip = 1; next } } skip { skip = 0; next } { print }' "$results/$name.log" |
      head -n 120
    read -r rc secs limit < "$results/$name.status"
    if ((rc == 124 || rc == 137)); then record "$name" TIMEOUT "$secs" "after ${limit}s"
    elif ((rc == 0)); then record "$name" PASS "$secs"
    else record "$name" FAIL "$secs" "exit status $rc; $results/$name.log"; fi
  done
  bg_names=() bg_pids=()
}

finish() {
  say "summary"
  printf '%s\n' "${summary[@]}"
  echo "results: $results ($(basename "$0") took ${SECONDS}s)"
  exit "$failed"
}

# ---- 1. the bundle and the machine
say "bundle"
t0=$SECONDS
if [[ -n "${MLC_BIN_DIR:-}" ]]; then
  bin=$(cd "$MLC_BIN_DIR" && pwd)
  echo "binaries from MLC_BIN_DIR=$bin"
  record bundle PASS $((SECONDS - t0)) "MLC_BIN_DIR"
elif [[ -f gpu-bundle/mlc-gpu.tar.xz ]]; then
  cat gpu-bundle/MANIFEST.txt 2>/dev/null | sed -n '1,7p'
  unpack=$(mktemp -d "${TMPDIR:-/tmp}/mlc-gpu.XXXXXX")
  trap 'rm -rf "$unpack"' EXIT
  # tar -J needs xz; Python's tarfile reads xz by itself.
  untar() {
    if command -v xz > /dev/null; then tar -C "$unpack" -xJf gpu-bundle/mlc-gpu.tar.xz
    else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' \
           gpu-bundle/mlc-gpu.tar.xz "$unpack"; fi
  }
  if (cd gpu-bundle && sha256sum -c --quiet mlc-gpu.tar.xz.sha256) && untar; then
    bin=$unpack/mlc-gpu/bin
    echo "unpacked into $unpack"
    record bundle PASS $((SECONDS - t0))
  else
    record bundle FAIL $((SECONDS - t0)) "gpu-bundle/mlc-gpu.tar.xz: checksum or unpacking failed"
    finish
  fi
else
  echo "no gpu-bundle/mlc-gpu.tar.xz (make it with scripts/gpu_bundle.sh and carry gpu-bundle/) and no MLC_BIN_DIR"
  record bundle FAIL 0 "no bundle"
  finish
fi
mlc=$bin/mlc
"$mlc" --version || { record "mlc --version" FAIL 0 "the bundled mlc does not start here"; finish; }

say "machine"
# The CUDA toolkit: nvcc for runtime_tests' kernels, NVRTC and cuBLASLt for mlc
# (found by name, under $CUDA_HOME/lib64 or /usr/local/cuda/lib64; a pip
# install's nvidia/*/lib folders are added to LD_LIBRARY_PATH).
if [[ -z "${CUDA_HOME:-}" ]]; then
  for d in /usr/local/cuda /usr/local/cuda-*; do [[ -d "$d/lib64" ]] && { export CUDA_HOME=$d; break; }; done
fi
[[ -n "${CUDA_HOME:-}" && -x "$CUDA_HOME/bin/nvcc" ]] && export PATH="$PATH:$CUDA_HOME/bin"
for d in $(python3 -c 'import glob, os, nvidia; print(" ".join(sorted(glob.glob(os.path.join(list(nvidia.__path__)[0], "*", "lib")))))' 2>/dev/null); do
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
done
echo "CUDA_HOME=${CUDA_HOME:-} nvcc: $(command -v nvcc || echo none)"
command -v nvcc > /dev/null && nvcc --version | tail -2
for lib in libcuda.so.1 libnvrtc.so libcublasLt.so; do
  found=$( (ldconfig -p 2>/dev/null | awk -v l="$lib" 'index($1, l) == 1 {print $NF}'
            ls "${CUDA_HOME:-/nonexistent}"/lib64/"$lib"* 2>/dev/null
            tr ':' '\n' <<< "${LD_LIBRARY_PATH:-}" | while read -r d; do [[ -n "$d" ]] && ls "$d/$lib"* 2>/dev/null; done) | sort -u | head -3 | tr '\n' ' ')
  echo "$lib: ${found:-not found}"
done
echo "glibc: $(getconf GNU_LIBC_VERSION); $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
python3 -c 'import torch; print("PyTorch", torch.__version__, "CUDA", torch.version.cuda, "GPU", torch.cuda.is_available())' 2>&1 | tail -1
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi; then
  echo "no GPU here: nvidia-smi is missing or fails; nothing else to check"
  record "GPU" FAIL $((SECONDS - t0)) "no NVIDIA GPU on this machine (nvidia-smi)"
  finish
fi
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 2>/dev/null | head -1 | tr -d ' .')
[[ "$arch" =~ ^[0-9]+$ ]] ||
  arch=$(python3 -c 'import torch; print("%d%d" % torch.cuda.get_device_capability())' 2>/dev/null)
arch=sm_${arch:-90}
gpus=$(nvidia-smi -L | grep -c '^GPU')
echo "GPU 0 of $gpus: $arch"
record machine PASS $((SECONDS - t0)) "$gpus x $arch"

# The test binaries find the tree here (tests/test_dirs.h); one kernel cache
# for every step (mlc's and NVRTC's compiles are reused across them).
export MLC_TEST_SOURCE_DIR=$repo MLC_TEST_BINARY_DIR=$results/test-scratch MLC_VERIFY_PASSES=1
export MLC_CACHE_DIR=$results/kernel-cache
mkdir -p "$MLC_TEST_BINARY_DIR" && mkdir -p -m 700 "$MLC_CACHE_DIR"

# The steps below run in child shells (under timeout): they see these.
export mlc bin results repo arch gpus

# ---- 2, 3. unit tests, in the background
bg_step runtime_tests "$(fit 150 200)" "$bin/runtime_tests" --gtest_brief=1 \
  --gtest_filter='Cuda*:Cublas*:Cubin*:Nccl*' \
  --gtest_output=xml:"$results/runtime_tests.xml"
compiler_tests() {  # NVRTC's tests, then every op in shards over the CPUs
  local shards=$(( $(nproc) / 2 )) rc=0 i
  ((shards < 1)) && shards=1
  ((shards > 8)) && shards=8
  echo "compiler_tests NVRTC:"
  "$bin/compiler_tests" --gtest_brief=1 --gtest_filter='NvrtcTest.*:*NvrtcExampleKernels*:GpuKernelSource.*' \
    --gtest_output=xml:"$results/compiler_tests_nvrtc.xml" || rc=1
  echo "compiler_tests AllOps/CompiledCuda.* in $shards shards:"
  for ((i = 0; i < shards; ++i)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$bin/compiler_tests" --gtest_brief=1 \
      --gtest_filter='*/CompiledCuda.*' --gtest_output=xml:"$results/compiler_tests_ops_$i.xml" \
      > "$results/compiler_tests_ops_$i.log" 2>&1 &
  done
  for ((i = 0; i < shards; ++i)); do wait -n || rc=1; done
  cat "$results"/compiler_tests_ops_*.log | grep -v '^Running main\|^Note: This is test shard\|^Note: Google Test filter'
  awk '/^\[  PASSED  \]/ {p += $4} /^\[  SKIPPED \] [0-9]+ test/ {s += $4} /^\[  FAILED  \] [0-9]+ test/ {f += $4}
       END {printf "CompiledCuda: %d passed, %d skipped, %d failed\n", p, s, f}' "$results"/compiler_tests_ops_*.log
  return "$rc"
}
export -f compiler_tests
bg_step compiler_tests "$(fit 240 200)" compiler_tests

# ---- 4. the examples against the interpreter and PyTorch
compare() { python3 "$repo/scripts/gpu_compare.py" "$@"; }
examples() {
  local rc=0 m d
  # With the examples, tests/data/gemm_epilogues' tanh-GELU MLP, whose every
  # GEMM takes a cuBLASLt epilogue (DGELU_BGRAD included), in f32 and bf16
  # (bf16: cuBLASLt rounds once where the interpreter rounds each op; the
  # host's epilogues land 4e-5 from it in loss, bf16's own drift from f32).
  local file rtol
  for file in examples/{digits_mlp,digits_cnn,digits_cnn_bn,batchnorm_mlp,legendre,tiny_gpt,gpt2_tied}.json \
              tests/data/gemm_epilogues/mlp_gelu_tanh{,_bf16}.mlc; do
    m=$(basename "${file%.*}")
    rtol=$([[ $m == *_bf16 ]] && echo 2e-4 || echo 1e-5)
    d=$results/examples/$m
    mkdir -p "$d"
    echo "-- $m: --device cuda against --backend interp, 12 steps"
    if "$mlc" run "$file" --steps 12 --device cuda --metrics "$d/cuda.jsonl" --save "$d/cuda.safetensors" \
         > "$d/cuda.log" 2>&1 &&
       "$mlc" run "$file" --steps 12 --backend interp --metrics "$d/interp.jsonl" --save "$d/interp.safetensors" \
         > "$d/interp.log" 2>&1; then
      grep -h "trained" "$d/cuda.log" "$d/interp.log" | sed 's/^/   /'
      compare losses "$d/cuda.jsonl" "$d/interp.jsonl" --rtol "$rtol" || rc=1
      # gpt2_tied's key biases are rounding noise (tests/tools/host_gpu_training_test.cc);
      # bf16's parameters are compared by the losses only (AdamW turns bf16's
      # rounding differences in near-zero gradients into steps of the learning rate).
      [[ $m == *_bf16 ]] || compare params "$d/cuda.safetensors" "$d/interp.safetensors" --atol 1e-4 \
        $([[ $m == gpt2_tied ]] && echo --ignore h.0.attn.k.bias,h.1.attn.k.bias) || rc=1
    else
      rc=1; tail -n 5 "$d"/*.log
    fi
  done
  for m in digits_mlp tiny_gpt; do
    d=$results/examples/$m
    echo "-- $m: --device cuda from PyTorch's initial weights against PyTorch's run (tests/data/oracle/$m)"
    if "$mlc" run "examples/$m.json" --device cuda --init "tests/data/oracle/$m/init.safetensors" \
         --metrics "$d/oracle.jsonl" --save "$d/oracle.safetensors" > "$d/oracle.log" 2>&1; then
      grep -h "trained" "$d/oracle.log" | sed 's/^/   /'
      compare losses "$d/oracle.jsonl" "tests/data/oracle/$m/losses.json" --rtol 1e-5 || rc=1
      compare params "$d/oracle.safetensors" "tests/data/oracle/$m/final.safetensors" --atol 1e-4 || rc=1
    else
      rc=1; tail -n 5 "$d/oracle.log"
    fi
  done
  return "$rc"
}
export -f compare examples
step examples "$(fit 200 150)" examples

# ---- 5. graph replay, artifacts
replay() {
  local rc=0 m d
  for m in digits_cnn tiny_gpt gpt2_tied; do
    d=$results/examples/$m
    echo "-- $m: CUDA graph replay (above) against --no-graph, bit for bit"
    if "$mlc" run "examples/$m.json" --steps 12 --device cuda:0 --no-graph --metrics "$d/eager.jsonl" \
         --save "$d/eager.safetensors" > "$d/eager.log" 2>&1; then
      compare losses "$d/eager.jsonl" "$d/cuda.jsonl" --rtol 0 || rc=1
      compare params "$d/eager.safetensors" "$d/cuda.safetensors" --atol 0 || rc=1
    else
      rc=1; tail -n 5 "$d/eager.log"
    fi
    echo "-- $m: mlc compile --target cuda:$arch, then mlc run of the artifact, against the model file's run"
    if "$mlc" compile "examples/$m.json" --target "cuda:$arch" -o "$d/$m.mlcx" > "$d/compile.log" 2>&1 &&
       "$mlc" run "$d/$m.mlcx" --steps 12 --metrics "$d/artifact.jsonl" --save "$d/artifact.safetensors" \
         > "$d/artifact.log" 2>&1; then
      compare losses "$d/artifact.jsonl" "$d/cuda.jsonl" --rtol 0 || rc=1
      compare params "$d/artifact.safetensors" "$d/cuda.safetensors" --atol 0 || rc=1
    else
      rc=1; tail -n 5 "$d/compile.log" "$d/artifact.log" 2>/dev/null
    fi
  done
  echo "-- tiny_gpt --profile on the GPU (3 steps)"
  "$mlc" run examples/tiny_gpt.json --steps 3 --device cuda --profile="$results/examples/tiny_gpt/profile.json" \
    > "$results/examples/tiny_gpt/profile.log" 2>&1 || rc=1
  grep -A4 "^by kind" "$results/examples/tiny_gpt/profile.log" | head -5
  if ((gpus >= 2)) && ! command -v mpirun > /dev/null; then
    echo "-- two GPUs but no mpirun: no --mesh run (a mesh on cuda is one process per GPU)"
  elif ((gpus >= 2)); then
    d=$results/examples/tiny_gpt
    echo "-- tiny_gpt on --mesh dp=2 --device cuda (NCCL, a process and a GPU per rank) against one GPU"
    if mpirun -np 2 --oversubscribe --allow-run-as-root "$mlc" run examples/tiny_gpt.json --steps 12 --mesh dp=2 \
         --device cuda --metrics "$d/dp2.jsonl" --save "$d/dp2.safetensors" > "$d/dp2.log" 2>&1; then
      compare losses "$d/dp2.jsonl" "$d/cuda.jsonl" --rtol 1e-5 || rc=1
      compare params "$d/dp2.safetensors" "$d/cuda.safetensors" --atol 1e-4 || rc=1
    else
      rc=1; tail -n 5 "$d/dp2.log"
    fi
  else
    echo "-- one GPU: no --mesh run (NCCL between GPUs needs two)"
  fi
  return "$rc"
}
export -f replay
step replay "$(fit 120 120)" replay

collect

# ---- 6. the benchmark, alone on the GPU
if (( $(left) < 60 )); then
  say "gpu_bench"
  record gpu_bench SKIP 0 "$(left)s of the ${budget}s budget left"
else
  t=$(fit 400 0)
  step gpu_bench $((t + 15)) python3 bench/gpu_bench.py --mlc "$mlc" --out "$results" --budget "$t" \
    --mlc-timeout $((t * 45 / 100)) --torch-timeout $((t * 45 / 100))
fi
finish
