"""Data of the benchmark models in bench/models/, as the shared PyTorch oracle's timing.py draws it.

  /usr/bin/python3 bench/make_data.py OUT_DIR [--oracle ORACLE_DIR] [--steps 3]

Writes OUT_DIR/big_mlp.safetensors (x, y: F32 [256, 1024]) and
OUT_DIR/gpt256_tokens.safetensors (tokens: I64 [8, 129]), drawn exactly as
timing.py's build(): torch.Generator().manual_seed(0), then randn(256, 1024)
twice for big_mlp, randint(0, 256, (8, 129)) for gpt256. The model files read
data/<name>.safetensors next to themselves, so OUT_DIR = bench/models/data needs
no --data flag (that folder is ignored by git).

With --oracle (the folder of the oracle's common.py and timing.py), also writes
OUT_DIR/<model>_init.safetensors (the state_dict right after timing.py's
torch.manual_seed(0) and model construction, for `mlc run --init`) and
OUT_DIR/<model>_torch_losses.json (PyTorch's losses of the first --steps
training steps from that init, same loss, optimizer and batch as timing.py).
"""
import argparse
import json
import os
import struct
import sys
from collections import OrderedDict

import torch

_DTYPES = {torch.float32: "F32", torch.int64: "I64"}


def save_safetensors(tensors, path, metadata=None):
    """Minimal safetensors writer (format v0: u64 header length, JSON header, raw data)."""
    header, blobs, offset = OrderedDict(), [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().contiguous()
        data = t.numpy().tobytes()
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def big_mlp_data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(256, 1024, generator=g)
    y = torch.randn(256, 1024, generator=g)
    return OrderedDict([("x", x), ("y", y)])


def gpt256_data():
    g = torch.Generator().manual_seed(0)
    return OrderedDict([("tokens", torch.randint(0, 256, (8, 129), generator=g))])


def torch_reference(name, data, steps):
    """(state_dict at init, first `steps` losses), as timing.py builds and steps the model."""
    import torch.nn.functional as F
    import timing
    from common import BigMLP, TinyGPT, adamw_for
    torch.set_num_threads(1)
    torch.manual_seed(0)
    if name == "big_mlp":
        model = BigMLP()
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        loss_fn = lambda: F.mse_loss(model(data["x"]), data["y"])  # noqa: E731
    else:
        model = TinyGPT(**timing.GPT256)
        opt = adamw_for(model)
        toks = data["tokens"]
        loss_fn = lambda: model.loss(toks[:, :-1], toks[:, 1:])  # noqa: E731
    init = OrderedDict((k, v.detach().clone()) for k, v in model.state_dict().items())
    losses = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return init, losses


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--oracle", help="folder of the oracle's common.py and timing.py")
    p.add_argument("--steps", type=int, default=3, help="PyTorch reference steps (with --oracle)")
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    sets = {"big_mlp": ("big_mlp.safetensors", big_mlp_data()),
            "gpt256": ("gpt256_tokens.safetensors", gpt256_data())}
    for name, (file, data) in sets.items():
        save_safetensors(data, os.path.join(a.out_dir, file),
                         {"model": name, "source": "timing.py's random batch, Generator seed 0"})
        print("wrote", os.path.join(a.out_dir, file))
    if not a.oracle:
        return
    sys.path.insert(0, os.path.abspath(a.oracle))
    for name, (_, data) in sets.items():
        init, losses = torch_reference(name, data, a.steps)
        path = os.path.join(a.out_dir, name + "_init.safetensors")
        save_safetensors(init, path, {"model": name, "seed": "0", "torch": torch.__version__})
        with open(os.path.join(a.out_dir, name + "_torch_losses.json"), "w") as f:
            json.dump({"model": name, "torch": torch.__version__, "losses": losses}, f, indent=1)
            f.write("\n")
        print("wrote %s; PyTorch losses %s" % (path, " ".join("%.6f" % v for v in losses)))


if __name__ == "__main__":
    main()
