"""PyTorch reference run for examples/pytorch/mnist.json: the Net of PyTorch's
examples (mnist/main.py: conv1, conv2, relu, max_pool2d 2, dropout1 0.25,
flatten, fc1, relu, dropout2 0.5, fc2, log_softmax, nll_loss; Adadelta(lr=1.0),
StepLR(step_size=1, gamma=0.7) stepped per epoch) with the widths reduced for
the 8x8 digits of examples/data/digits.safetensors: Conv2d(1, 8, 3, 1),
Conv2d(8, 16, 3, 1), Linear(64, 32), Linear(32, 10). Trains on the 1440 training
images in order, batches of 64 (the last partial one dropped), 3 epochs (66
steps), with the
dropout masks mlc draws (tests/oracle/mlc_random.py: the Dropout layers'
streams, step s + 1, train.seed 1), so PyTorch and mlc drop the same elements.
Writes, under --out: init.safetensors (torch.manual_seed(1)'s constructor
weights), losses.json (every step's loss, before its update) and
final.safetensors.

  /usr/bin/python3 tests/oracle/pytorch_mnist.py --digits examples/data/digits.safetensors \\
      --out tests/data/oracle/pytorch_mnist
"""
import argparse
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlc_random  # noqa: E402
from oracle_io import read_safetensors, save_safetensors  # noqa: E402

SEED, BATCH, EXAMPLES, EPOCHS = 1, 64, 1440, 3


class MlcDropout(nn.Module):
    """nn.Dropout(p) in train mode, with mlc's mask for layer `path`."""

    def __init__(self, p, path):
        super().__init__()
        self.p, self.stream, self.step = p, mlc_random.layer_stream(path), 0

    def forward(self, x):
        mask = mlc_random.dropout_mask(tuple(x.shape), self.p, self.step, SEED, self.stream)
        return x * torch.from_numpy(mask)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = MlcDropout(0.25, "dropout1")
        self.dropout2 = MlcDropout(0.5, "dropout2")
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--digits", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    torch.set_num_threads(1)
    data = read_safetensors(a.digits)
    images, labels = data["train_images"][:EXAMPLES], data["train_labels"][:EXAMPLES]
    torch.manual_seed(SEED)
    model = Net()
    os.makedirs(a.out, exist_ok=True)
    save_safetensors(model.state_dict(), os.path.join(a.out, "init.safetensors"))
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    model.train()
    losses, step = [], 0
    for _ in range(EPOCHS):
        for i in range(0, EXAMPLES - BATCH + 1, BATCH):
            step += 1
            model.dropout1.step = model.dropout2.step = step
            optimizer.zero_grad()
            loss = F.nll_loss(model(images[i:i + BATCH]), labels[i:i + BATCH])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    save_safetensors(model.state_dict(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"model": "examples/pytorch/mnist.json", "steps": len(losses), "losses": losses}, f, indent=1)
    print("loss %g -> %g over %d steps" % (losses[0], losses[-1], len(losses)))


if __name__ == "__main__":
    main()
