#include "compiler/fusion.h"

#include <algorithm>
#include <unordered_set>

#include "compiler/fusion_internal.h"
#include "ir/op_table.h"

namespace mlc {

namespace fusion_internal {

Users users_of(const Function& f) {
  Users users;
  for (const auto& op : f.ops)
    for (const Value* v : op->operands) users[v].push_back(op.get());
  return users;
}

OpIndex op_index(const Function& f) {
  OpIndex index;
  for (size_t i = 0; i < f.ops.size(); ++i) index[f.ops[i].get()] = i;
  return index;
}

// The splat value of a float constant op as its dtype holds it (as the
// interpreter materializes it), or nullopt.
std::optional<double> splat_value(const Op* op) {
  if (!op || op->code != OpCode::Constant) return std::nullopt;
  const AttrValue* v = op->attrs.find("value");
  if (!v || !std::holds_alternative<double>(*v)) return std::nullopt;
  const double x = std::get<double>(*v);
  switch (op->result()->type.dtype) {
    case DType::f32: return static_cast<double>(static_cast<float>(x));
    case DType::f64: return x;
    default: return std::nullopt;
  }
}

}  // namespace fusion_internal

namespace {

using namespace fusion_internal;

// Every dtype: bf16 and f16 compute in float and round at each op's result
// (compiler/cpu/llvm_half.h), as the reference kernels do.
bool loop_dtype(DType t) {
  switch (t) {
    case DType::f32: case DType::f64: case DType::bf16: case DType::f16: case DType::i32: case DType::i64:
    case DType::boolean:
      return true;
  }
  return false;
}

// A value that is a constant splat other than 0 (through broadcasts and
// reshapes): an integer division by it cannot fail, so it may be a loop op
// (the kernel divides as the reference kernel does, INT_MIN / -1 wrapping).
bool nonzero_constant(const Value* v) {
  while (v->producer && (v->producer->code == OpCode::Broadcast || v->producer->code == OpCode::Reshape))
    v = v->producer->operands[0];
  if (!v->producer || v->producer->code != OpCode::Constant) return false;
  const AttrValue* value = v->producer->attrs.find("value");
  if (!value) return false;
  if (const int64_t* i = std::get_if<int64_t>(value)) return *i != 0;
  if (const double* d = std::get_if<double>(value)) return *d != 0;
  return false;
}

// Arithmetic worth recomputing rather than storing.
bool is_cheap(const Op& op) {
  const OpInfo& info = op_info(op.code);
  if (info.has(kMovement) || info.has(kSource)) return true;
  switch (op.code) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Add: case OpCode::Sub: case OpCode::Mul:
    case OpCode::Max: case OpCode::Min: case OpCode::Compare: case OpCode::Select: case OpCode::Cast:
      return true;
    default: return false;
  }
}

// Does `user` read each element of `v` at most once per element of its result
// (so `v` is evaluated once per element when `user` is)?
bool reads_once(const Op& user, const Value* v) {
  const OpInfo& info = op_info(user.code);
  if (user.code == OpCode::Reshape || user.code == OpCode::Transpose || user.code == OpCode::Slice ||
      user.code == OpCode::Concat || user.code == OpCode::Pad)
    return true;
  if (info.has(kElementwise)) return v->type.shape == user.result()->type.shape;
  if (user.code == OpCode::MaxPool2d || user.code == OpCode::MaxPool2dIndices || user.code == OpCode::AvgPool2d) {
    // Each input element is in at most one window where windows do not overlap.
    const auto& k = user.attrs.get_ints("kernel");
    const auto& s = user.attrs.get_ints("stride");
    return s[0] >= k[0] && s[1] >= k[1];
  }
  if (info.has(kWindow)) return false;    // gradients read each element for several windows
  if (info.has(kReduction)) return true;  // each input element folds into one result element
  return false;
}

// Does one of `users` read v as its indices (gather's operand 1)? Such a
// value is never computed inside a kernel: the executor reads it whole to
// report an index out of range (rt::IndexCheck).
bool reads_as_indices(const std::vector<const Op*>& users, const Value* v) {
  return std::any_of(users.begin(), users.end(), [&](const Op* u) {
    return (u->code == OpCode::Gather || u->code == OpCode::ScatterAdd) && u->operands[1] == v;
  });
}


std::optional<GemmUpdate> match_update(const Function& f, const Op& add, const Users& users,
                                       const OpIndex& index) {
  const Value* result = add.result();
  if (add.code != OpCode::Add || !result) return std::nullopt;
  const DType t = result->type.dtype;
  if ((t != DType::f32 && t != DType::f64) || num_elements(result->type.shape) < kMinGemmUpdate) return std::nullopt;
  auto only_user = [&](const Value* v, const Op* user) {
    auto it = users.find(v);
    return it != users.end() && it->second.size() == 1 && it->second[0] == user &&
           std::find(f.results.begin(), f.results.end(), v) == f.results.end();
  };
  // v = c * w (c a rank-0 splat constant, the mul's only user `user`): the
  // mul, the constant, c and w; nullopt if v is not such a product.
  struct Scaled {
    const Op* mul;
    const Op* scale;
    double c;
    const Value* w;
  };
  auto scaled = [&](const Value* v, const Op* user) -> std::optional<Scaled> {
    const Op* m = v->producer;
    if (!m || m->code != OpCode::Mul || !only_user(v, user)) return std::nullopt;
    for (size_t k = 0; k < 2; ++k) {
      const Value* s = m->operands[k];
      std::optional<double> c = splat_value(s->producer);
      if (c && s->type.rank() == 0) return Scaled{m, s->producer, *c, m->operands[1 - k]};
    }
    return std::nullopt;
  };
  for (int side = 0; side < 2; ++side) {
    GemmUpdate u;
    u.addend = add.operands[static_cast<size_t>(side)];
    const Value* term = add.operands[static_cast<size_t>(1 - side)];
    if (std::optional<Scaled> b = scaled(u.addend, &add)) {
      u.addend_mul = b->mul;
      u.addend_scale = b->scale;
      u.beta = b->c;
      u.addend = b->w;
    }
    if (u.addend->producer || u.addend->type != result->type || !term->producer || u.beta == 0) continue;
    const Value* d = term;
    if (term->producer->code == OpCode::Mul) {
      std::optional<Scaled> c = scaled(term, &add);
      if (!c) continue;
      u.mul = c->mul;
      u.scale = c->scale;
      u.alpha = c->c;
      d = c->w;
    }
    if (!d->producer || d->producer->code != OpCode::Dot || d->type != result->type ||
        !only_user(d, u.mul ? u.mul : &add))
      continue;
    u.dot = d->producer;
    // The value replaces x (a result that updates x), and nothing after the
    // add reads x: the GEMM may overwrite it.
    const auto arg = std::find(f.args.begin(), f.args.end(), u.addend);
    if (arg == f.args.end()) continue;
    const int a = static_cast<int>(arg - f.args.begin());
    int updates = 0, returned = 0;
    for (size_t k = 0; k < f.results.size(); ++k) {
      if (f.results[k] != result) continue;
      ++returned;
      updates += f.updated_arg(k) == a;
    }
    if (returned != 1 || updates != 1 || std::find(f.results.begin(), f.results.end(), u.addend) != f.results.end())
      continue;
    const size_t at = index.at(&add);
    const auto& readers = users.at(u.addend);
    if (std::any_of(readers.begin(), readers.end(), [&](const Op* r) { return index.at(r) > at; })) continue;
    // A dot reading x as an operand stays correct (the executor then copies
    // x into a buffer of its own), but gains nothing: leave it to its kernel.
    if (u.dot->operands[0] == u.addend || u.dot->operands[1] == u.addend) continue;
    return u;
  }
  return std::nullopt;
}

// How often a loop group evaluates each of its members, decided as
// producers join (every user of a producer is a member by then). Counts are
// per element of the member's own result:
//  - once: each element once (the root; a single user that is evaluated
//    once and reads each element once);
//  - per row: the same value across a row of the root's domain (the kernel's
//    inner loop): a value broadcast along the root's last axis from an
//    aligned member (below), or any operand of such a value. Code generation
//    computes a reduction of that kind once per row (cpu::ReduceStrategy::
//    per_row) and LLVM hoists the arithmetic out of the row's loop, so they
//    cost next to nothing per element, and a reduction whose result has one
//    element per row evaluates each element of its operand once: softmax's
//    max and sum, a norm's mean of squares, inside the kernel that uses them;
//  - several times: more users, or a user that reads an element for several
//    of its own (a broadcast along another axis, a window).
// Aligned members are indexed by the domain's own index: the root, and
// same-shaped operands of aligned elementwise members and of row
// reductions over the last axis.
class RowWalk {
 public:
  explicit RowWalk(const Op& root) : root_shape_(root.result()->type.shape) {
    rows_ = root_shape_.empty() ? 1 : num_elements(root_shape_) / std::max<int64_t>(1, root_shape_.back());
    info_[&root] = {1, false, true, true};
  }

  // Records and returns whether producer p may join: evaluated once per
  // element, or per row (a reduction only with one element per row), or
  // cheap. (Softmax's exponentials, evaluated twice in one kernel, once in
  // the sum and once in the quotient, made it 1.7x slower than storing them:
  // libmvec's vector exp costs more than the memory pass on this hardware.)
  bool admit(const Op& p, const std::vector<const Op*>& users) {
    const Info mine = assess(p, users);
    bool ok;
    if (mine.row) ok = !op_info(p.code).has(kReduction) || is_row_reduction(p);
    else ok = mine.evals == 1 || is_cheap(p);
    // A gather checks the indices it reads: it joins only where the kernel
    // computes every element of it (so it reads every index). A scatter_add
    // is the root of its kernel.
    if (p.code == OpCode::Gather) ok = ok && !mine.row && mine.at_index;
    if (p.code == OpCode::ScatterAdd) ok = false;
    if (ok) info_[&p] = mine;
    return ok;
  }

  // Records and returns whether producer p, read also after the group (by
  // `inside`, its users in the group, and by others), may join as a further
  // output: elementwise, of the root's shape, evaluated at the domain's own
  // index (so the kernel has its value at every element it stores), and once
  // unless it is cheap.
  bool admit_output(const Op& p, const std::vector<const Op*>& inside) {
    const Info mine = assess(p, inside);
    const bool ok = op_info(p.code).has(kElementwise) && p.result()->type.shape == root_shape_ && !mine.row &&
                    mine.at_index && (mine.evals == 1 || is_cheap(p));
    if (ok) info_[&p] = mine;
    return ok;
  }

 private:
  static constexpr int kMany = 1 << 20;
  struct Info {
    int evals;      // per element of the member's result (row: unused)
    bool row;       // the same value across a row of the domain
    bool aligned;   // indexed by the domain's own index, or a row reduction's
    bool at_index;  // evaluated at the domain's own index, for every element
  };

  Info assess(const Op& p, const std::vector<const Op*>& users) const {
    const Value* v = p.result();
    Info mine{0, true, false, false};
    std::unordered_set<const Op*> seen;  // a user reading v twice is listed twice
    for (const Op* u : users) {
      if (!seen.insert(u).second) continue;
      const Info& in = info_.at(u);
      for (const Value* operand : u->operands) {
        if (operand != v) continue;
        if (in.row && !is_row_reduction(*u)) continue;  // per row
        if (in.aligned && row_broadcast(*u, *v)) continue;
        mine.row = false;
        const bool same_shape_elementwise = v->type.shape == root_shape_ && op_info(u->code).has(kElementwise);
        if (in.row) {  // a row reduction: each operand element once
          mine.evals += 1;
          mine.aligned = mine.aligned || v->type.shape == root_shape_;
        } else if (reads_once(*u, v)) {
          mine.evals += in.evals;
          mine.aligned = mine.aligned || (in.aligned && same_shape_elementwise);
          mine.at_index = mine.at_index || (in.at_index && same_shape_elementwise);
        } else {
          mine.evals = kMany;
        }
        mine.evals = std::min(mine.evals, kMany);
      }
    }
    return mine;
  }

  // A reduction over the last axis whose result has one element per row.
  bool is_row_reduction(const Op& op) const {
    if (op.code != OpCode::ReduceSum && op.code != OpCode::ReduceMax && op.code != OpCode::ReduceMin) return false;
    const Shape& in = op.operands[0]->type.shape;
    const auto& dims = op.attrs.get_ints("dims");
    return in == root_shape_ && dims.size() == 1 && (dims[0] == static_cast<int64_t>(in.size()) - 1 || dims[0] == -1) &&
           num_elements(op.result()->type.shape) == rows_;
  }

  // Does aligned member u read v broadcast along the root's last axis (by
  // numpy broadcasting or a broadcast op), so that v's element is the same
  // across a row?
  bool row_broadcast(const Op& u, const Value& v) const {
    if (!op_info(u.code).has(kElementwise) && u.code != OpCode::Broadcast) return false;
    if (u.result()->type.shape != root_shape_ || root_shape_.empty() || root_shape_.back() == 1) return false;
    const Shape& s = v.type.shape;
    return s.empty() || s.back() == 1;
  }

  Shape root_shape_;
  int64_t rows_ = 1;
  std::unordered_map<const Op*, Info> info_;
};

}  // namespace

std::optional<GemmUpdate> match_gemm_update(const Function& f, const Op& add) {
  return match_update(f, add, users_of(f), op_index(f));
}

bool is_loop_op(const Op& op) {
  if (!loop_dtype(op.result()->type.dtype)) return false;
  for (const Value* v : op.operands)
    if (!loop_dtype(v->type.dtype)) return false;
  const OpInfo& info = op_info(op.code);
  if (info.is_composite()) return false;
  switch (op.code) {
    case OpCode::Div: return is_float(op.result()->type.dtype) || nonzero_constant(op.operands[1]);
    case OpCode::Cast: return !(is_float(op.operands[0]->type.dtype) && !is_float(op.result()->type.dtype) &&
                                op.result()->type.dtype != DType::boolean);
    case OpCode::ShardSlice:  // which chunk depends on the device
      return false;
    case OpCode::ScatterAdd: {
      // The root of its kernel (kir::Kernel::scatter), checking every index
      // as the reference kernel does: where its output and its updates have
      // elements (no updates: no indices). Not on bf16 or f16, whose reference
      // kernel sums in float and rounds once, where the kernel adds in place
      // (lowering rewrites those as f32 ones, compiler/half_accumulation.h).
      const int64_t updates = num_elements(op.operands[2]->type.shape);
      const DType t = op.result()->type.dtype;
      return t != DType::boolean && !is_half(t) && num_elements(op.result()->type.shape) > 0 &&
             (updates > 0 || num_elements(op.operands[1]->type.shape) == 0);
    }
    case OpCode::Gather: {
      // Its indices are checked where it is computed (kir::ExprKind::
      // checked_index): every one, as the reference kernel checks them, only
      // where its result has elements and its axis a size.
      const Shape& table = op.operands[0]->type.shape;
      const int64_t axis = op.attrs.get_int("axis");
      return num_elements(op.result()->type.shape) > 0 &&
             table[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(table.size()) : axis)] > 0;
    }
    case OpCode::Constant: {
      const AttrValue* v = op.attrs.find("value");
      return v && (std::holds_alternative<double>(*v) || std::holds_alternative<int64_t>(*v));
    }
    default: break;
  }
  if (info.has(kContraction)) return false;
  return info.has(kElementwise) || info.has(kMovement) || info.has(kReduction) || info.has(kSource) ||
         info.has(kWindow);
}

FusionPlan plan_fusion(const Function& f, const FusionOptions& options) {
  const Users users = users_of(f);
  const std::vector<const Op*> none;
  auto users_of_value = [&](const Value* v) -> const std::vector<const Op*>& {
    auto it = users.find(v);
    return it == users.end() ? none : it->second;
  };
  std::unordered_set<const Value*> returned(f.results.begin(), f.results.end());

  FusionPlan plan;
  std::vector<int> group_of(f.ops.size(), -1);
  const OpIndex index = op_index(f);

  // Sources (splat constants, iota) are computed inside every loop kernel that
  // reads them; absorbed_by counts those users.
  std::unordered_map<const Op*, size_t> absorbed_by;
  auto is_shared_source = [](const Op& op) { return op.operands.empty() && is_loop_op(op); };

  // Gemm epilogues first (the dots in program order): no loop kernel takes
  // their ops (constants aside, which every reader computes).
  std::vector<GemmEpilogueMatch> epilogues;
  std::unordered_map<const Op*, size_t> claimed;  // op -> its epilogue
  if (options.gemm_epilogues) epilogues = fusion_internal::choose_gemm_epilogues(f, users, index);
  for (size_t e = 0; e < epilogues.size(); ++e)
    for (const Op* o : epilogues[e].ops)
      if (o->code != OpCode::Constant) claimed[o] = e;

  std::vector<FusionGroup> reversed;
  for (size_t r = f.ops.size(); r-- > 0;) {
    if (group_of[r] >= 0) continue;
    const Op& root = *f.ops[r];
    if (auto c = claimed.find(&root); c != claimed.end()) {  // its last op: the others follow
      const GemmEpilogueMatch& m = epilogues[c->second];
      const int g = static_cast<int>(reversed.size());
      FusionGroup group;
      group.kind = GroupKind::gemm_epilogue;
      group.ops = m.ops;
      group.epilogue = m.epilogue;
      group.product = m.product;
      group.operand = m.operand;
      if (m.extra) group.outputs = {m.extra};
      for (const Op* o : m.ops) {
        if (o->code != OpCode::Constant) {
          group_of[index.at(o)] = g;
          continue;
        }
        const std::vector<const Op*>& us = users_of_value(o->result());
        absorbed_by[o] += static_cast<size_t>(std::count_if(us.begin(), us.end(), [&](const Op* u) {
          return std::find(m.ops.begin(), m.ops.end(), u) != m.ops.end();
        }));
      }
      reversed.push_back(std::move(group));
      continue;
    }
    if (is_shared_source(root) && !returned.count(root.result()) && absorbed_by[&root] == users_of_value(root.result()).size())
      continue;  // every user computes it
    const int g = static_cast<int>(reversed.size());
    FusionGroup group;
    group_of[r] = g;
    group.ops.push_back(&root);
    std::optional<GemmUpdate> update;
    if (root.code == OpCode::Add) update = match_update(f, root, users, index);
    if (root.code == OpCode::Reshape) {
      group.kind = GroupKind::alias;
    } else if (update && group_of[index.at(update->dot)] < 0 && !claimed.count(update->dot)) {
      group.kind = GroupKind::gemm_update;
      group.ops = {update->dot};
      // The constants are read at compile time, and counted as absorbed.
      for (auto [scale, mul] : {std::pair{update->scale, update->mul}, std::pair{update->addend_scale, update->addend_mul}}) {
        if (!mul) continue;
        group.ops.push_back(scale);
        group.ops.push_back(mul);
        group_of[index.at(mul)] = g;
        absorbed_by[scale] += 1;
      }
      group.ops.push_back(&root);
      group.addend = update->addend;
      group.alpha = update->alpha;
      group.beta = update->beta;
      group_of[index.at(update->dot)] = g;
    } else if (is_loop_op(root)) {
      group.kind = GroupKind::loop;
      RowWalk walk(root);
      std::vector<const Op*> work = {&root};
      while (!work.empty()) {
        const Op* m = work.back();
        work.pop_back();
        for (const Value* v : m->operands) {
          const Op* p = v->producer;
          if (p && reads_as_indices(users_of_value(v), v)) continue;
          // A scatter_add's kernel computes its operand (the output's first
          // value) and reads its updates: elementwise and movement producers only.
          if (p && root.code == OpCode::ScatterAdd &&
              (v == root.operands[2] || op_info(p->code).has(kReduction) || op_info(p->code).has(kWindow)))
            continue;
          if (p && is_shared_source(*p) && group_of[index.at(p)] < 0) {
            if (std::find(group.ops.begin(), group.ops.end(), p) == group.ops.end()) group.ops.push_back(p);
            continue;
          }
          if (!p || group_of[index.at(p)] >= 0 || claimed.count(p) || !is_loop_op(*p)) continue;
          // Users in this group, and whether every other runs after it (is in
          // a group made before: groups are made from the last root back).
          const std::vector<const Op*>& us = users_of_value(v);
          std::vector<const Op*> inside;
          bool later = true;
          for (const Op* u : us) {
            const int ug = group_of[index.at(u)];
            if (ug == g) inside.push_back(u);
            else later = later && ug >= 0;
          }
          if (inside.size() == us.size() && !returned.count(v)) {
            if (!walk.admit(*p, us)) continue;
          } else {
            // A gemm update stays one (its gradient is never stored at all).
            if (!later || (p->code == OpCode::Add && match_update(f, *p, users, index))) continue;
            if (!walk.admit_output(*p, inside)) continue;
            group.outputs.push_back(p);
          }
          group_of[index.at(p)] = g;
          group.ops.push_back(p);
          work.push_back(p);
        }
      }
      auto in_order = [&](const Op* a, const Op* b) { return index.at(a) < index.at(b); };
      std::sort(group.ops.begin(), group.ops.end(), in_order);
      std::sort(group.outputs.begin(), group.outputs.end(), in_order);
      // Every use of a source by a member of this group is computed here (an
      // op may read it twice, several members may read it).
      for (const Op* p : group.ops) {
        if (!is_shared_source(*p)) continue;
        const std::vector<const Op*>& us = users_of_value(p->result());
        absorbed_by[p] += static_cast<size_t>(
            std::count_if(us.begin(), us.end(), [&](const Op* u) { return group_of[index.at(u)] == g; }));
      }
    }
    reversed.push_back(std::move(group));
  }
  // Number groups in schedule order.
  const int n = static_cast<int>(reversed.size());
  for (int g = n - 1; g >= 0; --g) {
    for (const Op* op : reversed[g].ops) plan.group_of[op] = n - 1 - g;
    plan.groups.push_back(std::move(reversed[g]));
  }
  return plan;
}

}  // namespace mlc
