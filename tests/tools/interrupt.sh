#!/bin/sh
# Ctrl-C (SIGINT) to `mlc run` (driver/interrupt.h): the process stops after
# the step it is in, exits 130, says where the checkpoint is, and
# `--checkpoint-dir DIR --resume` continues from it.
# Usage: interrupt.sh MLC SCRATCH_DIR (run from the source root).
set -u
mlc=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
root=$OLDPWD
"$mlc" run "$root/examples/digits_mlp.json" --steps 100000000 --metrics metrics.jsonl > out 2> err &
job=$!
i=0
until grep -q '^{"step"' metrics.jsonl 2>/dev/null; do  # training has started
  i=$((i + 1))
  [ $i -gt 600 ] && { echo "FAIL: no step in 60 s" >&2; kill -9 $job; exit 1; }
  sleep 0.1
done
kill -INT $job
wait $job
status=$?
[ $status -eq 130 ] || { echo "FAIL: exit status $status, expected 130" >&2; cat out err >&2; exit 1; }
grep -q "^interrupted (Ctrl-C) after step [0-9]*: checkpoint of step [0-9]* written to digits_mlp.interrupted; continue with --checkpoint-dir digits_mlp.interrupted --resume" err ||
  { echo "FAIL: no interruption message" >&2; cat err >&2; exit 1; }
step=$(sed -n 's/^interrupted (Ctrl-C) after step \([0-9]*\):.*/\1/p' err)
ls digits_mlp.interrupted/step_*.safetensors > /dev/null || { echo "FAIL: no checkpoint" >&2; exit 1; }
"$mlc" run "$root/examples/digits_mlp.json" --steps $((step + 2)) --checkpoint-dir digits_mlp.interrupted --resume > resumed 2>&1 ||
  { echo "FAIL: the resumed run failed" >&2; cat resumed >&2; exit 1; }
grep -q "^trained 2 steps" resumed || { echo "FAIL: the resumed run did not train the last 2 steps" >&2; cat resumed >&2; exit 1; }
echo "interrupted after step $step, resumed for 2 more"
