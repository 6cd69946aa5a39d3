"""PyTorch reference for rt::distributed_indices (runtime/sampler.h): the
indices torch.utils.data.DistributedSampler gives each rank, for a few
(n, replicas, seed, epoch, shuffle, drop_last) cases, every rank.

  /usr/bin/python3 tests/oracle/distributed_sampler.py \
      --out tests/data/sampler/distributed_sampler.json

Recorded as test data (tests/runtime/sampler_test.cc), so the test suite
needs no PyTorch.
"""
import argparse
import json

import torch
from torch.utils.data import DistributedSampler

# (n, replicas, seed, epoch, shuffle, drop_last): divisible and not, padding
# shorter and longer than the set itself (n < replicas), drop_last both ways.
CASES = [
    (10, 2, 0, 0, False, False),
    (11, 2, 0, 0, False, False),
    (11, 2, 0, 0, False, True),
    (11, 3, 5, 2, True, False),
    (11, 3, 5, 2, True, True),
    (1440, 2, 0, 1, True, False),
    (357, 2, 0, 0, False, False),
    (357, 4, 7, 3, True, True),
    (3, 5, 1, 0, True, False),
    (3, 8, 2, 4, False, False),
    (100, 4, 42, 9, True, False),
]


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out = []
    for n, replicas, seed, epoch, shuffle, drop_last in CASES:
        ranks = []
        for rank in range(replicas):
            s = DistributedSampler(Sized(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                   drop_last=drop_last)
            s.set_epoch(epoch)
            ranks.append(list(s))
        out.append({"n": n, "replicas": replicas, "seed": seed, "epoch": epoch, "shuffle": shuffle,
                    "drop_last": drop_last, "indices": ranks})
    with open(a.out, "w") as f:
        f.write(json.dumps({"torch": torch.__version__, "cases": out}) + "\n")


if __name__ == "__main__":
    main()
