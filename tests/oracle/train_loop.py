"""PyTorch reference runs of training-loop features: train.accumulate (K
batches per optimizer step), ReduceLROnPlateau (train.schedule "plateau") and
torch.optim.LBFGS.

accumulate and plateau train the classifier of tests/oracle/optimizers.py
(Linear 8->16, ReLU, Linear 16->4, cross-entropy) from its recorded data and
initial weights (tests/data/optimizers). accumulate is PyTorch's loop

    for epoch: opt.zero_grad()
        for i, batch: (loss / K).backward()
                      if (i + 1) % K == 0: opt.step(); sched.step(); opt.zero_grad()

(an epoch's last batches that fill no step are not trained on: their
gradients are dropped by the next epoch's zero_grad); the recorded loss of a
step is the mean of its K batch losses. plateau evaluates the whole training
split after every eval_every steps and each epoch's end, then calls
scheduler.step(metric). LBFGS fits a regression (Linear 4->16, Tanh,
Linear 16->1, MSE) on data and initial weights written here; the recorded loss
of a step is what opt.step(closure) returns: the closure's first loss.

Writes, under --out, per configuration NAME.json (the mlc model file),
NAME.losses.json and NAME.final.safetensors (and for LBFGS NAME.init.safetensors),
and lbfgs_data.safetensors.

  /usr/bin/python3 tests/oracle/train_loop.py --oracle ORACLE_DIR --out tests/data/train_loop
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
import optimizers  # noqa: E402

DATA = os.path.join(HERE, "..", "data", "optimizers")

ACCUMULATE = OrderedDict([
    ("accumulate_sgd_k3", {"optimizer": {"type": "sgd", "lr": 0.1, "momentum": 0.9, "dampening": 0.1,
                                         "weight_decay": 0.01},
                           "batch_size": 8, "accumulate": 3, "epochs": 6, "shuffle": True}),
    ("accumulate_adamw_k2_epoch_step", {"optimizer": {"type": "adamw", "lr": 0.02, "weight_decay": 0.1},
                                        "schedule": {"type": "step", "step_size": 1, "gamma": 0.7,
                                                     "interval": "epoch"},
                                        "batch_size": 16, "accumulate": 2, "epochs": 6, "shuffle": False}),
])

PLATEAU = OrderedDict([
    ("plateau_sgd_loss", {"optimizer": {"type": "sgd", "lr": 0.5, "momentum": 0.9},
                          "schedule": {"type": "plateau", "factor": 0.5, "patience": 1, "threshold": 0.1,
                                       "cooldown": 1, "min_lr": 0.01},
                          "eval_every": 2}),
    ("plateau_adam_accuracy", {"optimizer": {"type": "adam", "lr": 0.05},
                               "schedule": {"type": "plateau", "metric": "accuracy", "mode": "max",
                                            "threshold_mode": "abs", "threshold": 0.02, "patience": 0,
                                            "factor": 0.3, "min_lr": 0.005},
                               "eval_every": 1}),
])

# LBFGS without a line search amplifies rounding quickly: on these models torch
# itself, rerun from initial weights scaled by 1 + 1e-7 or in f64, moves its
# losses by at most 6.4e-7 (lbfgs_tanh) and 2.8e-7 (lbfgs_linear) relative
# over the 12 steps, while lr 1 with max_iter 10 on the whole batch moves them
# by 7e-2: the cases are chosen where a 1e-5 comparison tests the algorithm,
# not the amplification.
LBFGS = OrderedDict([
    ("lbfgs_tanh", {"optimizer": {"type": "lbfgs", "lr": 0.5, "max_iter": 3, "history_size": 5},
                    "batch_size": 32, "steps": 12, "hidden": 16}),
    ("lbfgs_linear", {"optimizer": {"type": "lbfgs", "lr": 0.5, "max_iter": 5, "history_size": 4},
                      "batch_size": 32, "steps": 12, "hidden": 0}),
    # The line search interpolates from lr 3 (40 closure calls for 36
    # iterations); torch's own amplification: 6.6e-7. (On the whole batch this
    # model converges within 4 steps, after which the search's comparisons are
    # decided by rounding noise: its call count is no test.)
    ("lbfgs_wolfe", {"optimizer": {"type": "lbfgs", "lr": 3, "max_iter": 3, "history_size": 4,
                                   "line_search_fn": "strong_wolfe"},
                     "batch_size": 32, "steps": 12, "hidden": 0}),
])


def classifier():
    return nn.Sequential(OrderedDict([("fc1", nn.Linear(8, 16)), ("act", nn.ReLU()), ("fc2", nn.Linear(16, 4))]))


def regression(hidden):
    """Linear 4->hidden, Tanh, Linear hidden->1; hidden 0: one Linear 4->1."""
    if not hidden:
        return nn.Sequential(OrderedDict([("fc", nn.Linear(4, 1))]))
    return nn.Sequential(OrderedDict([("fc1", nn.Linear(4, hidden)), ("act", nn.Tanh()),
                                      ("fc2", nn.Linear(hidden, 1))]))


def regression_layers(hidden):
    if not hidden:
        return OrderedDict([("fc", {"type": "Linear", "in_features": 4, "out_features": 1})])
    return OrderedDict([("fc1", {"type": "Linear", "in_features": 4, "out_features": hidden}),
                        ("act", {"type": "Tanh"}),
                        ("fc2", {"type": "Linear", "in_features": hidden, "out_features": 1})])


def torch_optimizer(model, o):
    if o["type"] == "lbfgs":
        kw = {k: o[k] for k in ("lr", "max_iter", "history_size", "line_search_fn") if k in o}
        return torch.optim.LBFGS(model.parameters(), **kw)
    return optimizers.make_optimizer(model, o)


def order(n, shuffle, epoch):
    return torch.randperm(n, generator=torch.Generator().manual_seed(epoch)) if shuffle else torch.arange(n)


def run_accumulate(st, out, x, y, init):
    n = x.shape[0]
    for name, cfg in ACCUMULATE.items():
        model = classifier()
        model.load_state_dict(init)
        opt = torch_optimizer(model, cfg["optimizer"])
        sc = cfg.get("schedule")
        sched = torch.optim.lr_scheduler.StepLR(opt, sc["step_size"], sc["gamma"]) if sc else None
        b, k = cfg["batch_size"], cfg["accumulate"]
        losses = []
        for epoch in range(cfg["epochs"]):
            rows_all = order(n, cfg["shuffle"], epoch)
            opt.zero_grad(set_to_none=True)
            total = 0.0
            for i in range(n // b):
                rows = rows_all[i * b:(i + 1) * b]
                loss = F.cross_entropy(model(x[rows]), y[rows])
                (loss / k).backward()
                total += loss.item()
                if (i + 1) % k == 0:
                    opt.step()
                    opt.zero_grad(set_to_none=True)
                    losses.append(total / k)
                    total = 0.0
            if sched:
                sched.step()
        doc = optimizers.model_file(name, cfg)
        doc["train"].update(batch_size=b, epochs=cfg["epochs"], shuffle=cfg["shuffle"], accumulate=k)
        optimizers.write_case(st, out, name, doc, {"losses": losses}, model)


def run_plateau(st, out, x, y, init):
    n, b = x.shape[0], optimizers.BATCH
    for name, cfg in PLATEAU.items():
        model = classifier()
        model.load_state_dict(init)
        opt = torch_optimizer(model, cfg["optimizer"])
        sc = dict(cfg["schedule"])
        metric = sc.pop("metric", "loss")
        sc.pop("type")
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **sc)
        losses, lrs = [], []
        steps_per_epoch = n // b
        for s in range(optimizers.EPOCHS * steps_per_epoch):
            epoch, i = divmod(s, steps_per_epoch)
            rows = order(n, False, epoch)[i * b:(i + 1) * b]
            lrs.append(opt.param_groups[0]["lr"])
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if (s + 1) % cfg["eval_every"] == 0 or i == steps_per_epoch - 1:
                with torch.no_grad():
                    logits = model(x)
                    value = (F.cross_entropy(logits, y).item() if metric == "loss"
                             else (logits.argmax(1) == y).sum().item() / n)
                sched.step(value)
        doc = optimizers.model_file(name, cfg)
        doc["train"]["schedule"] = cfg["schedule"]
        doc["train"]["eval_every"] = cfg["eval_every"]
        optimizers.write_case(st, out, name, doc, {"losses": losses, "lr": lrs}, model)
        print("   lr:", " ".join("%g" % v for v in lrs))


def run_lbfgs(st, out):
    g = torch.Generator().manual_seed(11)
    x = torch.randn(64, 4, generator=g)
    y = torch.sin(x @ torch.tensor([[1.0], [-0.5], [0.25], [2.0]])) + 0.1 * torch.randn(64, 1, generator=g)
    st.save(OrderedDict([("x", x), ("y", y)]), os.path.join(out, "lbfgs_data.safetensors"))
    n = x.shape[0]
    for name, cfg in LBFGS.items():
        torch.manual_seed(0)
        model = regression(cfg["hidden"])
        st.save(OrderedDict((k, v.detach().clone()) for k, v in model.state_dict().items()),
                os.path.join(out, name + ".init.safetensors"))
        opt = torch_optimizer(model, cfg["optimizer"])
        b = cfg["batch_size"]
        steps_per_epoch = n // b
        losses = []
        for s in range(cfg["steps"]):
            epoch, i = divmod(s, steps_per_epoch)
            rows = order(n, cfg.get("shuffle", False), epoch)[i * b:(i + 1) * b]

            def closure():
                opt.zero_grad()
                loss = F.mse_loss(model(x[rows]), y[rows])
                loss.backward()
                return loss
            losses.append(opt.step(closure).item())
        evals = opt.state[opt._params[0]]["func_evals"]
        train = {"batch_size": b, "steps": cfg["steps"], "shuffle": cfg.get("shuffle", False), "drop_last": True,
                 "seed": 0, "optimizer": cfg["optimizer"]}
        doc = OrderedDict([
            ("name", name),
            ("inputs", {"x": {"dtype": "f32", "shape": ["batch", 4]}, "y": {"dtype": "f32", "shape": ["batch", 1]}}),
            ("model", {"layers": regression_layers(cfg["hidden"])}),
            ("loss", {"type": "mse", "targets": "y"}),
            ("data", {"file": "lbfgs_data.safetensors", "train": {"x": "x", "y": "y"}}),
            ("train", train)])
        optimizers.write_case(st, out, name, doc, {"losses": losses, "func_evals": evals}, model)


# ReduceLROnPlateau alone: the lr after each scheduler.step(metric) of a fixed
# metric sequence, for settings the training runs above do not reach (rel
# max, eps swallowing a reduction, cooldown with patience, NaN and inf).
PLATEAU_TRACES = [
    {"mode": "min", "factor": 0.5, "patience": 2, "threshold": 0.1, "threshold_mode": "rel", "cooldown": 2,
     "min_lr": 0.01, "eps": 1e-8},
    {"mode": "max", "factor": 0.1, "patience": 1, "threshold": 0.05, "threshold_mode": "rel", "cooldown": 0,
     "min_lr": 0.0, "eps": 1e-8},
    {"mode": "min", "factor": 0.5, "patience": 0, "threshold": 0.0, "threshold_mode": "abs", "cooldown": 1,
     "min_lr": 0.0, "eps": 0.05},
]
METRICS = [1.0, 0.95, 0.99, 0.8, 0.8, 0.81, float("nan"), 0.5, 0.49, 0.7, float("inf"), 0.45, 0.45, 0.2, 0.3, 0.3]


def run_plateau_traces(out):
    traces = []
    for kw in PLATEAU_TRACES:
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.3)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        lrs = []
        for m in METRICS:
            sched.step(m)
            lrs.append(opt.param_groups[0]["lr"])
        traces.append({"settings": kw, "lr": 0.3, "metrics": [str(m) for m in METRICS], "lrs": lrs})
    with open(os.path.join(out, "plateau_traces.json"), "w") as f:
        json.dump({"traces": traces, "torch": torch.__version__}, f, indent=1)
        f.write("\n")


def main():
    a, st = optimizers.recorder_setup(__doc__)
    data, _ = st.load(os.path.join(DATA, "data.safetensors"))
    init, _ = st.load(os.path.join(DATA, "init.safetensors"))
    run_accumulate(st, a.out, data["x"], data["y"], init)
    run_plateau(st, a.out, data["x"], data["y"], init)
    run_lbfgs(st, a.out)
    run_plateau_traces(a.out)


if __name__ == "__main__":
    main()
