#!/usr/bin/env bash
# Builds bench/gemm_libs.cc (on its own, into build-bench/; the project's build
# is not reconfigured) and times sgemm in OpenBLAS, oneDNN and libxsmm on the
# GEMM calls of every model's train step (bench/gemm_shapes.py) plus 1024^3,
# on 1 and 2 threads; writes bench/results/gemm_libs.md (a "## Conclusion"
# section already in that file is kept) and the raw numbers next to it.
#
# Usage: bench/gemm_libs.sh [--reps N] [--min-ms MS] [--wait-quiet S] [--rounds R] [--append]
#                           [--shapes FILE]
# --shapes FILE: take the shapes from FILE (gemm_shapes.py's output) instead of
# running bench/gemm_shapes.py (which needs build/bin/mlc).
# --wait-quiet S: before each measurement wait up to S seconds until other
# processes use less than 0.2 cores (default 0: measure at once).
# --rounds R: measure every library and thread count R times (default 1); the
# report uses, for each, the round in which other processes used the least CPU.
# --append: keep the rounds of earlier runs (results/gemm_libs.tsv, .meta) as
# candidates too, numbering the new ones after them.
# Needs build/bin/mlc (scripts/setup.sh), python3 and Debian's libopenblas-dev;
# oneDNN (libdnnl-dev) and libxsmm (libxsmm-dev) are measured where installed.
set -euo pipefail
cd "$(dirname "$0")/.."

append=0 reps=7 min_ms=10 wait_quiet=0 rounds=1 shapes_in=""
while (($#)); do
  case "$1" in
    --append) append=1 ;;
    --reps) reps="$2"; shift ;;
    --min-ms) min_ms="$2"; shift ;;
    --wait-quiet) wait_quiet="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --shapes) shapes_in="$2"; shift ;;
    *) echo "usage: $0 [--reps N] [--min-ms MS] [--wait-quiet S] [--rounds R] [--append] [--shapes FILE]" >&2; exit 2 ;;
  esac
  shift
done

missing=()
for p in libopenblas-dev libdnnl-dev libxsmm-dev pkg-config cmake ninja-build; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "missing Debian packages (measuring without them): ${missing[*]}" >&2
  echo "  install them with: apt-get install -y ${missing[*]}" >&2
fi

if [[ -z "$shapes_in" ]]; then
  [[ -x build/bin/mlc ]] || { echo "build/bin/mlc is missing: run scripts/setup.sh" >&2; exit 1; }
fi
cmake -S bench -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build-bench gemm_libs >/dev/null
bin=build-bench/gemm_libs

out=bench/results
mkdir -p "$out"
shapes="$out/gemm_shapes.txt"
if [[ -n "$shapes_in" ]]; then
  [[ "$shapes_in" -ef "$shapes" ]] || cp "$shapes_in" "$shapes"
else
  python3 bench/gemm_shapes.py >"$shapes.tmp" && mv "$shapes.tmp" "$shapes"
fi

raw="$out/gemm_libs.tsv"
meta="$out/gemm_libs.meta"
first=1
if ((append)) && [[ -s "$meta" ]]; then
  first=$(($(awk -F'\t' '$1 == "run" { n = split($2, a, "#"); if (a[n] > m) m = a[n] } END { print m + 0 }' "$meta") + 1))
else
  : >"$raw"
  : >"$meta"
fi
{
  echo "date	$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "reps	$reps"
  echo "min_ms	$min_ms"
  echo "lscpu	$(lscpu | head -n 14 | sed 's/  */ /g' | tr '\n' '|')"
  echo "cpu_model	$(lscpu | sed -n 's/^Model name: *//p')"
  echo "nproc	$(nproc)"
  for p in libopenblas0-pthread libdnnl2 libxsmm-dev; do
    echo "pkg	$p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo missing)"
  done
  echo "compiler	$(c++ --version | head -n 1)"
} >>"$meta"

avx512=0
grep -qw avx512f /proc/cpuinfo && avx512=1

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }

# Waits (up to --wait-quiet seconds) until other processes use < 0.2 cores.
wait_quiet() {
  local start=$SECONDS b0 b1
  while ((SECONDS - start < wait_quiet)); do
    b0=$(busy); sleep 1; b1=$(busy)
    if ((b1 - b0 < 20)); then return 0; fi
  done
  return 0
}

# run TAG LIB THREADS [ENV...]: one measurement process, with the load around it.
run() {
  local tag="$1" lib="$2" threads="$3"; shift 3
  local s0 s1 t0 t1 cpu
  wait_quiet
  s0=$(busy)
  t0=$(date +%s.%N)
  local la0; la0=$(cut -d' ' -f1 /proc/loadavg)
  TIMEFORMAT='%U %S'
  cpu=$( { time env "$@" OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" \
            "$bin" --lib "$lib" --threads "$threads" --shapes "$shapes" --tag "$tag" \
            --reps "$reps" --min-ms "$min_ms" >>"$raw"; } 2>&1 )
  t1=$(date +%s.%N)
  s1=$(busy)
  local others
  others=$(awk -v s0="$s0" -v s1="$s1" -v t0="$t0" -v t1="$t1" -v c="$cpu" 'BEGIN {
    split(c, u, " "); w = t1 - t0; o = ((s1 - s0) / 100 - u[1] - u[2]) / w; if (o < 0) o = 0;
    printf "%.2f", o }')
  echo "run	$tag	$lib	$threads	$la0	$(cut -d' ' -f1 /proc/loadavg)	$others	$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" >>"$meta"
  echo "$tag: load $la0, other processes used $others cores meanwhile" >&2
}

libs=$("$bin" --list)
for ((round = first; round < first + rounds; ++round)); do
  run "OpenBLAS as installed#$round" openblas 1 -u OPENBLAS_CORETYPE
  if ((avx512)); then
    run "OpenBLAS SkylakeX (mlc)#$round" openblas 1 OPENBLAS_CORETYPE=SkylakeX
    run "OpenBLAS SkylakeX (mlc)#$round" openblas 2 OPENBLAS_CORETYPE=SkylakeX
  else
    run "OpenBLAS as installed#$round" openblas 2 -u OPENBLAS_CORETYPE
  fi
  if [[ " $libs " == *" onednn "* ]]; then
    run "oneDNN#$round" onednn 1
    run "oneDNN#$round" onednn 2
  fi
  if [[ " $libs " == *" libxsmm "* ]]; then
    run "libxsmm#$round" libxsmm 1
  fi
done

python3 bench/gemm_libs_report.py --raw "$raw" --meta "$meta" --out "$out/gemm_libs.md"
echo "wrote $out/gemm_libs.md" >&2
