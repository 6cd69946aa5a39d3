#!/bin/sh
# `mpirun -np 2 mlc run --mesh dp=2` (one rank per process, the MPI
# communicator) against the threaded `mlc run --mesh dp=2` (the local
# communicator): both sum in rank order, so the metrics files (every step's
# loss, every evaluation) must be byte-identical; only rank 0 prints the
# summary. Usage: mpi_run.sh MLC MODEL.json SCRATCH_DIR MPIRUN [MPIRUN_ARGS...]
# (run from the source root; extra `mlc run` flags come from MLC_RUN_FLAGS, a
# mesh other than dp=2 from MLC_MESH, with MLC_NP processes, default 2). With MLC_ARTIFACT=1 the
# mpirun run trains from `mlc compile MODEL.json --mesh ... $MLC_RUN_FLAGS`'s
# artifact instead of the model file.
set -eu
mlc=$1 model=$2 dir=$3
shift 3
rm -rf "$dir" && mkdir -p "$dir"
# shellcheck disable=SC2086
"$mlc" run "$model" --mesh "${MLC_MESH:-dp=2}" --steps 20 --metrics "$dir/threads.jsonl" ${MLC_RUN_FLAGS:-} > "$dir/threads.out"
target=$model
if [ "${MLC_ARTIFACT:-0}" = 1 ]; then
  target=$dir/model.mlcx
  # shellcheck disable=SC2086
  "$mlc" compile "$model" --mesh "${MLC_MESH:-dp=2}" ${MLC_RUN_FLAGS:-} -o "$target" > "$dir/compile.out"
fi
# shellcheck disable=SC2086
"$@" -np "${MLC_NP:-2}" "$mlc" run "$target" --mesh "${MLC_MESH:-dp=2}" --steps 20 --metrics "$dir/mpi.jsonl" ${MLC_RUN_FLAGS:-} > "$dir/mpi.out"
if ! cmp "$dir/threads.jsonl" "$dir/mpi.jsonl"; then
  echo "metrics differ between the threaded and the mpirun run:" >&2
  diff "$dir/threads.jsonl" "$dir/mpi.jsonl" >&2 || true
  exit 1
fi
steps=$(grep -c '^{"step"' "$dir/mpi.jsonl")  # step records (docs/metrics.md)
[ "$steps" -eq 20 ] || { echo "expected 20 step lines in the metrics, got $steps" >&2; exit 1; }
summaries=$(grep -c '^trained 20 steps' "$dir/mpi.out" || true)
[ "$summaries" -eq 1 ] || { echo "expected one summary (rank 0's) under mpirun, got $summaries:" >&2; cat "$dir/mpi.out" >&2; exit 1; }
echo "mpirun -np ${MLC_NP:-2} and threads: $steps step losses identical"
