#!/usr/bin/env bash
# Runs a libFuzzer harness of tests/fuzz/ (ASan + UBSan, clang) for SECONDS.
# Usage: scripts/fuzz.sh NAME SECONDS     NAME: ir | model | model_language | safetensors | checkpoint | artifact | kernel_cache | kernel_ir | cubin | npy | csv | all
#
# Configures build-fuzz/ with clang if needed and builds only the harness(es)
# it runs. The committed seed corpus tests/fuzz/corpus/NAME is copied into
# build-fuzz/fuzz-corpus/NAME, which is where libFuzzer adds new inputs (the
# committed corpus is never written). Crashes, invariant failures, timeouts,
# out-of-memory and leaks are findings: the input lands in
# build-fuzz/findings/NAME/ (crash-*, timeout-*, oom-*, leak-*), the log in
# build-fuzz/fuzz-logs/NAME.log, and the script exits 1. With `all`, every
# harness runs for SECONDS and the script exits 1 if any of them found something.
# Reproduce a finding: build-fuzz/bin/fuzz_NAME build-fuzz/findings/NAME/crash-...
#
# Environment: MLC_FUZZ_BUILD (build dir, default build-fuzz), FUZZ_CC/FUZZ_CXX
# (default clang-14/clang++-14), FUZZ_JOBS (ninja -j), FUZZ_ARGS (extra
# libFuzzer flags, e.g. "-seed=1 -use_value_profile=1").
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/fuzz.sh ir|model|model_language|safetensors|checkpoint|artifact|kernel_cache|kernel_ir|cubin|npy|csv|all SECONDS" >&2
  exit 2
}
[[ $# -eq 2 ]] || usage
name=$1 seconds=$2
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || usage
case $name in
  ir | model | model_language | safetensors | checkpoint | artifact | kernel_cache | kernel_ir | cubin | npy | csv) names=("$name") ;;
  all) names=(ir model model_language safetensors checkpoint artifact kernel_cache kernel_ir cubin npy csv) ;;
  *) usage ;;
esac

build=${MLC_FUZZ_BUILD:-build-fuzz}
cc=${FUZZ_CC:-clang-14} cxx=${FUZZ_CXX:-clang++-14}
command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

# Inputs are bounded only by -max_len: big enough for structured inputs (the
# largest IR seed, tiny_gpt after the optimizer pass, is ~145 KB; the largest
# artifact seed, digits_mlp's @train_step with its objects cut short, ~36 KB;
# the largest cubin seed, ~13 KB).
declare -A max_len=([ir]=262144 [model]=131072 [model_language]=131072 [safetensors]=1048576 [checkpoint]=1048576 [artifact]=262144 [kernel_cache]=262144
                  [kernel_ir]=65536 [cubin]=65536 [npy]=65536 [csv]=65536)

# Configure once (clang, ASan+UBSan, asserts on: no -DNDEBUG), then build only
# the harnesses needed; the project libraries get -fsanitize=fuzzer-no-link
# from tests/fuzz/CMakeLists.txt.
if [[ ! -f $build/build.ninja ]] || ! grep -q '^MLC_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  CC=$cc CXX=$cxx cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g" -DMLC_SANITIZE=ON -DMLC_FUZZ=ON >/dev/null
fi
targets=()
for n in "${names[@]}"; do targets+=("fuzz_$n"); done
ninja -C "$build" ${FUZZ_JOBS:+-j "$FUZZ_JOBS"} "${targets[@]}"

# Every sanitizer report is fatal (UBSan is also compiled with
# -fno-sanitize-recover=undefined by MLC_SANITIZE).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:symbolize=1}
for s in llvm-symbolizer-14 llvm-symbolizer; do
  if command -v $s >/dev/null; then export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v $s)}; break; fi
done
# The safetensors, checkpoint and artifact harnesses write (and fsync) temporary files
# under $TMPDIR: keep them in memory when possible, in a directory of this run
# that is removed at the end (a crashing harness cannot clean up after itself).
tmp_base=${TMPDIR:-/tmp}
if [[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then tmp_base=/dev/shm; fi
tmp_run=$(mktemp -d "$tmp_base/mlc-fuzz-run.XXXXXX")
trap 'rm -rf "$tmp_run"' EXIT
export TMPDIR=$tmp_run

summary=()
status=0
for n in "${names[@]}"; do
  corpus=$build/fuzz-corpus/$n findings=$build/findings/$n log=$build/fuzz-logs/$n.log
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  cp -p "tests/fuzz/corpus/$n"/* "$corpus/"
  before=$(find "$findings" -type f | wc -l)
  echo "== fuzz_$n for ${seconds}s (corpus $corpus, findings $findings/, log $log)"
  rc=0  # with pipefail: the harness's status (tee succeeds)
  # shellcheck disable=SC2086
  "$build/bin/fuzz_$n" "$corpus" -dict="tests/fuzz/dict/$n.dict" -max_len="${max_len[$n]}" \
    -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$findings/" ${FUZZ_ARGS:-} 2>&1 | tee "$log" || rc=$?
  after=$(find "$findings" -type f | wc -l)

  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | grep ' cov: ' | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last") ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")
  result=ok
  if [[ $rc -ne 0 || $after -gt $before ]]; then
    status=1
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    kind=$(grep -m1 -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer): [a-zA-Z-]+|runtime error: .*|INVARIANT BROKEN: .*|deadly signal' "$log" || true)
    result="FINDING (exit $rc): ${kind:-see $log} -> ${artifact:-$findings/}"
  fi
  if [[ -z $last ]]; then  # stopped while loading the seeds, before libFuzzer's INITED line
    cov="? (stopped before INITED)" ft="?" corp="?"
  fi
  summary+=("fuzz_$n: execs ${execs:-?}, exec/s ${speed:-?}, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}: $result")
done

echo
echo "== fuzz summary (${seconds}s each)"
printf '%s\n' "${summary[@]}"
exit $status
