"""PyTorch reference runs of mlc's recurrent layers (frontends/layers_recurrent.cc).

Three cases, each trained from torch.manual_seed(0)'s default init (RNN weights and
biases U(-1/sqrt(H), 1/sqrt(H)) in registration order), one batch per step in file
order, no shuffling; each writes init.safetensors (read by `mlc run --init`),
grads_step0.safetensors, final.safetensors and losses.json (each step's loss
before its update) under --out/NAME:

word_language_model_lstm: examples/pytorch/word_language_model_lstm.json, PyTorch
  examples' word_language_model RNNModel (LSTM): encoder Embedding(V, 16), Dropout,
  LSTM(16, 16, num_layers=2, dropout), Dropout, decoder Linear(16, V) tied to the
  encoder (decoder.weight = encoder.weight), log_softmax + NLL = cross_entropy over
  all bptt*batch positions. The model's [bptt, batch] layout: a batch of rows
  tokens[4i:4i+4] of examples/data/word_lm.safetensors is fed transposed. Dropout
  p = 0 here (torch's masks are not mlc's keyed ones; the test loads the
  example with its dropout set to 0). The hidden state starts from zeros every
  batch (the example carries it across batches, detached). The update is the
  example's: clip_grad_norm_(0.25), then p -= lr * grad (SGD, lr 20). 24 steps.
time_sequence_prediction: examples/pytorch/time_sequence_prediction.json, PyTorch
  examples' time_sequence_prediction Sequence: LSTMCell(1, 51), LSTMCell(51, 51),
  Linear(51, 1) stepped over 40 time steps of 12 sine waves (float32, not the
  example's float64), MSE; Adam lr 0.01 on the whole batch, 20 steps. Data
  generated here (the example's recipe, L = 41, N = 16: rows 3.. train, 0..2
  eval) into examples/data/sine_waves.safetensors.
time_sequence_prediction_f64: the f64 model below (time_sequence_prediction_lbfgs)
  under Adam lr 0.01, 20 steps: f64 training (model.double()) step for step.
time_sequence_prediction_lbfgs: examples/pytorch/time_sequence_prediction_lbfgs.json,
  the example's own training: the same Sequence in float64 (seq.double(); the
  f32 data widened) and its LBFGS(lr=0.8) with the closure, LBFGS_STEPS steps
  (each step's loss: its first closure loss, what LBFGS.step returns; and
  torch's func_evals after it); init.safetensors and losses.json only (the
  parameters after the last step are already 1e-3 apart).
recurrent_mix: tests/data/oracle/recurrent_mix/model.json, every other form:
  GRU(3, 4, batch_first, bidirectional), RNN(8, 4, 2, relu) from GRU's h_n, LSTM(4, 3,
  batch_first, bidirectional, given (h_0, c_0)), RNNCell(4, 4) with a state,
  GRUCell(4, 4, bias=False), LSTMCell(4, 4) without one, Linear; MSE; SGD lr 0.05,
  momentum 0.9, batch 4, 20 steps over random data written next to it.

  /usr/bin/python3 tests/oracle/recurrent.py --oracle ORACLE_DIR --repo . --out tests/data/oracle
(ORACLE_DIR holds st.py, the dependency-free safetensors reader/writer; Debian's
python3-torch 1.13, CPU, one thread.)
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

# LBFGS steps recorded: 6 steps of 20 closure evaluations; later steps amplify
# a difference in the last f64 bit past 1e-5 (docs/pytorch-coverage.md).
LBFGS_STEPS = 6


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight

    def forward(self, tokens):  # [T, B]
        emb = self.drop(self.encoder(tokens))
        output, _ = self.rnn(emb)
        return self.decoder(self.drop(output))  # [T, B, V]


class Sequence(nn.Module):
    def __init__(self, dtype=torch.float32):
        super().__init__()
        self.dtype = dtype
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, x):  # [B, T]
        h1 = torch.zeros(x.size(0), 51, dtype=self.dtype)
        c1 = torch.zeros(x.size(0), 51, dtype=self.dtype)
        h2 = torch.zeros(x.size(0), 51, dtype=self.dtype)
        c2 = torch.zeros(x.size(0), 51, dtype=self.dtype)
        outputs = []
        for input_t in x.split(1, dim=1):
            h1, c1 = self.lstm1(input_t, (h1, c1))
            h2, c2 = self.lstm2(h1, (h2, c2))
            outputs.append(self.linear(h2))
        return torch.cat(outputs, dim=1)


class Mix(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 4, batch_first=True, bidirectional=True)
        self.rnn = nn.RNN(8, 4, 2, nonlinearity="relu")
        self.lstm = nn.LSTM(4, 3, batch_first=True, bidirectional=True)
        self.rcell = nn.RNNCell(4, 4)
        self.gcell = nn.GRUCell(4, 4, bias=False)
        self.lcell = nn.LSTMCell(4, 4)
        self.head = nn.Linear(4, 4)

    def forward(self, x):  # [B, 5, 3]
        out, h = self.gru(x)
        seq, hr = self.rnn(out.transpose(0, 1), h)
        o2, (hl, cl) = self.lstm(seq.transpose(0, 1), (torch.zeros(2, x.size(0), 3), torch.ones(2, x.size(0), 3)))
        a = self.rcell(seq[-1], hr[1])
        b = self.gcell(a, hr[0])
        hc, cc = self.lcell(b)
        return self.head(hc + cc + seq.mean(0)) + o2.mean(1).mean(1, keepdim=True) + hl.mean(0).mean(1, keepdim=True)


def named(model, fn):
    return OrderedDict((k, fn(v).detach().clone().contiguous()) for k, v in model.named_parameters())


def run(st, out, model, batches, loss_fn, step_fn, zero_grad):
    os.makedirs(out, exist_ok=True)
    st.save(named(model, lambda v: v), os.path.join(out, "init.safetensors"))
    losses = []
    for s, batch in enumerate(batches):
        zero_grad()
        loss = loss_fn(model, batch)
        loss.backward()
        if s == 0:
            st.save(named(model, lambda v: v.grad), os.path.join(out, "grads_step0.safetensors"))
        step_fn()
        losses.append(loss.item())
    with open(os.path.join(out, "losses.json"), "w") as f:
        json.dump({"torch": torch.__version__, "losses": losses}, f, indent=1)
    st.save(named(model, lambda v: v), os.path.join(out, "final.safetensors"))


def word_lm(st, repo, out):
    data, meta = st.load(os.path.join(repo, "examples", "data", "word_lm.safetensors"))
    tokens = data["tokens"]  # [rows, 21]
    vocab = int(json.loads(meta["vocab_size"])) if isinstance(meta["vocab_size"], str) else int(meta["vocab_size"])
    torch.manual_seed(0)
    model = RNNModel(vocab, 16, 16, 2, 0.0)
    model.train()
    batch, steps, lr, clip = 4, 24, 20.0, 0.25
    n = len(tokens) // batch
    batches = [tokens[(s % n) * batch:(s % n + 1) * batch] for s in range(steps)]

    def loss_fn(m, rows):
        logits = m(rows[:, :-1].t())  # [T, B, V]
        return F.cross_entropy(logits.reshape(-1, vocab), rows[:, 1:].t().reshape(-1))

    def step():
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        with torch.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-lr)

    run(st, os.path.join(out, "word_language_model_lstm"), model, batches, loss_fn, step, model.zero_grad)


def sine_waves(st, repo):
    # The example's generate_sine_wave.py, smaller: N waves of L samples, T = 20.
    g = torch.Generator().manual_seed(2)
    T, L, N = 20, 41, 16
    x = torch.arange(L, dtype=torch.float64).unsqueeze(0) + torch.randint(-4 * T, 4 * T, (N, 1), generator=g).double()
    data = torch.sin(x / T).float()
    st.save(OrderedDict([("train_input", data[3:, :-1].contiguous()), ("train_target", data[3:, 1:].contiguous()),
                         ("eval_input", data[:3, :-1].contiguous()), ("eval_target", data[:3, 1:].contiguous())]),
            os.path.join(repo, "examples", "data", "sine_waves.safetensors"))
    return data


def time_sequence(st, repo, out):
    data = sine_waves(st, repo)
    x, y = data[3:, :-1], data[3:, 1:]
    torch.manual_seed(0)
    model = Sequence()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    run(st, os.path.join(out, "time_sequence_prediction"), model, [None] * 20,
        lambda m, _: F.mse_loss(m(x), y), opt.step, opt.zero_grad)


def f64_sequence(st, repo):
    """The example's float64: the model (seq.double()) and the data (read as
    f32 from the data file here, as mlc's model reads it, then widened)."""
    data = sine_waves(st, repo)
    x, y = data[3:, :-1].double(), data[3:, 1:].double()
    torch.manual_seed(0)
    model = Sequence(torch.float64)
    model.double()
    return model, x, y


def time_sequence_f64(st, repo, out):
    model, x, y = f64_sequence(st, repo)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    run(st, os.path.join(out, "time_sequence_prediction_f64"), model, [None] * 20,
        lambda m, _: F.mse_loss(m(x), y), opt.step, opt.zero_grad)


def time_sequence_lbfgs(st, repo, out):
    model, x, y = f64_sequence(st, repo)
    d = os.path.join(out, "time_sequence_prediction_lbfgs")
    os.makedirs(d, exist_ok=True)
    st.save(named(model, lambda v: v), os.path.join(d, "init.safetensors"))
    # The example's loop: LBFGS(lr=0.8), each step's closure re-evaluating the loss.
    opt = torch.optim.LBFGS(model.parameters(), lr=0.8)

    def closure():
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        return loss

    losses, evals = [], []
    for _ in range(LBFGS_STEPS):
        losses.append(opt.step(closure).item())  # the step's first closure loss
        evals.append(opt.state[opt._params[0]]["func_evals"])
    with open(os.path.join(d, "losses.json"), "w") as f:
        json.dump({"torch": torch.__version__, "losses": losses, "func_evals": evals}, f, indent=1)


def mix(st, out):
    d = os.path.join(out, "recurrent_mix")
    os.makedirs(d, exist_ok=True)
    g = torch.Generator().manual_seed(7)
    x = torch.randn(16, 5, 3, generator=g)
    y = torch.randn(16, 4, generator=g)
    st.save(OrderedDict([("x", x), ("y", y)]), os.path.join(d, "data.safetensors"))
    torch.manual_seed(0)
    model = Mix()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    batches = [(x[(s % 4) * 4:(s % 4 + 1) * 4], y[(s % 4) * 4:(s % 4 + 1) * 4]) for s in range(20)]
    run(st, d, model, batches, lambda m, b: F.mse_loss(m(b[0]), b[1]), opt.step, opt.zero_grad)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", required=True, help="folder with st.py")
    p.add_argument("--repo", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import st  # noqa: E402
    torch.set_num_threads(1)
    word_lm(st, a.repo, a.out)
    time_sequence(st, a.repo, a.out)
    time_sequence_f64(st, a.repo, a.out)
    time_sequence_lbfgs(st, a.repo, a.out)
    mix(st, a.out)


if __name__ == "__main__":
    main()
