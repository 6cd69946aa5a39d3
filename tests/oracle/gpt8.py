"""PyTorch reference run of examples/gpt8.json: tiny_gpt's decoder with 8 blocks, clipped.

Model (names = mlc's parameter names = state_dict names; vocab 64, d 64, 4 heads of 16,
8 blocks, seq 32, SwiGLU hidden 128, no biases anywhere, head untied; 339,008 parameters):
  x = tok_emb(tokens) + pos_emb(arange(32))
  per block layers.i, pre-norm:
    x = x + attn(attn_norm(x))    wq, wk, wv, wo: Linear(64, 64); scores q k^T * (1/sqrt(16)),
                                  an explicit -inf mask above the diagonal, softmax, @ v,
                                  heads concatenated in head order, then wo
    x = x + mlp(mlp_norm(x))      w2(silu(w1 h) * w3 h), w1 and w3 Linear(64, 128), w2 Linear(128, 64)
  logits = head(norm(x))
  RMSNorm(x) = x * rsqrt(mean(x^2, -1) + 1e-5) * weight
  loss = cross_entropy over all B*T positions
Init: torch.manual_seed(0), then the modules built in parameter order with PyTorch's
default inits (Embedding N(0, 1), Linear kaiming_uniform(a=sqrt(5))) and RMSNorm weights 1.
Data: tokens [256,33] of examples/data/tiny_gpt_tokens.safetensors; inputs tokens[:, :-1],
targets tokens[:, 1:]; step i uses sequences [(16 i) mod 256, + 16) (no shuffling).
Training: 40 steps of AdamW (torch 1.13: lr 3e-3, betas (0.9, 0.95), eps 1e-8, weight decay
0.1 on 2-D parameters only: the Linear weights and both embeddings, not the RMSNorm weights),
clip_grad_norm_(model.parameters(), 0.5) between backward and the update. The gradient
norms of this run lie between 0.43 and 0.85, so a bound of 1.0 would never clip; at 0.5, 30
of the 40 steps are clipped and 10 are not.

Writes to --out: init.safetensors (the initial parameters, which `mlc run --init` reads),
grads_step0.safetensors (step 0's gradients, before clipping), final.safetensors and
losses.json (each step's loss before its update, and each step's gradient norm before
clipping: clipping scales the gradients where it exceeds 0.5).

  /usr/bin/python3 tests/oracle/gpt8.py --oracle ORACLE_DIR --out tests/data/oracle/gpt8
(ORACLE_DIR holds st.py, the dependency-free safetensors reader/writer; Debian's
python3-torch 1.13, CPU, one thread.)
"""
import json
import math
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import optimizers  # noqa: E402  recorder_setup: --oracle, --out, one thread

DATA = os.path.join(HERE, "..", "..", "examples", "data", "tiny_gpt_tokens.safetensors")

VOCAB, DIM, HEADS, BLOCKS, SEQ, HIDDEN, NORM_EPS = 64, 64, 4, 8, 32, 128, 1e-5
BATCH, STEPS = 16, 40
LR, BETAS, EPS, WD, CLIP = 3e-3, (0.9, 0.95), 1e-8, 0.1, 0.5


class RMSNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(DIM))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + NORM_EPS) * self.weight


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        # Built (and so initialized) in this order.
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(DIM, DIM, bias=False) for _ in range(4))

    def forward(self, x):
        b, t, _ = x.shape
        head_dim = DIM // HEADS
        split = lambda y: y.view(b, t, HEADS, head_dim).transpose(1, 2)  # [b, heads, t, head_dim]
        q, k, v = split(self.wq(x)), split(self.wk(x)), split(self.wv(x))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
        above = torch.ones(t, t, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(above, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.wo(y.transpose(1, 2).reshape(b, t, DIM))


class SwiGLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(DIM, HIDDEN, bias=False)
        self.w3 = nn.Linear(DIM, HIDDEN, bias=False)
        self.w2 = nn.Linear(HIDDEN, DIM, bias=False)

    def forward(self, h):
        return self.w2(F.silu(self.w1(h)) * self.w3(h))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = RMSNorm()
        self.attn = CausalSelfAttention()
        self.mlp_norm = RMSNorm()
        self.mlp = SwiGLU()

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Gpt8(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_emb = nn.Embedding(VOCAB, DIM)
        self.pos_emb = nn.Embedding(SEQ, DIM)
        self.layers = nn.Sequential(*[Block() for _ in range(BLOCKS)])
        self.norm = RMSNorm()
        self.head = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, tokens):
        x = self.tok_emb(tokens) + self.pos_emb(torch.arange(SEQ))
        return self.head(self.norm(self.layers(x)))


def main():
    a, st = optimizers.recorder_setup(__doc__)
    tokens = st.load(DATA)[0]["tokens"]
    rows = tokens.shape[0]
    torch.manual_seed(0)
    model = Gpt8()
    named = lambda what: OrderedDict((k, what(v).detach().clone()) for k, v in model.named_parameters())
    st.save(named(lambda v: v), os.path.join(a.out, "init.safetensors"))
    params = list(model.parameters())
    opt = torch.optim.AdamW([{"params": [q for q in params if q.dim() == 2], "weight_decay": WD},
                             {"params": [q for q in params if q.dim() != 2], "weight_decay": 0.0}],
                            lr=LR, betas=BETAS, eps=EPS)
    losses, grad_norms = [], []
    for s in range(STEPS):
        start = (s * BATCH) % rows
        batch = tokens[start:start + BATCH]
        opt.zero_grad(set_to_none=True)
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        loss.backward()
        if s == 0:
            st.save(named(lambda v: v.grad), os.path.join(a.out, "grads_step0.safetensors"))
        grad_norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP).item())
        opt.step()
        losses.append(loss.item())
    st.save(named(lambda v: v), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"model": "gpt8", "losses": losses, "grad_norms_before_clipping": grad_norms,
                   "torch": torch.__version__, "parameters": sum(q.numel() for q in params)}, f, indent=1)
        f.write("\n")
    clipped = sum(n > CLIP for n in grad_norms)
    print("loss %.6f -> %.6f over %d steps; %d of them clipped" % (losses[0], losses[-1], STEPS, clipped))


if __name__ == "__main__":
    main()
