"""The GEMM calls of each model's compiled train step, read from mlc's IR.

  /usr/bin/python3 bench/gemm_shapes.py [MODEL.json ...] > shapes.txt

Default models: the three examples and bench/models/{big_mlp,gpt256}.json.
Reads `build/bin/mlc ir MODEL --after canonicalize` (the last pipeline stage,
what the compiled step executes; the stage after `optimizer` still holds dots
that dead-code elimination removes, e.g. the gradient of the first layer's
input) and maps every op of @train_step that reaches BLAS to the row-major sgemm
calls the runtime makes for it, as runtime/blas.cc does and as lowering
rewrites f32 convolutions (compiler/conv_to_gemm.h: one dot over the batch,
N*L = N*OH*OW columns):

  dot (A [..., M, K], B [..., K, N], transposes ta, tb; output [..., M, N]):
    B rank 2 and not ta: one call (batch*M) x N x K; else `batch` calls M x N x K
  conv2d:             per group  NN  O/g x N*L x (C/g*KH*KW)
  conv2d_input_grad:  per group  TN  (C/g*KH*KW) x N*L x O/g
  conv2d_weight_grad: per group  NT  O/g x (C/g*KH*KW) x N*L

One line per distinct call: `model ta tb M N K calls_per_step labels`, labels
being scope:fwd|bwd of the ops it comes from (the first ops that reach BLAS in
@train_step, as many as @loss has, are the forward).
"""
import os
import re
import subprocess
import sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["examples/digits_mlp.json", "examples/digits_cnn.json", "examples/tiny_gpt.json",
           "bench/models/big_mlp.json", "bench/models/gpt256.json"]
GEMM_OPS = ("dot", "conv2d", "conv2d_input_grad", "conv2d_weight_grad")
TYPE = re.compile(r"[a-z0-9]+\[([0-9,]*)\]")
ARG = re.compile(r"%([^:,()\s]+): ([a-z0-9]+\[[0-9,]*\])")
OP = re.compile(r"^\s*%(\S+) = ([a-z0-9_]+)\(([^)]*)\)(?: \{(.*?)\})? : ([a-z0-9]+\[[0-9,]*\])")


def shape(t):
    dims = TYPE.match(t).group(1)
    return [int(d) for d in dims.split(",")] if dims else []


def functions(ir):
    """name -> (arg types, list of (result, op, operands, attrs, type, scope))"""
    funcs, cur = {}, None
    for line in ir.splitlines():
        m = re.match(r"^\s*func @(\w+)\((.*)\) ->", line)
        if m:
            cur = m.group(1)
            funcs[cur] = ({a: t for a, t in ARG.findall(m.group(2))}, [])
            continue
        m = OP.match(line)
        if m and cur:
            scope = re.search(r'scope = "([^"]*)"', line)
            funcs[cur][1].append((m.group(1), m.group(2),
                                  [o.strip().lstrip("%") for o in m.group(3).split(",") if o.strip()],
                                  m.group(4) or "", m.group(5), scope.group(1) if scope else ""))
    return funcs


def attr(attrs, name):
    m = re.search(name + r" = (\[[^\]]*\]|[^,}]+)", attrs)
    v = m.group(1).strip()
    return [int(x) for x in v.strip("[]").split(",")] if v.startswith("[") else v


def calls(op, ins, out, attrs):
    """[(ta, tb, M, N, K, count)] for one op."""
    if op == "dot":
        a, b = ins
        ta, tb = attr(attrs, "transpose_a") == "true", attr(attrs, "transpose_b") == "true"
        m, n = out[-2], out[-1]
        k = a[-2] if ta else a[-1]
        batch = 1
        for d in out[:-2]:
            batch *= d
        if len(b) == 2 and not ta:
            return [(False, tb, batch * m, n, k, 1)]
        return [(ta, tb, m, n, k, batch)]
    groups = int(attr(attrs, "groups"))
    if op == "conv2d":
        x, w = ins
        y = out
    elif op == "conv2d_input_grad":
        dy, w = ins
        x, y = out, dy
    else:
        x, dy = ins
        w, y = out, dy
    n, c, o = x[0], x[1], w[0]
    kdim, plane, og = (c // groups) * w[2] * w[3], n * y[2] * y[3], o // groups
    cnt = groups
    if op == "conv2d":
        return [(False, False, og, plane, kdim, cnt)]
    if op == "conv2d_input_grad":
        return [(True, False, kdim, plane, og, cnt)]
    return [(False, True, og, kdim, plane, cnt)]


def model_calls(path):
    ir = subprocess.run([os.path.join(ROOT, "build", "bin", "mlc"), "ir", path, "--after",
                         "canonicalize"], capture_output=True, text=True, check=True).stdout
    funcs = functions(ir)
    n_fwd = sum(1 for op in funcs["loss"][1] if op[1] in GEMM_OPS)
    args, ops = funcs["train_step"]
    types = dict(args)
    seen = OrderedDict()
    i = 0
    for res, op, operands, attrs, t, scope in ops:
        types[res] = t
        if op not in GEMM_OPS:
            continue
        label = "%s:%s" % (scope or "-", "fwd" if i < n_fwd else "bwd")
        i += 1
        for ta, tb, m, n, k, cnt in calls(op, [shape(types[o]) for o in operands], shape(t), attrs):
            key = (ta, tb, m, n, k)
            c, labels = seen.get(key, (0, []))
            if label not in labels:
                labels.append(label)
            seen[key] = (c + cnt, labels)
    return seen


def main():
    paths = sys.argv[1:] or [os.path.join(ROOT, p) for p in DEFAULT]
    print("# model ta tb M N K calls_per_step labels  (row-major C[M,N] = op(A) op(B))")
    for p in paths:
        name = os.path.splitext(os.path.basename(p))[0]
        for (ta, tb, m, n, k), (cnt, labels) in model_calls(p).items():
            print("%s %s %s %d %d %d %d %s" % (name, "T" if ta else "N", "T" if tb else "N", m, n, k,
                                              cnt, ",".join(labels)))


if __name__ == "__main__":
    main()
