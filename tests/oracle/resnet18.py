"""PyTorch reference run of examples/pytorch/resnet18.{json,mlc}: torchvision's
ResNet-18 (torchvision.models.resnet, BasicBlock, layers [2, 2, 2, 2]) with the
base width reduced from 64 to 4 (widths 4, 8, 16, 32) so that a training step
takes milliseconds and the recordings stay small.

Model (names = torchvision's state_dict names): conv1 Conv2d(3, 4, 7, 2, 3,
bias=False), bn1, relu, maxpool MaxPool2d(3, 2, 1), layer1..layer4 of two
BasicBlocks each (conv3x3 -> bn -> relu -> conv3x3 -> bn, plus the identity or,
where the stride or width changes, downsample = Sequential(conv1x1 with the
stride, BatchNorm2d), then relu), avgpool AdaptiveAvgPool2d((1, 1)), flatten,
fc Linear(32, 10). Init as torchvision's: torch.manual_seed(0), convolutions
kaiming_normal_(mode="fan_out", nonlinearity="relu"), BatchNorm weight 1 and
bias 0, fc PyTorch's default; `mlc run --init` reads it from the recording.

Data (examples/data/synthetic_images.safetensors, written here): 20 images
[20, 3, 32, 32] of 10 classes (two per class), each a class-dependent stripe
pattern (orientation and frequency by class, random phase) plus Gaussian
noise, from torch.Generator().manual_seed(3).

Training: cross_entropy, SGD(lr=0.01, momentum=0.9, weight_decay=1e-4),
the 20 images as one batch (per-step BatchNorm statistics over 20 images;
smaller batches make 20 steps chaotic enough that f32 rounding alone moves
the losses by more than 1e-5), 20 steps, BatchNorm in
training mode (running statistics updated).

Writes to --out init.safetensors (the state_dict), final.safetensors (its f32
tensors: parameters and running statistics) and losses.json.

  /usr/bin/python3 tests/oracle/resnet18.py --oracle ORACLE_DIR --out tests/data/oracle/resnet18
"""
import json
import math
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from optimizers import recorder_setup  # noqa: E402

DATA = os.path.join(HERE, "..", "..", "examples", "data", "synthetic_images.safetensors")
WIDTH, CLASSES, IMAGES, SIZE, BATCH, STEPS = 4, 10, 20, 32, 20, 20


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, layers=(2, 2, 2, 2), num_classes=CLASSES, width=WIDTH):
        super().__init__()
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(width, layers[0])
        self.layer2 = self._make_layer(2 * width, layers[1], stride=2)
        self.layer3 = self._make_layer(4 * width, layers[2], stride=2)
        self.layer4 = self._make_layer(8 * width, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8 * width, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes, stride), nn.BatchNorm2d(planes))
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes
        for _ in range(1, blocks):
            layers.append(BasicBlock(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def synthetic_images():
    g = torch.Generator().manual_seed(3)
    labels = torch.arange(IMAGES) % CLASSES
    ys, xs = torch.meshgrid(torch.arange(SIZE, dtype=torch.float32), torch.arange(SIZE, dtype=torch.float32),
                            indexing="ij")
    images = []
    for k in labels.tolist():
        angle = math.pi * (k % 5) / 5
        freq = 2 * math.pi * (2 + k // 5) / SIZE
        phase = float(torch.rand(1, generator=g)) * 2 * math.pi
        wave = torch.sin(freq * (xs * math.cos(angle) + ys * math.sin(angle)) + phase)
        colour = torch.tensor([1.0, 0.5 + 0.05 * k, 1.0 - 0.08 * k]).view(3, 1, 1)
        images.append(colour * wave + 0.3 * torch.randn(3, SIZE, SIZE, generator=g))
    return torch.stack(images).contiguous(), labels


def main():
    a, st = recorder_setup(__doc__)
    images, labels = synthetic_images()
    st.save(OrderedDict([("images", images), ("labels", labels)]), DATA)
    torch.manual_seed(0)
    model = ResNet()
    state = lambda: OrderedDict((k, v.detach().clone().contiguous()) for k, v in model.state_dict().items())
    st.save(state(), os.path.join(a.out, "init.safetensors"))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    model.train()
    losses, per_epoch = [], IMAGES // BATCH
    for s in range(STEPS):
        b = s % per_epoch
        rows = slice(b * BATCH, (b + 1) * BATCH)
        opt.zero_grad()
        loss = F.cross_entropy(model(images[rows]), labels[rows])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    st.save(OrderedDict((k, v) for k, v in state().items() if v.dtype == torch.float32),
            os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"torch": torch.__version__, "losses": losses}, f, indent=1)
        f.write("\n")
    print("resnet18 (width %d) loss %.6f -> %.6f, %d parameters" %
          (WIDTH, losses[0], losses[-1], sum(p.numel() for p in model.parameters())))


if __name__ == "__main__":
    main()
