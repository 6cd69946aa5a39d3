"""PyTorch's gradient-flow statistics of the digits CNN with gradient clipping, for mlc's
train.grad_stats_every (tests/tools/observability_test.cc).

The run: common.CNN from tests/data/oracle/digits_cnn/init.safetensors, SGD(lr=0.1,
momentum=0.9), batch 32 in file order (step s uses train rows [32s, 32s+32)),
cross_entropy(mean), and torch.nn.utils.clip_grad_norm_(max_norm=0.25) between backward and
the update: the gradients' global norm is above 0.25 at every recorded step (asserted), so clipping
changes the updates. Every 5 steps, after loss.backward() and BEFORE clip_grad_norm_ (where
a PyTorch user calls plot_grad_flow), it records for each named parameter mean |g|, max |g|
and the L2 norm, computed in float64 from the f32 gradients, and the total norm that
clip_grad_norm_ returns; and every step's loss.

  /usr/bin/python3 tests/oracle/grad_stats.py [--oracle ../shared/oracle] \
      [--out tests/data/oracle/grad_stats/digits_cnn_clip.json]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
STEPS, EVERY, MAX_NORM, BATCH = 30, 5, 0.25, 32


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", default=os.path.join(REPO, "..", "shared", "oracle"))
    p.add_argument("--out", default=os.path.join(REPO, "tests", "data", "oracle", "grad_stats",
                                                 "digits_cnn_clip.json"))
    args = p.parse_args()
    sys.path.insert(0, args.oracle)
    import torch
    import torch.nn.functional as F
    import common
    import st

    common.set_threads(1)
    d, _ = common.load_digits(os.path.join(REPO, "examples", "data", "digits.safetensors"))
    xtr, ytr = d["train_images"], d["train_labels"]
    model = common.CNN()
    init, _ = st.load(os.path.join(REPO, "tests", "data", "oracle", "digits_cnn", "init.safetensors"))
    model.load_state_dict(init)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses, records = [], []
    for s in range(STEPS):
        xb, yb = xtr[s * BATCH:(s + 1) * BATCH], ytr[s * BATCH:(s + 1) * BATCH]
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        if s % EVERY == 0:  # plot_grad_flow's place: after backward, before clipping
            layers = []
            for name, prm in model.named_parameters():
                g = prm.grad.detach().double()
                layers.append({"name": name, "mean_abs": g.abs().mean().item(),
                               "max_abs": g.abs().max().item(), "norm": g.norm().item(),
                               "elements": g.numel()})
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
        if s % EVERY == 0:
            assert total.item() > MAX_NORM, "step %d: clipping would not change the update" % s
            records.append({"step": s, "total_norm": total.item(), "grads": layers})
        opt.step()
        losses.append(loss.item())
    out = {"model": "digits_cnn", "clip_grad_norm": MAX_NORM, "every": EVERY, "losses": losses,
           "records": records, "torch": torch.__version__}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote %s: %d steps, %d records, total norms %s" % (
        args.out, len(losses), len(records), ", ".join("%.3f" % r["total_norm"] for r in records)))


if __name__ == "__main__":
    main()
