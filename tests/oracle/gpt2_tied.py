"""PyTorch reference run of examples/gpt2_tied.json: a GPT-2-style decoder with tied weights.

Model (names = state_dict names; vocab 64, d 32, 2 heads of 16, 2 blocks, seq 32):
  x = tok_emb(tokens) + pos_emb(arange(32))
  per block h.i, pre-LayerNorm:
    x = x + attn(ln_1(x))     q, k, v, o: Linear(32, 32) WITH biases; attention written
                              by hand: softmax((q @ k^T) / 4 masked_fill(causal, -inf)) @ v
    x = x + mlp(ln_2(x))      c_proj(gelu(c_fc(x))), exact GELU, hidden 128
  logits = head(ln_f(x))      head.weight = tok_emb.weight (tied, as GPT-2 does)
  loss = cross_entropy over all B*T positions
Init (GPT-2's): torch.manual_seed(0), then Linear/Embedding weights N(0, 0.02), biases 0,
o and c_proj weights N(0, 0.02/sqrt(2*2)), LayerNorm weight 1 and bias 0.
Data: tokens [256,33] of examples/data/tiny_gpt_tokens.safetensors; inputs tokens[:, :32],
targets tokens[:, 1:]; step i uses sequences [(16 i) mod 256, + 16) (no shuffling).
Training: 40 steps of AdamW (lr 1e-2, betas (0.9, 0.95), eps 1e-8, weight decay 0.1 on 2-D
parameters only: each tensor once, the tied one included), learning rate of step s from
mlc's cosine schedule (warmup 5, total 40, min_lr 1e-3) set on the groups before the
update, clip_grad_norm_(1.0) on model.parameters() (the tied tensor counted once).

named_parameters() lists the tied tensor once, under tok_emb.weight (state_dict() would
list it twice, also as head.weight); init.safetensors and final.safetensors hold
named_parameters(), which is mlc's parameter list.

Writes to --out: init.safetensors, final.safetensors, grads_step0.safetensors, losses.json.

  /usr/bin/python3 tests/oracle/gpt2_tied.py --oracle ORACLE_DIR --out tests/data/oracle/gpt2_tied
(ORACLE_DIR holds st.py, the dependency-free safetensors reader/writer.)
"""
import argparse
import json
import math
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

V, D, H, L, T, HIDDEN = 64, 32, 2, 2, 32, 128
BATCH, STEPS = 16, 40
LR, BETAS, EPS, WD = 1e-2, (0.9, 0.95), 1e-8, 0.1
WARMUP, MIN_LR, CLIP = 5, 1e-3, 1.0


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))

    def forward(self, x):
        B, T_, C = x.shape
        q = self.q(x).view(B, T_, H, C // H).transpose(1, 2)
        k = self.k(x).view(B, T_, H, C // H).transpose(1, 2)
        v = self.v(x).view(B, T_, H, C // H).transpose(1, 2)
        att = q @ k.transpose(-2, -1) / 4.0
        att = att.masked_fill(torch.tril(torch.ones(T_, T_)) == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T_, C)
        return self.o(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(D, HIDDEN)
        self.c_proj = nn.Linear(HIDDEN, D)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D)
        self.attn = Attention()
        self.ln_2 = nn.LayerNorm(D)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_emb = nn.Embedding(V, D)
        self.pos_emb = nn.Embedding(T, D)
        self.h = nn.Sequential(*[Block() for _ in range(L)])
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)
        self.head.weight = self.tok_emb.weight  # tied
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() == 2:
                std = 0.02 / math.sqrt(2 * L) if name.endswith(("o.weight", "c_proj.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, tokens):
        x = self.tok_emb(tokens) + self.pos_emb(torch.arange(tokens.size(1)))
        return self.head(self.ln_f(self.h(x)))


def lr_at(s):
    """mlc's cosine schedule (ir/model_config.h), in double."""
    if s < WARMUP:
        return LR * ((s + 1.0) / WARMUP)
    span = float(STEPS - WARMUP)
    after = min(s - float(WARMUP), span)
    return MIN_LR + (LR - MIN_LR) * ((1.0 + math.cos(math.pi * (after / span))) / 2.0)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True, help="folder with st.py")
    p.add_argument("--data", default="examples/data/tiny_gpt_tokens.safetensors")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import st  # noqa: E402
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    toks = st.load(a.data)[0]["tokens"]
    n = toks.shape[0]
    torch.manual_seed(0)
    model = GPT2Tied()
    names = [k for k, _ in model.named_parameters()]
    assert "head.weight" in model.state_dict() and "head.weight" not in names
    params = lambda: OrderedDict((k, v.detach().clone()) for k, v in model.named_parameters())
    st.save(params(), os.path.join(a.out, "init.safetensors"))
    ps = list(model.parameters())
    opt = torch.optim.AdamW([{"params": [q for q in ps if q.dim() >= 2], "weight_decay": WD},
                             {"params": [q for q in ps if q.dim() < 2], "weight_decay": 0.0}],
                            lr=LR, betas=BETAS, eps=EPS)
    losses = []
    for s in range(STEPS):
        start = (s * BATCH) % n
        batch = toks[start:start + BATCH]
        x, y = batch[:, :-1], batch[:, 1:]
        for group in opt.param_groups:
            group["lr"] = lr_at(s)
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        loss.backward()
        if s == 0:
            st.save(OrderedDict((k, v.grad.detach().clone()) for k, v in model.named_parameters()),
                    os.path.join(a.out, "grads_step0.safetensors"))
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        losses.append(loss.item())
    st.save(params(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"model": "gpt2_tied", "losses": losses, "torch": torch.__version__,
                   "parameters": names}, f, indent=1)
        f.write("\n")
    print("loss %.6f -> %.6f over %d steps; %d parameter tensors" % (losses[0], losses[-1], STEPS, len(names)))


if __name__ == "__main__":
    main()
