"""PyTorch reference runs for mlc's attention: nn.MultiheadAttention,
F.scaled_dot_product_attention, nn.TransformerEncoderLayer,
nn.TransformerDecoderLayer, nn.TransformerEncoder and nn.TransformerDecoder.

Each configuration is a small model whose forward returns an MSE loss,
trained STEPS steps of SGD (batches of BATCH rows in order) from torch's
initial weights with torch 1.13 (dropout 0: mlc's masks do not follow
torch's generator). The forward statements are the model file's and, where
torch 1.13 lacks an argument (is_causal, F.scaled_dot_product_attention,
added in torch 2.0), Python with the same meaning: an explicit causal mask,
and scaled_dot_product_attention written out as PyTorch documents it.

  mha_self          self-attention, batch_first, no masks
  mha_masks         sequence-first, bool key_padding_mask and bool causal
                    attn_mask, need_weights (averaged) used in the loss
  mha_float_mask    a float attn_mask per batch and head [N * h, L, S] and
                    a bool key_padding_mask (torch 1.13 takes no float one)
  mha_cross         cross-attention on memory with kdim and vdim, memory
                    key padding
  sdpa              F.scaled_dot_product_attention with a bool mask (True:
                    attend), is_causal and scale
  encoder_post      TransformerEncoderLayer, post-norm, relu, key padding
  encoder_pre       TransformerEncoderLayer, norm_first, gelu, sequence-first,
                    is_causal
  encoder_stack     TransformerEncoder of 2 layers and a final LayerNorm,
                    causal mask and key padding
  decoder_post      TransformerDecoderLayer, post-norm, causal tgt mask,
                    memory key padding
  decoder_pre       TransformerDecoder of 2 norm_first layers, gelu, a final
                    norm, tgt key padding, tgt_is_causal

Writes, under --out: data.safetensors and per configuration NAME.json,
NAME.init.safetensors, NAME.grads_step0.safetensors, NAME.final.safetensors
and NAME.losses.json.

  /usr/bin/python3 tests/oracle/attention.py --oracle ORACLE_DIR --out tests/data/oracle/attention
"""
import math
import os
import sys
import types
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import losses  # noqa: E402
from losses import Statements, model_json, train, write_json  # noqa: E402
from optimizers import recorder_setup  # noqa: E402

N, T, S, E = 16, 6, 5, 16
losses.BATCH, losses.STEPS = 4, 4
CAUSAL = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def data():
    g = torch.Generator().manual_seed(11)
    x = torch.randn(N, T, E, generator=g)
    mem = torch.randn(N, S, E, generator=g)
    mem_k = torch.randn(N, S, 12, generator=g)
    mem_v = torch.randn(N, S, 10, generator=g)
    y = torch.randn(N, T, E, generator=g)
    lengths = torch.randint(3, T + 1, (N,), generator=g)
    pad = torch.arange(T)[None, :] >= lengths[:, None]
    mem_lengths = torch.randint(2, S + 1, (N,), generator=g)
    mem_pad = torch.arange(S)[None, :] >= mem_lengths[:, None]
    fmask = -2.0 * torch.rand(N, 2, T, T, generator=g)  # per batch row and head
    x8, mem8 = torch.randn(N, 4, 8, generator=g), torch.randn(N, 3, 8, generator=g)  # attention_test.cc
    return OrderedDict([("x", x), ("mem", mem), ("mem_k", mem_k), ("mem_v", mem_v), ("y", y), ("pad", pad),
                        ("mem_pad", mem_pad), ("fmask", fmask), ("x8", x8),
                        ("mem8", mem8)])


def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """F.scaled_dot_product_attention as PyTorch 2 documents it (torch 1.13 has none)."""
    assert dropout_p == 0.0
    L, Sk = query.size(-2), key.size(-2)
    scale = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    bias = torch.zeros(L, Sk, dtype=query.dtype)
    if is_causal:
        bias = bias.masked_fill(torch.ones(L, Sk, dtype=torch.bool).tril().logical_not(), float("-inf"))
    if attn_mask is not None:
        bias = bias.masked_fill(attn_mask.logical_not(), float("-inf")) if attn_mask.dtype == torch.bool \
            else bias + attn_mask
    w = torch.softmax((query * scale) @ key.transpose(-2, -1) + bias, dim=-1)
    return w @ value


def namespace(module, inputs):
    functional = types.SimpleNamespace(**{n: getattr(F, n) for n in dir(F) if not n.startswith("_")})
    functional.scaled_dot_product_attention = sdpa
    ns = dict(torch=torch, F=functional, tril=torch.tril, ones=torch.ones, CAUSAL=CAUSAL)
    ns.update({name: child for name, child in module.named_children()})
    ns.update(inputs)
    return ns


losses.namespace = namespace  # Statements runs with these names


def mlc_layer(type_, **fields):
    return OrderedDict([("type", type_)] + list(fields.items()))


# name: (torch modules (made after torch.manual_seed(0)), mlc layers, inputs, statements,
# torch's statements where they differ)
def configs():
    enc = lambda **kw: nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, **kw)
    dec = lambda **kw: nn.TransformerDecoderLayer(16, 4, dim_feedforward=32, dropout=0.0, **kw)
    enc_mlc = lambda **kw: mlc_layer("TransformerEncoderLayer", d_model=16, nhead=4, dim_feedforward=32,
                                     dropout=0.0, **kw)
    dec_mlc = lambda **kw: mlc_layer("TransformerDecoderLayer", d_model=16, nhead=4, dim_feedforward=32,
                                     dropout=0.0, **kw)
    mha = lambda **kw: mlc_layer("MultiheadAttention", embed_dim=16, **kw)
    return OrderedDict([
        ("mha_self", (lambda: [("attn", nn.MultiheadAttention(16, 4, batch_first=True))],
                      [("attn", mha(num_heads=4, batch_first=True))], ["x", "y"],
                      ["h = attn(x, x, x, need_weights=False)[0]", "return F.mse_loss(h, y)"], None)),
        ("mha_masks", (lambda: [("attn", nn.MultiheadAttention(16, 2))], [("attn", mha(num_heads=2))], ["x", "y", "pad"],
                       ["xs = x.transpose(0, 1)",
                        "h, w = attn(xs, xs, xs, key_padding_mask=pad, attn_mask=tril(ones(6, 6)) == 0)",
                        "return F.mse_loss(h.transpose(0, 1), y) + (w * w).sum() * 0.1"], None)),
        ("mha_float_mask", (lambda: [("attn", nn.MultiheadAttention(16, 2, batch_first=True))],
                            [("attn", mha(num_heads=2, batch_first=True))], ["x", "y", "fmask", "pad"],
                            ["h = attn(x, x, x, pad, False, fmask.reshape(-1, 6, 6))[0]",
                             "return F.mse_loss(h, y)"], None)),
        ("mha_cross", (lambda: [("attn", nn.MultiheadAttention(16, 4, kdim=12, vdim=10, batch_first=True))],
                       [("attn", mha(num_heads=4, kdim=12, vdim=10, batch_first=True))],
                       ["x", "mem_k", "mem_v", "y", "mem_pad"],
                       ["h, w = attn(x, mem_k, mem_v, key_padding_mask=mem_pad, average_attn_weights=False)",
                        "return F.mse_loss(h, y) + (w * w).mean()"], None)),
        ("sdpa", (lambda: [("wq", nn.Linear(16, 16)), ("wkv", nn.Linear(16, 32))],
                  [("wq", losses.linear(16, 16)), ("wkv", losses.linear(16, 32))], ["x", "mem", "y", "pad"],
                  ["B = x.size(0)",
                   "q = wq(x).view(B, 6, 2, 8).transpose(1, 2)",
                   "k, v = wkv(x).view(B, 6, 4, 8).transpose(1, 2).chunk(2, dim=1)",
                   "a = F.scaled_dot_product_attention(q, k, v, is_causal=True)",
                   "keep = (pad.float() < 0.5).view(B, 1, 1, 6)",
                   "c = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.3)",
                   "return F.mse_loss((a + c).transpose(1, 2).reshape(B, 6, 16), y)"], None)),
        ("encoder_post", (lambda: [("enc", enc(batch_first=True))], [("enc", enc_mlc(batch_first=True))], ["x", "y", "pad"],
                          ["return F.mse_loss(enc(x, src_key_padding_mask=pad), y)"], None)),
        ("encoder_pre", (lambda: [("enc", enc(norm_first=True, activation="gelu"))],
                         [("enc", enc_mlc(norm_first=True, activation="gelu"))], ["x", "y"],
                         ["h = enc(x.transpose(0, 1), is_causal=True)", "return F.mse_loss(h.transpose(0, 1), y)"],
                         ["h = enc(x.transpose(0, 1), src_mask=CAUSAL)", "return F.mse_loss(h.transpose(0, 1), y)"])),
        ("encoder_stack", (lambda: [("encoder", nn.TransformerEncoder(enc(batch_first=True), 2, norm=nn.LayerNorm(16)))],
                           [("encoder", mlc_layer("TransformerEncoder", encoder_layer=enc_mlc(batch_first=True),
                                                  num_layers=2, norm=mlc_layer("LayerNorm", normalized_shape=16)))],
                           ["x", "y", "pad"],
                           ["return F.mse_loss(encoder(x, tril(ones(6, 6)) == 0, pad), y)"], None)),
        ("decoder_post", (lambda: [("dec", dec(batch_first=True))], [("dec", dec_mlc(batch_first=True))],
                          ["x", "mem", "y", "mem_pad"],
                          ["h = dec(x, mem, tgt_mask=tril(ones(6, 6)) == 0, memory_key_padding_mask=mem_pad)",
                           "return F.mse_loss(h, y)"], None)),
        ("decoder_pre", (lambda: [("decoder", nn.TransformerDecoder(dec(norm_first=True, activation="gelu"), 2,
                                                            norm=nn.LayerNorm(16)))],
                         [("decoder", mlc_layer("TransformerDecoder",
                                                decoder_layer=dec_mlc(norm_first=True, activation="gelu"),
                                                num_layers=2, norm=mlc_layer("LayerNorm", normalized_shape=16)))],
                         ["x", "mem", "y", "pad"],
                         ["h = decoder(x.transpose(0, 1), mem.transpose(0, 1), tgt_key_padding_mask=pad, "
                          "tgt_is_causal=True)",
                          "return F.mse_loss(h.transpose(0, 1), y)"],
                         ["h = decoder(x.transpose(0, 1), mem.transpose(0, 1), tgt_key_padding_mask=pad, "
                          "tgt_mask=CAUSAL)",
                          "return F.mse_loss(h.transpose(0, 1), y)"])),
    ])


def main():
    a, st = recorder_setup(__doc__)
    d = data()
    st.save(d, os.path.join(a.out, "data.safetensors"))
    shapes = {n: list(t.shape[1:]) for n, t in d.items()}
    dtypes = {n: "bool" if t.dtype == torch.bool else "f32" for n, t in d.items()}
    for name, (modules, layers, inputs, statements, torch_statements) in configs().items():
        torch.manual_seed(0)
        module = Statements(modules(), torch_statements or statements, inputs)
        write_json(a.out, name, model_json(
            name, OrderedDict((n, {"dtype": dtypes[n], "shape": ["batch", *shapes[n]]}) for n in inputs),
            OrderedDict([("inputs", inputs), ("layers", OrderedDict(layers)), ("forward", statements)]),
            {"type": "output"}, {n: n for n in inputs}))
        train(module, lambda b, m=module: m(*b), [d[n] for n in inputs], st, a.out, name)


if __name__ == "__main__":
    main()
