"""PyTorch's CPU training step under bf16 autocast, next to its f32 step.

  /usr/bin/python3 bench/torch_bf16_step.py --oracle ORACLE_DIR [--models tiny_gpt,gpt256]
      [--threads 1] [--warmup 5] [--steps 20]

ORACLE_DIR is the shared PyTorch oracle's folder: its timing.py builds each
model's step (zero_grad + forward + loss + backward + optimizer step, the
definitions side_by_side.py measures); this script runs that step as is (f32)
and inside torch.autocast("cpu", dtype=torch.bfloat16), the policy mlc's
"mixed_precision": "bf16" follows (docs/model-format.md), with OpenBLAS's pool
limited to the thread count. One line of JSON per model and mode on stdout:
the median step in ms of --steps steps after --warmup.
"""
import argparse
import json
import os
import statistics
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--oracle", required=True)
    p.add_argument("--models", default="tiny_gpt,gpt256")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    sys.path.insert(0, os.path.abspath(args.oracle))
    import threadpoolctl
    import torch
    import timing  # the oracle's: build(name) -> (step, info)

    torch.set_num_threads(args.threads)
    threadpoolctl.threadpool_limits(limits=args.threads, user_api="blas")
    for name in args.models.split(","):
        for mode in ("f32", "bf16"):
            step, _ = timing.build(name)
            if mode == "bf16":
                plain = step

                def step(plain=plain):
                    with torch.autocast("cpu", dtype=torch.bfloat16):
                        plain()
            for _ in range(args.warmup):
                step()
            ts = []
            for _ in range(args.steps):
                t0 = time.perf_counter()
                step()
                ts.append((time.perf_counter() - t0) * 1e3)
            print(json.dumps({"model": name, "mode": mode, "threads": args.threads, "torch": torch.__version__,
                              "median_ms": statistics.median(ts), "min_ms": min(ts)}), flush=True)


if __name__ == "__main__":
    main()
