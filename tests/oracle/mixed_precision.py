"""PyTorch 1.13's own bf16 autocast distance: the per-step losses of the digits CNN and tiny_gpt
trained in f32 and under torch.autocast("cpu", dtype=torch.bfloat16), from the same initial
weights on the same batches as the f32 oracle runs (tests/data/oracle/<model>/init.safetensors,
the oracle's batch order). mlc's bf16 autocast test (tests/tools/mixed_precision_test.cc) bounds
its own distance from the f32 run by these numbers.

The training loops are the oracle's (../shared/oracle: digits_cnn.py via common.train_digits,
tiny_gpt.py), restated here only to wrap the forward and loss in autocast; backward and the
optimizer step run outside it, as PyTorch's AMP recipe says:
  * digits_cnn: SGD lr 0.1, momentum 0.9, batch 32, no shuffle, step s of an epoch uses
    train rows [32s, 32s+32) of examples/data/digits.safetensors; 45 steps (one epoch; SGD with
    momentum 0.9 amplifies the bf16 rounding, and by step 90 PyTorch's own bf16 run is 0.23
    from its f32 run, a distance that bounds nothing);
  * tiny_gpt: AdamW lr 3e-3, betas (0.9, 0.95), eps 1e-8, weight decay 0.1 on 2-D parameters,
    batch 16, step i uses rows [(16i) mod 256, +16) of examples/data/tiny_gpt_tokens.safetensors,
    inputs tokens[:, :32], targets tokens[:, 1:]; 40 steps.
One thread (the oracle's setting). The f32 losses reproduce tests/data/oracle/<model>/losses.json
within the oracle's f32 tolerance (relative 1e-4 per step, ../shared/oracle/README.md; bit for bit
only with the reference host's OpenBLAS kernel); a larger difference stops the script.

It also records which dtype each of mlc's ops gets under CPU autocast in this torch build (the
evidence for passes/autocast.h's lists): the output dtype of each op on f32 and on bf16 inputs.

  /usr/bin/python3 tests/oracle/mixed_precision.py [--oracle ../shared/oracle] \
      [--out tests/data/oracle/mixed_precision/losses.json]

Takes ~10 s.
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
STEPS_CNN, STEPS_GPT = 45, 40


def autocast_dtypes(torch, F):
    """Output dtype of mlc's ops under CPU bf16 autocast, on f32 and on bf16 inputs."""
    x = torch.randn(4, 8)
    img = torch.randn(2, 3, 8, 8)
    t = torch.tensor([0, 1, 2, 3])
    ops = {
        "dot (linear)": lambda d: F.linear(x.to(d), torch.randn(8, 8).to(d)),
        "dot (matmul)": lambda d: x.to(d) @ x.t().to(d),
        "conv2d": lambda d: F.conv2d(img.to(d), torch.randn(4, 3, 3, 3).to(d)),
        "cross_entropy": lambda d: F.cross_entropy(x.to(d), t),
        "mse": lambda d: F.mse_loss(x.to(d), x.to(d)),
        "softmax": lambda d: F.softmax(x.to(d), -1),
        "log_softmax": lambda d: F.log_softmax(x.to(d), -1),
        "layer_norm": lambda d: F.layer_norm(x.to(d), (8,)),
        "silu": lambda d: F.silu(x.to(d)),
        "gelu": lambda d: F.gelu(x.to(d)),
        "relu": lambda d: F.relu(x.to(d)),
        "max_pool2d": lambda d: F.max_pool2d(img.to(d), 2),
        "avg_pool2d": lambda d: F.avg_pool2d(img.to(d), 2),
        "add (bf16, f32)": lambda d: x.to(d) + x,
        "mul (tensor, python scalar)": lambda d: x.to(d) * 0.25,
        "embedding (f32 table)": lambda d: F.embedding(t, x),
    }
    out = {}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for name, f in ops.items():
            out[name] = {"f32 in": str(f(torch.float32).dtype).replace("torch.", ""),
                         "bf16 in": str(f(torch.bfloat16).dtype).replace("torch.", "")}
    return out


def run(torch, F, model, loss_fn, opt, batches, autocast):
    losses = []
    for x, y in batches:
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", default=os.path.join(REPO, "..", "shared", "oracle"))
    p.add_argument("--out", default=os.path.join(REPO, "tests", "data", "oracle", "mixed_precision",
                                                 "losses.json"))
    args = p.parse_args()
    sys.path.insert(0, os.path.abspath(args.oracle))
    import torch
    import torch.nn.functional as F
    import common
    import st
    common.set_threads(1)

    digits, _ = st.load(os.path.join(REPO, "examples", "data", "digits.safetensors"))
    tokens = st.load(os.path.join(REPO, "examples", "data", "tiny_gpt_tokens.safetensors"))[0]["tokens"]
    xtr, ytr = digits["train_images"], digits["train_labels"]
    cnn_batches = [(xtr[32 * (s % 45):32 * (s % 45) + 32], ytr[32 * (s % 45):32 * (s % 45) + 32])
                   for s in range(STEPS_CNN)]  # 45 steps per epoch
    gpt_batches = []
    for i in range(STEPS_GPT):
        s = (16 * i) % tokens.shape[0]
        b = tokens[s:s + 16]
        gpt_batches.append((b[:, :-1], b[:, 1:]))

    def cnn(autocast):
        m = common.CNN()
        m.load_state_dict(st.load(os.path.join(REPO, "tests/data/oracle/digits_cnn/init.safetensors"))[0])
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        return run(torch, F, m, lambda m, x, y: F.cross_entropy(m(x), y), opt, cnn_batches, autocast)

    def gpt(autocast):
        m = common.TinyGPT(vocab=64, d=64, n_heads=4, n_layers=2, seq=32, hidden=128, eps=1e-5)
        m.load_state_dict(st.load(os.path.join(REPO, "tests/data/oracle/tiny_gpt/init.safetensors"))[0])
        opt = common.adamw_for(m, lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1)
        return run(torch, F, m, lambda m, x, y: m.loss(x, y), opt, gpt_batches, autocast)

    result = {"torch": torch.__version__, "autocast": "torch.autocast('cpu', dtype=torch.bfloat16)",
              "op_dtypes": autocast_dtypes(torch, F)}
    for name, train in (("digits_cnn", cnn), ("tiny_gpt", gpt)):
        f32, bf16 = train(False), train(True)
        ref = json.load(open(os.path.join(REPO, "tests/data/oracle", name, "losses.json")))["losses"]
        rel = max(abs(a - b) / abs(b) for a, b in zip(f32, ref))
        if not rel <= 1e-4 or not all(map(math.isfinite, f32 + bf16)):
            sys.exit("%s: the f32 run is %.3g (relative) from losses.json" % (name, rel))
        diffs = [abs(a - b) for a, b in zip(f32, bf16)]
        result[name] = {"steps": len(f32), "losses_f32": f32, "losses_bf16": bf16,
                        "max_abs_diff": max(diffs), "max_abs_diff_step": diffs.index(max(diffs)),
                        "f32_vs_oracle_max_rel": rel}
        print("%s: %d steps, max |bf16 - f32| = %.4g at step %d (final f32 %.5f, bf16 %.5f)" %
              (name, len(f32), max(diffs), diffs.index(max(diffs)), f32[-1], bf16[-1]))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
