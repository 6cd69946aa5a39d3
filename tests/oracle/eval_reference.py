"""PyTorch reference for `mlc run --eval`: evaluation loss and accuracy of the
oracle models at their initial weights, and the loss of each model's first
training batch. Uses the oracle's own model classes and data.

  /usr/bin/python3 tests/oracle/eval_reference.py --oracle ORACLE_DIR \
      --out tests/data/oracle/eval_reference.json

ORACLE_DIR is the folder with common.py, st.py and out/ (the shared PyTorch
oracle). Results are recorded as test data, so the test suite needs no PyTorch.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import st  # noqa: E402
    from common import CNN, MLP, TinyGPT  # noqa: E402

    torch.set_num_threads(1)
    out_dir = os.path.join(a.oracle, "out")
    digits, _ = st.load(os.path.join(out_dir, "data_digits", "digits.safetensors"))
    result = {"torch": torch.__version__}
    for name, cls in (("digits_mlp", MLP), ("digits_cnn", CNN)):
        model = cls()
        init, _ = st.load(os.path.join(out_dir, name, "init.safetensors"))
        model.load_state_dict(init)
        with torch.no_grad():
            logits = model(digits["val_images"])
            loss = F.cross_entropy(logits, digits["val_labels"]).item()
            correct = int((logits.argmax(1) == digits["val_labels"]).sum())
            first = F.cross_entropy(model(digits["train_images"][:32]),
                                    digits["train_labels"][:32]).item()
        result[name] = {"eval_loss": loss, "eval_correct": correct,
                        "eval_accuracy": correct / len(digits["val_labels"]),
                        "eval_examples": len(digits["val_labels"]),
                        "first_batch_loss": first}
    model = TinyGPT(vocab=64, d=64, n_heads=4, n_layers=2, seq=32, hidden=128, eps=1e-5)
    init, _ = st.load(os.path.join(out_dir, "tiny_gpt", "init.safetensors"))
    model.load_state_dict(init)
    toks = st.load(os.path.join(out_dir, "tiny_gpt", "data.safetensors"))[0]["tokens"]
    with torch.no_grad():
        logits = model(toks[:, :-1])
        tgt = toks[:, 1:]
        loss = F.cross_entropy(logits.reshape(-1, 64), tgt.reshape(-1)).item()
        correct = int((logits.argmax(-1) == tgt).sum())
        first = model.loss(toks[:16, :-1], toks[:16, 1:]).item()
    result["tiny_gpt"] = {"eval_loss": loss, "eval_correct": correct,
                          "eval_accuracy": correct / tgt.numel(), "eval_examples": len(toks),
                          "first_batch_loss": first}
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
