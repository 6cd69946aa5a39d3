"""PyTorch reference run of examples/pytorch/dcgan.{json,mlc}: the DCGAN of
PyTorch's examples (dcgan/main.py: Generator of ConvTranspose2d, BatchNorm2d,
ReLU and Tanh; Discriminator of Conv2d, LeakyReLU(0.2), BatchNorm2d and
Sigmoid; BCELoss; two Adam(lr=2e-4, betas=(0.5, 0.999)); weights_init:
convolution weights N(0, 0.02), BatchNorm weights N(1, 0.02) and biases 0)
at 16x16 with the widths reduced (nz 8, ngf/ndf 8: G 8 -> 32 -> 16 -> 1
channels at 4, 8, 16 pixels; D 1 -> 16 -> 32 -> 1 at 8, 4, 1 pixels).

Its training loop, step for step: netD.zero_grad(); errD_real =
BCE(netD(real), 1).backward(); fake = netG(noise); errD_fake =
BCE(netD(fake.detach()), 0).backward(); optimizerD.step(); netG.zero_grad();
errG = BCE(netD(fake), 1).backward(); optimizerG.step(). netG runs once per
step (its BatchNorm running statistics move once), netD three times.

Data (written to --data): `images`, the first 320 training digits of
examples/data/digits.safetensors resized to 16x16 (F.interpolate, bilinear,
align_corners=False) and normalized to [-1, 1] (transforms.Normalize(0.5,
0.5)); `noise`, one N(0, 1) latent vector [8, 1, 1] per image from
torch.Generator().manual_seed(1) (main.py draws fresh noise every step; here
it is data, so that both phases of mlc's step read the same `z`, and epoch
e reuses it). Batches of 32 in order, 3 epochs: 30 steps.

Init: torch.manual_seed(0); netG = Generator(); netD = Discriminator();
netG.apply(weights_init); netD.apply(weights_init) (both constructors' default
initialization before either weights_init, the order in which the model file's
"init" section draws). Writes to --out init.safetensors (netG.* and netD.*
state_dicts), losses.json (per step errD = errD_real + errD_fake and errG,
before the step's updates) and final.safetensors.

  /usr/bin/python3 tests/oracle/dcgan.py --oracle ORACLE_DIR --digits examples/data/digits.safetensors \\
      --data examples/data/dcgan16.safetensors --out tests/data/oracle/dcgan
"""
import argparse
import json
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

NZ, NGF, NDF, NC = 8, 8, 8, 1
EXAMPLES, BATCH, EPOCHS, SEED = 320, 32, 3, 0


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(NZ, NGF * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(NGF * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 4, NGF * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(NGF * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 2, NC, 4, 2, 1, bias=False),
            nn.Tanh())

    def forward(self, x):
        return self.main(x)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(NC, NDF * 2, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF * 2, NDF * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(NDF * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF * 4, 1, 4, 1, 0, bias=False),
            nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


def state(netG, netD):
    out = OrderedDict()
    for prefix, net in (("netG.", netG), ("netD.", netD)):
        for k, v in net.state_dict().items():
            out[prefix + k] = v.detach().clone()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True, help="folder with st.py")
    p.add_argument("--digits", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import st  # noqa: E402
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)

    digits = torch.as_tensor(st.load(a.digits)[0]["train_images"][:EXAMPLES]).clone()
    images = F.interpolate(digits, size=(16, 16), mode="bilinear", align_corners=False)
    images = (images - 0.5) / 0.5
    noise = torch.randn(EXAMPLES, NZ, 1, 1, generator=torch.Generator().manual_seed(1))
    st.save(OrderedDict([("images", images), ("noise", noise)]), a.data,
            metadata={"description": "examples/pytorch/dcgan: the first 320 training digits of "
                      "digits.safetensors resized to 16x16 (bilinear) in [-1, 1], and N(0, 1) noise "
                      "[320, 8, 1, 1] from torch.Generator().manual_seed(1); written by tests/oracle/dcgan.py"})

    torch.manual_seed(SEED)
    netG, netD = Generator(), Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)
    st.save(state(netG, netD), os.path.join(a.out, "init.safetensors"))

    criterion = nn.BCELoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    netG.train()
    netD.train()
    errDs, errGs = [], []
    for epoch in range(EPOCHS):
        for i in range(0, EXAMPLES - BATCH + 1, BATCH):
            real = images[i:i + BATCH]
            z = noise[i:i + BATCH]
            netD.zero_grad()
            label = torch.full((BATCH,), 1.0)
            errD_real = criterion(netD(real), label)
            errD_real.backward()
            fake = netG(z)
            label.fill_(0.0)
            errD_fake = criterion(netD(fake.detach()), label)
            errD_fake.backward()
            optimizerD.step()
            netG.zero_grad()
            label.fill_(1.0)
            errG = criterion(netD(fake), label)
            errG.backward()
            optimizerG.step()
            errDs.append(errD_real.item() + errD_fake.item())
            errGs.append(errG.item())
    st.save(state(netG, netD), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"model": "examples/pytorch/dcgan.json", "steps": len(errDs),
                   "phases": {"D": errDs, "G": errGs},
                   "losses": [d + g for d, g in zip(errDs, errGs)]}, f, indent=1)
    print("errD %g -> %g, errG %g -> %g over %d steps" % (errDs[0], errDs[-1], errGs[0], errGs[-1], len(errDs)))


if __name__ == "__main__":
    main()
