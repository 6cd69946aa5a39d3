"""Markdown report of bench/gemm_libs.sh's measurements (gemm_libs.tsv + gemm_libs.meta).

  python3 bench/gemm_libs_report.py --raw R.tsv --meta M.meta --out gemm_libs.md

Keeps the "## Conclusion" section (to the end of the file) of an existing --out.
"""
import argparse
import math
import os
import re
from collections import OrderedDict

EXAMPLES = ("digits_mlp", "digits_cnn", "tiny_gpt")
LARGE = ("big_mlp", "gpt256")


def load(raw):
    rows = []
    with open(raw) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 14:
                continue
            rows.append({"tag": p[0], "lib": p[1], "threads": int(p[2]), "model": p[3], "ta": p[4],
                         "tb": p[5], "m": int(p[6]), "n": int(p[7]), "k": int(p[8]),
                         "calls": int(p[9]), "us": float(p[10]), "gflops": float(p[11]),
                         "err": float(p[12]), "impl": p[13]})
    return rows


def short_labels(labels):
    out = []
    for lab in labels.split(","):
        lab = re.sub(r"layers\.\d+\.", "", lab)
        if lab not in out:
            out.append(lab)
    return " ".join(out)


def fmt(v, digits=1):
    return "-" if v is None or math.isnan(v) else "%.*f" % (digits, v)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--raw", required=True)
    p.add_argument("--meta", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--shapes", default=None, help="gemm_shapes.txt (labels); default next to --raw")
    a = p.parse_args()
    rows = load(a.raw)
    meta = {"pkg": [], "run": []}
    with open(a.meta) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("\t")
            if k in ("run", "pkg"):
                if k == "run" or v not in meta[k]:
                    meta[k].append(v)
            elif k == "date":
                meta.setdefault("dates", []).append(v)
            else:
                meta[k] = v
    # Tags are "NAME#ROUND": keep, per NAME and thread count, the round in which
    # other processes used the least CPU.
    chosen = {}
    for r in meta["run"]:
        q = r.split("\t")
        key, others = (q[0].partition("#")[0], int(q[2])), float(q[5])
        if key not in chosen or others < chosen[key][1]:
            chosen[key] = (q[0], others)
    keep = {(v[0], k[1]) for k, v in chosen.items()}
    rows = [r for r in rows if (r["tag"], r["threads"]) in keep]
    for r in rows:
        r["tag"] = r["tag"].partition("#")[0]
    labels = {}
    shapes_path = a.shapes or os.path.join(os.path.dirname(a.raw), "gemm_shapes.txt")
    if os.path.exists(shapes_path):
        with open(shapes_path) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                q = line.split()
                labels[(q[0], q[1], q[2], int(q[3]), int(q[4]), int(q[5]))] = q[7] if len(q) > 7 else ""
    labels[("peak", "N", "N", 1024, 1024, 1024)] = "sgemm 1024^3"

    order = []
    for r in meta["run"]:
        name = r.split("\t")[0].partition("#")[0]
        if name not in order:
            order.append(name)
    cols = OrderedDict()
    for r in sorted(rows, key=lambda r: (r["threads"], order.index(r["tag"]) if r["tag"] in order
                                         else len(order))):
        cols.setdefault((r["tag"], r["threads"]), {})
    for r in rows:
        key = (r["model"], r["ta"], r["tb"], r["m"], r["n"], r["k"])
        cols[(r["tag"], r["threads"])][key] = r
    shapes = OrderedDict()
    for r in rows:
        shapes.setdefault((r["model"], r["ta"], r["tb"], r["m"], r["n"], r["k"]), r["calls"])
    one = [c for c in cols if c[1] == 1]

    md = ["# GEMM libraries on mlc's GEMM shapes", "",
          "Written by `bench/gemm_libs.sh` (%s): single-precision GEMM, row-major "
          "C[M,N] = op(A) op(B), alpha 1, beta 0, the shapes of every BLAS call of each model's "
          "compiled train step (`bench/gemm_shapes.py` from `mlc ir --after canonicalize`) plus "
          "1024^3. Each cell: median over %s repetitions of the time per call (each repetition "
          "a loop lasting >= %s ms on the same operands, so small shapes run from cache), as "
          "GFLOP/s = 2MNK / time. One process per library and thread count." % (
              ", ".join(meta.get("dates", ["?"])), meta.get("reps", "?"), meta.get("min_ms", "?")),
          "", "## Machine", "", "```"]
    md += [l for l in meta.get("lscpu", "").split("|") if l]
    md += ["```", ""]
    md += ["- packages: " + ", ".join(meta["pkg"]), "- compiler: " + meta.get("compiler", "?")]
    impls = OrderedDict()
    for c, d in cols.items():
        impls[c] = sorted({r["impl"] for r in d.values()})
    for c, v in impls.items():
        md.append("- %s, %d thread(s): %s; largest relative error of 64 sampled entries vs a "
                  "double-precision product: %.1e" % (c[0], c[1], "; ".join(v),
                                                      max(r["err"] for r in cols[c].values())))
    md += ["", "## Load while measuring", "",
           "`others` is the CPU time other processes used while the measuring process ran, in "
           "cores (from /proc/stat), of %s cores; `#N` is the round. Of several rounds, the tables "
           "below use the one marked *used* (least `others`) per library and thread count." %
           meta.get("nproc", "?"), "",
           "| library#round | threads | load avg before | after | others (cores) | wall s | |",
           "|---|---|---|---|---|---|---|"]
    for r in meta["run"]:
        q = r.split("\t")
        used = "used" if (q[0], int(q[2])) in keep else ""
        md.append("| %s | %s | %s | %s | %s | %s | %s |" % tuple(q[0:1] + q[2:7] + [used]))
    md += ["", "## GFLOP/s per shape", "",
           "ta/tb: A/B transposed; calls: per train step; best 1-thread library in bold. "
           "libxsmm: `otrans+kernel` shapes (B transposed, which its JIT does not take) include "
           "libxsmm_otrans of that operand in the time.", ""]
    head = "| model | ta tb | M | N | K | calls | from | " + " | ".join(
        "%s %dt" % c for c in cols) + " |"
    md += [head, "|" + "---|" * (7 + len(cols))]
    for key, calls in shapes.items():
        model, ta, tb, m, n, k = key
        g = {c: cols[c][key]["gflops"] if key in cols[c] else float("nan") for c in cols}
        best = max((c for c in one if not math.isnan(g[c])), key=lambda c: g[c], default=None)
        cells = []
        for c in cols:
            s = fmt(g[c])
            cells.append("**%s**" % s if c == best else s)
        md.append("| %s | %s %s | %d | %d | %d | %d | %s | %s |" % (
            model, ta, tb, m, n, k, calls, short_labels(labels.get(key, "")), " | ".join(cells)))

    md += ["", "## GEMM time per train step", "",
           "Sum over the model's calls of calls x time per call, in ms (what the step would "
           "spend in GEMM with that library); `best mix` takes the fastest 1-thread library per "
           "shape. The examples' shapes are the small class, big_mlp's and gpt256's the large one.",
           "", "| model | " + " | ".join("%s %dt" % c for c in cols) + " | best mix 1t |",
           "|" + "---|" * (2 + len(cols))]
    models = OrderedDict((k[0], 1) for k in shapes if k[0] != "peak")
    for model in models:
        keys = [k for k in shapes if k[0] == model]
        tot = {}
        for c in cols:
            if all(k in cols[c] and not math.isnan(cols[c][k]["us"]) for k in keys):
                tot[c] = sum(shapes[k] * cols[c][k]["us"] for k in keys) / 1e3
            else:
                tot[c] = float("nan")
        mix = sum(shapes[k] * min(cols[c][k]["us"] for c in one
                                  if k in cols[c] and not math.isnan(cols[c][k]["us"]))
                  for k in keys) / 1e3
        best = min((c for c in one if not math.isnan(tot[c])), key=lambda c: tot[c], default=None)
        cells = ["**%s**" % fmt(tot[c], 3) if c == best else fmt(tot[c], 3) for c in cols]
        md.append("| %s | %s | %s |" % (model, " | ".join(cells), fmt(mix, 3)))
    # Wins per class, 1 thread, weighted by time.
    md += ["", "Shapes won (1 thread) per class, and the class's GEMM time per step summed over "
           "its models:", "", "| class | " + " | ".join("%s" % c[0] for c in one) + " |",
           "|" + "---|" * (1 + len(one))]
    for cls, members in (("small (examples)", EXAMPLES), ("large (big_mlp, gpt256)", LARGE)):
        keys = [k for k in shapes if k[0] in members]
        wins = {c: 0 for c in one}
        tot = {c: 0.0 for c in one}
        for k in keys:
            avail = [c for c in one if k in cols[c] and not math.isnan(cols[c][k]["us"])]
            if avail:
                wins[min(avail, key=lambda c: cols[c][k]["us"])] += 1
            for c in one:
                tot[c] += shapes[k] * cols[c][k]["us"] / 1e3 if c in avail else float("nan")
        md.append("| %s | %s |" % (cls, " | ".join("%d of %d shapes, %s ms" % (
            wins[c], len(keys), fmt(tot[c], 3)) for c in one)))

    conclusion = "## Conclusion\n\n(not written yet)\n"
    if os.path.exists(a.out):
        with open(a.out) as f:
            old = f.read()
        i = old.find("## Conclusion")
        if i >= 0:
            conclusion = old[i:]
    with open(a.out, "w") as f:
        f.write("\n".join(md) + "\n\n" + conclusion)


if __name__ == "__main__":
    main()
