#!/bin/sh
# A rank of `mpirun -np N mlc run --mesh dp=N` that dies or stalls in the
# middle of training: the job must end, every process of it, within 30 s,
# with a non-zero status and an output that names the rank.
#   kill  kill -9 of rank N-1: OpenMPI's mpirun notices the death and ends
#         the others ("process rank 1 ... exited on signal 9").
#   stop  SIGSTOP of rank N-1, --comm-timeout 10: a peer's collective times
#         out naming itself and the missing rank ("rank 0: all_reduce at
#         MODEL:11:14 (optimizer.fc1.weight): timed out after 10 s waiting for
#         rank 1 (...)") and aborts the job, which kills the stopped process.
# The training runs long enough never to end by itself; it is hit once rank 0
# has written step lines to the metrics (training has started). The rank's
# process is the child of mpirun whose environment has
# OMPI_COMM_WORLD_RANK=N-1.
# Usage: mpi_fault.sh kill|stop MLC MODEL.json NP SCRATCH_DIR MPIRUN [MPIRUN_ARGS...]
# (run from the source root). The mesh is dp=NP, or with FAULT_AXIS=pp in
# the environment a pipeline of NP stages (--mesh pp=NP: the ranks block in
# point-to-point sends and receives rather than collectives), or FAULT_MESH
# (of NP ranks).
set -u
mode=$1 mlc=$2 model=$3 np=$4 dir=$5
shift 5
victim=$((np - 1))
rm -rf "$dir" && mkdir -p "$dir"
fail() {
  echo "FAIL: $*" >&2
  echo "---- output of the job:" >&2
  cat "$dir/out" "$dir/err" >&2
  [ -n "${job:-}" ] && kill -9 "$job" $ranks 2>/dev/null
  exit 1
}
now() { date +%s; }
# Running: exists and is not a zombie (an exited process not yet reaped).
alive() {
  case "$(ps -o stat= -p "$1" 2>/dev/null)" in "" | Z*) return 1 ;; esac
}

timeout_flag=
[ "$mode" = stop ] && timeout_flag="--comm-timeout 10"  # the start-up's compilation may skew the ranks by seconds
# shellcheck disable=SC2086
"$@" -np "$np" "$mlc" run "$model" --mesh "${FAULT_MESH:-${FAULT_AXIS:-dp}=$np}" --steps 100000000 $timeout_flag \
  --metrics "$dir/metrics.jsonl" > "$dir/out" 2> "$dir/err" &
job=$!
ranks=

# Training has started: step lines in the metrics (flushed after each epoch).
start=$(now)
until [ -s "$dir/metrics.jsonl" ] && grep -q '"step"' "$dir/metrics.jsonl"; do
  alive "$job" || fail "the job ended before training started"
  [ $(($(now) - start)) -lt 120 ] || fail "no step in the metrics after 120 s"
  sleep 0.2
done

# The ranks' processes: mpirun's children, each with its rank in its environment.
pid=
for child in $(pgrep -P "$job"); do
  ranks="$ranks $child"
  rank=$(tr '\0' '\n' < "/proc/$child/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
  [ "$rank" = "$victim" ] && pid=$child
done
count=$(echo $ranks | wc -w)
[ "$count" -eq "$np" ] || fail "expected $np rank processes under mpirun (pid $job), found $count:$ranks"
[ -n "$pid" ] || fail "no process of rank $victim among$ranks"

if [ "$mode" = kill ]; then kill -9 "$pid"; else kill -STOP "$pid"; fi
hit=$(now)
while alive "$job"; do
  [ $(($(now) - hit)) -le 30 ] || fail "mpirun still running 30 s after rank $victim was hit ($mode)"
  sleep 0.2
done
wait "$job"
status=$?
took=$(($(now) - hit))
[ "$status" -ne 0 ] || fail "mpirun exited 0 after rank $victim was hit ($mode)"

# No process of the job remains.
sleep 1
for p in $ranks; do
  alive "$p" && fail "process $p (a rank) still runs after mpirun exited"
done

if [ "$mode" = kill ]; then
  grep -Eq "rank $victim .*(signal 9|Killed)" "$dir/err" "$dir/out" ||
    fail "the output does not name rank $victim as killed"
else
  # The stalled rank among those waited for ("rank 3 (", or "ranks 1, 3 ("
  # when a peer had already moved on to the next collective).
  grep -Eq "^rank [0-9]+: .+: timed out after 10 s waiting for ranks? ([0-9]+, )*$victim \(" "$dir/err" ||
    fail "no collective timed out naming rank $victim"
fi
echo "mpirun -np $np, rank $victim hit ($mode): the job ended in ${took} s with status $status, naming it:"
grep -hE "rank $victim .*(signal 9|Killed)|timed out after" "$dir/err" "$dir/out" | head -3
exit 0
