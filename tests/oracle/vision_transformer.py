"""PyTorch reference run of examples/pytorch/vision_transformer.json: a small
vision transformer (torchvision's VisionTransformer, pre-norm) on the 8x8 digits.

Model: a Conv2d(1, 32, kernel 2, stride 2) patch embedding (16 patches of 2x2),
a learned class token prepended and learned position embeddings added, a
TransformerEncoder of 2 TransformerEncoderLayers (d_model 32, 4 heads,
dim_feedforward 64, gelu, norm_first, batch_first, dropout 0: mlc's dropout
masks do not follow torch's generator), LayerNorm and a Linear head on the
class token; cross-entropy. The class token [1, 1, 32] and the position
embeddings [1, 17, 32] are nn.Parameters here; the model file holds them as
the weights of Embedding layers (class_token.weight [1, 32],
pos_embedding.weight [17, 32]), which is how the files below name them.
Init: torch.manual_seed(0), PyTorch's defaults, the class token 0 and the
position embeddings N(0, 0.02) as torchvision's.
Data: train_images / train_labels of examples/data/digits.safetensors in order,
batches of 32. Training: the first 24 steps of the example's Adam (lr 1e-3;
the example trains 5 epochs). The gradient of the key third of each
in_proj_bias is 0 in exact arithmetic (it shifts every score of a query's row
alike, which the softmax ignores), so torch's and mlc's are different
rounding noise, which Adam turns into steps of the full learning rate: the
test compares those tensors' first gradients, not their final values.

Writes to --out: init.safetensors, grads_step0.safetensors, final.safetensors and
losses.json.

  /usr/bin/python3 tests/oracle/vision_transformer.py --oracle ORACLE_DIR \\
      --out tests/data/oracle/pytorch/vision_transformer
"""
import json
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import optimizers  # noqa: E402  recorder_setup: --oracle, --out, one thread

DATA = os.path.join(HERE, "..", "..", "examples", "data", "digits.safetensors")
DIM, HEADS, HIDDEN, LAYERS, PATCH, CLASSES = 32, 4, 64, 2, 2, 10
BATCH, STEPS, LR = 32, 24, 1e-3


class VisionTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embedding = nn.Conv2d(1, DIM, kernel_size=PATCH, stride=PATCH)
        self.class_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embedding = nn.Parameter(torch.empty(1, (8 // PATCH) ** 2 + 1, DIM).normal_(std=0.02))
        layer = nn.TransformerEncoderLayer(DIM, HEADS, HIDDEN, 0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, LAYERS)
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, x):
        patches = self.patch_embedding(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.class_token.expand(x.size(0), -1, -1), patches], dim=1) + self.pos_embedding
        h = self.encoder(h)
        return self.head(self.norm(h[:, 0]))


def mlc_names(tensors):
    """The model file's names and shapes: the two free parameters as Embedding weights."""
    out = OrderedDict()
    for k, v in tensors.items():
        if k in ("class_token", "pos_embedding"):
            k, v = k + ".weight", v.reshape(v.shape[1:])
        out[k] = v.detach().clone()
    return out


def main():
    a, st = optimizers.recorder_setup(__doc__)
    d = st.load(DATA)[0]
    x, y = d["train_images"], d["train_labels"]
    torch.manual_seed(0)
    model = VisionTransformer()
    params = lambda: mlc_names(OrderedDict(model.named_parameters()))
    st.save(params(), os.path.join(a.out, "init.safetensors"))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    losses = []
    for step in range(STEPS):
        rows = slice(step * BATCH, (step + 1) * BATCH)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x[rows]), y[rows])
        loss.backward()
        if step == 0:
            st.save(mlc_names(OrderedDict((k, v.grad) for k, v in model.named_parameters())),
                    os.path.join(a.out, "grads_step0.safetensors"))
        opt.step()
        losses.append(loss.item())
    st.save(params(), os.path.join(a.out, "final.safetensors"))
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"losses": losses, "torch": torch.__version__}, f, indent=1)
        f.write("\n")
    print("loss %.6f -> %.6f" % (losses[0], losses[-1]))


if __name__ == "__main__":
    main()
