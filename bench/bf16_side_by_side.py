"""mlc's bf16 training step next to its f32 step and PyTorch's CPU bf16 autocast step.

  /usr/bin/python3 bench/bf16_side_by_side.py --oracle ORACLE_DIR [--runs 5] [--threads 1,2]
      [--models tiny_gpt,gpt256] [--out RESULT.json]

For each run, thread count and model, in turn: `mlc run` of the f32 model file
and of its "mixed_precision": "bf16" copy (examples/tiny_gpt.json and
bench/models/tiny_gpt_bf16.json; bench/models/gpt256.json and gpt256_bf16.json),
then one process of bench/torch_bf16_step.py, which times PyTorch's step as is
and under torch.autocast("cpu", dtype=torch.bfloat16) (the oracle timing.py's
step definitions). mlc's number is its own "median step" over --mlc-steps
steps (MLC_THREADS=n, OPENBLAS_NUM_THREADS=n; a copy of build/bin/mlc taken at
the start); PyTorch's is the median of 20 steps after 5 warm-up steps.

Reported per model and thread count: the median over runs of each per-run
median and their range, and the ratios mlc bf16 / mlc f32 and mlc bf16 /
PyTorch bf16 (ratio of medians, and median of the per-run ratios), with the
CPU time other processes used meanwhile (side_by_side.py's measure). The
first lines say whether the CPU has AMX and AVX512-BF16.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from side_by_side import ROOT, ensure_bench_data, measured  # noqa: E402

MODELS = {"tiny_gpt": ("examples/tiny_gpt.json", "bench/models/tiny_gpt_bf16.json"),
          "gpt256": ("bench/models/gpt256.json", "bench/models/gpt256_bf16.json")}


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def torch_run(oracle, name, threads, env):
    env = {k: v for k, v in env.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MLC_THREADS")}
    cmd = ["/usr/bin/python3", os.path.join(ROOT, "bench", "torch_bf16_step.py"), "--oracle", oracle,
           "--models", name, "--threads", str(threads), "--warmup", "5", "--steps", "20"]
    p, _, others = measured(cmd, env)
    out = {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        out[r["mode"]] = r["median_ms"]
    return {"f32": out["f32"], "bf16": out["bf16"], "others_busy_cores": others, "torch": r["torch"]}


def mlc_run(mlc, path, threads, steps, env):
    env = dict(env, MLC_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    p, _, others = measured([mlc, "run", path, "--steps", str(steps)], env)
    return {"median_ms": float(re.search(r"median step ([0-9.]+) ms", p.stdout).group(1)),
            "others_busy_cores": others}


def med(xs):
    return statistics.median(xs)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--oracle", required=True)
    a.add_argument("--runs", type=int, default=5)
    a.add_argument("--threads", default="1,2")
    a.add_argument("--models", default="tiny_gpt,gpt256")
    a.add_argument("--mlc-steps", type=int, default=10)
    a.add_argument("--out")
    args = a.parse_args()
    models = args.models.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    ensure_bench_data(models)
    tmp = tempfile.mkdtemp()
    mlc = os.path.join(tmp, "mlc")
    shutil.copy(os.path.join(ROOT, "build", "bin", "mlc"), mlc)
    env = dict(os.environ)
    env.setdefault("MLC_CACHE_DIR", os.path.join(ROOT, "build", "kernel-cache"))
    runs = []
    for r in range(args.runs):
        for t in threads:
            for name in models:
                f32_file, bf16_file = (os.path.join(ROOT, p) for p in MODELS[name])
                row = {"run": r, "threads": t, "model": name}
                row["mlc_f32"] = mlc_run(mlc, f32_file, t, args.mlc_steps, env)
                row["mlc_bf16"] = mlc_run(mlc, bf16_file, t, args.mlc_steps, env)
                row["torch"] = torch_run(args.oracle, name, t, env)
                runs.append(row)
                print("run %d, %d thread(s), %s: mlc f32 %.2f, bf16 %.2f ms; PyTorch f32 %.2f, bf16 %.2f ms"
                      % (r + 1, t, name, row["mlc_f32"]["median_ms"], row["mlc_bf16"]["median_ms"],
                         row["torch"]["f32"], row["torch"]["bf16"]), file=sys.stderr)
    shutil.rmtree(tmp)
    flags = cpu_flags()
    meta = {"cpu": cpu_name(), "amx_bf16": "amx_bf16" in flags, "avx512_bf16": "avx512_bf16" in flags,
            "avx512_fp16": "avx512_fp16" in flags, "cores": os.cpu_count(), "runs": args.runs,
            "mlc_steps": args.mlc_steps, "torch": runs[0]["torch"]["torch"] if runs else None}
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"meta": meta, "runs": runs}, f, indent=1)
    print("CPU: %s, %d cores; AMX-BF16 %s, AVX512-BF16 %s, AVX512-FP16 %s; PyTorch %s; %d runs"
          % (meta["cpu"], meta["cores"], "yes" if meta["amx_bf16"] else "no",
             "yes" if meta["avx512_bf16"] else "no", "yes" if meta["avx512_fp16"] else "no", meta["torch"],
             args.runs))
    print()
    print("| model | threads | mlc f32 ms | mlc bf16 ms | PyTorch f32 ms | PyTorch bf16 ms | mlc bf16 / mlc f32 "
          "| mlc bf16 / PyTorch bf16 | others' cores (max) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in models:
        for t in threads:
            rows = [x for x in runs if x["model"] == name and x["threads"] == t]
            f32 = [x["mlc_f32"]["median_ms"] for x in rows]
            b16 = [x["mlc_bf16"]["median_ms"] for x in rows]
            tf = [x["torch"]["f32"] for x in rows]
            tb = [x["torch"]["bf16"] for x in rows]
            busy = max(max(x["mlc_f32"]["others_busy_cores"], x["mlc_bf16"]["others_busy_cores"],
                           x["torch"]["others_busy_cores"]) for x in rows)

            def cell(xs):
                return "%.2f (%.2f-%.2f)" % (med(xs), min(xs), max(xs))

            def ratio(num, den):
                return "%.2f / %.2f" % (med(num) / med(den), med([n / d for n, d in zip(num, den)]))

            print("| %s | %d | %s | %s | %s | %s | %s | %s | %.2f |"
                  % (name, t, cell(f32), cell(b16), cell(tf), cell(tb), ratio(b16, f32), ratio(b16, tb), busy))
    print()
    print("Cells: median over runs of each run's median step (range). Ratios: ratio of medians / median of "
          "per-run ratios.")


if __name__ == "__main__":
    main()
