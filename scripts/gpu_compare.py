"""Comparisons of two runs for scripts/gpu_check.sh, with nothing but the standard library.

  gpu_compare.py losses GOT.jsonl WANT.jsonl|WANT.json --rtol R
      every step's loss (mlc's metrics file, or an oracle's {"losses": [...]}):
      |got - want| <= R * |want|; R = 0: the same float, bit for bit
  gpu_compare.py params GOT.safetensors WANT.safetensors --atol A [--ignore a,b]
      every tensor of WANT in GOT with its dtype and shape, max |got - want| <= A
      (F32/F64); A = 0: the same bytes

Prints one line with the worst case; exit status 1 when a check fails.
"""
import argparse
import array
import json
import struct
import sys


def read_losses(path):
    if path.endswith(".json"):
        with open(path) as f:
            return [float(x) for x in json.load(f)["losses"]]
    losses = []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if "step" in rec and "loss" in rec and "eval" not in rec:
                losses.append(float(rec["loss"]))
    return losses


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    header.pop("__metadata__", None)
    return {name: (e["dtype"], e["shape"], data[e["data_offsets"][0]:e["data_offsets"][1]]) for name, e in header.items()}


def losses(a):
    got, want = read_losses(a.got), read_losses(a.want)
    if not want or len(got) != len(want):
        print("FAIL losses: %d steps in %s, %d in %s" % (len(got), a.got, len(want), a.want))
        return 1
    worst, at = 0.0, 0
    bad = 0
    for i, (g, w) in enumerate(zip(got, want)):
        rel = 0.0 if g == w else abs(g - w) / abs(w) if w else float("inf")
        if rel > worst:
            worst, at = rel, i
        bad += rel > a.rtol
    verdict = "PASS" if not bad else "FAIL"
    print("%s losses: %d steps, largest relative difference %.3g at step %d (%.9g vs %.9g), tolerance %g%s"
          % (verdict, len(want), worst, at, got[at], want[at], a.rtol, "" if not bad else "; %d steps over" % bad))
    return 1 if bad else 0


def params(a):
    got, want = read_safetensors(a.got), read_safetensors(a.want)
    ignore = set(filter(None, (a.ignore or "").split(",")))
    problems, worst, worst_name = [], 0.0, ""
    for name, (dtype, shape, raw) in want.items():
        if name in ignore:
            continue
        if name not in got:
            problems.append("%s missing" % name)
            continue
        gd, gs, graw = got[name]
        if (gd, gs) != (dtype, shape):
            problems.append("%s: %s%s, want %s%s" % (name, gd, gs, dtype, shape))
            continue
        if graw == raw:
            continue
        if a.atol == 0 or dtype not in ("F32", "F64"):
            problems.append("%s: bytes differ" % name)
            continue
        code = "f" if dtype == "F32" else "d"
        g, w = array.array(code, graw), array.array(code, raw)
        diff = max(abs(x - y) for x, y in zip(g, w))
        if diff > worst:
            worst, worst_name = diff, name
        if not diff <= a.atol:
            problems.append("%s: max |difference| %.3g" % (name, diff))
    n = len(want) - len(ignore & set(want))
    if problems:
        print("FAIL params: %d of %d tensors: %s" % (len(problems), n, "; ".join(problems[:5])))
        return 1
    print("PASS params: %d tensors, largest |difference| %.3g%s, tolerance %g%s"
          % (n, worst, " (%s)" % worst_name if worst_name else "", a.atol,
             "; not compared: " + ", ".join(sorted(ignore)) if ignore else ""))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("losses")
    p.add_argument("got")
    p.add_argument("want")
    p.add_argument("--rtol", type=float, required=True)
    p = sub.add_parser("params")
    p.add_argument("got")
    p.add_argument("want")
    p.add_argument("--atol", type=float, required=True)
    p.add_argument("--ignore")
    a = ap.parse_args()
    try:
        return losses(a) if a.what == "losses" else params(a)
    except (OSError, ValueError, KeyError) as e:
        print("FAIL %s: %s" % (a.what, e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
