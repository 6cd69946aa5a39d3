"""PyTorch reference for the tensor expressions of "forward" (frontends/forward_*.cc).

The statements below are both the model file's "forward" and Python that PyTorch
runs (exec'd over the model's modules, torch's functions and the inputs), so the
test checks that mlc gives them PyTorch's meaning: every built-in and operator of
the language appears (matmul with batch broadcasting, 1-D matmul, slicing and
indexing, cat, reductions with keepdim, where, masks, pools, casts, parameter
references). Two documented differences are bridged here: max(x, dim) returns
the values only (torch.amax), and flatten's start_dim defaults to 1 (nn.Flatten).

Training: 2 steps of SGD (lr 0.1) on an mse loss, batches of 4 of 8 rows in order.
Writes to --out: model.json, data.safetensors, init.safetensors, grads_step0.safetensors,
final.safetensors, losses.json.

  /usr/bin/python3 tests/oracle/forward_exprs.py --oracle ORACLE_DIR --out tests/data/oracle/forward_exprs
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

STATEMENTS = [
    "a = fc(x)",
    "s = a @ a.mT / 6 ** 0.5",
    "s = s.masked_fill(triu(ones(4, 4), diagonal=1) == 1, -inf)",
    "p = softmax(s, dim=-1)",
    "y = p @ a + x @ fc.weight.T + matmul(x[:, 0], fc.weight)[:, None, :] + (fc.bias @ fc.weight) * 0.5",
    "v = y[:, -1]",
    "w = y[..., :2, :3] * y[:, 1:3, ::2] - torch.tanh(y[:, 2:, 3:])",
    "u = cat([v, w.reshape(x.size(0), -1), fc.bias @ x.transpose(1, 2)], dim=1)",
    "u = u - u.sum(dim=-1, keepdim=True) / 16 + mean(u, 1, keepdim=True) - max(u, 1, keepdim=True)",
    "r = tanh(where(u > 0, u, 0.1 * u) + max(u, u * 0.5) - min(u, 0.25 * u) + (u >= 0.5).float())",
    "q = exp(-abs(r)) + log(1 + r * r) + sqrt(r * r + 1) * rsqrt(r * r + 2) + pow(abs(r) + 1, 1.5)",
    "q = q + (abs(r) + 1) ** 0.5 + 2 ** -r + sigmoid(r) * silu(r) - relu(r) + gelu(r)",
    "e = q.unsqueeze(1).transpose(0, 1).squeeze(0).contiguous()",
    "z = e[:, :12].view(-1, 3, 4).permute(0, 2, 1).flatten(1)",
    "img = z.reshape(x.size(0), 1, 3, 4)",
    "k = max_pool2d(img, 2, stride=1).sum(dim=(2, 3)) + avg_pool2d(img, 2, 1, 1, count_include_pad=False).mean(dim=[2, 3])",
    "h = z * k + tril(ones(12, 12))[3] + zeros(12) + full([12], 0.5) + e[:, 12:].sum(-1, True) / max(e)",
    "h = h.double().float() + x[:, 0, None, 0] + sum(x.T.mT.T, (0, 2)).unsqueeze(-1) / 100",
    "return g(tanh((h - h.mean(-1, keepdim=True)) / 40).view(x.size(0), 2, 6)).transpose(-1, -2)",
]

N, BATCH, STEPS, LR = 8, 4, 2, 0.1


def namespace(model, x):
    """The names a statement sees, bound to PyTorch."""
    def max_(input, dim=None, keepdim=False):
        if isinstance(dim, torch.Tensor):
            return torch.maximum(input, dim)
        return input.max() if dim is None else torch.amax(input, dim, keepdim)

    def min_(input, dim=None, keepdim=False):
        if isinstance(dim, torch.Tensor):
            return torch.minimum(input, dim)
        return input.min() if dim is None else torch.amin(input, dim, keepdim)

    ns = dict(torch=torch, F=F, inf=math.inf, x=x, fc=model.fc, g=model.g,
              relu=F.relu, gelu=F.gelu, silu=F.silu, sigmoid=torch.sigmoid, exp=torch.exp,
              log=torch.log, sqrt=torch.sqrt, rsqrt=torch.rsqrt, abs=torch.abs, pow=torch.pow,
              softmax=F.softmax, tanh=torch.tanh, where=torch.where, triu=torch.triu, tril=torch.tril,
              ones=torch.ones, zeros=torch.zeros, full=torch.full, cat=torch.cat, sum=torch.sum,
              mean=torch.mean, max=max_, min=min_, matmul=torch.matmul,
              max_pool2d=F.max_pool2d, avg_pool2d=F.avg_pool2d)
    return ns


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.g = nn.Linear(6, 4)

    def forward(self, x):
        ns = namespace(self, x)
        for stmt in STATEMENTS:
            if stmt.startswith("return "):
                return eval(stmt[len("return "):], ns)
            target, expr = stmt.split(" = ", 1)
            ns[target] = eval(expr, ns)
        raise AssertionError("no return")


def model_file():
    return OrderedDict([
        ("name", "forward_exprs"),
        ("inputs", {"x": {"dtype": "f32", "shape": ["batch", 4, 6]},
                    "t": {"dtype": "f32", "shape": ["batch", 4, 2]}}),
        ("model", OrderedDict([
            ("inputs", ["x"]),
            ("layers", OrderedDict([("fc", {"type": "Linear", "in_features": 6, "out_features": 6}),
                                    ("g", {"type": "Linear", "in_features": 6, "out_features": 4})])),
            ("forward", STATEMENTS)])),
        ("loss", {"type": "mse", "targets": "t"}),
        ("data", {"file": "data.safetensors", "train": {"x": "x", "t": "t"}}),
        ("train", {"batch_size": BATCH, "steps": STEPS, "shuffle": False, "drop_last": True,
                   "seed": 0, "optimizer": {"type": "sgd", "lr": LR}})])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True, help="folder with st.py")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import st  # noqa: E402
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    g = torch.Generator().manual_seed(11)
    x = torch.randn(N, 4, 6, generator=g)
    t = torch.randn(N, 4, 2, generator=g)
    st.save(OrderedDict([("x", x), ("t", t)]), os.path.join(a.out, "data.safetensors"))
    torch.manual_seed(0)
    model = Model()
    params = lambda: OrderedDict((k, v.detach().clone()) for k, v in model.named_parameters())
    st.save(params(), os.path.join(a.out, "init.safetensors"))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    losses = []
    for s in range(STEPS):
        rows = slice(s * BATCH, (s + 1) * BATCH)
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x[rows]), t[rows])
        loss.backward()
        if s == 0:
            st.save(OrderedDict((k, v.grad.detach().clone()) for k, v in model.named_parameters()),
                    os.path.join(a.out, "grads_step0.safetensors"))
        opt.step()
        losses.append(loss.item())
    st.save(params(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "model.json"), "w") as f:
        json.dump(model_file(), f, indent=1)
        f.write("\n")
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"losses": losses, "torch": torch.__version__}, f, indent=1)
        f.write("\n")
    print("losses", losses)


if __name__ == "__main__":
    main()
