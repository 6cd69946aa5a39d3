"""safetensors reading and writing for the oracle scripts (f32 and i64
tensors; written keys in the given order)."""
import json
import struct
from collections import OrderedDict

import numpy as np
import torch


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        base = 8 + n
        out = {}
        for name, e in header.items():
            if name == "__metadata__":
                continue
            f.seek(base + e["data_offsets"][0])
            raw = f.read(e["data_offsets"][1] - e["data_offsets"][0])
            dtype = {"F32": np.float32, "I64": np.int64}[e["dtype"]]
            out[name] = torch.from_numpy(np.frombuffer(raw, dtype=dtype).reshape(e["shape"]).copy())
        return out


def save_safetensors(tensors, path):
    """safetensors with f32 tensors, keys in the given order."""
    header, offset, blobs = OrderedDict(), 0, []
    for name, t in tensors.items():
        data = t.detach().to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
