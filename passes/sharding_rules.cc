#include "passes/sharding_rules.h"

#include <algorithm>

#include "ir/collectives.h"
#include "ir/diagnostics.h"
#include "ir/op_table.h"

namespace mlc {

namespace {

constexpr int64_t kR = -1;  // the operand (result) is replicated in this signature
constexpr int64_t kP = -2;  // the result is a partial sum
constexpr int64_t kPmax = -3;  // the result is a partial maximum

Placement placement(int64_t d) {
  if (d == kR) return Placement::R();
  if (d == kP) return Placement::P();
  if (d == kPmax) return Placement::Pmax();
  return Placement::S(d);
}

// Collects an op's signatures, all-replicated first.
class Signatures {
 public:
  explicit Signatures(const Op& op) : op_(op) {
    list_.push_back({std::vector<Placement>(op.operands.size()), std::vector<Placement>(op.results.size())});
  }
  // One S signature: per operand the dim it is sharded on (kR: whole), per
  // result the dim, or kP.
  void shard(std::vector<int64_t> in, std::vector<int64_t> out) {
    ShardingSignature s;
    for (int64_t d : in) s.operands.push_back(placement(d));
    for (int64_t d : out) s.results.push_back(placement(d));
    list_.push_back(std::move(s));
  }
  // Single-result ops: S(d) on the operands listed (kR for the others) -> S(out).
  void shard1(std::vector<int64_t> in, int64_t out) { shard(std::move(in), {out}); }
  // The op is linear in the operands marked P (the others replicated): P -> P.
  void partial(std::vector<bool> p) {
    ShardingSignature s;
    for (bool b : p) s.operands.push_back(b ? Placement::P() : Placement::R());
    s.results.assign(op_.results.size(), Placement::P());
    list_.push_back(std::move(s));
  }
  std::vector<ShardingSignature> take() { return std::move(list_); }

 private:
  const Op& op_;
  std::vector<ShardingSignature> list_;
};

const Shape& shape_of(const Value* v) { return v->type.shape; }
int64_t rank_of(const Value* v) { return v->type.rank(); }

}  // namespace

bool widens(const Op& op) {
  if (op.code != OpCode::Cast) return false;
  const DType from = op.operands[0]->type.dtype, to = op.result()->type.dtype;
  return is_float(from) && is_float(to) && dtype_size(to) > dtype_size(from);
}

namespace {

void elementwise(const Op& op, Signatures& s) {
  const Shape& out = shape_of(op.result());
  const int64_t r = static_cast<int64_t>(out.size());
  for (int64_t d = 0; d < r; ++d) {
    std::vector<int64_t> in;
    for (const Value* v : op.operands) {
      int64_t od = d - (r - rank_of(v));
      in.push_back(od >= 0 && shape_of(v)[od] == out[d] ? od : kR);
    }
    s.shard1(std::move(in), d);
  }
  switch (op.code) {
    case OpCode::Add: case OpCode::Sub: s.partial({true, true}); break;
    case OpCode::Neg: s.partial({true}); break;
    case OpCode::Mul: s.partial({true, false}); s.partial({false, true}); break;
    case OpCode::Div: s.partial({true, false}); break;
    case OpCode::Select: s.partial({false, true, true}); break;
    case OpCode::Cast:  // a widening float cast is exact, so it sums like its operand (mixed precision)
      if (widens(op)) s.partial({true});
      break;
    default: break;
  }
}

// reshape: operand dim i and result dim j cut the same flat ranges into
// chunks when the products of the dims before them are equal.
void reshape(const Op& op, Signatures& s) {
  const Shape& in = shape_of(op.operands[0]);
  const Shape& out = shape_of(op.result());
  int64_t pi = 1;
  for (size_t i = 0; i < in.size(); pi *= in[i], ++i) {
    int64_t pj = 1;
    for (size_t j = 0; j < out.size(); pj *= out[j], ++j)
      if (pi == pj && in[i] > 1 && out[j] > 1) s.shard1({static_cast<int64_t>(i)}, static_cast<int64_t>(j));
  }
  s.partial({true});
}

void movement(const Op& op, Signatures& s) {
  const Value* x = op.operands.empty() ? nullptr : op.operands[0];
  switch (op.code) {
    case OpCode::Broadcast: {
      const auto& dims = op.attrs.get_ints("dims");
      const Shape& out = shape_of(op.result());
      for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) {
        int64_t from = kR;
        for (size_t i = 0; i < dims.size(); ++i)
          if (dims[i] == d && shape_of(x)[i] == out[d]) from = static_cast<int64_t>(i);
        s.shard1({from}, d);
      }
      s.partial({true});
      return;
    }
    case OpCode::Reshape: reshape(op, s); return;
    case OpCode::Transpose: {
      const auto& perm = op.attrs.get_ints("perm");
      for (int64_t d = 0; d < static_cast<int64_t>(perm.size()); ++d) s.shard1({perm[d]}, d);
      s.partial({true});
      return;
    }
    case OpCode::Slice: {
      const auto &start = op.attrs.get_ints("start"), &limit = op.attrs.get_ints("limit"),
                 &stride = op.attrs.get_ints("stride");
      for (int64_t d = 0; d < rank_of(x); ++d)
        if (start[d] == 0 && limit[d] == shape_of(x)[d] && stride[d] == 1) s.shard1({d}, d);
      s.partial({true});
      return;
    }
    case OpCode::Concat: {
      int64_t axis = op.attrs.get_int("axis");
      if (axis < 0) axis += rank_of(x);
      for (int64_t d = 0; d < rank_of(x); ++d)
        if (d != axis) s.shard1(std::vector<int64_t>(op.operands.size(), d), d);
      s.partial(std::vector<bool>(op.operands.size(), true));
      return;
    }
    case OpCode::Pad: {
      const auto &low = op.attrs.get_ints("low"), &high = op.attrs.get_ints("high");
      for (int64_t d = 0; d < rank_of(x); ++d)
        if (low[d] == 0 && high[d] == 0) s.shard1({d}, d);
      if (op.attrs.get_float("value") == 0) s.partial({true});
      return;
    }
    case OpCode::Unfold:  // [N,C,H,W] -> [N, C*KH*KW, L]: batch and (major) channel
    case OpCode::Fold:    // [N, C*KH*KW, L] -> [N,C,H,W]
      s.shard1({0}, 0);
      s.shard1({1}, 1);
      s.partial({true});
      return;
    default: return;
  }
}

void reduction(const Op& op, Signatures& s) {
  const Value* x = op.operands[0];
  if (op.code == OpCode::Argmax) {
    int64_t axis = op.attrs.get_int("axis");
    if (axis < 0) axis += rank_of(x);
    for (int64_t d = 0; d < rank_of(x); ++d)
      if (d != axis) s.shard1({d}, d < axis ? d : d - 1);
    return;
  }
  std::vector<int64_t> dims = op.attrs.get_ints("dims");
  for (int64_t& d : dims)
    if (d < 0) d += rank_of(x);
  bool keepdim = op.attrs.get_bool("keepdim"), sum = op.code == OpCode::ReduceSum, max = op.code == OpCode::ReduceMax;
  int64_t kept = 0;
  for (int64_t d = 0; d < rank_of(x); ++d) {
    bool reduced = dims.empty() || std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) s.shard1({d}, keepdim ? d : kept);
    else if (sum || max) s.shard1({d}, sum ? kP : kPmax);
    kept += !reduced;
  }
  if (sum) s.partial({true});
}

void dot(const Op& op, Signatures& s) {
  const int64_t ra = rank_of(op.operands[0]), rb = rank_of(op.operands[1]);
  const bool ta = op.attrs.get_bool("transpose_a"), tb = op.attrs.get_bool("transpose_b");
  const int64_t rr = rank_of(op.result());
  for (int64_t d = 0; d + 2 < ra; ++d) s.shard1({d, rb == ra ? d : kR}, d);  // batch
  s.shard1({ta ? ra - 1 : ra - 2, kR}, rr - 2);                               // M
  s.shard1({kR, tb ? rb - 2 : rb - 1}, rr - 1);                               // N
  s.shard1({ta ? ra - 2 : ra - 1, tb ? rb - 1 : rb - 2}, kP);                 // K
  s.partial({true, false});
  s.partial({false, true});
}

void convolution(const Op& op, Signatures& s) {
  bool grouped = op.attrs.get_int("groups") != 1;
  switch (op.code) {
    case OpCode::Conv2d:  // (x [N,C,H,W], w [O,C,KH,KW]) -> [N,O,OH,OW]
      s.shard1({0, kR}, 0);
      if (!grouped) {
        s.shard1({kR, 0}, 1);
        s.shard1({1, 1}, kP);
      }
      break;
    case OpCode::Conv2dInputGrad:  // (dy [N,O,OH,OW], w [O,C,KH,KW]) -> [N,C,H,W]
      s.shard1({0, kR}, 0);
      if (!grouped) {
        s.shard1({1, 0}, kP);
        s.shard1({kR, 1}, 1);
      }
      break;
    case OpCode::Conv2dWeightGrad:  // (x [N,C,H,W], dy [N,O,OH,OW]) -> [O,C,KH,KW]
      s.shard1({0, 0}, kP);
      if (!grouped) {
        s.shard1({1, kR}, 1);
        s.shard1({kR, 1}, 0);
      }
      break;
    default: return;
  }
  s.partial({true, false});
  s.partial({false, true});
}

// Pooling and its gradients: every operand and the result are [N,C,...].
void window(const Op& op, Signatures& s) {
  for (int64_t d : {0, 1}) s.shard1(std::vector<int64_t>(op.operands.size(), d), d);
  switch (op.code) {
    case OpCode::AvgPool2d: case OpCode::AvgPool2dGrad: s.partial({true}); break;
    case OpCode::MaxPool2dGrad: s.partial({false, true}); break;     // (x, dy)
    case OpCode::MaxPool2dScatter: s.partial({true, false}); break;  // (dy, indices)
    default: break;
  }
}

void indexing(const Op& op, Signatures& s) {
  const int64_t ri = rank_of(op.operands[1]);
  int64_t axis = op.attrs.get_int("axis");
  if (op.code == OpCode::Gather) {  // (table, idx) -> table[:axis] + idx + table[axis+1:]
    const int64_t rt = rank_of(op.operands[0]);
    if (axis < 0) axis += rt;
    for (int64_t t = 0; t < rt; ++t)
      if (t != axis) s.shard1({t, kR}, t < axis ? t : t - 1 + ri);
    for (int64_t i = 0; i < ri; ++i) s.shard1({kR, i}, axis + i);
    s.partial({true, false});
    return;
  }
  // scatter_add(operand, idx, updates): updates shaped like gather's result.
  const int64_t ro = rank_of(op.operands[0]);
  if (axis < 0) axis += ro;
  for (int64_t t = 0; t < ro; ++t)
    if (t != axis) s.shard1({t, kR, t < axis ? t : t - 1 + ri}, t);
  for (int64_t i = 0; i < ri; ++i) s.shard({kP, i, axis + i}, {kP});  // each device adds its updates
  s.partial({true, false, true});
}

void source(const Op& op, Signatures& s) {
  const int64_t r = rank_of(op.result());
  if (op.code == OpCode::Iota) {
    for (int64_t d = 0; d < r; ++d)
      if (d != op.attrs.get_int("dim")) s.shard1({}, d);
    return;
  }
  const AttrValue* v = op.attrs.find("value");
  bool splat = v && (std::holds_alternative<double>(*v) || std::holds_alternative<int64_t>(*v));
  if (!splat) return;
  for (int64_t d = 0; d < r; ++d) s.shard1({}, d);
  bool zero = std::holds_alternative<double>(*v) ? std::get<double>(*v) == 0 : std::get<int64_t>(*v) == 0;
  if (zero) s.partial({});  // zeros sum to zeros
}

}  // namespace

ShardingRuleKind sharding_rule_kind(OpCode code) {
  const OpInfo& info = op_info(code);
  if (info.is_composite() || info.has(kFused) || code == OpCode::Call) return ShardingRuleKind::decomposed;
  if (info.has(kCollective) || code == OpCode::ShardSlice) return ShardingRuleKind::collective;
  if (code == OpCode::Gather || code == OpCode::ScatterAdd) return ShardingRuleKind::indexing;
  if (info.has(kSource)) return ShardingRuleKind::source;
  if (info.has(kContraction)) return ShardingRuleKind::contraction;
  if (info.has(kWindow)) return ShardingRuleKind::window;
  if (info.has(kElementwise)) return ShardingRuleKind::elementwise;
  if (info.has(kReduction) && code != OpCode::Fold) return ShardingRuleKind::reduction;
  return ShardingRuleKind::movement;
}

std::string_view sharding_rule_kind_name(ShardingRuleKind kind) {
  switch (kind) {
    case ShardingRuleKind::elementwise: return "elementwise";
    case ShardingRuleKind::movement: return "movement";
    case ShardingRuleKind::reduction: return "reduction";
    case ShardingRuleKind::contraction: return "contraction";
    case ShardingRuleKind::window: return "window";
    case ShardingRuleKind::indexing: return "indexing";
    case ShardingRuleKind::source: return "source";
    case ShardingRuleKind::collective: return "collective";
    case ShardingRuleKind::decomposed: return "decomposed";
  }
  return "?";
}

std::vector<ShardingSignature> sharding_signatures(const Op& op) {
  Signatures s(op);
  switch (sharding_rule_kind(op.code)) {
    case ShardingRuleKind::elementwise: elementwise(op, s); break;
    case ShardingRuleKind::movement: movement(op, s); break;
    case ShardingRuleKind::reduction: reduction(op, s); break;
    case ShardingRuleKind::contraction: op.code == OpCode::Dot ? dot(op, s) : convolution(op, s); break;
    case ShardingRuleKind::window: window(op, s); break;
    case ShardingRuleKind::indexing: indexing(op, s); break;
    case ShardingRuleKind::source: source(op, s); break;
    case ShardingRuleKind::collective:
    case ShardingRuleKind::decomposed: break;
  }
  return s.take();
}

Attrs slice_attrs_for(const Op& op, const Shape& from, const Shape& to) {
  Attrs attrs = op.attrs;
  if (op.code != OpCode::Slice) return attrs;
  std::vector<int64_t> limit = attrs.get_ints("limit");
  for (size_t d = 0; d < limit.size(); ++d)
    if (limit[d] == from[d]) limit[d] = to[d];
  attrs.set("limit", limit);
  return attrs;
}

Status check_sharding_rules(const Function& f, const Mesh& mesh) {
  for (const auto& op : f.ops) {
    if (uses_mesh_axis(op->code)) continue;
    // The op on global types, in a scratch function (rules read global types).
    Function scratch(f.name);
    std::vector<Value*> operands;
    for (const Value* v : op->operands)
      operands.push_back(scratch.add_arg("a" + std::to_string(operands.size()),
                                         {v->type.dtype, global_shape(v->type.shape, v->placements, mesh)},
                                         ArgKind::input));
    std::vector<TensorType> results;
    for (const Value* v : op->results) results.push_back({v->type.dtype, global_shape(v->type.shape, v->placements, mesh)});
    const Attrs attrs = slice_attrs_for(*op, op->operands.empty() ? Shape{} : op->operands[0]->type.shape,
                                        operands.empty() ? Shape{} : operands[0]->type.shape);
    const Op& global = *scratch.insert_op(0, op->code, operands, attrs, results, op->loc);
    const std::vector<ShardingSignature> sigs = sharding_signatures(global);
    for (size_t a = 0; a < mesh.axes.size(); ++a) {
      auto allowed = [&](const ShardingSignature& s) {
        for (size_t i = 0; i < op->operands.size(); ++i)
          if (s.operands[i] != op->operands[i]->placements[a]) return false;
        for (size_t r = 0; r < op->results.size(); ++r)
          if (s.results[r] != op->results[r]->placements[a]) return false;
        return true;
      };
      if (std::any_of(sigs.begin(), sigs.end(), allowed)) continue;
      std::string have = "(";
      for (size_t i = 0; i < op->operands.size(); ++i) have += (i ? ", " : "") + op->operands[i]->placements[a].str();
      have += ") -> ";
      for (size_t r = 0; r < op->results.size(); ++r) have += (r ? ", " : "") + op->results[r]->placements[a].str();
      return error_at(op->loc, "sharding rules: " + std::string(op_name(op->code)) + " on axis '" + mesh.axes[a].name +
                                   "' has " + have + ", which its rule does not allow");
    }
  }
  return {};
}

}  // namespace mlc
