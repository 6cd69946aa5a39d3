"""Training-step time of mlc next to PyTorch's, on 1 and 2 threads, alternating runs.

  /usr/bin/python3 bench/side_by_side.py --oracle ORACLE_DIR [--runs 5] [--threads 1,2]
      [--models digits_mlp,digits_cnn,tiny_gpt,big_mlp,gpt256] [--out RESULT.json]

ORACLE_DIR is the shared PyTorch oracle's folder (timing.py, common.py). For each
run, thread count and model, one `mlc run` and then one PyTorch measurement:

- mlc: `build/bin/mlc run MODEL.json --steps 25` (a copy of the binary taken
  at the start, so a rebuild meanwhile does not change it; examples/ for the three
  examples, bench/models/ for big_mlp and gpt256, whose data make_data.py writes
  to bench/models/data if it is missing) with MLC_THREADS=n and
  OPENBLAS_NUM_THREADS=n; the number is mlc's own "median step" (median over
  all 25 steps: the train step only, not data gathering or evaluation).
- PyTorch: timing.py itself in its child mode (`--child-out`), one model and
  one thread config "nxn" per process, so its definitions are the ones
  measured: median of 20 steps after 5 warm-up steps, each step
  zero_grad + forward + loss + backward + optimizer step; timing.py sets torch's
  and OpenBLAS's thread counts itself. Each such process also times
  torch.mm 1024x1024x1024 (OpenBLAS sgemm, 20 reps) on the same threads: that
  is the GEMM library's peak the GFLOP/s columns are compared with.

Both sides get the same OpenBLAS kernels: on AVX-512 hosts OPENBLAS_CORETYPE=
SkylakeX (Debian's OpenBLAS 0.3.21 does not recognise recent CPUs and would
fall back to Prescott kernels; mlc sets the same value itself when unset).

Reported per model and thread count: median over runs of the per-run medians
(and the range of the per-run medians), mlc / PyTorch, and for big_mlp and
gpt256 achieved GFLOP/s with timing.py's exact matmul FLOP count per step
(the same count for both sides) and as a fraction of the sgemm peak. Also the
CPU time other processes used during each measurement (from /proc/stat):
numbers are only comparable within one run of this script on a quiet machine.
Markdown on stdout; every per-run number in --out (JSON); --from JSON prints
the tables of such a file again without measuring.
"""
import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

EXAMPLES = ["digits_mlp", "digits_cnn", "tiny_gpt"]
BENCH = ["big_mlp", "gpt256"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model_file(name):
    return os.path.join(ROOT, "examples" if name in EXAMPLES else os.path.join("bench", "models"),
                        name + ".json")


def busy_jiffies():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)


def measured(cmd, env):
    """Run cmd; return (completed process, wall s, cores used by other processes meanwhile)."""
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    b0, t0 = busy_jiffies(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    b1, ru1 = busy_jiffies(), resource.getrusage(resource.RUSAGE_CHILDREN)
    own = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-4000:]))
    return p, wall, max(0.0, ((b1 - b0) / 100.0 - own) / wall)


def mlc_run(mlc, name, threads, steps, env):
    env = dict(env, MLC_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = [mlc, "run", model_file(name), "--steps", str(steps)]
    p, wall, others = measured(cmd, env)
    ms = float(re.search(r"median step ([0-9.]+) ms", p.stdout).group(1))
    return {"median_ms": ms, "wall_s": wall, "others_busy_cores": others,
            "loadavg1": os.getloadavg()[0]}


def torch_run(oracle, name, threads, env, max_wait):
    env = {k: v for k, v in env.items()
           if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MLC_THREADS")}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "child.json")
        cmd = ["/usr/bin/python3", os.path.join(oracle, "timing.py"), "--out", tmp,
               "--child-out", out, "--variant", "side_by_side", "--models", name,
               "--configs", "%dx%d" % (threads, threads), "--warmup", "5", "--steps", "20",
               "--max-wait", str(max_wait)]
        _, wall, others = measured(cmd, env)
        with open(out) as f:
            res = json.load(f)
    cfg = res["configs"]["%dx%d" % (threads, threads)]
    m = cfg["models"][name]
    arch = [tp.get("architecture") for tp in cfg.get("threadpools", [])
            if tp.get("internal_api") == "openblas"]
    if not arch:
        # timing.py limits OpenBLAS's own thread pool with threadpoolctl and
        # silently skips that without it: "1 thread" would then run PyTorch's
        # GEMMs on every core.
        sys.exit("PyTorch's OpenBLAS thread pool is not limited: install python3-threadpoolctl")
    return {"median_ms": m["step_time_ms"]["median"], "wall_s": wall,
            "others_busy_cores": others,
            "others_busy_cores_during_steps": m.get("others_busy_cores_during"),
            "matmul_flops": m.get("matmul_flops"),
            "sgemm1024_gflops": cfg["matmul_1024"]["median_gflops"],
            "openblas_kernel": arch[0] if arch else None, "loadavg1": os.getloadavg()[0]}


def ensure_bench_data(names):
    data = os.path.join(ROOT, "bench", "models", "data")
    files = {"big_mlp": "big_mlp.safetensors", "gpt256": "gpt256_tokens.safetensors"}
    if any(n in files and not os.path.exists(os.path.join(data, files[n])) for n in names):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "make_data.py"), data],
                       check=True, stdout=subprocess.DEVNULL)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def summarize(runs, models, threads):
    rows = []
    for t in threads:
        for name in models:
            mlc = [r["mlc"]["median_ms"] for r in runs if r["model"] == name and r["threads"] == t]
            tor = [r["torch"]["median_ms"] for r in runs if r["model"] == name and r["threads"] == t]
            peak = [r["torch"]["sgemm1024_gflops"] for r in runs if r["threads"] == t]
            others = [max(r["mlc"]["others_busy_cores"], r["torch"]["others_busy_cores"])
                      for r in runs if r["model"] == name and r["threads"] == t]
            flops = [r["torch"]["matmul_flops"] for r in runs
                     if r["model"] == name and r["torch"]["matmul_flops"]]
            # Each run measures mlc, then PyTorch, back to back: their ratio
            # is less exposed to the machine's drift between runs.
            paired = [x / y for x, y in zip(mlc, tor)]
            row = {"model": name, "threads": t, "mlc_ms": med(mlc), "mlc_ms_runs": mlc,
                   "torch_ms": med(tor), "torch_ms_runs": tor, "ratio": med(mlc) / med(tor),
                   "paired_ratio": med(paired), "paired_ratio_runs": paired,
                   "sgemm1024_peak_gflops": med(peak), "others_busy_cores_max": max(others)}
            if flops and name in BENCH:
                f = flops[0]
                row.update(matmul_flops=f, mlc_gflops=f / med(mlc) / 1e6,
                           torch_gflops=f / med(tor) / 1e6)
            rows.append(row)
    return rows


def markdown(rows, meta):
    out = ["mlc vs PyTorch (timing.py), median of %d per-run medians (range in brackets); per-run mlc / "
           "PyTorch: the median (and range) of each run's ratio, mlc and PyTorch measured back to back; "
           "OPENBLAS_CORETYPE=%s; PyTorch's OpenBLAS kernel: %s." % (
               meta["runs"], meta["OPENBLAS_CORETYPE"], ", ".join(meta["torch_openblas_kernels"])),
           "",
           "| model | threads | mlc ms | PyTorch ms | mlc / PyTorch | per-run mlc / PyTorch | "
           "mlc GFLOP/s (% of sgemm peak) "
           "| PyTorch GFLOP/s (% of peak) | sgemm 1024^3 peak GFLOP/s | others busy (cores, max) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def cell(k):
            v = r[k + "_runs"]
            return "%.3f [%.3f-%.3f]" % (r[k], min(v), max(v))

        def gf(k):
            if k not in r:
                return "-"
            return "%.1f (%.0f%%)" % (r[k], 100 * r[k] / r["sgemm1024_peak_gflops"])
        paired = r.get("paired_ratio_runs") or [x / y for x, y in zip(r["mlc_ms_runs"], r["torch_ms_runs"])]
        out.append("| %s | %d | %s | %s | %.2f | %.2f [%.2f-%.2f] | %s | %s | %.1f | %.2f |" % (
            r["model"], r["threads"], cell("mlc_ms"), cell("torch_ms"), r["ratio"],
            med(paired), min(paired), max(paired),
            gf("mlc_gflops"), gf("torch_gflops"), r["sgemm1024_peak_gflops"],
            r["others_busy_cores_max"]))
    fl = ["%s %.3f GFLOP/step" % (r["model"], r["matmul_flops"] / 1e9) for r in rows
          if "matmul_flops" in r and r["threads"] == rows[0]["threads"]]
    if fl:
        out += ["", "GFLOP/s = timing.py's exact matmul FLOPs per step (%s) / median step time; "
                "sgemm peak = torch.mm 1024^3 in the PyTorch processes, same threads." % ", ".join(fl)]
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", help="folder of timing.py and common.py (required unless --from)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--models", default=",".join(EXAMPLES + BENCH))
    p.add_argument("--steps", type=int, default=25, help="mlc steps per run (median over all)")
    p.add_argument("--max-wait", type=float, default=0.0,
                   help="timing.py's wait for a quiet machine before each PyTorch measurement")
    p.add_argument("--out", help="write every number as JSON here")
    p.add_argument("--from", dest="from_json", metavar="JSON",
                   help="measure nothing: print the tables of an earlier --out file")
    p.add_argument("--mlc", default=os.path.join(ROOT, "build", "bin", "mlc"),
                   help="the mlc binary (copied first, so that every run uses the same one)")
    a = p.parse_args()
    if not a.from_json and not a.oracle:
        p.error("--oracle is required")
    if a.from_json:
        with open(a.from_json) as f:
            saved = json.load(f)
        models = list(dict.fromkeys(r["model"] for r in saved["runs"]))
        threads = list(dict.fromkeys(r["threads"] for r in saved["runs"]))
        print(markdown(summarize(saved["runs"], models, threads), saved["meta"]), end="")
        return
    oracle = os.path.abspath(a.oracle)
    models = a.models.split(",")
    threads = [int(t) for t in a.threads.split(",")]
    for m in models:
        if m not in EXAMPLES + BENCH:
            sys.exit("unknown model %s" % m)
    ensure_bench_data(models)
    env = dict(os.environ)
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_THREAD_TIMEOUT", "OMP_WAIT_POLICY"):
        env.pop(k, None)
    with open("/proc/cpuinfo") as f:
        if " avx512f" in f.read():
            env["OPENBLAS_CORETYPE"] = "SkylakeX"
    tmp = tempfile.TemporaryDirectory()
    mlc = os.path.join(tmp.name, "mlc")
    shutil.copy2(a.mlc, mlc)
    subprocess.run([mlc, "--help"], check=True, stdout=subprocess.DEVNULL)
    runs = []
    for r in range(a.runs):
        for t in threads:
            for name in models:
                m = mlc_run(mlc, name, t, a.steps, env)
                tr = torch_run(oracle, name, t, env, a.max_wait)
                runs.append({"run": r, "threads": t, "model": name, "mlc": m, "torch": tr})
                print("run %d threads %d %-10s mlc %8.3f ms  PyTorch %8.3f ms  (others busy %.2f / "
                      "%.2f cores)" % (r, t, name, m["median_ms"], tr["median_ms"],
                                       m["others_busy_cores"], tr["others_busy_cores"]),
                      file=sys.stderr, flush=True)
    rows = summarize(runs, models, threads)
    meta = {"runs": a.runs, "steps_mlc": a.steps, "OPENBLAS_CORETYPE": env.get("OPENBLAS_CORETYPE"),
            "torch_openblas_kernels": sorted({str(r["torch"]["openblas_kernel"]) for r in runs}),
            "cpu_count": os.cpu_count(), "machine": platform.machine(),
            "loadavg_at_end": list(os.getloadavg())}
    md = markdown(rows, meta)
    print(md, end="")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"meta": meta, "summary": rows, "runs": runs}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
