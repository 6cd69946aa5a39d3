"""PyTorch reference runs for mlc's optimizers, schedules and clipping.

A small classifier (Linear 8->16, ReLU, Linear 16->4; cross-entropy) trains for
12 steps (3 epochs of 4 batches of 16) from the same initial weights under each
configuration below, with torch 1.13's optimizers. The learning rate of step s
is set on the param group before the update, with the same closed-form
schedules mlc lowers into the IR (ir/model_config.h); clipping is
torch.nn.utils.clip_grad_norm_. Writes, under --out: data.safetensors,
init.safetensors, and per configuration NAME.json (the mlc model file),
NAME.losses.json and NAME.final.safetensors.

  /usr/bin/python3 tests/oracle/optimizers.py --oracle ORACLE_DIR --out tests/data/optimizers
"""
import argparse
import json
import math
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

N, BATCH, EPOCHS = 64, 16, 3
STEPS_PER_EPOCH = N // BATCH

CONFIGS = OrderedDict([
    ("sgd_momentum_dampening", {"optimizer": {"type": "sgd", "lr": 0.1, "momentum": 0.9,
                                              "dampening": 0.1, "weight_decay": 0.01},
                                "shuffle": True}),
    ("sgd_nesterov_step", {"optimizer": {"type": "sgd", "lr": 0.2, "momentum": 0.8, "nesterov": True,
                                         "weight_decay": 0.001},
                           "schedule": {"type": "step", "step_size": 5, "gamma": 0.5}}),
    ("sgd_plain_warmup", {"optimizer": {"type": "sgd", "lr": 0.3},
                          "schedule": {"type": "linear_warmup", "warmup_steps": 4, "start_factor": 0.25}}),
    ("adam_clip", {"optimizer": {"type": "adam", "lr": 0.01, "betas": [0.8, 0.99], "eps": 1e-6,
                                 "weight_decay": 0.01},
                   "clip_grad_norm": 0.5}),
    ("adamw_2d_cosine", {"optimizer": {"type": "adamw", "lr": 0.02, "betas": [0.9, 0.95],
                                       "weight_decay": 0.1, "decay": "2d"},
                         "schedule": {"type": "cosine", "warmup_steps": 3, "total_steps": 12,
                                      "min_lr": 0.001}}),
    ("rmsprop_centered_momentum", {"optimizer": {"type": "rmsprop", "lr": 0.01, "alpha": 0.9,
                                                 "eps": 1e-7, "momentum": 0.5, "centered": True,
                                                 "weight_decay": 0.01}}),
    ("rmsprop_plain", {"optimizer": {"type": "rmsprop", "lr": 0.005}}),
    ("adagrad", {"optimizer": {"type": "adagrad", "lr": 0.1, "lr_decay": 0.01,
                               "initial_accumulator_value": 0.1, "weight_decay": 0.01}}),
])


def lr_at(cfg, s):
    """The learning rate of step s, computed as mlc's IR computes it (double)."""
    lr = cfg["optimizer"]["lr"]
    sc = cfg.get("schedule")
    if not sc:
        return lr
    if sc["type"] == "linear_warmup":
        w, sf = sc["warmup_steps"], sc["start_factor"]
        return lr * (sf + (1 - sf) * (min(float(s), float(w)) / w))
    if sc["type"] == "step":
        return lr * math.pow(sc["gamma"], float(s // sc["step_size"]))
    w, total, mn = sc["warmup_steps"], sc["total_steps"], sc["min_lr"]
    if s < w:
        return lr * ((s + 1.0) / w)
    span = float(total - w)
    after = min(s - float(w), span)
    return mn + (lr - mn) * ((1.0 + math.cos(math.pi * (after / span))) / 2.0)


def make_optimizer(model, o):
    params = list(model.parameters())
    t = o["type"]
    wd = o.get("weight_decay", 0.0)
    if t == "sgd":
        return torch.optim.SGD(params, lr=o["lr"], momentum=o.get("momentum", 0), weight_decay=wd,
                               dampening=o.get("dampening", 0), nesterov=o.get("nesterov", False))
    if t in ("adam", "adamw"):
        kw = dict(lr=o["lr"], betas=tuple(o.get("betas", (0.9, 0.999))), eps=o.get("eps", 1e-8))
        if o.get("decay") == "2d":
            groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": wd},
                      {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
        else:
            groups = [{"params": params, "weight_decay": wd}]
        return (torch.optim.Adam if t == "adam" else torch.optim.AdamW)(groups, **kw)
    if t == "rmsprop":
        return torch.optim.RMSprop(params, lr=o["lr"], alpha=o.get("alpha", 0.99),
                                   eps=o.get("eps", 1e-8), weight_decay=wd,
                                   momentum=o.get("momentum", 0), centered=o.get("centered", False))
    return torch.optim.Adagrad(params, lr=o["lr"], lr_decay=o.get("lr_decay", 0), weight_decay=wd,
                               initial_accumulator_value=o.get("initial_accumulator_value", 0),
                               eps=o.get("eps", 1e-10))


def model_file(name, cfg):
    train = {"batch_size": BATCH, "epochs": EPOCHS, "shuffle": cfg.get("shuffle", False),
             "drop_last": True, "seed": 0, "optimizer": cfg["optimizer"]}
    if "schedule" in cfg:
        train["schedule"] = cfg["schedule"]
    if "clip_grad_norm" in cfg:
        train["clip_grad_norm"] = cfg["clip_grad_norm"]
    return OrderedDict([
        ("name", name),
        ("inputs", {"x": {"dtype": "f32", "shape": ["batch", 8]}, "y": {"dtype": "i64", "shape": ["batch"]}}),
        ("model", {"layers": OrderedDict([
            ("fc1", {"type": "Linear", "in_features": 8, "out_features": 16}),
            ("act", {"type": "ReLU"}),
            ("fc2", {"type": "Linear", "in_features": 16, "out_features": 4})])}),
        ("loss", {"type": "cross_entropy", "targets": "y"}),
        ("data", {"file": "data.safetensors", "train": {"x": "x", "y": "y"}}),
        ("train", train)])


def write_case(st, out, name, doc, record, model):
    """Writes NAME.json (the model file `doc`), NAME.losses.json (`record`
    with the torch version) and NAME.final.safetensors (the model's state)."""
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, name + ".losses.json"), "w") as f:
        json.dump(dict(record, torch=torch.__version__), f, indent=1)
        f.write("\n")
    st.save(OrderedDict((k, v.detach().clone()) for k, v in model.state_dict().items()),
            os.path.join(out, name + ".final.safetensors"))
    losses = record["losses"]
    print("%-28s loss %.6f -> %.6f" % (name, losses[0], losses[-1]))


def recorder_setup(doc):
    """Parses --oracle (the folder with st.py) and --out, for a recorder whose
    docstring is `doc`; returns (args, the st module), one torch thread, --out made."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--oracle", required=True, help="folder with st.py")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import st  # noqa: E402
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    return a, st


def main():
    a, st = recorder_setup(__doc__)
    g = torch.Generator().manual_seed(7)
    x = torch.randn(N, 8, generator=g)
    y = torch.randint(0, 4, (N,), generator=g)
    st.save(OrderedDict([("x", x), ("y", y)]), os.path.join(a.out, "data.safetensors"))
    torch.manual_seed(0)
    base = nn.Sequential(OrderedDict([("fc1", nn.Linear(8, 16)), ("act", nn.ReLU()),
                                      ("fc2", nn.Linear(16, 4))]))
    init = OrderedDict((k, v.detach().clone()) for k, v in base.state_dict().items())
    st.save(init, os.path.join(a.out, "init.safetensors"))
    for name, cfg in CONFIGS.items():
        model = nn.Sequential(OrderedDict([("fc1", nn.Linear(8, 16)), ("act", nn.ReLU()),
                                           ("fc2", nn.Linear(16, 4))]))
        model.load_state_dict(init)
        opt = make_optimizer(model, cfg["optimizer"])
        losses = []
        for s in range(EPOCHS * STEPS_PER_EPOCH):
            epoch, i = divmod(s, STEPS_PER_EPOCH)
            order = (torch.randperm(N, generator=torch.Generator().manual_seed(epoch))
                     if cfg.get("shuffle") else torch.arange(N))
            rows = order[i * BATCH:(i + 1) * BATCH]
            for group in opt.param_groups:
                group["lr"] = lr_at(cfg, s)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            if "clip_grad_norm" in cfg:
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip_grad_norm"])
            opt.step()
            losses.append(loss.item())
        write_case(st, a.out, name, model_file(name, cfg), {"losses": losses}, model)


if __name__ == "__main__":
    main()
