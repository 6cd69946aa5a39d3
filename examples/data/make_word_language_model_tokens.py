"""Makes examples/data/word_language_model_tokens.safetensors from
examples/data/word_language_model.txt (an excerpt of the project's README) for
examples/pytorch/word_language_model_transformer.{json,mlc}.

Tokens as PyTorch's word_language_model example's Corpus makes them (each
line's whitespace-separated words, then '<eos>'), over a vocabulary of the
63 most frequent words (ties by first appearance) and '<unk>' (id 63) for the
rest. The stream is cut into windows of WINDOW + 1 tokens that overlap by one
(the input is a window's first WINDOW tokens, the targets its last WINDOW):
`tokens` i64 [windows, WINDOW + 1], and `vocab` the words in id order, one per
line of the file's metadata.

  /usr/bin/python3 examples/data/make_word_language_model_tokens.py
"""
import json
import os
import struct
from collections import Counter

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB, WINDOW = 64, 12


def save(tensors, metadata, path):
    """A minimal safetensors writer (little-endian i64 tensors)."""
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, a in tensors.items():
        b = np.ascontiguousarray(a, dtype="<i8").tobytes()
        header[name] = {"dtype": "I64", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    words = []
    with open(os.path.join(HERE, "word_language_model.txt"), encoding="utf-8") as f:
        for line in f:
            words += line.split() + ["<eos>"]
    counts = Counter(words)
    order = {w: i for i, w in reversed(list(enumerate(words)))}  # first appearance
    vocab = sorted(counts, key=lambda w: (-counts[w], order[w]))[:VOCAB - 1] + ["<unk>"]
    ids = {w: i for i, w in enumerate(vocab)}
    stream = np.array([ids.get(w, VOCAB - 1) for w in words], dtype=np.int64)
    n = (len(stream) - 1) // WINDOW
    tokens = np.stack([stream[i * WINDOW:i * WINDOW + WINDOW + 1] for i in range(n)])
    save({"tokens": tokens}, {"vocab": "\n".join(vocab)},
         os.path.join(HERE, "word_language_model_tokens.safetensors"))
    print("%d words, %d windows of %d, %.1f%% <unk>" % (len(words), n, WINDOW + 1,
                                                      100.0 * np.mean(stream == VOCAB - 1)))


if __name__ == "__main__":
    main()
