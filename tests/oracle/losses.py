"""PyTorch reference runs for mlc's losses and activations.

Each configuration below is a small model with its mlc model file, trained
STEPS steps of SGD (batches of BATCH rows in order) from torch's initial
weights with torch 1.13:

  activations      every activation layer (LeakyReLU, ELU, SELU, Softplus,
                   Hardswish, Mish, PReLU, Identity, LogSoftmax) and nll_loss
                   with class weights and ignored targets (-100)
  <loss>           an MLP under each loss of the "loss" section with its options
                   (cross_entropy with weight, label smoothing and ignore_index;
                   l1, smooth_l1, huber, binary_cross_entropy with a weight,
                   with logits and pos_weight, kl_div batchmean and log_target)
  vae              a VAE in the model language whose forward returns its loss,
                   binary_cross_entropy(reduction='sum') + KL ("loss": output)
  functional       a forward using the functional forms: split, stack, the
                   activations, log1p, cumsum, gather, argmax, topk, log_softmax, and
                   every functional loss (reduction 'none', class dim 1, ...) and
                   einsum

The forward statements are both the model file's and Python that PyTorch runs
(exec'd over the model's modules, torch's functions and the inputs). Writes,
under --out: data.safetensors and per configuration NAME.json (or NAME.mlc),
NAME.init.safetensors, NAME.grads_step0.safetensors, NAME.final.safetensors
and NAME.losses.json.

  /usr/bin/python3 tests/oracle/losses.py --oracle ORACLE_DIR --out tests/data/oracle/losses
"""
import json
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from optimizers import recorder_setup  # noqa: E402

N, BATCH, STEPS, LR = 32, 8, 4, 0.05
CLASS_WEIGHT = [0.5, 1.0, 2.0, 1.5]
BCE_WEIGHT = [1.0, 0.5, 2.0, 1.0]
POS_WEIGHT = [2.0, 0.5, 1.0, 3.0]


def data():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(N, 8, generator=g)
    y = torch.randint(0, 4, (N,), generator=g)
    y_ignored = y.clone()
    y_ignored[::5] = -100
    reg = torch.randn(N, 4, generator=g)
    prob = torch.rand(N, 4, generator=g) * 0.9 + 0.05
    dist = torch.softmax(torch.randn(N, 4, generator=g), dim=1)
    image = torch.rand(N, 16, generator=g)
    eps = torch.randn(N, 4, generator=g)
    y3 = torch.randint(0, 4, (N, 3), generator=g)
    sign = torch.where(torch.rand(N, generator=g) < 0.5, -1.0, 1.0)
    return OrderedDict([("x", x), ("y", y), ("y_ignored", y_ignored), ("reg", reg), ("prob", prob),
                        ("dist", dist), ("log_dist", dist.log()), ("image", image), ("eps", eps),
                        ("y3", y3), ("sign", sign)])


def linear(i, o):
    return {"type": "Linear", "in_features": i, "out_features": o}


# ---- the activations model
def activations_torch():
    return nn.Sequential(OrderedDict([
        ("fc1", nn.Linear(8, 16)), ("act1", nn.LeakyReLU(0.1)), ("fc2", nn.Linear(16, 16)),
        ("act2", nn.ELU(alpha=0.5)), ("act3", nn.SELU()), ("fc3", nn.Linear(16, 16)),
        ("act4", nn.Softplus(beta=2, threshold=1)), ("act5", nn.Hardswish()), ("fc4", nn.Linear(16, 16)),
        ("act6", nn.Mish()), ("act7", nn.PReLU(16)), ("fc5", nn.Linear(16, 4)), ("id", nn.Identity()),
        ("out", nn.LogSoftmax(dim=1))]))


ACTIVATION_LAYERS = OrderedDict([
    ("fc1", linear(8, 16)), ("act1", {"type": "LeakyReLU", "negative_slope": 0.1}), ("fc2", linear(16, 16)),
    ("act2", {"type": "ELU", "alpha": 0.5}), ("act3", {"type": "SELU"}), ("fc3", linear(16, 16)),
    ("act4", {"type": "Softplus", "beta": 2, "threshold": 1}), ("act5", {"type": "Hardswish"}),
    ("fc4", linear(16, 16)), ("act6", {"type": "Mish"}), ("act7", {"type": "PReLU", "num_parameters": 16}),
    ("fc5", linear(16, 4)), ("id", {"type": "Identity"}), ("out", {"type": "LogSoftmax", "dim": 1})])


# ---- the "loss" section's losses on one MLP (name: extra layer, section, target, PyTorch's loss)
def section_configs():
    cw, bw, pw = torch.tensor(CLASS_WEIGHT), torch.tensor(BCE_WEIGHT), torch.tensor(POS_WEIGHT)
    return OrderedDict([
        ("cross_entropy", (None, {"type": "cross_entropy", "weight": CLASS_WEIGHT, "label_smoothing": 0.1,
                                  "ignore_index": -100}, "y_ignored",
                           lambda o, t: F.cross_entropy(o, t, weight=cw, label_smoothing=0.1))),
        ("l1_loss", (None, {"type": "l1_loss", "reduction": "sum"}, "reg",
                     lambda o, t: F.l1_loss(o, t, reduction="sum"))),
        ("smooth_l1_loss", (None, {"type": "smooth_l1_loss", "beta": 0.5}, "reg",
                            lambda o, t: F.smooth_l1_loss(o, t, beta=0.5))),
        ("huber_loss", (None, {"type": "huber_loss", "delta": 0.3}, "reg",
                        lambda o, t: F.huber_loss(o, t, delta=0.3))),
        ("binary_cross_entropy", ("Sigmoid", {"type": "binary_cross_entropy", "weight": BCE_WEIGHT}, "prob",
                                  lambda o, t: F.binary_cross_entropy(o, t, weight=bw))),
        ("bce_with_logits", (None, {"type": "binary_cross_entropy_with_logits", "pos_weight": POS_WEIGHT,
                                    "weight": BCE_WEIGHT, "reduction": "sum"}, "prob",
                             lambda o, t: F.binary_cross_entropy_with_logits(o, t, weight=bw, pos_weight=pw,
                                                                             reduction="sum"))),
        ("kl_div", ("LogSoftmax", {"type": "kl_div", "reduction": "batchmean"}, "dist",
                    lambda o, t: F.kl_div(o, t, reduction="batchmean"))),
        ("kl_div_log_target", ("LogSoftmax", {"type": "kl_div", "log_target": True}, "log_dist",
                               lambda o, t: F.kl_div(o, t, log_target=True))),
    ])


def mlp_torch(extra):
    layers = [("fc1", nn.Linear(8, 16)), ("act", nn.Tanh()), ("fc2", nn.Linear(16, 4))]
    if extra == "Sigmoid":
        layers.append(("out", nn.Sigmoid()))
    if extra == "LogSoftmax":
        layers.append(("out", nn.LogSoftmax(dim=1)))
    return nn.Sequential(OrderedDict(layers))


def mlp_layers(extra):
    layers = OrderedDict([("fc1", linear(8, 16)), ("act", {"type": "Tanh"}), ("fc2", linear(16, 4))])
    if extra == "Sigmoid":
        layers["out"] = {"type": "Sigmoid"}
    if extra == "LogSoftmax":
        layers["out"] = {"type": "LogSoftmax", "dim": 1}
    return layers


# ---- forward statements run by both
VAE_STATEMENTS = [
    "h = relu(enc(x))",
    "mu, logvar = h.chunk(2, dim=1)",
    "z = mu + eps * exp(0.5 * logvar)",
    "recon = torch.sigmoid(dec2(relu(dec1(z))))",
    "bce = F.binary_cross_entropy(recon, x, reduction='sum')",
    "kl = -0.5 * sum(1 + logvar - mu ** 2 - exp(logvar))",
    "return bce + kl",
]

FUNCTIONAL_STATEMENTS = [
    "a = fc(x)",
    "a1, a2, a3 = a.split([4, 4, 4], dim=1)",
    "b = stack([F.leaky_relu(a1, 0.2), F.elu(a2, alpha=0.5), F.selu(a3)], dim=1)",
    "c = F.softplus(b, beta=2, threshold=1) + F.hardswish(b) * F.mish(b) + torch.log1p(b * b)",
    "c = F.prelu(c, p.weight)",
    "s = cumsum(c, dim=2)",
    "lg = g(a)",
    "logits = s + lg[:, None, :]",
    "ce = F.cross_entropy(logits.transpose(1, 2), y3, label_smoothing=0.05)",
    "lp = F.log_softmax(logits, dim=-1)",
    "kl = F.kl_div(lp[:, 0], F.log_softmax(reg, dim=1), reduction='batchmean', log_target=True)",
    "top = gather(lp, 2, argmax(logits, dim=2, keepdim=True))",
    "tv, ti = torch.topk(logits, 3, dim=2)",
    "bv, bi = lg.topk(2, largest=False)",
    "nll = F.nll_loss(lp.transpose(1, 2), y3, reduction='sum') / 10",
    "cos = F.cosine_embedding_loss(s[:, 0], s[:, 1], sign, margin=0.1)",
    "each = F.mse_loss(softmax(lg, dim=1), prob, reduction='none')",
    "r = each.sum() * 0.1 + F.l1_loss(lg, reg) + F.huber_loss(lg, reg, delta=0.5) + F.smooth_l1_loss(lg, reg, beta=0.3)",
    "bce = F.binary_cross_entropy_with_logits(lg, prob, weight=ones(4) * 0.5, pos_weight=full([4], 2.0))",
    "w = torch.einsum('bcl,bl->bc', s, lg) + einsum('bcl->bc', c) + einsum('bc,cl', s[:, :, 0], c[0])[:, :3]",
    "return ce + kl + nll + cos + r + bce - top.mean() * 0.1 + w.mean() * 0.01 + (tv * ti.float()).mean() * 0.01 + bv.sum() * 0.02 - bi.float().sum() * 0.001",
]


def run_statements(statements, ns):
    for stmt in statements:
        if stmt.startswith("return "):
            return eval(stmt[len("return "):], ns)
        target, expr = stmt.split(" = ", 1)
        value = eval(expr, ns)
        names = [t.strip() for t in target.split(",")]
        if len(names) == 1:
            ns[names[0]] = value
        else:
            for n, v in zip(names, value):
                ns[n] = v
    raise AssertionError("no return")


def namespace(module, inputs):
    ns = dict(torch=torch, F=F, relu=F.relu, exp=torch.exp, sum=torch.sum, cumsum=torch.cumsum,
              gather=torch.gather, argmax=torch.argmax, stack=torch.stack, softmax=F.softmax,
              ones=torch.ones, full=torch.full, einsum=torch.einsum)
    ns.update({name: child for name, child in module.named_children()})
    ns.update(inputs)
    return ns


class Statements(nn.Module):
    def __init__(self, layers, statements, inputs):
        super().__init__()
        for name, layer in layers:
            self.add_module(name, layer)
        self.statements, self.input_names = statements, inputs

    def forward(self, *xs):
        return run_statements(self.statements, namespace(self, dict(zip(self.input_names, xs))))


def vae_mlc():
    forward = "\n".join("        " + s for s in VAE_STATEMENTS)
    return f"""# A VAE whose forward returns its loss, BCE (summed) + KL, as PyTorch's VAE
# example; recorded by tests/oracle/losses.py.
name = vae

inputs:
    x: f32[batch, 16]
    eps: f32[batch, 4]

model(x, eps):
    enc = Linear(16, 8)
    dec1 = Linear(4, 8)
    dec2 = Linear(8, 16)
    forward:
{forward}

loss = output()

data:
    file = "data.safetensors"
    train:
        x = image
        eps = eps

train:
    batch_size = {BATCH}; steps = {STEPS}; shuffle = False; seed = 0
    optimizer = sgd(lr={LR})
"""


def model_json(name, inputs, model, loss, train_map):
    return OrderedDict([
        ("name", name), ("inputs", inputs), ("model", model), ("loss", loss),
        ("data", {"file": "data.safetensors", "train": train_map}),
        ("train", {"batch_size": BATCH, "steps": STEPS, "shuffle": False, "drop_last": True, "seed": 0,
                   "optimizer": {"type": "sgd", "lr": LR}})])


def train(module, loss_of, batches, st, out, name):
    params = lambda: OrderedDict((k, v.detach().clone()) for k, v in module.named_parameters())
    st.save(params(), os.path.join(out, name + ".init.safetensors"))
    opt = torch.optim.SGD(module.parameters(), lr=LR)
    losses = []
    for s in range(STEPS):
        rows = slice(s * BATCH, (s + 1) * BATCH)
        opt.zero_grad(set_to_none=True)
        loss = loss_of([b[rows] for b in batches])
        loss.backward()
        if s == 0:
            st.save(OrderedDict((k, v.grad.detach().clone()) for k, v in module.named_parameters()),
                    os.path.join(out, name + ".grads_step0.safetensors"))
        opt.step()
        losses.append(loss.item())
    st.save(params(), os.path.join(out, name + ".final.safetensors"))
    with open(os.path.join(out, name + ".losses.json"), "w") as f:
        json.dump({"losses": losses, "torch": torch.__version__}, f, indent=1)
        f.write("\n")
    print("%-20s loss %.6f -> %.6f" % (name, losses[0], losses[-1]))


def write_json(out, name, doc):
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    a, st = recorder_setup(__doc__)
    d = data()
    st.save(d, os.path.join(a.out, "data.safetensors"))
    f32 = lambda *shape: {"dtype": "f32", "shape": ["batch", *shape]}
    i64 = lambda *shape: {"dtype": "i64", "shape": ["batch", *shape]}

    torch.manual_seed(0)
    m = activations_torch()
    write_json(a.out, "activations", model_json(
        "activations", {"x": f32(8), "y": i64()}, {"layers": ACTIVATION_LAYERS},
        {"type": "nll_loss", "targets": "y", "weight": CLASS_WEIGHT, "ignore_index": -100},
        {"x": "x", "y": "y_ignored"}))
    cw = torch.tensor(CLASS_WEIGHT)
    train(m, lambda b: F.nll_loss(m(b[0]), b[1], weight=cw), [d["x"], d["y_ignored"]], st, a.out, "activations")

    for name, (extra, section, target, loss_fn) in section_configs().items():
        torch.manual_seed(0)
        m = mlp_torch(extra)
        dtype = i64() if target.startswith("y") else f32(4)
        section = dict(section, targets="t")
        write_json(a.out, name, model_json(name, {"x": f32(8), "t": dtype}, {"layers": mlp_layers(extra)},
                                           section, {"x": "x", "t": target}))
        train(m, lambda b, m=m, loss_fn=loss_fn: loss_fn(m(b[0]), b[1]), [d["x"], d[target]], st, a.out, name)

    torch.manual_seed(0)
    vae = Statements([("enc", nn.Linear(16, 8)), ("dec1", nn.Linear(4, 8)), ("dec2", nn.Linear(8, 16))],
                     VAE_STATEMENTS, ["x", "eps"])
    with open(os.path.join(a.out, "vae.mlc"), "w") as f:
        f.write(vae_mlc())
    train(vae, lambda b: vae(*b), [d["image"], d["eps"]], st, a.out, "vae")

    torch.manual_seed(0)
    inputs = ["x", "y3", "reg", "prob", "sign"]
    fn = Statements([("fc", nn.Linear(8, 12)), ("g", nn.Linear(12, 4)), ("p", nn.PReLU(3))],
                    FUNCTIONAL_STATEMENTS, inputs)
    write_json(a.out, "functional", model_json(
        "functional", {"x": f32(8), "y3": i64(3), "reg": f32(4), "prob": f32(4), "sign": f32()},
        OrderedDict([("inputs", inputs),
                     ("layers", OrderedDict([("fc", linear(8, 12)), ("g", linear(12, 4)),
                                             ("p", {"type": "PReLU", "num_parameters": 3})])),
                     ("forward", FUNCTIONAL_STATEMENTS)]),
        {"type": "output"}, {n: n for n in inputs}))
    train(fn, lambda b: fn(*b), [d[n] for n in inputs], st, a.out, "functional")


if __name__ == "__main__":
    main()
