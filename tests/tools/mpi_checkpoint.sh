#!/bin/sh
# Sharded checkpoints under mpirun (driver/sharded_checkpoint.h): `mpirun -np 2
# mlc run --mesh dp=2 --zero 3` runs 5 steps, each process writing its own
# shard of the checkpoint and rank 0 the index; the threaded run resumes from
# it to step 10. The per-step losses and the final parameters must equal an
# uninterrupted threaded run's byte for byte (both communicators sum in rank
# order). Usage: mpi_checkpoint.sh MLC MODEL.json SCRATCH_DIR MPIRUN
# [MPIRUN_ARGS...] (run from the source root).
set -eu
mlc=$1 model=$2 dir=$3
shift 3
rm -rf "$dir" && mkdir -p "$dir"
mesh="--mesh dp=2 --zero 3"
# shellcheck disable=SC2086
"$mlc" run "$model" $mesh --steps 10 --metrics "$dir/full.jsonl" --save "$dir/full.safetensors" > "$dir/full.out"
# shellcheck disable=SC2086
"$@" -np 2 "$mlc" run "$model" $mesh --steps 5 --checkpoint-dir "$dir/ckpt" --metrics "$dir/resumed.jsonl" > "$dir/mpi.out"
for f in step_00000005.index.json step_00000005.rank00000.safetensors step_00000005.rank00001.safetensors; do
  [ -f "$dir/ckpt/$f" ] || { echo "mpirun wrote no $f:" >&2; ls "$dir/ckpt" >&2; exit 1; }
done
# shellcheck disable=SC2086
"$mlc" run "$model" $mesh --steps 10 --checkpoint-dir "$dir/ckpt" --resume --metrics "$dir/resumed.jsonl" \
  --save "$dir/resumed.safetensors" > "$dir/resumed.out" 2> "$dir/resumed.err"
grep -q "resuming at step 5 of" "$dir/resumed.err" || { echo "did not resume from step 5:" >&2; cat "$dir/resumed.err" >&2; exit 1; }
grep '^{"step"' "$dir/full.jsonl" > "$dir/full.steps"
grep '^{"step"' "$dir/resumed.jsonl" > "$dir/resumed.steps"
if ! cmp "$dir/full.steps" "$dir/resumed.steps"; then
  echo "losses differ between the uninterrupted run and the one resumed from mpirun's checkpoint:" >&2
  diff "$dir/full.steps" "$dir/resumed.steps" >&2 || true
  exit 1
fi
cmp "$dir/full.safetensors" "$dir/resumed.safetensors" || { echo "final parameters differ" >&2; exit 1; }
echo "mpirun -np 2 checkpoint, resumed on threads: $(wc -l < "$dir/resumed.steps") step losses and the parameters identical"
