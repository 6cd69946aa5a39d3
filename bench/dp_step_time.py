"""Data-parallel step time: one device against `--mesh dp=2` on threads and under mpirun.

  /usr/bin/python3 bench/dp_step_time.py [--model digits_cnn] [--batch 64] [--runs 7]
      [--steps 200] [--out bench/results/dp_step_time.md]

The model file (examples/MODEL.json) is copied with train.batch_size set to
--batch, the global batch: one device takes all of it per step, each of the
2 ranks half. Per run, one after another (so that the machine's load hits
all of them alike), on a copy of build/bin/mlc taken at the start:

- one device, MLC_THREADS=1 and MLC_THREADS=2 (`mlc run MODEL --steps N`);
- dp=2 on threads: `mlc run MODEL --mesh dp=2` (2 ranks, each on one thread;
  the local communicator, runtime/comm/local.h);
- dp=2 under `mpirun -np 2` (one process per rank, the MPI communicator,
  runtime/comm/mpi.h), when mpirun is found.

The numbers of a run are mlc's own median and mean step (rank 0's on a mesh:
the train step only, its collectives included; not data gathering or
evaluation). On a busy machine the two differ: ranks that sleep while they
wait (MPI's back-off) get many fast steps and a few very slow ones, which the
median hides. The table has the median over runs of each, their range, and
each configuration's time over the one-device times. OPENBLAS_NUM_THREADS follows
MLC_THREADS (1 on a mesh). Like bench/side_by_side.py it records how busy the
rest of the machine was (cores used by other processes during each run): the
numbers are only comparable within one run of this script.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile

from side_by_side import ROOT, measured

CONFIGS = [
    ("one device, 1 thread", "one1"),
    ("one device, 2 threads", "one2"),
    ("dp=2, threads (local communicator)", "threads"),
    ("dp=2, mpirun -np 2 (MPI communicator)", "mpirun"),
]


def model_copy(name, batch, tmp):
    path = os.path.join(ROOT, "examples", name + ".json")
    with open(path) as f:
        text = f.read()
    text, n = re.subn(r'"batch_size": \d+', '"batch_size": %d' % batch, text, count=1)
    if n != 1:
        sys.exit("no train.batch_size in " + path)
    # The data file is relative to the model file: make it absolute.
    text = re.sub(r'"file": "([^"/][^"]*)"',
                  lambda m: '"file": "%s"' % os.path.join(ROOT, "examples", m.group(1)), text, count=1)
    out = os.path.join(tmp, "%s_batch%d.json" % (name, batch))
    with open(out, "w") as f:
        f.write(text)
    return out


def command(config, mlc, model, steps, mpirun):
    run = [mlc, "run", model, "--steps", str(steps)]
    if config == "threads":
        return run + ["--mesh", "dp=2"]
    if config == "mpirun":
        return mpirun + ["-np", "2"] + run + ["--mesh", "dp=2"]
    return run


def step_ms(config, mlc, model, steps, mpirun, env):
    threads = "2" if config == "one2" else "1"
    env = dict(env, MLC_THREADS=threads, OPENBLAS_NUM_THREADS=threads)
    p, wall, others = measured(command(config, mlc, model, steps, mpirun), env)
    m = re.search(r"median step ([0-9.]+) ms \(mean ([0-9.]+)\)", p.stdout)
    return {"median_ms": float(m.group(1)), "mean_ms": float(m.group(2)), "wall_s": wall,
            "others_busy_cores": others, "loadavg1": os.getloadavg()[0]}


def markdown(rows, meta):
    out = ["%s at global batch %d, %d steps per run, %d runs: the median over runs of mlc's median and of "
           "its mean step (rank 0's on the mesh), range in brackets, and each over the one-device times; "
           "others busy = cores used by other processes during the runs (median, max)."
           % (meta["model"], meta["batch"], meta["steps"], meta["runs"]),
           "",
           "| configuration | median ms | / one device 1 thread, 2 threads | mean ms | / one device 1 thread, "
           "2 threads | others busy |",
           "|---|---|---|---|---|---|"]
    for label, key in CONFIGS:
        if key not in rows:
            continue
        r = rows[key]
        cells = []
        for stat in ("median", "mean"):
            v, runs = r[stat + "_ms"], r[stat + "_runs_ms"]
            cells.append("%.3f [%.3f-%.3f] | %.2f, %.2f" % (v, min(runs), max(runs), v / rows["one1"][stat + "_ms"],
                                                           v / rows["one2"][stat + "_ms"]))
        out.append("| %s | %s | %s | %.2f, %.2f |" % (label, cells[0], cells[1], r["others_busy_cores_median"],
                                                      r["others_busy_cores_max"]))
    out += ["", "Command: `%s`" % meta["command"]]
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="digits_cnn")
    p.add_argument("--batch", type=int, default=64, help="the global batch (train.batch_size)")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--steps", type=int, default=200, help="steps per run (mlc's median over all)")
    p.add_argument("--mlc", default=os.path.join(ROOT, "build", "bin", "mlc"))
    p.add_argument("--out", help="write the markdown table here (and every number next to it as .json)")
    a = p.parse_args()
    tmp = tempfile.TemporaryDirectory()
    mlc = os.path.join(tmp.name, "mlc")
    shutil.copy2(a.mlc, mlc)
    model = model_copy(a.model, a.batch, tmp.name)
    mpirun = shutil.which("mpirun")
    mpirun = [mpirun] + (["--allow-run-as-root"] if os.geteuid() == 0 else []) if mpirun else None
    env = dict(os.environ)
    configs = [key for _, key in CONFIGS if key != "mpirun" or mpirun]
    runs = []
    for r in range(a.runs):
        for config in configs:
            m = step_ms(config, mlc, model, a.steps, mpirun, env)
            runs.append(dict(m, run=r, config=config))
            print("run %d %-8s median %8.3f ms  mean %8.3f ms  (others busy %.2f cores)" % (
                r, config, m["median_ms"], m["mean_ms"], m["others_busy_cores"]),
                  file=sys.stderr, flush=True)
    rows = {}
    for config in configs:
        mine = [x for x in runs if x["config"] == config]
        busy = [x["others_busy_cores"] for x in mine]
        rows[config] = {"others_busy_cores_median": statistics.median(busy), "others_busy_cores_max": max(busy)}
        for stat in ("median", "mean"):
            ms = [x[stat + "_ms"] for x in mine]
            rows[config].update({stat + "_ms": statistics.median(ms), stat + "_runs_ms": ms})
    meta = {"model": a.model, "batch": a.batch, "runs": a.runs, "steps": a.steps, "cpu_count": os.cpu_count(),
            "command": "/usr/bin/python3 bench/dp_step_time.py " + " ".join(sys.argv[1:]),
            "loadavg_at_end": list(os.getloadavg())}
    md = markdown(rows, meta)
    print(md, end="")
    if a.out:
        with open(a.out, "w") as f:
            f.write(md)
        with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
            json.dump({"meta": meta, "summary": rows, "runs": runs}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
