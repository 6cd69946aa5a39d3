#!/bin/sh
# The start-up agreement under mpirun (driver/mesh_train.h): the ranks of one
# job must read the same bytes and run with the same settings, wherever their
# files lie. Three jobs of two processes, each started in a directory of its
# own (mpirun -wdir):
#   1. the same relative --data path, different bytes (one pixel changed): refused;
#   2. the same bytes at different paths: trains;
#   3. --backend interp on one rank: refused.
# Usage: mpi_agree.sh MLC SCRATCH_DIR MPIRUN [MPIRUN_ARGS...] (from the source root)
set -eu
mlc=$1 dir=$2
shift 2
rm -rf "$dir" && mkdir -p "$dir/a" "$dir/b"
model=$PWD/examples/digits_mlp.json
cp examples/data/digits.safetensors "$dir/a/data.safetensors"
cp examples/data/digits.safetensors "$dir/b/data.safetensors"
cp examples/data/digits.safetensors "$dir/b/copy.safetensors"
size=$(wc -c < "$dir/b/data.safetensors")
printf '\001' | dd of="$dir/b/data.safetensors" bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null
cmp -s "$dir/a/data.safetensors" "$dir/b/data.safetensors" && { echo "the changed copy is the same" >&2; exit 1; }
run="run $model --mesh dp=2 --steps 2"

expect_refused() {  # NAME PATTERN, then the job's output in $dir/NAME.out
  if grep -q "trained 2 steps" "$dir/$1.out"; then echo "$1: the job trained" >&2; cat "$dir/$1.out" >&2; exit 1; fi
  grep -qF "$2" "$dir/$1.out" || { echo "$1: expected '$2' in:" >&2; cat "$dir/$1.out" >&2; exit 1; }
}

# shellcheck disable=SC2086
"$@" -np 1 -wdir "$dir/a" "$mlc" $run --data data.safetensors : \
     -np 1 -wdir "$dir/b" "$mlc" $run --data data.safetensors > "$dir/bytes.out" 2>&1 || true
expect_refused bytes "error: the ranks of this run disagree: rank 1 has a different data file (its content) from rank 0"

# shellcheck disable=SC2086
"$@" -np 1 -wdir "$dir/a" "$mlc" $run --data data.safetensors : \
     -np 1 -wdir "$dir/b" "$mlc" $run --data copy.safetensors > "$dir/paths.out" 2>&1 ||
  { echo "paths: the same bytes at different paths were refused:" >&2; cat "$dir/paths.out" >&2; exit 1; }
grep -q "trained 2 steps" "$dir/paths.out" || { cat "$dir/paths.out" >&2; exit 1; }

# shellcheck disable=SC2086
"$@" -np 1 -wdir "$dir/a" "$mlc" $run --data data.safetensors : \
     -np 1 -wdir "$dir/b" "$mlc" $run --data copy.safetensors --backend interp > "$dir/backend.out" 2>&1 || true
expect_refused backend "error: the ranks of this run disagree: rank 1 has different training settings"
echo "start-up agreement: different bytes and settings refused, the same bytes at different paths accepted"
