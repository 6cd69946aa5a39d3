"""PyTorch reference run of examples/pytorch/word_language_model_transformer.json:
PyTorch examples' word_language_model TransformerModel (model.py), small.

Model (the example's code below, its state_dict names = mlc's parameter names):
vocabulary 64, ninp 32, 2 heads, nhid 64, 2 TransformerEncoderLayers
(post-norm, relu, dropout 0: mlc's dropout masks do not follow torch's
generator), the input scaled by sqrt(ninp), the sinusoidal PositionalEncoding
buffer, the square subsequent (causal) float mask, a Linear decoder and
log_softmax; the loss NLL over all positions, sequence-first as main.py's
get_batch gives them. Init: torch.manual_seed(0), the example's init_weights
(encoder and decoder weights U(-0.1, 0.1), decoder bias 0).
Data: tokens [197, 13] of examples/data/word_language_model_tokens.safetensors;
inputs tokens[:, :-1], targets tokens[:, 1:]; step i uses windows [8 i, 8 i + 8).
Training: main.py's: plain SGD after clip_grad_norm_(parameters, 0.25), at lr 1
(main.py's 20 makes this small model's loss jump between 2 and 20),
24 steps.

Writes to --out: init.safetensors, grads_step0.safetensors, final.safetensors and
losses.json.

  /usr/bin/python3 tests/oracle/word_language_model_transformer.py --oracle ORACLE_DIR \\
      --out tests/data/oracle/pytorch/word_language_model_transformer
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

DATA = os.path.join(HERE, "..", "..", "examples", "data", "word_language_model_tokens.safetensors")
NTOKEN, NINP, NHEAD, NHID, NLAYERS, DROPOUT = 64, 32, 2, 64, 2, 0.0
BATCH, STEPS, LR, CLIP = 8, 24, 1.0, 0.25


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        encoder_layers = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(encoder_layers, nlayers)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
        return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src):
        if self.src_mask is None or self.src_mask.size(0) != len(src):
            self.src_mask = self._generate_square_subsequent_mask(len(src))
        src = self.encoder(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.transformer_encoder(src, self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


def main():
    a, st = optimizers.recorder_setup(__doc__)
    tokens = st.load(DATA)[0]["tokens"]
    torch.manual_seed(0)
    model = TransformerModel(NTOKEN, NINP, NHEAD, NHID, NLAYERS, DROPOUT)
    params = lambda: OrderedDict((k, v.detach().clone()) for k, v in model.named_parameters())
    st.save(params(), os.path.join(a.out, "init.safetensors"))
    losses, norms = [], []
    for step in range(STEPS):
        window = tokens[step * BATCH:(step + 1) * BATCH]
        data, targets = window[:, :-1].t(), window[:, 1:].t().reshape(-1)  # get_batch: [T, B]
        model.zero_grad(set_to_none=True)
        output = model(data)
        loss = F.nll_loss(output.view(-1, NTOKEN), targets)
        loss.backward()
        if step == 0:
            st.save(OrderedDict((k, v.grad.detach().clone()) for k, v in model.named_parameters()),
                    os.path.join(a.out, "grads_step0.safetensors"))
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)))
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-LR)
        losses.append(loss.item())
    st.save(params(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"losses": losses, "grad_norms": norms, "torch": torch.__version__}, f, indent=1)
        f.write("\n")
    print("loss %.6f -> %.6f, grad norms %.3f .. %.3f" % (losses[0], losses[-1], min(norms), max(norms)))


if __name__ == "__main__":
    main()
