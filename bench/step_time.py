"""Median training-step time of mlc next to PyTorch's, measured side by side.

For each example model, alternates RUNS runs of `mlc run` (which prints its
median step time) with RUNS runs of the shared PyTorch oracle script for the
same model (which records its median step time, zero_grad+fwd+bwd+step, in
losses.json), all with one thread, and prints the median of each side's
medians and their ratio. Both sides use the same OpenBLAS kernels: mlc selects
SkylakeX on AVX-512 machines (OpenBLAS 0.3.21 does not recognise recent Xeons),
so the PyTorch side gets OPENBLAS_CORETYPE=SkylakeX there too.

  /usr/bin/python3 bench/step_time.py --oracle ORACLE_DIR [--runs 5]

ORACLE_DIR is the folder with digits_mlp.py, digits_cnn.py, tiny_gpt.py.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile

MODELS = ["digits_mlp", "digits_cnn", "tiny_gpt"]


def mlc_step_ms(root, model, env):
    out = subprocess.run([os.path.join(root, "build", "bin", "mlc"), "run",
                          os.path.join(root, "examples", model + ".json"), "--init",
                          os.path.join(root, "tests", "data", "oracle", model, "init.safetensors")],
                         capture_output=True, text=True, env=env, check=True).stdout
    return float(re.search(r"median step ([0-9.]+) ms", out).group(1))


def torch_step_ms(oracle, model, env):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["/usr/bin/python3", os.path.join(oracle, model + ".py"), "--out", out,
                        "--threads", "1"], capture_output=True, text=True, env=env, check=True)
        with open(os.path.join(out, "losses.json")) as f:
            return json.load(f)["step_time_ms"]["median"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, OMP_NUM_THREADS="1", MLC_THREADS="1")
    with open("/proc/cpuinfo") as f:
        if " avx512f" in f.read():
            env["OPENBLAS_CORETYPE"] = "SkylakeX"
    print("| model | mlc median ms | PyTorch median ms | mlc / PyTorch |")
    print("|---|---|---|---|")
    for model in MODELS:
        mlc, torch = [], []
        for _ in range(a.runs):
            mlc.append(mlc_step_ms(root, model, env))
            torch.append(torch_step_ms(a.oracle, model, env))
        m, t = statistics.median(mlc), statistics.median(torch)
        print("| %s | %.3f (min %.3f) | %.3f (min %.3f) | %.2f |" % (model, m, min(mlc), t, min(torch), m / t))


if __name__ == "__main__":
    main()
