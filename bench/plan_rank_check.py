"""The plan search's cost model against measurement: predicted vs measured step order.

  /usr/bin/python3 bench/plan_rank_check.py [--model examples/tiny_gpt.json]
      [--devices 2 4] [--steps 20] [--runs 1] [--out bench/results/plan_rank_check.md]

For each device count N, `mlc plan MODEL --search --devices N --runnable-only
--format json` lists every plan `mlc run` runs today (data and tensor
parallelism with ZeRO and sequence parallelism; pipelines alone) with its
predicted step time (driver/plan_cost.h, driver/plan_search.h). Each plan is
written as a plan file and run: `mlc run MODEL --plan PLAN --steps S` on N
ranks as threads of one process (one thread each, MLC_THREADS=1), and its
"median step X ms" is the measurement (with --runs R, the median of R runs,
interleaved so that the machine's load hits every plan alike).

Printed (and written to --out): per N, each plan's predicted and measured
step, their ranks, and Spearman's rank correlation between the two (ties
averaged), overall and within the pipelines and the other plans; and the
same for the prediction with the ranks sharing the machine's free cores
(at least the compute of all devices, the search's work_ms, over the cores
the other processes left, up to N), which is how ranks as threads run on a
machine with fewer free cores than ranks. Like the
other programs here it records how busy the rest of the machine was (cores
used by other processes during the runs, support in side_by_side.py): the
ranks on a machine with fewer cores than ranks share cores, which the cost
model (one device per rank) does not know.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from side_by_side import ROOT, measured


def ranks(values):
    """Ranks 1..n, ties given their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    """Pearson's correlation of the ranks (Spearman's rho with ties)."""
    if len(a) < 2:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "examples", "tiny_gpt.json"))
    ap.add_argument("--devices", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--mlc", default=os.path.join(ROOT, "build", "bin", "mlc"))
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    env = dict(os.environ, MLC_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.setdefault("MLC_CACHE_DIR", os.path.join(ROOT, "build", "kernel-cache"))
    lines = ["# Plan search: predicted vs measured step order", "",
             "`%s`, %d steps per run, %d run(s) per plan, %d cores on this machine, ranks as threads (MLC_THREADS=1)."
             % (os.path.relpath(args.model, ROOT), args.steps, args.runs, os.cpu_count()), ""]
    with tempfile.TemporaryDirectory() as tmp:
        # A copy taken at the start: a rebuild during the runs changes nothing.
        mlc = shutil.copy(args.mlc, os.path.join(tmp, "mlc"))
        for n in args.devices:
            p = subprocess.run([mlc, "plan", args.model, "--search", "--devices", str(n), "--runnable-only",
                                "--format", "json", "--top", "100000"], capture_output=True, text=True, env=env)
            if p.returncode != 0:
                sys.exit(p.stderr)
            search = json.loads(p.stdout)
            plans = search["plans"]
            times = {i: [] for i in range(len(plans))}
            busy = []
            for _ in range(args.runs):
                for i, plan in enumerate(plans):
                    path = os.path.join(tmp, "plan%d.json" % i)
                    with open(path, "w") as f:
                        json.dump({"format": "mlc-plan-1", "model": search["model"], "devices": n,
                                   "mesh": plan["mesh"], "zero": plan["zero"], "microbatches": plan["microbatches"],
                                   "schedule": plan["schedule"], "virtual_stages": plan["virtual_stages"],
                                   "sequence_parallel": plan["sequence_parallel"]}, f)
                    out, _, others = measured([mlc, "run", args.model, "--plan", path, "--steps",
                                               str(args.steps)], env)
                    times[i].append(float(re.search(r"median step ([0-9.]+) ms", out.stdout).group(1)))
                    busy.append(others)
            predicted = [plan["step_ms"] for plan in plans]
            # The ranks share this machine's cores: no step is shorter than all
            # the devices' compute spread over the cores the others leave.
            cores = max(1.0, os.cpu_count() - statistics.mean(busy))
            shared = [max(plan["step_ms"], plan["work_ms"] / min(cores, n)) for plan in plans]
            measured_ms = [statistics.median(times[i]) for i in range(len(plans))]
            rp, rm = ranks(predicted), ranks(measured_ms)
            piped = [i for i, plan in enumerate(plans) if "pp=" in plan["mesh"]]
            flat = [i for i in range(len(plans)) if i not in piped]
            rho = spearman(predicted, measured_ms)
            rho_pp = spearman([predicted[i] for i in piped], [measured_ms[i] for i in piped])
            rho_flat = spearman([predicted[i] for i in flat], [measured_ms[i] for i in flat])
            rho_shared = spearman(shared, measured_ms)
            lines += ["## %d devices: %d runnable plans" % (n, len(plans)), "",
                      "Spearman's rho %.3f (pipelines %.3f over %d plans; data/tensor parallel %.3f over %d); "
                      "with the ranks sharing %.2f free cores (each step at least the devices' compute over "
                      "them): %.3f. Other processes kept %.2f cores busy on average (%.2f at most); host rates %s"
                      % (rho, rho_pp, len(piped), rho_flat, len(flat), cores, rho_shared, statistics.mean(busy),
                         max(busy), json.dumps(search["host"])), "",
                      "| plan | predicted ms | rank | on shared cores ms | rank | measured ms | rank |",
                      "|---|---:|---:|---:|---:|---:|---:|"]
            rs = ranks(shared)
            for i in sorted(range(len(plans)), key=lambda i: predicted[i]):
                lines.append("| %s | %.3f | %g | %.3f | %g | %.3f | %g |" % (
                    plans[i]["plan"], predicted[i], rp[i], shared[i], rs[i], measured_ms[i], rm[i]))
            lines.append("")
            print("\n".join(lines[-len(plans) - 6:]), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
