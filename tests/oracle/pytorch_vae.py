"""PyTorch reference run for examples/pytorch/vae.json: the VAE of PyTorch's
examples (vae/main.py: fc1 relu, fc21 and fc22 to mu and logvar,
reparameterize with torch.randn_like, fc3 relu, fc4 sigmoid; loss
binary_cross_entropy(reduction='sum') + KL divergence; Adam(lr=1e-3)) with the
widths reduced for the 8x8 digits (already scaled to [0, 1]) of
examples/data/digits.safetensors: 64 -> 32 -> 8 (+8) -> 32 -> 64. Trains on the
first 640 training images in order, batches of 32, one epoch (20 steps), with
the noise mlc draws for torch.randn_like (tests/oracle/mlc_random.py: the first
random built-in of the top-level forward, step s + 1, train.seed 1). Writes,
under --out: init.safetensors (torch.manual_seed(1)'s constructor weights),
losses.json (every step's loss, before its update) and final.safetensors.

  /usr/bin/python3 tests/oracle/pytorch_vae.py --digits examples/data/digits.safetensors \\
      --out tests/data/oracle/pytorch_vae
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

SEED, BATCH, EXAMPLES = 1, 32, 640


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 8)
        self.fc22 = nn.Linear(32, 8)
        self.fc3 = nn.Linear(8, 32)
        self.fc4 = nn.Linear(32, 64)
        self.step = 0

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        # torch.randn_like(std), drawn as mlc draws it
        eps = torch.from_numpy(mlc_random.normal(tuple(std.shape), self.step, SEED, mlc_random.forward_stream("", 0)))
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--digits", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    torch.set_num_threads(1)
    images = read_safetensors(a.digits)["train_images"][:EXAMPLES]
    torch.manual_seed(SEED)
    model = VAE()
    os.makedirs(a.out, exist_ok=True)
    save_safetensors(model.state_dict(), os.path.join(a.out, "init.safetensors"))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    losses = []
    for i in range(0, EXAMPLES - BATCH + 1, BATCH):
        model.step = len(losses) + 1
        data = images[i:i + BATCH]
        optimizer.zero_grad()
        recon, mu, logvar = model(data)
        loss = loss_function(recon, data, mu, logvar)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    save_safetensors(model.state_dict(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"model": "examples/pytorch/vae.json", "steps": len(losses), "losses": losses}, f, indent=1)
    print("loss %g -> %g over %d steps" % (losses[0], losses[-1], len(losses)))


if __name__ == "__main__":
    main()
