"""PyTorch reference runs of gradient accumulation (train.grad_accumulation_steps).

The classifier and data of tests/data/optimizers (recorded by
tests/oracle/optimizers.py: Linear 8->16, ReLU, Linear 16->4, cross-entropy;
64 examples, batches of 16) train for 12 steps from its init.safetensors, each
step the PyTorch idiom over K consecutive micro-batches of the step's batch:

    opt.zero_grad()
    for j in range(K):
        loss = F.cross_entropy(model(x[mb_j]), y[mb_j])
        (loss / K).backward()
    opt.step()

The recorded loss of a step is the mean of its K micro-batch losses. Writes,
under --out, per configuration NAME.kK.losses.json and NAME.kK.final.safetensors
(the model file is tests/data/optimizers/NAME.json; the test sets K).

  /usr/bin/python3 tests/oracle/grad_accumulation.py --oracle ORACLE_DIR --out tests/data/grad_accumulation
"""
import json
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import optimizers  # noqa: E402  the configurations, schedules and optimizers

RUNS = [("sgd_momentum_dampening", 2), ("adamw_2d_cosine", 2), ("adamw_2d_cosine", 4)]
DATA = os.path.join(HERE, "..", "data", "optimizers")


def main():
    a, st = optimizers.recorder_setup(__doc__)
    data, _ = st.load(os.path.join(DATA, "data.safetensors"))
    x, y = data["x"], data["y"]
    init, _ = st.load(os.path.join(DATA, "init.safetensors"))
    n, batch, steps_per_epoch = optimizers.N, optimizers.BATCH, optimizers.STEPS_PER_EPOCH
    for name, k in RUNS:
        cfg = optimizers.CONFIGS[name]
        model = nn.Sequential(OrderedDict([("fc1", nn.Linear(8, 16)), ("act", nn.ReLU()),
                                           ("fc2", nn.Linear(16, 4))]))
        model.load_state_dict(init)
        opt = optimizers.make_optimizer(model, cfg["optimizer"])
        losses = []
        micro = batch // k
        for s in range(optimizers.EPOCHS * steps_per_epoch):
            epoch, i = divmod(s, steps_per_epoch)
            order = (torch.randperm(n, generator=torch.Generator().manual_seed(epoch))
                     if cfg.get("shuffle") else torch.arange(n))
            rows = order[i * batch:(i + 1) * batch]
            for group in opt.param_groups:
                group["lr"] = optimizers.lr_at(cfg, s)
            opt.zero_grad(set_to_none=True)
            total = 0.0
            for j in range(k):
                mb = rows[j * micro:(j + 1) * micro]
                loss = F.cross_entropy(model(x[mb]), y[mb])
                (loss / k).backward()
                total += loss.item()
            if "clip_grad_norm" in cfg:
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip_grad_norm"])
            opt.step()
            losses.append(total / k)
        stem = os.path.join(a.out, "%s.k%d" % (name, k))
        with open(stem + ".losses.json", "w") as f:
            json.dump({"losses": losses, "grad_accumulation_steps": k, "torch": torch.__version__}, f, indent=1)
            f.write("\n")
        st.save(OrderedDict((kk, v.detach().clone()) for kk, v in model.state_dict().items()),
                stem + ".final.safetensors")
        print("%-24s K=%d loss %.6f -> %.6f" % (name, k, losses[0], losses[-1]))


if __name__ == "__main__":
    main()
