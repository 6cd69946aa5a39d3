"""GPT-2 124M training step on a GPU: mlc (`mlc run --device cuda`) next to PyTorch (torch.compile).

  python3 bench/gpu_bench.py [--mlc build/bin/mlc] [--steps 20] [--out DIR]
  python3 bench/gpu_bench.py --dry-run          # tiny shapes: mlc on --device host-gpu, PyTorch on the CPU
  python3 bench/gpu_bench.py --write-model      # (re)writes bench/models/gpt2_124m_bf16.json

The model is GPT-2 small's shape as llm.c trains it: 12 layers, width 768, 12
heads, sequence 1024, vocabulary 50304 (50257 padded), LayerNorm, exact GELU,
learned positions, the token embedding tied to the head, biases everywhere;
bf16 autocast (train.mixed_precision "bf16": master weights and AdamW state in
f32); batch 8. bench/models/gpt2_124m_bf16.json is what model_json() writes
for that shape. The data is random tokens below 50257, written at run time
(OUT/gpt2_tokens.safetensors): `tokens` I64 [(steps + warm-up) * batch, 1025],
one epoch for the whole run, each step its own batch, the same on both
sides; `eval_tokens` [batch, 1025], which mlc evaluates once, at the end.

mlc: one `mlc run MODEL --device cuda --steps N` (its "median step": the
compiled train step, arguments copied to the GPU and back every step, CUDA
graph replay), GPU memory sampled with nvidia-smi while it runs; at the end,
if --budget leaves time, a short `--profile` run (eager, an event between
instructions) for the time per instruction kind. PyTorch: a nanoGPT-style module of the same shapes and
parameter count (attention by scaled_dot_product_attention), torch.compile,
torch.autocast(bfloat16), AdamW (fused where available) with the same
hyperparameters, on the same batches; the median of N steps after warm-up.
Each side runs in its own process with a timeout: a failure or a timeout of
one is reported with its error, and the other is still measured; where
torch.compile fails (Triton needs a C compiler and Python's headers), PyTorch
is measured eager, and the report says so.

Reported per side: median step, tokens/s, MFU = tokens/s * FLOPs per token /
989e12 (H100 SXM's dense bf16 peak) with llm.c's count, FLOPs per token =
6 N + 6 L C T (N parameters, L layers, C width, T sequence), and memory (mlc:
the planned train-step arena, parameters and optimizer state it prints, and
the GPU's peak use; PyTorch: torch.cuda.max_memory_allocated/reserved).
Everything printed also goes to OUT/gpu_bench.txt, the numbers to
OUT/gpu_bench.json (OUT: --out, else $OUT, else gpu-results/).
"""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_PATH = os.path.join(ROOT, "bench", "models", "gpt2_124m_bf16.json")
PEAK_FLOPS = 989e12  # H100 SXM dense bf16, llm.c's "promised" figure

FULL = dict(name="gpt2_124m_bf16", layers=12, width=768, heads=12, seq=1024, vocab=50304, batch=8,
            data_vocab=50257)
TINY = dict(name="gpt2_tiny_bf16", layers=2, width=64, heads=4, seq=64, vocab=512, batch=4, data_vocab=500)
OPTIM = dict(lr=6e-4, betas=[0.9, 0.95], eps=1e-8, weight_decay=0.1)


# ---- the model file

def model_json(c):
    """The model file of config c (GPT-2's block, as examples/gpt2_tied.json writes it)."""
    C, H, T = c["width"], c["heads"], c["seq"]
    D = C // H
    view = "view(x.size(0), x.size(1), %d, %d).transpose(1, 2)" % (H, D)
    linear = lambda i, o: {"type": "Linear", "in_features": i, "out_features": o}
    attn = {
        "layers": {"q": linear(C, C), "k": linear(C, C), "v": linear(C, C), "o": linear(C, C)},
        "forward": [
            "qh = q(x)." + view,
            "kh = k(x)." + view,
            "vh = v(x)." + view,
            "att = qh @ kh.transpose(-2, -1) / %s" % repr(float(D) ** 0.5),
            "att = att.masked_fill(tril(ones(x.size(1), x.size(1))) == 0, -inf)",
            "att = softmax(att, dim=-1)",
            "y = (att @ vh).transpose(1, 2).contiguous().view(x.size(0), x.size(1), %d)" % C,
            "return o(y)",
        ],
    }
    block = {
        "layers": {
            "ln_1": {"type": "LayerNorm", "normalized_shape": C},
            "attn": attn,
            "ln_2": {"type": "LayerNorm", "normalized_shape": C},
            "mlp": {"layers": {"c_fc": linear(C, 4 * C), "c_proj": linear(4 * C, C)},
                    "forward": ["return c_proj(gelu(c_fc(x)))"]},
        },
        "forward": ["x = x + attn(ln_1(x))", "return x + mlp(ln_2(x))"],
    }
    return {
        "name": c["name"],
        "inputs": {"tokens": {"dtype": "i64", "shape": ["batch", T]},
                   "targets": {"dtype": "i64", "shape": ["batch", T]}},
        "model": {
            "inputs": ["tokens"],
            "layers": {
                "wte": {"type": "Embedding", "num_embeddings": c["vocab"], "embedding_dim": C},
                "wpe": {"type": "Embedding", "num_embeddings": T, "embedding_dim": C},
                "h": {"repeat": c["layers"], "block": block},
                "ln_f": {"type": "LayerNorm", "normalized_shape": C},
            },
            "forward": ["x = wte(tokens) + wpe(arange(tokens.size(1)))", "x = ln_f(h(x))",
                        "return x @ wte.weight.T"],
        },
        "loss": {"type": "cross_entropy", "targets": "targets"},
        "data": {"file": "data/%s_tokens.safetensors" % c["name"],
                 "train": {"tokens": "tokens[:, :-1]", "targets": "tokens[:, 1:]"},
                 "eval": {"tokens": "eval_tokens[:, :-1]", "targets": "eval_tokens[:, 1:]"}},
        "train": {
            "batch_size": c["batch"], "eval_batch_size": c["batch"], "steps": 20, "shuffle": False,
            "drop_last": True, "seed": 0, "mixed_precision": "bf16",
            "optimizer": dict(type="adamw", decay="2d", **OPTIM),
        },
    }


def compact_json(v, indent=0, width=110):
    """JSON with every object or list that fits in `width` columns on one line, as the example files are."""
    flat = json.dumps(v)
    if len(flat) + indent <= width or not isinstance(v, (dict, list)) or not v:
        return flat
    pad = " " * (indent + 2)
    if isinstance(v, dict):
        items = ["%s%s: %s" % (pad, json.dumps(k), compact_json(x, indent + 2, width)) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + compact_json(x, indent + 2, width) for x in v]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def model_text(c):
    return compact_json(model_json(c)) + "\n"


def num_params(c):
    """Parameters (the head tied to wte): llm.c's N, 124,475,904 for GPT-2 small at vocabulary 50304."""
    C, L = c["width"], c["layers"]
    return c["vocab"] * C + c["seq"] * C + L * (12 * C * C + 13 * C) + 2 * C


def flops_per_token(c):
    """llm.c's count (PaLM's appendix B): 6 N + 6 L C T."""
    return 6 * num_params(c) + 6 * c["layers"] * c["width"] * c["seq"]


# ---- data

def write_tokens(path, rows, eval_rows, cols, vocab, seed=0):
    """tokens: I64 [rows, cols] and eval_tokens: I64 [eval_rows, cols] in a safetensors file, uniform in
    [0, vocab). Enough rows for every step in one epoch, so that mlc evaluates (eval_tokens) once, at the end."""
    rng = random.Random(seed)
    header, blobs, offset = {}, [], 0
    for name, n in (("tokens", rows), ("eval_tokens", eval_rows)):
        data = struct.pack("<%dq" % (n * cols), *(rng.randrange(vocab) for _ in range(n * cols)))
        header[name] = {"dtype": "I64", "shape": [n, cols], "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_tokens(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        meta = json.loads(f.read(n))["tokens"]
        rows, cols = meta["shape"]
        f.seek(8 + n + meta["data_offsets"][0])
        return rows, cols, f.read(rows * cols * 8)


# ---- output

class Log:
    def __init__(self, path):
        self.f = open(path, "w")

    def __call__(self, *args):
        text = " ".join(str(a) for a in args)
        print(text, flush=True)
        self.f.write(text + "\n")
        self.f.flush()


def tail(text, n=15):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[-n:])


# ---- mlc

class GpuMemorySampler:
    """The GPU's used memory (nvidia-smi, MiB) every 0.2 s while running; peak - before."""

    def __init__(self, index):
        self.cmd = shutil.which("nvidia-smi")
        self.index = index
        self.samples = []
        self.stop = threading.Event()

    def read(self):
        try:
            out = subprocess.run([self.cmd, "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i",
                                  str(self.index)], capture_output=True, text=True, timeout=5).stdout
            return float(out.strip().splitlines()[0])
        except Exception:
            return None

    def __enter__(self):
        if self.cmd:
            self.before = self.read()
            self.thread = threading.Thread(target=self.loop, daemon=True)
            self.thread.start()
        return self

    def loop(self):
        while not self.stop.wait(0.2):
            v = self.read()
            if v is not None:
                self.samples.append(v)

    def __exit__(self, *exc):
        self.stop.set()
        if self.cmd:
            self.thread.join()

    def peak_mib(self):
        if not self.cmd or not self.samples or self.before is None:
            return None
        return max(self.samples) - self.before


def parse_mlc_summary(text):
    r = {}
    m = re.search(r"trained (\d+) steps: final loss ([-\d.eE+naif]+), median step ([\d.]+) ms \(mean ([\d.]+)\)", text)
    if m:
        r.update(steps=int(m.group(1)), final_loss=float(m.group(2)), median_step_ms=float(m.group(3)),
                 mean_step_ms=float(m.group(4)))
    m = re.search(r"memory: parameters .*?\((\d+) B\), optimizer state .*?\((\d+) B\), train-step arena .*?\((\d+) B\)",
                  text)
    if m:
        r.update(param_bytes=int(m.group(1)), optimizer_bytes=int(m.group(2)), arena_bytes=int(m.group(3)))
    return r


def first_loss(metrics_path):
    try:
        with open(metrics_path) as f:
            for line in f:
                rec = json.loads(line)
                if "loss" in rec and "step" in rec and "eval" not in rec:
                    return rec["loss"]
    except (OSError, ValueError):
        pass
    return None


def run_mlc(args, c, model, data, out, log):
    device = "host-gpu" if args.dry_run else args.device
    env = dict(os.environ)
    env.setdefault("MLC_CACHE_DIR", os.path.join(out, "kernel-cache"))
    metrics = os.path.join(out, "mlc_metrics.jsonl")
    cmd = [args.mlc, "run", model, "--data", data, "--steps", str(args.steps), "--device", device,
           "--metrics", metrics]
    log("$ " + " ".join(cmd))
    r = {"command": " ".join(cmd)}
    ordinal = int(device.split(":")[1]) if device.startswith("cuda:") else 0  # --device cuda is GPU 0
    t0 = time.time()
    try:
        with GpuMemorySampler(ordinal) as mem:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.mlc_timeout, env=env)
    except subprocess.TimeoutExpired as e:
        r["error"] = "timed out after %d s (--mlc-timeout)" % args.mlc_timeout
        r["stderr_tail"] = tail((e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes)
                                else (e.stderr or ""))
        return r
    except OSError as e:
        r["error"] = str(e)
        return r
    r["wall_s"] = round(time.time() - t0, 1)
    with open(os.path.join(out, "mlc_run.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    if p.returncode != 0:
        r["error"] = "exit status %d" % p.returncode
        r["stderr_tail"] = tail(p.stderr)
        return r
    r.update(parse_mlc_summary(p.stdout + p.stderr))
    r["first_loss"] = first_loss(metrics)
    r["gpu_peak_mib"] = mem.peak_mib()
    if "median_step_ms" not in r:
        r["error"] = "no 'trained N steps: ... median step' line in mlc's output"
        r["stderr_tail"] = tail(p.stdout + p.stderr)
        return r
    return r


def run_mlc_profile(args, model, data, out, log, timeout):
    """The time per instruction kind: a short eager run with an event between instructions (slower than
    the graph replay that the median step times)."""
    device = "host-gpu" if args.dry_run else args.device
    env = dict(os.environ)
    env.setdefault("MLC_CACHE_DIR", os.path.join(out, "kernel-cache"))
    prof = os.path.join(out, "mlc_profile.json")
    cmd = [args.mlc, "run", model, "--data", data, "--steps", str(args.profile_steps), "--device", device,
           "--profile=" + prof]
    log("$ " + " ".join(cmd))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timed out after %d s" % timeout
    with open(os.path.join(out, "mlc_profile.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    return profile_excerpt(p.stderr) if p.returncode == 0 else "failed: " + tail(p.stderr, 5)


def profile_excerpt(stderr):
    """The train step's profile: its header, the 12 costliest instructions and the time per kind."""
    lines = stderr.splitlines()
    out, inside, rows = [], False, 0
    for line in lines:
        if line.startswith("profile of @train_step"):
            inside, rows = True, 0
            out.append(line)
            continue
        if inside:
            if line.startswith("profile of ") or (not line.strip() and out[-1].strip().startswith("all")):
                break
            if re.match(r"\s*\d+\s", line):
                rows += 1
                if rows > 12:
                    continue
            out.append(line[:160])
    return "\n".join(out)


# ---- PyTorch (in a child process: python3 gpu_bench.py --torch-child CONFIG.json)

def torch_child(config_path):
    with open(config_path) as f:
        job = json.load(f)
    c = job["config"]
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    device = "cuda" if torch.cuda.is_available() and not job["cpu"] else "cpu"
    torch.manual_seed(0)
    C, H, T, L, V = c["width"], c["heads"], c["seq"], c["layers"], c["vocab"]
    sdpa = hasattr(F, "scaled_dot_product_attention")

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
            self.c_attn, self.c_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
            self.c_fc, self.mlp_proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)
            self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)), persistent=False)

        def attn(self, x):
            B = x.size(0)
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
            if sdpa:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) / (C // H) ** 0.5
                y = att.masked_fill(~self.mask, float("-inf")).softmax(-1) @ v
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
            self.h = nn.ModuleList(Block() for _ in range(L))
            self.ln_f = nn.LayerNorm(C)

        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
            for b in self.h:
                x = b(x)
            logits = self.ln_f(x) @ self.wte.weight.T
            return F.cross_entropy(logits.float().reshape(-1, V), targets.reshape(-1))

    model = GPT().to(device)
    n = sum(p.numel() for p in model.parameters())
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    kw = dict(lr=OPTIM["lr"], betas=tuple(OPTIM["betas"]), eps=OPTIM["eps"])
    groups = [{"params": decay, "weight_decay": OPTIM["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}]
    fused = False
    if device == "cuda":
        try:
            opt, fused = torch.optim.AdamW(groups, fused=True, **kw), True
        except (TypeError, RuntimeError):
            opt = torch.optim.AdamW(groups, **kw)
    else:
        opt = torch.optim.AdamW(groups, **kw)
    compiled = False
    step_model = model
    if hasattr(torch, "compile") and not job["no_compile"]:
        step_model, compiled = torch.compile(model), True

    rows, cols, raw = read_tokens(job["data"])
    tokens = torch.frombuffer(bytearray(raw), dtype=torch.int64).view(rows, cols)
    B = c["batch"]
    batches = [tokens[i:i + B] for i in range(0, rows - B + 1, B)]

    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    def step(i):
        b = batches[i % len(batches)].to(device, non_blocking=True)
        with torch.autocast(device_type=device, dtype=torch.bfloat16):
            loss = step_model(b[:, :-1], b[:, 1:])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    compile_error = None
    try:
        first = float(step(0).item())
    except Exception as e:  # torch.compile needs a C compiler and Python's headers (Triton): eager then
        if not compiled:
            raise
        compile_error = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:300] if str(e).strip() else "")
        print("torch.compile failed, measuring eager: " + compile_error, file=sys.stderr)
        step_model, compiled = model, False
        opt.zero_grad(set_to_none=True)
        t0 = time.time()
        first = float(step(0).item())
    compile_s = time.time() - t0
    for i in range(1, job["warmup"]):
        step(i)
    sync()
    times = []
    for i in range(job["steps"]):
        sync()
        t = time.perf_counter()
        loss = step(job["warmup"] + i)
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    r = dict(device=device, torch=torch.__version__, params=n, compiled=compiled, compile_error=compile_error,
             fused_adamw=fused,
             attention="scaled_dot_product_attention" if sdpa else "materialized", first_loss=first,
             final_loss=float(loss.item()), first_step_s=round(compile_s, 1), steps=len(times),
             median_step_ms=statistics.median(times), mean_step_ms=statistics.mean(times))
    if device == "cuda":
        r["gpu"] = torch.cuda.get_device_name()
        r["max_allocated_bytes"] = torch.cuda.max_memory_allocated()
        r["max_reserved_bytes"] = torch.cuda.max_memory_reserved()
    print("TORCH_RESULT " + json.dumps(r))


def run_torch(args, c, data, out, log):
    job = dict(config=c, data=data, steps=args.steps, warmup=args.warmup, cpu=args.dry_run,
               no_compile=args.no_compile)
    path = os.path.join(out, "torch_job.json")
    with open(path, "w") as f:
        json.dump(job, f)
    cmd = [args.python, os.path.abspath(__file__), "--torch-child", path]
    log("$ " + " ".join(cmd))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.torch_timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after %d s (--torch-timeout)" % args.torch_timeout}
    except OSError as e:
        return {"error": str(e)}
    with open(os.path.join(out, "torch_run.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    for line in p.stdout.splitlines():
        if line.startswith("TORCH_RESULT "):
            return json.loads(line[len("TORCH_RESULT "):])
    if "No module named 'torch'" in p.stderr:
        return {"skipped": "no PyTorch in %s" % args.python}
    return {"error": "exit status %d" % p.returncode, "stderr_tail": tail(p.stderr)}


# ---- report

def derived(r, c):
    if "median_step_ms" not in r:
        return
    tokens = c["batch"] * c["seq"]
    r["tokens_per_s"] = tokens / (r["median_step_ms"] / 1e3)
    r["mfu"] = r["tokens_per_s"] * flops_per_token(c) / PEAK_FLOPS


def fmt_bytes(b):
    if b is None:
        return "-"
    return "%.2f GiB" % (b / 2 ** 30) if b >= 2 ** 30 else "%.1f MiB" % (b / 2 ** 20)


def report(log, c, mlc, torch_r, dry):
    log("")
    log("GPT-2 shape: %d layers, width %d, %d heads, sequence %d, vocabulary %d, batch %d (%d tokens a step)"
        % (c["layers"], c["width"], c["heads"], c["seq"], c["vocab"], c["batch"], c["batch"] * c["seq"]))
    log("N = %d parameters; FLOPs per token = 6N + 6LCT = %.4g (llm.c); MFU against %.0f TFLOP/s (bf16 dense)%s"
        % (num_params(c), flops_per_token(c), PEAK_FLOPS / 1e12, "; dry run on the CPU: MFU meaningless" if dry else ""))
    rows = [("", "mlc", "PyTorch")]

    def cell(r, key, f):
        return f(r[key]) if r.get(key) is not None else "-"

    for label, key, f in [
        ("median step", "median_step_ms", lambda v: "%.1f ms" % v),
        ("mean step", "mean_step_ms", lambda v: "%.1f ms" % v),
        ("tokens/s", "tokens_per_s", lambda v: "%.0f" % v),
        ("MFU", "mfu", lambda v: "%.1f%%" % (100 * v)),
        ("first loss", "first_loss", lambda v: "%.4f" % v),
        ("final loss", "final_loss", lambda v: "%.4f" % v),
    ]:
        rows.append((label, cell(mlc, key, f), cell(torch_r, key, f)))
    rows.append(("memory", "arena %s, parameters %s, optimizer state %s" % (
        fmt_bytes(mlc.get("arena_bytes")), fmt_bytes(mlc.get("param_bytes")), fmt_bytes(mlc.get("optimizer_bytes"))),
        "max allocated %s, reserved %s" % (fmt_bytes(torch_r.get("max_allocated_bytes")),
                                           fmt_bytes(torch_r.get("max_reserved_bytes")))))
    peak = mlc.get("gpu_peak_mib")
    rows.append(("GPU memory used", "-" if peak is None else "%.2f GiB (nvidia-smi peak - before)" % (peak / 1024), ""))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for r in rows:
        log("  %-*s  %-*s  %s" % (w0, r[0], w1, r[1], r[2]))
    for name, r in (("mlc", mlc), ("PyTorch", torch_r)):
        if "error" in r:
            log("%s failed: %s" % (name, r["error"]))
            if r.get("stderr_tail"):
                log("  " + r["stderr_tail"].replace("\n", "\n  "))
        if "skipped" in r:
            log("%s skipped: %s" % (name, r["skipped"]))
    if torch_r.get("median_step_ms"):
        log("PyTorch %s on %s: torch.compile %s, AdamW fused %s, attention %s, first step (compile) %.1f s"
            % (torch_r.get("torch"), torch_r.get("gpu", torch_r.get("device")), torch_r.get("compiled"),
               torch_r.get("fused_adamw"), torch_r.get("attention"), torch_r.get("first_step_s", 0)))
    if torch_r.get("compile_error"):
        log("PyTorch: torch.compile failed, eager numbers above: " + torch_r["compile_error"])
    if mlc.get("median_step_ms") and not dry:
        log("mlc: each step copies parameters and optimizer state to the GPU and back (not device-resident yet)")
    if mlc.get("profile"):
        log("")
        log(mlc["profile"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mlc", default=os.path.join(ROOT, "build", "bin", "mlc"))
    ap.add_argument("--device", default="cuda", help="mlc's --device (default cuda)")
    ap.add_argument("--steps", type=int, default=20, help="timed steps (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="PyTorch's untimed first steps (default 3)")
    ap.add_argument("--profile-steps", type=int, default=3, help="steps of mlc's --profile run (0: none)")
    ap.add_argument("--batch", type=int, help="batch size (default 8; 4 with --dry-run)")
    ap.add_argument("--out", help="results folder (default $OUT, else gpu-results/)")
    ap.add_argument("--python", default=sys.executable, help="the Python that runs PyTorch")
    ap.add_argument("--mlc-timeout", type=int, default=240, help="seconds for mlc's timed run (default 240)")
    ap.add_argument("--torch-timeout", type=int, default=240, help="seconds for PyTorch's run (default 240)")
    ap.add_argument("--budget", type=int, default=600,
                    help="seconds for everything; the --profile run takes what is left (default 600)")
    ap.add_argument("--no-compile", action="store_true", help="PyTorch eager (no torch.compile)")
    ap.add_argument("--skip-mlc", action="store_true")
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--dry-run", action="store_true",
                    help="tiny shapes, mlc on --device host-gpu, PyTorch on the CPU (if installed)")
    ap.add_argument("--write-model", action="store_true", help="write " + os.path.relpath(MODEL_PATH, ROOT))
    ap.add_argument("--torch-child", metavar="JOB", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_child:
        torch_child(args.torch_child)
        return 0
    if args.write_model:
        with open(MODEL_PATH, "w") as f:
            f.write(model_text(FULL))
        print("wrote " + MODEL_PATH)
        return 0

    c = dict(TINY if args.dry_run else FULL)
    if args.batch:
        c["batch"] = args.batch
    out = os.path.abspath(args.out or os.environ.get("OUT") or os.path.join(ROOT, "gpu-results"))
    out = os.path.join(out, "gpu_bench")
    os.makedirs(out, exist_ok=True)
    log = Log(os.path.join(out, "gpu_bench.txt"))
    log("gpu_bench: %s, %d timed steps%s" % (c["name"], args.steps, " (dry run)" if args.dry_run else ""))

    # The committed model file where it is this shape, else a generated one.
    model = MODEL_PATH
    with open(MODEL_PATH) as f:
        committed = f.read()
    if args.dry_run or c != FULL or committed != model_text(c):
        if not args.dry_run and c == FULL:
            log("warning: %s is not what model_json() writes; running the generated model "
                "(bench/gpu_bench.py --write-model updates it)" % os.path.relpath(MODEL_PATH, ROOT))
        model = os.path.join(out, c["name"] + ".json")
        with open(model, "w") as f:
            f.write(model_text(c))
    data = os.path.join(out, "gpt2_tokens.safetensors")
    warm = max(args.warmup, 1)
    write_tokens(data, (args.steps + warm) * c["batch"], c["batch"], c["seq"] + 1, c["data_vocab"])

    start = time.time()
    mlc = {"skipped": "--skip-mlc"} if args.skip_mlc else run_mlc(args, c, model, data, out, log)
    derived(mlc, c)
    torch_r = {"skipped": "--skip-torch"} if args.skip_torch else run_torch(args, c, data, out, log)
    derived(torch_r, c)
    left = args.budget - (time.time() - start)
    if "median_step_ms" in mlc and args.profile_steps > 0:
        if left >= 30:
            mlc["profile"] = run_mlc_profile(args, model, data, out, log, int(left))
        else:
            mlc["profile"] = "not run: %.0f s of --budget left" % left
    report(log, c, mlc, torch_r, args.dry_run)
    result = dict(config=c, params=num_params(c), flops_per_token=flops_per_token(c), peak_flops=PEAK_FLOPS,
                  flops_formula="6N + 6LCT per token (llm.c)", mlc=mlc, torch=torch_r)
    with open(os.path.join(out, "gpu_bench.json"), "w") as f:
        json.dump(result, f, indent=1)
    ok = "median_step_ms" in mlc or "median_step_ms" in torch_r
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
