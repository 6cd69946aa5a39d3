"""PyTorch reference runs for mlc's spatial layers and functional forms.

Each configuration below is a small classifier (cross_entropy over 4
classes) with its mlc model file, trained STEPS steps of SGD (batches of
BATCH rows in order) from torch's initial weights (torch.manual_seed(0)),
with torch 1.13, as tests/oracle/losses.py does:

  conv1d            Conv1d (groups), ConvTranspose1d (stride, output_padding)
  conv_transpose2d  ConvTranspose2d (stride, output_padding; then dilation,
                    groups, no bias, an output_padding beyond the stride) and
                    AdaptiveAvgPool2d with windows of unequal sizes
  pools             AdaptiveMaxPool2d (unequal windows), GroupNorm,
                    AdaptiveAvgPool2d (unequal windows)
  resize            Upsample (nearest by a scale and to a size, bilinear with
                    and without align_corners, a fractional scale),
                    InstanceNorm2d (affine), ReflectionPad2d,
                    ReplicationPad2d, PixelUnshuffle, PixelShuffle,
                    ZeroPad2d, ConstantPad2d
  functional        a forward of F.interpolate (nearest by an integer and a
                    fractional scale, bilinear by scales and to a size, with
                    align_corners), F.pad (constant, reflect,
                    replicate), F.pixel_shuffle / pixel_unshuffle,
                    F.adaptive_avg_pool2d / adaptive_max_pool2d and
                    F.group_norm

Writes, under --out: data.safetensors and per configuration NAME.json,
NAME.init.safetensors, NAME.grads_step0.safetensors, NAME.final.safetensors
and NAME.losses.json.

  /usr/bin/python3 tests/oracle/spatial_layers.py --oracle ORACLE_DIR --out tests/data/oracle/spatial
"""
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from losses import N, Statements, model_json, train, write_json  # noqa: E402
from optimizers import recorder_setup  # noqa: E402


def data():
    g = torch.Generator().manual_seed(11)
    return OrderedDict([
        ("x1d", torch.randn(N, 2, 12, generator=g)),
        ("x6", torch.randn(N, 3, 6, 6, generator=g)),
        ("x9", torch.randn(N, 3, 9, 11, generator=g)),
        ("x56", torch.randn(N, 2, 5, 6, generator=g)),
        ("y", torch.randint(0, 4, (N,), generator=g)),
    ])


def layer(t, **fields):
    return dict(type=t, **fields)


# name: (input, a function making [(layer name, torch module, mlc layer)] after
# torch.manual_seed(0)).
CONFIGS = OrderedDict([
    ("conv1d", ("x1d", lambda: [
        ("conv", nn.Conv1d(2, 4, 3, padding=1, groups=2),
         layer("Conv1d", in_channels=2, out_channels=4, kernel_size=3, padding=1, groups=2)),
        ("act", nn.Tanh(), layer("Tanh")),
        ("up", nn.ConvTranspose1d(4, 3, 4, stride=2, padding=1, output_padding=1),
         layer("ConvTranspose1d", in_channels=4, out_channels=3, kernel_size=4, stride=2, padding=1,
               output_padding=1)),
        ("flat", nn.Flatten(), layer("Flatten")),
        ("fc", nn.Linear(75, 4), layer("Linear", in_features=75, out_features=4)),
    ])),
    ("conv_transpose2d", ("x6", lambda: [
        ("up1", nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1),
         layer("ConvTranspose2d", in_channels=3, out_channels=4, kernel_size=3, stride=2, padding=1,
               output_padding=1)),
        ("act", nn.ReLU(), layer("ReLU")),
        ("up2", nn.ConvTranspose2d(4, 2, (2, 3), stride=(1, 2), dilation=2, output_padding=(1, 0), groups=2,
                                   bias=False),
         layer("ConvTranspose2d", in_channels=4, out_channels=2, kernel_size=[2, 3], stride=[1, 2], dilation=2,
               output_padding=[1, 0], groups=2, bias=False)),
        ("pool", nn.AdaptiveAvgPool2d((5, 4)), layer("AdaptiveAvgPool2d", output_size=[5, 4])),
        ("flat", nn.Flatten(), layer("Flatten")),
        ("fc", nn.Linear(40, 4), layer("Linear", in_features=40, out_features=4)),
    ])),
    ("pools", ("x9", lambda: [
        ("conv", nn.Conv2d(3, 4, 3), layer("Conv2d", in_channels=3, out_channels=4, kernel_size=3)),
        ("mpool", nn.AdaptiveMaxPool2d((4, 5)), layer("AdaptiveMaxPool2d", output_size=[4, 5])),
        ("norm", nn.GroupNorm(2, 4), layer("GroupNorm", num_groups=2, num_channels=4)),
        ("apool", nn.AdaptiveAvgPool2d(3), layer("AdaptiveAvgPool2d", output_size=3)),
        ("flat", nn.Flatten(), layer("Flatten")),
        ("fc", nn.Linear(36, 4), layer("Linear", in_features=36, out_features=4)),
    ])),
    ("resize", ("x56", lambda: [
        ("up1", nn.Upsample(scale_factor=2), layer("Upsample", scale_factor=2)),
        ("conv", nn.Conv2d(2, 3, 3), layer("Conv2d", in_channels=2, out_channels=3, kernel_size=3)),
        ("up2", nn.Upsample(size=(11, 7), mode="bilinear"), layer("Upsample", size=[11, 7], mode="bilinear")),
        ("norm", nn.InstanceNorm2d(3, affine=True), layer("InstanceNorm2d", num_features=3, affine=True)),
        ("pad1", nn.ReflectionPad2d((1, 2, 0, 1)), layer("ReflectionPad2d", padding=[1, 2, 0, 1])),
        ("up3", nn.Upsample(scale_factor=(1.5, 0.75), mode="bilinear", align_corners=True),
         layer("Upsample", scale_factor=[1.5, 0.75], mode="bilinear", align_corners=True)),
        ("pad2", nn.ReplicationPad2d((0, 1, 0, 0)), layer("ReplicationPad2d", padding=[0, 1, 0, 0])),
        ("down", nn.PixelUnshuffle(2), layer("PixelUnshuffle", downscale_factor=2)),
        ("shuffle", nn.PixelShuffle(2), layer("PixelShuffle", upscale_factor=2)),
        ("pad3", nn.ZeroPad2d(1), layer("ZeroPad2d", padding=1)),
        ("pad4", nn.ConstantPad2d(1, 0.5), layer("ConstantPad2d", padding=1, value=0.5)),
        ("up4", nn.Upsample(size=(7, 5)), layer("Upsample", size=[7, 5])),
        ("flat", nn.Flatten(), layer("Flatten")),
        ("fc", nn.Linear(105, 4), layer("Linear", in_features=105, out_features=4)),
    ])),
])

FUNCTIONAL_STATEMENTS = [
    "h = conv(x)",
    "a = F.interpolate(h, scale_factor=2)",
    "a = F.interpolate(a, scale_factor=1.5)",
    "a = F.interpolate(a, scale_factor=(0.7, 0.55), mode='bilinear')",
    "a = F.interpolate(a, size=(9, 7), mode='bilinear')",
    "a = F.interpolate(a, scale_factor=(1.7, 0.6), mode='bilinear', align_corners=True)",
    "a = F.pad(a, (1, 2, 2, 0))",
    "a = F.pad(a, [2, 1, 1, 1], mode='reflect')",
    "a = F.pad(a, (0, 1, 1, 0), 'replicate')",
    "a = F.pixel_unshuffle(a[:, :, :18, :10], 2)",
    "a = F.group_norm(a, 4, gn.weight * 2, gn.bias + 0.1, eps=0.001)",
    "a = F.pixel_shuffle(a, 2)",
    "p = F.adaptive_max_pool2d(a, (5, 3)) + F.adaptive_avg_pool2d(a, 5)[:, :, :, 1:4]",
    "q = F.adaptive_avg_pool2d(F.pad(h, (1, 1, 1, 1), value=-0.25), (3, 2))",
    "return F.cross_entropy(fc(p.flatten(1)) + q.mean(), y)",
]


def main():
    a, st = recorder_setup(__doc__)
    d = data()
    st.save(d, os.path.join(a.out, "data.safetensors"))
    f32 = lambda *shape: {"dtype": "f32", "shape": ["batch", *shape]}
    i64 = {"dtype": "i64", "shape": ["batch"]}
    for name, (x, make) in CONFIGS.items():
        torch.manual_seed(0)
        layers = make()
        m = nn.Sequential(OrderedDict((n, t) for n, t, _ in layers))
        write_json(a.out, name, model_json(
            name, {"x": f32(*d[x].shape[1:]), "y": i64},
            {"layers": OrderedDict((n, j) for n, _, j in layers)},
            {"type": "cross_entropy", "targets": "y"}, {"x": x, "y": "y"}))
        train(m, lambda b, m=m: F.cross_entropy(m(b[0]), b[1]), [d[x], d["y"]], st, a.out, name)

    torch.manual_seed(0)
    inputs = ["x", "y"]
    # gn: a GroupNorm whose parameters the forward passes to F.group_norm.
    fn = Statements([("conv", nn.Conv2d(3, 4, 3)), ("gn", nn.GroupNorm(4, 16)), ("fc", nn.Linear(60, 4))],
                    FUNCTIONAL_STATEMENTS, inputs)
    doc = model_json("functional", {"x": f32(3, 9, 11), "y": i64},
                     OrderedDict([("inputs", inputs),
                                  ("layers", OrderedDict([
                                      ("conv", layer("Conv2d", in_channels=3, out_channels=4, kernel_size=3)),
                                      ("gn", layer("GroupNorm", num_groups=4, num_channels=16)),
                                      ("fc", layer("Linear", in_features=60, out_features=4))])),
                                  ("forward", FUNCTIONAL_STATEMENTS)]),
                     {"type": "output"}, {"x": "x9", "y": "y"})
    write_json(a.out, "functional", doc)
    train(fn, lambda b: fn(*b), [d["x9"], d["y"]], st, a.out, "functional")


if __name__ == "__main__":
    main()
