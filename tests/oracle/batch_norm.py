"""PyTorch 1.13 reference runs for mlc's BatchNorm1d/BatchNorm2d and Dropout
(train mode for the steps, eval mode for the evaluation).

batchnorm_mlp: the BatchNorm1d MLP of PyTorch's gradient-flow tutorial,
784-128-128-128-10 (Linear, BatchNorm1d, Sigmoid blocks), cross-entropy, SGD
(lr 0.1, momentum 0.9), batches of 32 in file order for 10 epochs (30 steps)
on synthetic data drawn here with a seed (96 examples of 784 features, labels
of a random linear teacher): writes data.safetensors, losses.json (per-step
losses, eval loss and correct count in eval mode on the same data) and
final.safetensors (the final state_dict: parameters and buffers).

digits_cnn_bn: examples/digits_cnn_bn.json with Dropout p = 0 (torch's
Dropout(p=0) is the identity), Conv2d, BatchNorm2d, ReLU, MaxPool2d,
Linear, BatchNorm1d, Adam (lr 0.01), 45 steps of 32 on the digits training
split in order, then eval mode on the validation split: losses.json and
final.safetensors. The convolution and Linear in front of a BatchNorm have no
bias (BatchNorm cancels it: its gradient is rounding noise, which Adam would
amplify to +-lr per step).

Both models are initialized by torch.manual_seed(0) in constructor order,
which mlc's seeded initialization reproduces bit for bit (BatchNorm's ones and
zeros draw nothing), so no initial weights are stored.

  /usr/bin/python3 tests/oracle/batch_norm.py --oracle ORACLE_DIR \\
      --digits examples/data/digits.safetensors --out tests/data/oracle
"""
import argparse
import json
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp():
    layers = OrderedDict()
    dims = [784, 128, 128, 128]
    for i in range(3):
        layers["fc%d" % (i + 1)] = nn.Linear(dims[i], dims[i + 1])
        layers["bn%d" % (i + 1)] = nn.BatchNorm1d(dims[i + 1])
        layers["act%d" % (i + 1)] = nn.Sigmoid()
    layers["fc4"] = nn.Linear(128, 10)
    return nn.Sequential(layers)


def cnn():
    return nn.Sequential(OrderedDict([
        ("conv1", nn.Conv2d(1, 8, 3, padding=1, bias=False)),
        ("bn1", nn.BatchNorm2d(8)),
        ("relu1", nn.ReLU()),
        ("pool1", nn.MaxPool2d(2)),
        ("drop1", nn.Dropout(0.0)),
        ("flatten", nn.Flatten()),
        ("fc1", nn.Linear(128, 32, bias=False)),
        ("bn2", nn.BatchNorm1d(32)),
        ("relu2", nn.ReLU()),
        ("drop2", nn.Dropout(0.0)),
        ("fc2", nn.Linear(32, 10)),
    ]))


def train(model, opt, x, y, batch, steps):
    losses = []
    n = len(x) // batch
    model.train()
    for s in range(steps):
        b = s % n
        loss = F.cross_entropy(model(x[b * batch:(b + 1) * batch]), y[b * batch:(b + 1) * batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        return F.cross_entropy(logits, y, reduction="sum").item() / len(y), int((logits.argmax(1) == y).sum())


def record(st, out, model, losses, eval_loss, correct, examples):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "losses.json"), "w") as f:
        json.dump({"torch": torch.__version__, "losses": losses, "eval_loss": eval_loss,
                   "eval_correct": correct, "eval_examples": examples}, f, indent=1)
    st.save(OrderedDict((k, v.detach().clone().contiguous()) for k, v in model.state_dict().items()),
            os.path.join(out, "final.safetensors"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True, help="folder with st.py")
    p.add_argument("--digits", required=True, help="examples/data/digits.safetensors")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import st  # noqa: E402
    torch.set_num_threads(1)

    # (a) the tutorial's BatchNorm1d MLP on seeded synthetic data.
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(96, 784, generator=g)
    teacher = torch.randn(784, 10, generator=g)
    y = (x @ teacher).argmax(1)
    out = os.path.join(a.out, "batchnorm_mlp")
    os.makedirs(out, exist_ok=True)
    st.save(OrderedDict([("images", x), ("labels", y)]), os.path.join(out, "data.safetensors"))
    torch.manual_seed(0)
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = train(model, opt, x, y, 32, 30)
    record(st, out, model, losses, *evaluate(model, x, y), len(y))

    # (b) a digits CNN with BatchNorm2d and Dropout(p=0).
    digits, _ = st.load(a.digits)
    torch.manual_seed(0)
    model = cnn()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = train(model, opt, digits["train_images"], digits["train_labels"], 32, 45)
    record(st, os.path.join(a.out, "digits_cnn_bn"), model, losses,
           *evaluate(model, digits["val_images"], digits["val_labels"]), len(digits["val_labels"]))


if __name__ == "__main__":
    main()
