"""PyTorch's greedy decoding of mlc's trained language models, for `mlc generate`.

For each model (the trained parameters of its oracle run), each prompt is extended by
greedy decoding, nanoGPT's loop without a cache:
    for _ in range(new_tokens):
        context = tokens[-32:]                      # the window of the model
        logits = model(context padded on the right with token 0 to 32)[len(context) - 1]
        tokens.append(argmax(logits))               # the first of the largest at a tie
(A causal model's logits at a position read no later position, so the padding changes
nothing; gpt2_tied's forward takes the context unpadded.) The prompts' lengths and the
new tokens cross the window, so `mlc generate` runs both its cached steps and its
whole-window calls. Each record also holds the smallest gap between the largest and the
second largest logit over the run: greedy decoding of the same weights in another
summation order may pick another token only where that gap is within rounding.

Models: tiny_gpt (tests/data/oracle/tiny_gpt/final.safetensors, 2 blocks of gpt8.py's
modules), gpt8 (tests/data/oracle/gpt8/final.safetensors) and gpt2_tied (attention
written by hand in its forward; tests/data/oracle/gpt2_tied/final.safetensors).

Writes --out/greedy.json: {model: [{"prompt": [...], "tokens": [...], "min_gap": g}, ...]}.

  /usr/bin/python3 tests/oracle/generate.py --oracle ORACLE_DIR --out tests/data/oracle/generate
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import optimizers  # noqa: E402  recorder_setup
import gpt8  # noqa: E402
import gpt2_tied  # noqa: E402

DATA = os.path.join(HERE, "..", "data", "oracle")
WINDOW = 32
PROMPTS = [[7], [1, 8, 15, 22, 29], list(range(3, 63, 3)), [(5 * i + 2) % 64 for i in range(40)]]
NEW_TOKENS = 40


def greedy(model, prompt, pad):
    tokens = list(prompt)
    gap = float("inf")
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            context = tokens[-WINDOW:]
            x = context + [0] * (WINDOW - len(context)) if pad else context
            logits = model(torch.tensor([x]))[0, len(context) - 1]
            top2 = torch.topk(logits, 2).values
            gap = min(gap, float(top2[0] - top2[1]))
            tokens.append(int(torch.argmax(logits)))
    return {"prompt": prompt, "tokens": tokens[len(prompt):], "min_gap": gap}


def main():
    a, st = optimizers.recorder_setup(__doc__)
    records = {}
    for name, make, pad in [("tiny_gpt", lambda: blocks(2), True), ("gpt8", lambda: blocks(8), True),
                            ("gpt2_tied", gpt2_tied.GPT2Tied, False)]:
        torch.manual_seed(0)
        model = make()
        weights = st.load(os.path.join(DATA, name, "final.safetensors"))[0]
        model.load_state_dict(weights, strict=False)
        for k, v in model.named_parameters():
            assert torch.equal(v, weights[k]), k
        model.eval()
        records[name] = [greedy(model, p, pad) for p in PROMPTS]
        print(name, ["%.3g" % r["min_gap"] for r in records[name]])
    with open(os.path.join(a.out, "greedy.json"), "w") as f:
        json.dump(records, f, indent=1)


def blocks(n):
    gpt8.BLOCKS = n
    return gpt8.Gpt8()


if __name__ == "__main__":
    main()
