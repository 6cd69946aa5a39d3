"""PyTorch reference runs for torch.optim's optimizers, flags, parameter groups
and lr_scheduler's schedules as torch 1.13 runs them.

The classifier, data and initial weights of tests/oracle/optimizers.py (read
from its recorded tests/data/optimizers/data.safetensors and init.safetensors)
train for 12 steps (3 epochs of 4 batches of 16, no shuffling) under each
configuration below with torch's own optimizer and scheduler objects:
scheduler.step() after every optimizer step, or after every epoch with
"interval": "epoch". Writes, under --out, per configuration NAME.json (the mlc
model file), NAME.losses.json (the losses and the lr of param group 0 at each
step) and NAME.final.safetensors.

  /usr/bin/python3 tests/oracle/torch_optim.py --oracle ORACLE_DIR --out tests/data/torch_optim
"""
import fnmatch
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from optimizers import BATCH, EPOCHS, N, STEPS_PER_EPOCH, model_file, recorder_setup, write_case  # noqa: E402

SGD = {"type": "sgd", "lr": 0.1, "momentum": 0.9}
CONFIGS = OrderedDict([
    ("adadelta", {"optimizer": {"type": "adadelta", "weight_decay": 0.01}}),
    ("adadelta_maximize", {"optimizer": {"type": "adadelta", "lr": 0.5, "rho": 0.8, "eps": 1e-5,
                                         "maximize": True}}),
    ("adamax", {"optimizer": {"type": "adamax", "lr": 0.01, "betas": [0.8, 0.99], "weight_decay": 0.01}}),
    ("nadam", {"optimizer": {"type": "nadam", "lr": 0.01, "momentum_decay": 0.01, "weight_decay": 0.01}}),
    ("radam", {"optimizer": {"type": "radam", "lr": 0.01, "weight_decay": 0.01}}),
    ("adam_amsgrad", {"optimizer": {"type": "adam", "lr": 0.01, "amsgrad": True, "weight_decay": 0.01}}),
    ("adamw_amsgrad_maximize", {"optimizer": {"type": "adamw", "lr": 0.005, "amsgrad": True, "maximize": True}}),
    ("sgd_maximize", {"optimizer": {"type": "sgd", "lr": 0.01, "momentum": 0.5, "maximize": True}}),
    ("rmsprop_maximize", {"optimizer": {"type": "rmsprop", "lr": 0.001, "momentum": 0.5, "maximize": True}}),
    ("adagrad_maximize", {"optimizer": {"type": "adagrad", "lr": 0.01, "maximize": True}}),
    ("adamw_param_groups", {"optimizer": {"type": "adamw", "lr": 0.01, "weight_decay": 0.1,
                                          "param_groups": [{"params": "*.bias", "weight_decay": 0},
                                                           {"params": ["fc2.w*"], "lr": 0.02,
                                                            "betas": [0.8, 0.9]}]},
                            "schedule": {"type": "exponential", "gamma": 0.9}}),
    ("sgd_param_groups", {"optimizer": {"type": "sgd", "lr": 0.1, "momentum": 0.9,
                                        "param_groups": [{"params": "fc1.*", "lr": 0.05, "momentum": 0}]}}),
    ("sgd_linear", {"optimizer": SGD, "schedule": {"type": "linear", "start_factor": 0.5, "end_factor": 0.2,
                                                   "total_iters": 8}}),
    ("sgd_exponential", {"optimizer": SGD, "schedule": {"type": "exponential", "gamma": 0.8}}),
    ("sgd_multistep", {"optimizer": SGD, "schedule": {"type": "multistep", "milestones": [3, 7], "gamma": 0.5}}),
    ("sgd_onecycle", {"optimizer": SGD, "schedule": {"type": "onecycle", "max_lr": 0.2, "total_steps": 12}}),
    ("adam_onecycle_three_phase", {"optimizer": {"type": "adam", "lr": 0.01},
                                   "schedule": {"type": "onecycle", "max_lr": 0.02, "total_steps": 12,
                                                "pct_start": 0.25, "anneal_strategy": "linear",
                                                "three_phase": True, "div_factor": 10}}),
    ("adamw_onecycle_no_momentum", {"optimizer": {"type": "adamw", "lr": 0.01},
                                    "schedule": {"type": "onecycle", "max_lr": 0.02, "total_steps": 13,
                                                 "cycle_momentum": False}}),
    ("sgd_warm_restarts", {"optimizer": SGD, "schedule": {"type": "cosine_warm_restarts", "T_0": 2, "T_mult": 2,
                                                          "eta_min": 0.01}}),
    ("sgd_warm_restarts_t_mult_1", {"optimizer": SGD, "schedule": {"type": "cosine_warm_restarts", "T_0": 5}}),
    ("sgd_sequential", {"optimizer": SGD, "schedule": {
        "type": "sequential", "milestones": [3],
        "schedules": [{"type": "linear", "start_factor": 0.25, "total_iters": 3},
                      {"type": "exponential", "gamma": 0.9}]}}),
    ("sgd_chained", {"optimizer": SGD, "schedule": {
        "type": "chained", "schedules": [{"type": "linear", "start_factor": 0.5, "total_iters": 4},
                                         {"type": "exponential", "gamma": 0.9}]}}),
    ("sgd_step_per_epoch", {"optimizer": SGD, "schedule": {"type": "step", "step_size": 1, "gamma": 0.5,
                                                           "interval": "epoch"}}),
    ("sgd_multistep_per_epoch", {"optimizer": SGD, "schedule": {"type": "multistep", "milestones": [2],
                                                                "gamma": 0.1, "interval": "epoch"}}),
])


def make_scheduler(opt, sc):
    S = torch.optim.lr_scheduler
    t = sc["type"]
    if t == "linear":
        return S.LinearLR(opt, start_factor=sc.get("start_factor", 1 / 3), end_factor=sc.get("end_factor", 1.0),
                          total_iters=sc.get("total_iters", 5))
    if t == "exponential":
        return S.ExponentialLR(opt, gamma=sc["gamma"])
    if t == "multistep":
        return S.MultiStepLR(opt, milestones=sc["milestones"], gamma=sc.get("gamma", 0.1))
    if t == "step":
        return S.StepLR(opt, step_size=sc["step_size"], gamma=sc.get("gamma", 0.1))
    if t == "onecycle":
        kw = {k: sc[k] for k in ("pct_start", "anneal_strategy", "div_factor", "final_div_factor", "three_phase",
                                 "cycle_momentum", "base_momentum", "max_momentum") if k in sc}
        return S.OneCycleLR(opt, max_lr=sc["max_lr"], total_steps=sc["total_steps"], **kw)
    if t == "cosine_warm_restarts":
        return S.CosineAnnealingWarmRestarts(opt, T_0=sc["T_0"], T_mult=sc.get("T_mult", 1),
                                             eta_min=sc.get("eta_min", 0))
    if t == "sequential":
        return S.SequentialLR(opt, [make_scheduler(opt, c) for c in sc["schedules"]], milestones=sc["milestones"])
    if t == "chained":
        return S.ChainedScheduler([make_scheduler(opt, c) for c in sc["schedules"]])
    raise ValueError(t)


def make_optimizer(model, o):
    """torch's optimizer of `o`; param_groups by fnmatch on the parameter
    names, a parameter in the first group that matches, the rest last."""
    kw = {k: v for k, v in o.items() if k not in ("type", "param_groups")}
    if "betas" in kw:
        kw["betas"] = tuple(kw["betas"])
    named = list(model.named_parameters())
    groups, taken = [], set()
    for g in o.get("param_groups", []):
        pats = [g["params"]] if isinstance(g["params"], str) else g["params"]
        ps = [p for n, p in named if n not in taken and any(fnmatch.fnmatchcase(n, q) for q in pats)]
        taken.update(n for n, p in named if any(fnmatch.fnmatchcase(n, q) for q in pats))
        extra = {k: (tuple(v) if k == "betas" else v) for k, v in g.items() if k != "params"}
        groups.append(dict(params=ps, **extra))
    rest = [p for n, p in named if n not in taken]
    if rest:
        groups.append({"params": rest})
    cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
           "rmsprop": torch.optim.RMSprop, "adagrad": torch.optim.Adagrad, "adadelta": torch.optim.Adadelta,
           "adamax": torch.optim.Adamax, "nadam": torch.optim.NAdam, "radam": torch.optim.RAdam}[o["type"]]
    return cls(groups, **kw)


def main():
    a, st = recorder_setup(__doc__)
    ref = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "optimizers")
    data, _ = st.load(os.path.join(ref, "data.safetensors"))
    x, y = data["x"], data["y"]
    init, _ = st.load(os.path.join(ref, "init.safetensors"))
    for name, cfg in CONFIGS.items():
        model = nn.Sequential(OrderedDict([("fc1", nn.Linear(8, 16)), ("act", nn.ReLU()),
                                           ("fc2", nn.Linear(16, 4))]))
        model.load_state_dict(init)
        opt = make_optimizer(model, cfg["optimizer"])
        sc = cfg.get("schedule")
        sched = make_scheduler(opt, sc) if sc else None
        per_epoch = sc is not None and sc.get("interval") == "epoch"
        losses, lrs = [], []
        for s in range(EPOCHS * STEPS_PER_EPOCH):
            rows = torch.arange(N)[(s % STEPS_PER_EPOCH) * BATCH:(s % STEPS_PER_EPOCH + 1) * BATCH]
            lrs.append(opt.param_groups[0]["lr"])
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            opt.step()
            if sched and (not per_epoch or (s + 1) % STEPS_PER_EPOCH == 0):
                sched.step()
            losses.append(loss.item())
        doc = model_file(name, cfg)
        doc["data"]["file"] = "../optimizers/data.safetensors"
        write_case(st, a.out, name, doc, {"losses": losses, "lrs": lrs}, model)

if __name__ == "__main__":
    main()
