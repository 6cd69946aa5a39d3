"""First training losses of bench/models/{big_mlp,gpt256}.json under mlc vs PyTorch, same init.

  /usr/bin/python3 bench/check_models.py --oracle ORACLE_DIR [--steps 3] [--data DIR]

Runs bench/make_data.py DIR --oracle ORACLE_DIR (the data, PyTorch's initial
state_dict of timing.py's model and PyTorch's first losses; DIR defaults to
bench/models/data), then `mlc run MODEL.json --init DIR/<model>_init.safetensors
--data ... --steps N --metrics ...` and prints both loss sequences and their
differences (in units in the last place of f32 at the loss). Also runs mlc from
its own seed-0 initialisation, which for Linear layers reproduces
torch.manual_seed(0) and so, for big_mlp, the same losses without --init.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = {"big_mlp": "big_mlp.safetensors", "gpt256": "gpt256_tokens.safetensors"}


def mlc_losses(model, data, steps, init=None):
    with tempfile.TemporaryDirectory() as tmp:
        metrics = os.path.join(tmp, "m.jsonl")
        cmd = [os.path.join(ROOT, "build", "bin", "mlc"), "run",
               os.path.join(ROOT, "bench", "models", model + ".json"), "--data", data,
               "--steps", str(steps), "--metrics", metrics] + (["--init", init] if init else [])
        subprocess.run(cmd, check=True, capture_output=True)
        with open(metrics) as f:
            records = [json.loads(l) for l in f]
            return [r["loss"] for r in records if "loss" in r]  # step records


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--data", default=os.path.join(ROOT, "bench", "models", "data"))
    a = p.parse_args()
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "make_data.py"), a.data,
                    "--oracle", a.oracle, "--steps", str(a.steps)], check=True,
                   stdout=subprocess.DEVNULL)
    print("| model | step | PyTorch loss | mlc --init loss | diff (f32 ulps) | mlc seed-0 init loss |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for model in DATA:
        with open(os.path.join(a.data, model + "_torch_losses.json")) as f:
            ref = json.load(f)["losses"]
        data = os.path.join(a.data, DATA[model])
        got = mlc_losses(model, data, a.steps, os.path.join(a.data, model + "_init.safetensors"))
        own = mlc_losses(model, data, a.steps)
        for s, (r, g, o) in enumerate(zip(ref, got, own)):
            ulps = abs(g - r) / float(np.spacing(np.float32(r)))
            worst = max(worst, ulps)
            print("| %s | %d | %.7f | %.7f | %.1f | %.7f |" % (model, s, r, g, ulps, o))
    sys.exit(0 if worst <= 16 else 1)


if __name__ == "__main__":
    main()
