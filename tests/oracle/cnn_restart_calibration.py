"""How far do valid f32 PyTorch runs disagree on the digits-CNN per-epoch restarts?

The digits CNN reference run is chaotic after step ~120, so mlc's test restarts training from
each ckpt_epoch{e}.safetensors (parameters + SGD momentum buffers after epoch e, e = 0..3) and
compares the next 45 per-step losses (global steps (e+1)*45 .. (e+2)*45-1) with losses.json.
This script measures the same thing for several valid PyTorch configurations, so that the
tolerance and step range of that test rest on evidence.

For every variant it starts a fresh Python process (OpenBLAS reads OPENBLAS_CORETYPE and oneDNN
reads DNNL_MAX_CPU_ISA only at load time), and that process, reusing the oracle's code
(common.CNN, common.set_threads, common.load_digits, st), for each e:
  * builds the CNN, loads ckpt_epoch{e} into it and puts the momentum buffers into
    torch.optim.SGD(lr=0.1, momentum=0.9).state[p]["momentum_buffer"] -- exactly the state the
    reference loop had after epoch e (buffers exist, so the next step does buf = 0.9*buf + g);
  * trains one epoch with the reference loop (no shuffle, step s uses train rows [32s, 32s+32),
    zero_grad(set_to_none=True), cross_entropy(mean), backward, opt.step()), recording
    loss.item() of each step before its update.
Then it compares each step's loss with losses.json (relative to the reference loss) and writes
a summary JSON (--json) and prints a table.

  /usr/bin/python3 tests/oracle/cnn_restart_calibration.py \
      [--oracle ../shared/oracle] [--ref tests/data/oracle/digits_cnn] \
      [--json tests/data/oracle/digits_cnn/restart_calibration.json]

Takes ~30 s on 2 cores (each variant: torch import + 180 small steps).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
STEPS_PER_EPOCH, BATCH, LR, MOMENTUM = 45, 32, 0.1, 0.9
RESTARTS = (0, 1, 2, 3)
THRESHOLDS = (1e-5, 1e-4)
WINDOWS = (10, 20, 30, 45)

# name -> (description, environment overrides (None = unset), worker arguments)
VARIANTS = [
    ("ref_prescott",
     "digits_cnn.py defaults (1 thread, oneDNN conv) with the OpenBLAS kernel the reference "
     "host used (OPENBLAS_CORETYPE=PRESCOTT); should reproduce losses.json bit for bit",
     {"OPENBLAS_CORETYPE": "PRESCOTT"}, ["--threads", "1", "--margins"]),
    ("host_default",
     "digits_cnn.py defaults, OPENBLAS_CORETYPE unset: whatever kernel OpenBLAS picks on this "
     "host (recorded in env.openblas_architecture)",
     {"OPENBLAS_CORETYPE": None}, ["--threads", "1"]),
    ("skylakex", "1 thread, OPENBLAS_CORETYPE=SKYLAKEX (AVX-512 sgemm)",
     {"OPENBLAS_CORETYPE": "SKYLAKEX"}, ["--threads", "1"]),
    ("cooperlake", "1 thread, OPENBLAS_CORETYPE=COOPERLAKE (AVX-512 sgemm, bf16 host)",
     {"OPENBLAS_CORETYPE": "COOPERLAKE"}, ["--threads", "1"]),
    ("haswell", "1 thread, OPENBLAS_CORETYPE=HASWELL (AVX2/FMA sgemm)",
     {"OPENBLAS_CORETYPE": "HASWELL"}, ["--threads", "1"]),
    ("threads2_prescott", "2 threads (torch + OpenBLAS), Prescott sgemm",
     {"OPENBLAS_CORETYPE": "PRESCOTT"}, ["--threads", "2"]),
    ("threads2_skylakex", "2 threads (torch + OpenBLAS), SKYLAKEX sgemm",
     {"OPENBLAS_CORETYPE": "SKYLAKEX", "OPENBLAS_THREAD_TIMEOUT": "4"}, ["--threads", "2"]),
    ("onednn_avx2", "1 thread, Prescott sgemm, oneDNN limited to AVX2 (DNNL_MAX_CPU_ISA=AVX2): "
                    "different conv kernels/blocking",
     {"OPENBLAS_CORETYPE": "PRESCOTT", "DNNL_MAX_CPU_ISA": "AVX2"}, ["--threads", "1"]),
    ("nomkldnn_prescott", "1 thread, torch.backends.mkldnn.enabled=False: conv via "
                          "im2col + OpenBLAS sgemm (slow_conv2d), Prescott",
     {"OPENBLAS_CORETYPE": "PRESCOTT"}, ["--threads", "1", "--no-mkldnn"]),
    ("nomkldnn_skylakex", "1 thread, mkldnn disabled, conv via im2col + SKYLAKEX sgemm",
     {"OPENBLAS_CORETYPE": "SKYLAKEX"}, ["--threads", "1", "--no-mkldnn"]),
    ("nomkldnn_haswell", "1 thread, mkldnn disabled, conv via im2col + HASWELL sgemm",
     {"OPENBLAS_CORETYPE": "HASWELL"}, ["--threads", "1", "--no-mkldnn"]),
    ("nomkldnn_haswell_t2", "2 threads, mkldnn disabled, conv via im2col + HASWELL sgemm",
     {"OPENBLAS_CORETYPE": "HASWELL", "OPENBLAS_THREAD_TIMEOUT": "4"},
     ["--threads", "2", "--no-mkldnn"]),
    ("onednn_avx2_haswell", "1 thread, HASWELL sgemm, oneDNN limited to AVX2",
     {"OPENBLAS_CORETYPE": "HASWELL", "DNNL_MAX_CPU_ISA": "AVX2"}, ["--threads", "1"]),
    ("onednn_avx2_skylakex", "1 thread, SKYLAKEX sgemm, oneDNN limited to AVX2",
     {"OPENBLAS_CORETYPE": "SKYLAKEX", "DNNL_MAX_CPU_ISA": "AVX2"}, ["--threads", "1"]),
    ("onednn_sse41", "1 thread, Prescott sgemm, oneDNN limited to SSE4.1 (DNNL_MAX_CPU_ISA=SSE41)",
     {"OPENBLAS_CORETYPE": "PRESCOTT", "DNNL_MAX_CPU_ISA": "SSE41"}, ["--threads", "1"]),
]


def default_oracle():
    for cand in (os.path.join(REPO, "..", "shared", "oracle"), os.path.join(REPO, "shared", "oracle")):
        if os.path.exists(os.path.join(cand, "common.py")):
            return os.path.normpath(cand)
    return os.path.normpath(os.path.join(REPO, "..", "shared", "oracle"))


# --------------------------------------------------------------------------- worker
def pool_margins(model, xb):
    """Smallest decision margin of the relu+max_pool2d(2) routing in this batch's forward, per
    conv layer. Per 2x2 window with pre-activations sorted t1 >= t2: the routing of the
    gradient flips if t1 changes sign (margin |t1|, when t2 <= 0) or if t1 and t2 swap (margin
    t1 - t2, when t2 > 0). Exact ties (margin 0, e.g. bias-only values over blank pixels) are
    the same in every implementation and are skipped. Returns [min conv1, min conv2]."""
    import torch
    import torch.nn.functional as F

    def win_margin(z):
        B, C, H, W = z.shape
        w = z.reshape(B, C, H // 2, 2, W // 2, 2).permute(0, 1, 2, 4, 3, 5).reshape(-1, 4)
        t = torch.sort(w.double(), dim=1, descending=True).values
        m = torch.where(t[:, 1] > 0, t[:, 0] - t[:, 1], t[:, 0].abs())
        m = m[m > 0]
        return float(m.min()) if m.numel() else None

    with torch.no_grad():
        z1 = model.conv1(xb)
        z2 = model.conv2(F.max_pool2d(F.relu(z1), 2))
    return [win_margin(z1), win_margin(z2)]


def worker(args):
    sys.path.insert(0, args.oracle)
    import torch
    import torch.nn.functional as F
    import common
    import st

    common.set_threads(args.threads)
    if args.no_mkldnn:
        torch.backends.mkldnn.enabled = False
    d, dpath = common.load_digits(args.data)
    xtr, ytr = d["train_images"], d["train_labels"]
    assert len(xtr) // BATCH == STEPS_PER_EPOCH
    out = {"losses": {}, "step_ms": {}}
    for e in args.epochs:
        torch.manual_seed(0)
        model = common.CNN()
        ck, _ = st.load(os.path.join(args.ref, "ckpt_epoch%d.safetensors" % e))
        params = {k: v for k, v in ck.items() if not k.endswith(".momentum_buffer")}
        model.load_state_dict(params, strict=True)
        opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
        for name, p in model.named_parameters():
            opt.state[p]["momentum_buffer"] = ck[name + ".momentum_buffer"].clone()
        model.train()
        losses, t0 = [], time.perf_counter()
        margins = []
        for s in range(STEPS_PER_EPOCH):
            xb, yb = xtr[s * BATCH:(s + 1) * BATCH], ytr[s * BATCH:(s + 1) * BATCH]
            if args.margins:
                margins.append(pool_margins(model, xb))
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        out["losses"][str(e)] = losses
        if args.margins:
            out.setdefault("margins", {})[str(e)] = margins
        out["step_ms"][str(e)] = (time.perf_counter() - t0) * 1e3 / STEPS_PER_EPOCH
    env = common.env_info()
    out["env"] = {
        "torch": env["torch"], "threads": env["threads"],
        "mkldnn_enabled": bool(torch.backends.mkldnn.enabled),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "DNNL_MAX_CPU_ISA": os.environ.get("DNNL_MAX_CPU_ISA"),
        "openblas_architecture": next((t.get("architecture") for t in env["threadpools"]
                                       if t.get("internal_api") == "openblas"), None),
        "openblas_threads": next((t.get("num_threads") for t in env["threadpools"]
                                  if t.get("internal_api") == "openblas"), None),
        "data_sha256": common.sha256(dpath),
    }
    with open(args.worker_out, "w") as f:
        json.dump(out, f)


# --------------------------------------------------------------------------- driver
def fmt_json(obj, indent=0):
    """JSON with lists of scalars kept on one line (small and readable)."""
    pad, pad1 = " " * indent, " " * (indent + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [pad1 + json.dumps(k) + ": " + fmt_json(v, indent + 1) for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj):
        return "[\n" + ",\n".join(pad1 + fmt_json(v, indent + 1) for v in obj) + "\n" + pad + "]"
    return json.dumps(obj)


def sig(x, n=3):
    return None if x is None else float("%.*g" % (n, x))


def first_over(rel, thr):
    return next((i for i, r in enumerate(rel) if r > thr), None)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", default=default_oracle(), help="the oracle folder (common.py, st.py)")
    p.add_argument("--ref", default=os.path.join(REPO, "tests", "data", "oracle", "digits_cnn"),
                   help="folder with losses.json and ckpt_epoch{0..3}.safetensors")
    p.add_argument("--data", default=None, help="digits.safetensors (default: the oracle's)")
    p.add_argument("--json", default=os.path.join(REPO, "tests", "data", "oracle", "digits_cnn",
                                                  "restart_calibration.json"))
    p.add_argument("--variants", default=None, help="comma-separated subset of variant names")
    p.add_argument("--per-step", action="store_true", help="also print the per-step table")
    # worker mode (internal)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--worker-out", help=argparse.SUPPRESS)
    p.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--no-mkldnn", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--margins", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--epochs", type=lambda s: [int(x) for x in s.split(",")],
                   default=list(RESTARTS), help=argparse.SUPPRESS)
    args = p.parse_args()
    args.oracle = os.path.abspath(args.oracle)
    args.ref = os.path.abspath(args.ref)
    if args.worker:
        return worker(args)

    ref = json.load(open(os.path.join(args.ref, "losses.json")))
    R = ref["losses"]
    variants = VARIANTS
    if args.variants:
        want = args.variants.split(",")
        variants = [v for v in VARIANTS if v[0] in want]
    runs, t_start = {}, time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for name, desc, envo, wargs in variants:
            env = dict(os.environ)
            for k in ("OPENBLAS_CORETYPE", "DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA",
                      "OPENBLAS_THREAD_TIMEOUT", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
                env.pop(k, None)
            env.update({k: v for k, v in envo.items() if v is not None})
            wo = os.path.join(tmp, name + ".json")
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--worker-out", wo,
                   "--oracle", args.oracle, "--ref", args.ref] + wargs
            if args.data:
                cmd += ["--data", os.path.abspath(args.data)]
            t0 = time.time()
            subprocess.run(cmd, env=env, check=True)
            runs[name] = json.load(open(wo))
            print("ran %-18s in %5.1f s  (openblas %s, %s thr, mkldnn %s)" % (
                name, time.time() - t0, runs[name]["env"]["openblas_architecture"],
                runs[name]["env"]["threads"], runs[name]["env"]["mkldnn_enabled"]), flush=True)

    names = [v[0] for v in variants]
    res = {
        "note": ("Per-epoch restart calibration of the digits CNN: for each valid f32 PyTorch "
                 "variant and each restart e, training restarts from ckpt_epoch{e} (params + "
                 "SGD momentum) and runs one epoch (45 steps, global steps (e+1)*45 .. "
                 "(e+2)*45-1); rel = |loss_variant - loss_ref| / |loss_ref| against losses.json. "
                 "Step indices are relative to the restart (0 = global step (e+1)*45). "
                 "Generated by tests/oracle/cnn_restart_calibration.py."),
        "torch": runs[names[0]]["env"]["torch"],
        "python": sys.version.split()[0],
        "host_cpu": _cpu_name(),
        "reference_env": {"openblas_architecture": next(
            (t.get("architecture") for t in ref.get("env", {}).get("threadpools", [])
             if t.get("internal_api") == "openblas"), None), "threads": ref.get("threads")},
        "thresholds": list(THRESHOLDS),
        "variants": {n: {"description": d, "env": {k: v for k, v in eo.items()},
                         "args": wa, "observed": runs[n]["env"]}
                     for n, d, eo, wa in variants},
        "restarts": {},
        "runtime_s": None,
    }
    reproduce = {}
    for e in RESTARTS:
        g0 = (e + 1) * STEPS_PER_EPOCH
        Re = R[g0:g0 + STEPS_PER_EPOCH]
        rel = {n: [abs(a - b) / abs(b) for a, b in zip(runs[n]["losses"][str(e)], Re)] for n in names}
        per_var = {}
        for n in names:
            r = rel[n]
            per_var[n] = {
                "bit_identical": runs[n]["losses"][str(e)] == Re,
                "first_step_over_1e-5": first_over(r, 1e-5),
                "first_step_over_1e-4": first_over(r, 1e-4),
                "max_rel": {str(w): sig(max(r[:w])) for w in WINDOWS},
                "rel_per_step": [sig(x, 2) for x in r],
            }
        anyv = [max(rel[n][s] for n in names) for s in range(STEPS_PER_EPOCH)]
        # spread among all valid runs, the reference included: (max - min) / |ref|
        allruns = [[runs[n]["losses"][str(e)][s] for n in names] + [Re[s]]
                   for s in range(STEPS_PER_EPOCH)]
        spread = [(max(v) - min(v)) / abs(Re[s]) for s, v in enumerate(allruns)]
        res["restarts"][str(e)] = {
            "global_steps": [g0, g0 + STEPS_PER_EPOCH - 1],
            "any_variant": {
                "first_step_over_1e-5": first_over(anyv, 1e-5),
                "first_step_over_1e-4": first_over(anyv, 1e-4),
                "max_rel": {str(w): sig(max(anyv[:w])) for w in WINDOWS},
                "max_pairwise_spread": {str(w): sig(max(spread[:w])) for w in WINDOWS},
                "worst_variant_45": max(names, key=lambda n: max(rel[n])),
            },
            "envelope_min": [min(v) for v in allruns],
            "envelope_max": [max(v) for v in allruns],
            "variants": per_var,
        }
        mg = runs[names[0]].get("margins", {}).get(str(e))
        if mg:
            rr = res["restarts"][str(e)]
            rr["ref_routing_margin"] = {
                "note": ("smallest relu/max-pool routing margin of each step's forward in the "
                         "%s run (see pool_margins); a margin near f32 rounding of the "
                         "activations (~1e-7..1e-6) is where valid runs can take different "
                         "gradient routes" % names[0]),
                "conv1": [sig(m[0], 2) for m in mg], "conv2": [sig(m[1], 2) for m in mg]}
        # variants that left the reference trajectory (> 1e-4 somewhere) and the rest
        split = [n for n in names if max(rel[n]) > 1e-4]
        same = [n for n in names if n not in split]
        rr = res["restarts"][str(e)]
        rr["split_variants"] = {}
        for n in split:
            k = first_over(rel[n], 1e-5)
            info = {"first_step_over_1e-5": k, "first_step_over_1e-4": first_over(rel[n], 1e-4)}
            if mg and k:
                cand = [(min(x for x in mg[j] if x is not None), j) for j in range(k)]
                m, j = min(cand)
                info["smallest_ref_margin_before"] = {"step": j, "global_step": g0 + j,
                                                      "margin": sig(m, 2)}
            rr["split_variants"][n] = info
        if split:
            anys = [max(rel[n][s] for n in same) for s in range(STEPS_PER_EPOCH)] if same else None
            rr["any_variant_excluding_split"] = None if anys is None else {
                "first_step_over_1e-5": first_over(anys, 1e-5),
                "first_step_over_1e-4": first_over(anys, 1e-4),
                "max_rel": {str(w): sig(max(anys[:w])) for w in WINDOWS}}
        reproduce[e] = per_var[names[0]]
    res["runtime_s"] = round(time.time() - t_start, 1)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        f.write(fmt_json(res) + "\n")

    # ---- readable output
    print("\n%s vs losses.json (reproduction check): %s" % (names[0], ", ".join(
        "e%d bit_identical=%s max_rel=%.2g" % (e, r["bit_identical"], r["max_rel"]["45"])
        for e, r in reproduce.items())))
    if args.per_step:
        for e in RESTARTS:
            rr = res["restarts"][str(e)]
            print("\nrestart from ckpt_epoch%d: rel diff to losses.json per step" % e)
            print("%4s %5s %10s %8s " % ("k", "step", "ref loss", "margin") +
                  " ".join("%9.9s" % n for n in names))
            g0 = rr["global_steps"][0]
            mg = rr.get("ref_routing_margin")
            for s in range(STEPS_PER_EPOCH):
                m = min(x for x in (mg["conv1"][s], mg["conv2"][s]) if x is not None) if mg else float("nan")
                print("%4d %5d %10.6f %8.1e " % (s, g0 + s, R[g0 + s], m) + " ".join(
                    "%9.1e" % rr["variants"][n]["rel_per_step"][s] for n in names))
    print("\nper restart, per variant: first step (rel. to restart) over 1e-5 / 1e-4;"
          " max rel over first 10/20/30/45 steps")
    for e in RESTARTS:
        rr = res["restarts"][str(e)]
        print("\nckpt_epoch%d (global steps %d..%d)" % (e, *rr["global_steps"]))
        print("  %-20s %6s %6s %9s %9s %9s %9s" % ("variant", ">1e-5", ">1e-4", "max@10", "max@20",
                                                   "max@30", "max@45"))
        rows = [(n, rr["variants"][n]) for n in names] + [("ANY VARIANT", rr["any_variant"])]
        if rr.get("any_variant_excluding_split"):
            rows.append(("ANY EXCEPT SPLIT", rr["any_variant_excluding_split"]))
        for n, v in rows:
            print("  %-20s %6s %6s %9.2g %9.2g %9.2g %9.2g" % (
                n, _s(v["first_step_over_1e-5"]), _s(v["first_step_over_1e-4"]),
                *[v["max_rel"][str(w)] for w in WINDOWS]))
        for n, info in rr["split_variants"].items():
            print("  split: %s leaves the reference trajectory at step %s (>1e-5), %s (>1e-4); "
                  "smallest relu/pool routing margin before that in the reference run: %s" % (
                      n, info["first_step_over_1e-5"], info["first_step_over_1e-4"],
                      info.get("smallest_ref_margin_before")))
        print("  %-20s %6s %6s %9.2g %9.2g %9.2g %9.2g" % (
            "spread(max-min)", "", "", *[rr["any_variant"]["max_pairwise_spread"][str(w)]
                                          for w in WINDOWS]))
    print("\nwrote %s (%.1f s)" % (args.json, res["runtime_s"]))


def _s(x):
    return "-" if x is None else str(x)


def _cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


if __name__ == "__main__":
    main()
