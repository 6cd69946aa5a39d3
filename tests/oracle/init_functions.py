"""PyTorch reference for mlc's parameter initialization (docs/model-format.md,
"init"): the models of tests/data/oracle/init/ built in torch 1.13 after
torch.manual_seed(train.seed), their constructors drawing the default
initializations, then torch.nn.init's functions called in state_dict order, as
the model files' "init" sections say. Writes <model>.safetensors (the
state_dict) under --out for tests/tools/init_oracle_test.cc, which compares
mlc's initial parameters with them (bit for bit but orthogonal_, whose QR
is compared within f32 rounding).

  /usr/bin/python3 tests/oracle/init_functions.py --out tests/data/oracle/init
"""
import argparse
import os
import sys

import torch
from torch import nn
from torch.nn import init

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_io import save_safetensors  # noqa: E402


class ModelA(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(128, 30)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(30, 5)


class ModelB(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(16, 24)
        self.l2 = nn.Linear(24, 24)
        self.l3 = nn.Linear(24, 3)
        self.ln = nn.LayerNorm(3)


class ModelC(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 7)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(28, 3)


def model_a():
    torch.manual_seed(0)
    m = ModelA()
    with torch.no_grad():
        init.kaiming_normal_(m.conv.weight, mode="fan_out", nonlinearity="relu")
        init.normal_(m.conv.bias, 0.5, 0.2)
        init.xavier_uniform_(m.fc1.weight, gain=init.calculate_gain("relu"))
        init.constant_(m.fc1.bias, 0.1)
        init.orthogonal_(m.fc2.weight, gain=2)
        init.zeros_(m.fc2.bias)
    return m


def model_b():
    torch.manual_seed(7)
    m = ModelB()
    with torch.no_grad():
        init.xavier_normal_(m.l1.weight, gain=1.5)
        init.trunc_normal_(m.l1.bias, std=0.5)
        init.orthogonal_(m.l2.weight)
        init.uniform_(m.l2.bias, -0.5, 2)
        init.kaiming_uniform_(m.l3.weight, a=0.2, mode="fan_out")
        init.normal_(m.l3.bias, std=2)  # 3 draws: leaves a cached normal
        init.normal_(m.ln.weight, mean=1, std=0.1)  # starts with the cached one
        init.ones_(m.ln.bias)
    return m


def model_c():
    torch.manual_seed(3)
    m = ModelC()  # Embedding's default N(0, 1): 70 elements, the 16-block path with a tail
    with torch.no_grad():
        init.trunc_normal_(m.fc.weight, std=0.02)  # state_dict order: weight before bias
        init.normal_(m.fc.bias)
    return m


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, make in (("model_a", model_a), ("model_b", model_b), ("model_c", model_c)):
        save_safetensors(make().state_dict(), os.path.join(a.out, name + ".safetensors"))


if __name__ == "__main__":
    main()
