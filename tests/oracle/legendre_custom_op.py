"""PyTorch reference run for mlc's custom ops: the Legendre example of PyTorch's
tutorial "Defining new autograd functions" (LegendrePolynomial3), in f32.

  y_pred = a + b * P3(c + d * x),   P3(t) = 0.5 * (5 t^3 - 3 t)

with P3 a torch.autograd.Function whose backward is the declared
grad * 1.5 * (5 t^2 - 1), x = linspace(-pi, pi, 2000), y = sin(x), a = 0,
b = -1, c = 0, d = 0.3, loss = sum of squared errors, plain gradient descent
with lr 5e-6 (the tutorial's manual update, which is torch.optim.SGD without
momentum) for STEPS steps. In mlc (examples/legendre.json) `c + d * x` is
Linear(1, 1) 'inner' (weight d, bias c) and `a + b * P3` Linear(1, 1) 'outer'
(weight b, bias a). Writes, under --out: init.safetensors (the parameters
above by state_dict name), losses.json (the loss of every step, before its
update) and final.safetensors; with --data, the data file (x, y: f32
[2000, 1]).

  /usr/bin/python3 tests/oracle/legendre_custom_op.py --out tests/data/oracle/legendre \
      --data examples/data/legendre.safetensors
"""
import argparse
import json
import math
import os
import sys
from collections import OrderedDict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_io import save_safetensors  # noqa: E402

STEPS = 300
LR = 5e-6


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--data")
    a = p.parse_args()
    torch.set_num_threads(1)
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=torch.float32)
    y = torch.sin(x)
    params = OrderedDict([(n, torch.full((), v, dtype=torch.float32, requires_grad=True))
                          for n, v in (("a", 0.0), ("b", -1.0), ("c", 0.0), ("d", 0.3))])
    pa, pb, pc, pd = params.values()

    def state_dict():
        # Linear(1, 1): weight [1, 1], bias [1]; registration order inner, outer.
        return OrderedDict([("inner.weight", pd.detach().reshape(1, 1)), ("inner.bias", pc.detach().reshape(1)),
                            ("outer.weight", pb.detach().reshape(1, 1)), ("outer.bias", pa.detach().reshape(1))])

    os.makedirs(a.out, exist_ok=True)
    save_safetensors(state_dict(), os.path.join(a.out, "init.safetensors"))
    if a.data:
        save_safetensors(OrderedDict([("x", x.reshape(-1, 1)), ("y", y.reshape(-1, 1))]), a.data)
    losses = []
    for _ in range(STEPS):
        y_pred = pa + pb * LegendrePolynomial3.apply(pc + pd * x)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for t in params.values():
                t -= LR * t.grad
                t.grad = None
    save_safetensors(state_dict(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"model": "legendre", "steps": STEPS, "lr": LR, "losses": losses}, f, indent=1)
    print("loss %g -> %g; a=%g b=%g c=%g d=%g" % (losses[0], losses[-1], pa.item(), pb.item(), pc.item(), pd.item()))


if __name__ == "__main__":
    main()
