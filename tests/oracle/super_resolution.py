"""PyTorch reference run of examples/pytorch/super_resolution.{json,mlc}:
PyTorch examples' super_resolution Net (sub-pixel convolution, Shi et al. 2016).

Model (names = state_dict names): conv1 Conv2d(1, 64, 5, 1, 2), conv2
Conv2d(64, 64, 3, 1, 1), conv3 Conv2d(64, 32, 3, 1, 1), conv4 Conv2d(32, 4, 3,
1, 1), each but the last followed by ReLU, then PixelShuffle(2):
[N, 1, 4, 4] -> [N, 1, 8, 8]. Init: torch.manual_seed(0) and the modules'
default inits, which mlc draws bit for bit from train.seed 0 (the example's
_initialize_weights, orthogonal_, has no mlc counterpart and is left out).

Data (examples/data/super_resolution.safetensors, written here): the high
resolution images are digits of examples/data/digits.safetensors (the first
512 train_images and 128 val_images, [N, 1, 8, 8] in [0, 1]); the low
resolution inputs are their 2x2 means ([N, 1, 4, 4]; the example resizes
with PIL's bicubic filter instead).

Training as the example's: nn.MSELoss, Adam(lr=0.01), batch 32 in order (no
shuffling), 24 steps (the 16 batches of an epoch, then the first 8 again).

Writes to --out losses.json, and init.safetensors and final.safetensors with
every parameter but conv2.weight (to keep the files small; the losses depend
on it at every step).

  /usr/bin/python3 tests/oracle/super_resolution.py --oracle ORACLE_DIR --out tests/data/oracle/super_resolution
"""
import json
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from optimizers import recorder_setup  # noqa: E402

DIGITS = os.path.join(HERE, "..", "..", "examples", "data", "digits.safetensors")
DATA = os.path.join(HERE, "..", "..", "examples", "data", "super_resolution.safetensors")
BATCH, STEPS, LR, TRAIN, VAL = 32, 24, 0.01, 512, 128


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x



def main():
    a, st = recorder_setup(__doc__)
    digits, _ = st.load(DIGITS)
    hr = {"train": digits["train_images"][:TRAIN].contiguous(), "val": digits["val_images"][:VAL].contiguous()}
    lr = {k: torch.nn.functional.avg_pool2d(v, 2).contiguous() for k, v in hr.items()}
    st.save(OrderedDict([("train_lr", lr["train"]), ("train_hr", hr["train"]),
                         ("val_lr", lr["val"]), ("val_hr", hr["val"])]), DATA)
    torch.manual_seed(0)
    model = Net(upscale_factor=2)
    params = lambda: OrderedDict((k, v.detach().clone().contiguous()) for k, v in model.state_dict().items()
                                 if k != "conv2.weight")
    st.save(params(), os.path.join(a.out, "init.safetensors"))
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    losses, per_epoch = [], TRAIN // BATCH
    for s in range(STEPS):
        b = s % per_epoch
        optimizer.zero_grad()
        loss = criterion(model(lr["train"][b * BATCH:(b + 1) * BATCH]), hr["train"][b * BATCH:(b + 1) * BATCH])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    st.save(params(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"torch": torch.__version__, "losses": losses}, f, indent=1)
        f.write("\n")
    print("super_resolution loss %.6f -> %.6f" % (losses[0], losses[-1]))


if __name__ == "__main__":
    main()
