// torch.einsum of one or two operands as sums, transposes, reshapes and one
// batched dot (forward_functional.h).
#include <algorithm>
#include <cctype>
#include <string>

#include "frontends/emit_util.h"
#include "frontends/forward_functional.h"

namespace mlc {

namespace {

struct Operand {
  Value* v;
  std::string labels;
};

// The positions in `labels` of each label of `pick`.
std::vector<int64_t> positions(const std::string& labels, const std::string& pick) {
  std::vector<int64_t> out;
  for (char c : pick) out.push_back(static_cast<int64_t>(labels.find(c)));
  return out;
}

int64_t size_of(const Operand& o, char label) { return o.v->type.shape[o.labels.find(label)]; }

// Sums `o` over its labels not in `keep`.
Expected<Operand> sum_others(Builder& b, Operand o, const std::string& keep) {
  std::vector<int64_t> dims;
  std::string kept;
  for (size_t i = 0; i < o.labels.size(); ++i) {
    if (keep.find(o.labels[i]) == std::string::npos) dims.push_back(static_cast<int64_t>(i));
    else kept += o.labels[i];
  }
  if (dims.empty()) return o;
  MLC_TRY(o.v, emit_op(b, OpCode::ReduceSum, {o.v}, {{"dims", dims}, {"keepdim", false}}));
  o.labels = kept;
  return o;
}

// `o` with its dims in the order of `order` (a permutation of its labels).
Expected<Value*> arranged(Builder& b, const Operand& o, const std::string& order) {
  std::vector<int64_t> perm = positions(o.labels, order);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return o.v;
  return emit_transpose(b, o.v, perm);
}

int64_t product(const Operand& o, const std::string& labels) {
  int64_t n = 1;
  for (char c : labels) n *= size_of(o, c);
  return n;
}

// Parses "ij,jk->ik" (or the implicit "ij,jk": the labels seen once, sorted).
Expected<std::string> parse_equation(const std::string& eq, std::vector<Operand>& ops, const Loc& at) {
  std::string in = eq, out;
  size_t arrow = eq.find("->");
  const bool explicit_out = arrow != std::string::npos;
  if (explicit_out) {
    in = eq.substr(0, arrow);
    out = eq.substr(arrow + 2);
  }
  auto strip = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
  };
  in = strip(in);
  out = strip(out);
  std::vector<std::string> terms{""};
  for (char c : in) {
    if (c == ',') terms.emplace_back();
    else terms.back() += c;
  }
  if (terms.size() != ops.size())
    return fwd_error(at, "einsum: the equation '" + eq + "' has " + std::to_string(terms.size()) +
                             " operands, given " + std::to_string(ops.size()) + " tensors");
  for (size_t k = 0; k < ops.size(); ++k) {
    const std::string& t = terms[k];
    for (size_t i = 0; i < t.size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>(t[i])))
        return fwd_error(at, "einsum: '" + eq + "': labels are letters (no '...')");
      if (t.find(t[i], i + 1) != std::string::npos)
        return fwd_error(at, "einsum: '" + eq + "': label '" + std::string(1, t[i]) +
                                 "' twice in one operand (diagonals are not supported)");
    }
    if (static_cast<int64_t>(t.size()) != ops[k].v->type.rank())
      return fwd_error(at, "einsum: operand " + std::to_string(k) + " '" + t + "' has " + std::to_string(t.size()) +
                               " labels for " + ops[k].v->type.str());
    ops[k].labels = t;
  }
  std::string all = in;
  all.erase(std::remove(all.begin(), all.end(), ','), all.end());
  if (!explicit_out) {
    for (char c : all)
      if (std::count(all.begin(), all.end(), c) == 1) out += c;
    std::sort(out.begin(), out.end());
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (all.find(out[i]) == std::string::npos || out.find(out[i], i + 1) != std::string::npos)
      return fwd_error(at, "einsum: '" + eq + "': output label '" + std::string(1, out[i]) +
                               "' must appear once, and in an operand");
  if (ops.size() == 2)
    for (char c : ops[0].labels)
      if (ops[1].labels.find(c) != std::string::npos && size_of(ops[0], c) != size_of(ops[1], c))
        return fwd_error(at, "einsum: label '" + std::string(1, c) + "' is " + std::to_string(size_of(ops[0], c)) +
                                 " in " + ops[0].v->type.str() + " but " + std::to_string(size_of(ops[1], c)) +
                                 " in " + ops[1].v->type.str());
  return out;
}

}  // namespace

Expected<Val> emit_einsum(Builder& b, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(std::string eq, string_arg(args[0], "", "einsum's equation", at));
  std::vector<Val> items = args[1].kind == Val::Kind::list ? args[1].items : std::vector<Val>{args[1]};
  std::vector<Operand> ops;
  for (const Val& item : items) {
    MLC_TRY(Value* v, tensor_arg(item, "einsum", at));
    if (!is_float(v->type.dtype) || (!ops.empty() && v->type.dtype != ops[0].v->type.dtype))
      return fwd_error(at, "einsum expects float tensors of one dtype, found " + v->type.str());
    ops.push_back({v, ""});
  }
  if (ops.empty() || ops.size() > 2)
    return fwd_error(at, "einsum takes one or two tensors (nest einsums for more), given " + std::to_string(ops.size()));
  MLC_TRY(std::string out, parse_equation(eq, ops, at));
  if (ops.size() == 1) {
    MLC_TRY(Operand summed, sum_others(b, ops[0], out));
    MLC_TRY(Value* y, arranged(b, summed, out));
    return Val::tensor(y, at);
  }
  // Labels by role: batch (both operands and the output), contracted (both, not
  // the output), free (one operand and the output); the rest are summed first.
  std::string batch, contract, free_a, free_b;
  for (char c : ops[0].labels) {
    const bool in_b = ops[1].labels.find(c) != std::string::npos, in_out = out.find(c) != std::string::npos;
    if (in_b) (in_out ? batch : contract) += c;
    else if (in_out) free_a += c;
  }
  for (char c : ops[1].labels)
    if (ops[0].labels.find(c) == std::string::npos && out.find(c) != std::string::npos) free_b += c;
  MLC_TRY(Operand a, sum_others(b, ops[0], batch + contract + free_a));
  MLC_TRY(Operand c, sum_others(b, ops[1], batch + contract + free_b));
  MLC_TRY(Value* a3, arranged(b, a, batch + free_a + contract));
  MLC_TRY(Value* c3, arranged(b, c, batch + contract + free_b));
  const int64_t nb = product(a, batch), m = product(a, free_a), k = product(a, contract), n = product(c, free_b);
  MLC_TRY(a3, emit_reshape(b, a3, {nb, m, k}));
  MLC_TRY(c3, emit_reshape(b, c3, {nb, k, n}));
  MLC_TRY(Value* y, emit_op(b, OpCode::Dot, {a3, c3}));
  Shape shape;
  for (char ch : batch + free_a) shape.push_back(size_of(a, ch));
  for (char ch : free_b) shape.push_back(size_of(c, ch));
  MLC_TRY(y, emit_reshape(b, y, shape));
  MLC_TRY(y, arranged(b, Operand{y, batch + free_a + free_b}, out));
  return Val::tensor(y, at);
}

}  // namespace mlc
