"""mlc's keyed generator in numpy, for oracles that feed PyTorch the masks and
noise mlc draws (docs/model-format.md, "Dropout" and "Randomness in forward").

ir/random.h: element `index` of a draw at step `step` on stream `stream` under
seed `seed` is Philox4x32-10 of the counter (lo32(index), hi32(index),
lo32(step), stream) and key (lo32(seed), hi32(seed)); u = (word 0 >> 8) * 2^-24.
A layer call's stream is 32-bit FNV-1a of "<layer path>#<call>"
(frontends/module_tree.cc); the k-th random built-in of a container's forward
draws on "<container path>/k#<call>". The train step passes step = s + 1 at
0-based optimizer step s.
"""
import math

import numpy as np

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = 0x9E3779B9, 0xBB67AE85
LO = np.uint64(0xFFFFFFFF)


def fnv1a(text):
    h = 2166136261
    for b in text.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def layer_stream(path, call=0):
    return fnv1a("%s#%d" % (path, call))


def forward_stream(container_path, k, call=0):
    return fnv1a("%s/%d#%d" % (container_path, k, call))


def uniform(index, step, seed, stream):
    """float32 draws for an array of int64 indices."""
    index = np.asarray(index, dtype=np.uint64)
    c0 = index & LO
    c1 = index >> np.uint64(32)
    c2 = np.full_like(c0, np.uint64(step & 0xFFFFFFFF))
    c3 = np.full_like(c0, np.uint64(stream))
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for r in range(10):
        if r > 0:
            k0 = (k0 + W0) & 0xFFFFFFFF
            k1 = (k1 + W1) & 0xFFFFFFFF
        p0 = M0 * c0
        p1 = M1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & LO,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & LO)
    return (c0 >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)


def dropout_mask(shape, p, step, seed, stream):
    """select(u >= f32(p), f32(1 / f32(1 - p)), 0) per element, float32."""
    n = int(np.prod(shape))
    u = uniform(np.arange(n), step, seed, stream).reshape(shape)
    scale = np.float32(1.0) / np.float32(1 - p)
    return np.where(u >= np.float32(p), scale, np.float32(0)).astype(np.float32)


def normal(shape, step, seed, stream):
    """sqrt(-2 log(1 - u_i)) * cos(2 pi u_{n+i}) in float32."""
    n = int(np.prod(shape))
    u1 = uniform(np.arange(n), step, seed, stream)
    u2 = uniform(np.arange(n, 2 * n), step, seed, stream)
    radius = np.sqrt(np.float32(-2) * np.log(np.float32(1) - u1))
    theta = np.float32(2 * math.pi) * u2
    return (radius * np.cos(theta)).astype(np.float32).reshape(shape)
