"""PyTorch's DCGAN step (dcgan/main.py's loop) on examples/pytorch/dcgan's
model and data, for the same loop compiled by mlc (`mlc run
examples/pytorch/dcgan.mlc --steps N`): the D step (two forwards of netD, one
of netG), the G step, two Adam updates. One thread (torch.set_num_threads,
and OPENBLAS_NUM_THREADS/OMP_NUM_THREADS set before torch loads, for
OpenBLAS's own pool). Prints the median step in ms after the first 5 steps.

  /usr/bin/python3 bench/dcgan_torch.py --steps 300
"""
import argparse
import os
import sys
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before torch loads OpenBLAS
os.environ["OMP_NUM_THREADS"] = "1"
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "oracle"))
import dcgan  # noqa: E402
from oracle_io import read_safetensors  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300)
    a = p.parse_args()
    torch.set_num_threads(1)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    data = read_safetensors(os.path.join(root, "examples", "data", "dcgan16.safetensors"))
    images, noise = data["images"], data["noise"]
    torch.manual_seed(0)
    netG, netD = dcgan.Generator(), dcgan.Discriminator()
    netG.apply(dcgan.weights_init)
    netD.apply(dcgan.weights_init)
    criterion = nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    n, batch = images.shape[0], dcgan.BATCH
    times = []
    for s in range(a.steps):
        i = (s % (n // batch)) * batch
        t0 = time.perf_counter()
        real, z = images[i:i + batch], noise[i:i + batch]
        netD.zero_grad()
        label = torch.full((batch,), 1.0)
        criterion(netD(real), label).backward()
        fake = netG(z)
        label.fill_(0.0)
        criterion(netD(fake.detach()), label).backward()
        optD.step()
        netG.zero_grad()
        label.fill_(1.0)
        criterion(netD(fake), label).backward()
        optG.step()
        times.append((time.perf_counter() - t0) * 1e3)
    times = sorted(times[5:])
    print("torch %s dcgan: median step %.3f ms over %d steps" % (torch.__version__, times[len(times) // 2], len(times)))


if __name__ == "__main__":
    main()
