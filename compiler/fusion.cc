#include "compiler/fusion.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "ir/op_table.h"
#include "runtime/kernels/kernels.h"

namespace mlc {

namespace {

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

using Users = std::unordered_map<const Value*, std::vector<const Op*>>;

// Does one of `users` read v as its indices (gather's operand 1)? Such a
// value is never computed inside a kernel: the executor reads it whole to
// report an index out of range (rt::IndexCheck).
bool reads_as_indices(const std::vector<const Op*>& users, const Value* v) {
  return std::any_of(users.begin(), users.end(), [&](const Op* u) {
    return (u->code == OpCode::Gather || u->code == OpCode::ScatterAdd) && u->operands[1] == v;
  });
}

Users users_of(const Function& f) {
  Users users;
  for (const auto& op : f.ops)
    for (const Value* v : op->operands) users[v].push_back(op.get());
  return users;
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

std::optional<GemmUpdate> match_update(const Function& f, const Op& add, const Users& users,
                                       const std::unordered_map<const Op*, size_t>& index) {
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

// ---- gemm epilogues (fusion.h)

// The other operand of binary op `op` when v is one of them, else null.
const Value* other_operand(const Op& op, const Value* v) {
  if (op.operands.size() != 2) return nullptr;
  if (op.operands[0] == v) return op.operands[1];
  if (op.operands[1] == v) return op.operands[0];
  return nullptr;
}

// An f32 splat constant holding c as f32 holds it.
bool is_f32_splat(const Value* v, double c) {
  const std::optional<double> s = splat_value(v->producer);
  return s && v->type.dtype == DType::f32 && *s == static_cast<double>(static_cast<float>(c)) &&
         std::signbit(*s) == std::signbit(c);
}

const Value* through_reshapes(const Value* v) {
  while (v->producer && v->producer->code == OpCode::Reshape) v = v->producer->operands[0];
  return v;
}

class EpilogueMatcher {
 public:
  EpilogueMatcher(const Function& f, const Users& users, const std::unordered_map<const Op*, size_t>& index)
      : f_(f), users_(users), index_(index) {}

  // The tanh GELU chain over y whose intermediates may be read elsewhere.
  bool loose_gelu(const Value* y, std::vector<const Op*>& ops) const { return match_gelu(y, ops, false); }

  std::optional<GemmEpilogueMatch> match(const Op& dot) const {
    if (dot.code != OpCode::Dot) return std::nullopt;
    const Value* v = dot.result();
    const TensorType& t = v->type;
    if (t.dtype != DType::f32 || t.rank() < 2 || num_elements(t.shape) == 0) return std::nullopt;
    const rt::blas::DotShape d =
        rt::dot_shape(dot, dot.operands[0]->type.shape, dot.operands[1]->type.shape, t.shape);
    if (d.k == 0 || (d.batch > 1 && !(d.b_shared && !d.trans_a))) return std::nullopt;
    if (std::optional<GemmEpilogueMatch> m = forward(dot)) return m;
    return bias_gradient(dot, d);
  }

  const std::vector<const Op*>& uses(const Value* v) const {
    static const std::vector<const Op*> none;
    auto it = users_.find(v);
    return it == users_.end() ? none : it->second;
  }
  bool returned(const Value* v) const { return std::find(f_.results.begin(), f_.results.end(), v) != f_.results.end(); }
  // v's one user (reading it once) of code `code` and v's type, where v is not returned.
  const Op* only_user(const Value* v, OpCode code) const {
    const std::vector<const Op*>& u = uses(v);
    if (u.size() != 1 || returned(v) || u[0]->code != code || u[0]->result()->type != v->type) return nullptr;
    return u[0];
  }

  // What an activation epilogue reads: the dot's value, or its row bias
  // add's (the add's only reader of the dot), that add in *add.
  const Value* pre_activation(const Op& dot, const Op** add = nullptr) const {
    const Value* y = dot.result();
    const int64_t n = y->type.shape.back();
    if (const Op* a = only_user(y, OpCode::Add)) {
      const Value* bias = other_operand(*a, y);
      if (bias && bias != y && bias->type.dtype == DType::f32 && bias->type.rank() >= 1 &&
          bias->type.shape.back() == n && num_elements(bias->type.shape) == n) {
        if (add) *add = a;
        return a->result();
      }
    }
    return y;
  }

 private:
  // dot, then a row bias add, then relu or the tanh GELU (fusion.h).
  std::optional<GemmEpilogueMatch> forward(const Op& dot) const {
    GemmEpilogueMatch m;
    m.ops = {&dot};
    const Op* add = nullptr;
    const Value* y = pre_activation(dot, &add);
    if (add) {
      m.bias = other_operand(*add, dot.result());
      m.ops.push_back(add);
    }
    using E = rt::GemmEpilogue;
    const Op* max = only_user(y, OpCode::Max);
    std::vector<const Op*> gelu;
    if (max && max->operands[0] == y && max->operands[1] != y && is_f32_splat(max->operands[1], 0.0)) {
      m.ops.push_back(max);
      m.ops.push_back(max->operands[1]->producer);
      m.epilogue = m.bias ? E::bias_relu : E::relu;
    } else if (match_gelu(y, gelu)) {
      // y may be read elsewhere (by the backward): the GEMM stores it as the aux.
      const size_t inside = static_cast<size_t>(std::count_if(uses(y).begin(), uses(y).end(), [&](const Op* u) {
        return std::find(gelu.begin(), gelu.end(), u) != gelu.end();
      }));
      const bool aux = inside != uses(y).size() || returned(y);
      m.ops.insert(m.ops.end(), gelu.begin(), gelu.end());
      m.epilogue = m.bias ? (aux ? E::bias_gelu_aux : E::bias_gelu) : (aux ? E::gelu_aux : E::gelu);
      if (aux) m.extra = y->producer;
    } else if (m.bias) {
      m.epilogue = E::bias;
    } else {
      return std::nullopt;
    }
    finish(m);
    return m;
  }

  // The ops of 0.5 y * (1 + tanh(sqrt(2/pi) * (y + (y * y * y) * 0.044715))),
  // its splat constants included. Strict: each intermediate is read once,
  // by the next op, and not returned; else it may be read elsewhere too
  // (recompute_gelu_for_epilogues).
  bool match_gelu(const Value* y, std::vector<const Op*>& ops, bool strict = true) const {
    // The user of v of `code` and v's type for which `pred` holds (strict: v's only use).
    auto next = [&](const Value* v, OpCode code, auto&& pred) -> const Op* {
      if (strict) {
        const Op* u = only_user(v, code);
        return u && pred(*u) ? u : nullptr;
      }
      const Op* found = nullptr;
      for (const Op* u : uses(v))
        if (u->code == code && u->result()->type == v->type && pred(*u)) {
          if (found && found != u) return nullptr;
          found = u;
        }
      return found;
    };
    auto with = [](const Value* v, const Value* other) {
      return [v, other](const Op& u) { return other_operand(u, v) == other && other != v; };
    };
    auto by_splat = [](const Value* v, double c) {
      return [v, c](const Op& u) {
        const Value* o = other_operand(u, v);
        return o && o != v && is_f32_splat(o, c);
      };
    };
    // y * y: each candidate (recompute_gelu_for_epilogues may have copied it).
    for (const Op* sq : uses(y)) {
      if (sq->code != OpCode::Mul || sq->operands[0] != y || sq->operands[1] != y || sq->result()->type != y->type)
        continue;
      const Op* cube = next(sq->result(), OpCode::Mul, with(sq->result(), y));
      const Op* scaled = cube ? next(cube->result(), OpCode::Mul, by_splat(cube->result(), 0.044715)) : nullptr;
      const Op* poly = scaled ? next(scaled->result(), OpCode::Add, with(scaled->result(), y)) : nullptr;
      const Op* arg =
          poly ? next(poly->result(), OpCode::Mul, by_splat(poly->result(), std::sqrt(2.0 / M_PI))) : nullptr;
      const Op* th = arg ? next(arg->result(), OpCode::Tanh, [](const Op&) { return true; }) : nullptr;
      const Op* one_t = th ? next(th->result(), OpCode::Add, by_splat(th->result(), 1.0)) : nullptr;
      // The last op: (0.5 y) * (1 + t).
      auto times_half_y = [&](const Op& u) {
        const Value* h = other_operand(u, one_t->result());
        return h && h != one_t->result() && h->producer && h->producer->code == OpCode::Mul &&
               h->type == y->type && by_splat(y, 0.5)(*h->producer);
      };
      const Op* out = one_t ? next(one_t->result(), OpCode::Mul, times_half_y) : nullptr;
      if (!out) continue;
      const Op* half = other_operand(*out, one_t->result())->producer;
      if (strict && only_user(half->result(), OpCode::Mul) != out) continue;
      ops = {sq, cube, scaled, other_operand(*scaled, cube->result())->producer, poly, arg,
             other_operand(*arg, poly->result())->producer, th, one_t, other_operand(*one_t, th->result())->producer,
             half, other_operand(*half, y)->producer, out};
      return true;
    }
    return false;
  }

  // dot(dy, x) {transpose_a} and reduce_sum(dy) over all dims but the last.
  std::optional<GemmEpilogueMatch> bias_gradient(const Op& dot, const rt::blas::DotShape& d) const {
    const Value* a = dot.operands[0];
    if (!d.trans_a || d.batch != 1 || a->type.rank() != 2) return std::nullopt;
    // A gemm update keeps its dot (fusion.h).
    const std::vector<const Op*>& dot_users = uses(dot.result());
    if (dot_users.size() == 1 && dot_users[0]->code == OpCode::Add && match_gemm_update(f_, *dot_users[0]))
      return std::nullopt;
    const Value* dy = through_reshapes(a);
    for (const Op* r : reduce_sums_of(dy)) {
      const Value* x = r->operands[0];
      const auto& dims = r->attrs.get_ints("dims");
      std::vector<bool> reduced(static_cast<size_t>(x->type.rank()), false);
      for (int64_t k : dims) {
        const int64_t at = k < 0 ? k + x->type.rank() : k;
        if (at >= 0 && at < x->type.rank()) reduced[static_cast<size_t>(at)] = true;
      }
      const bool all_but_last = x->type.rank() >= 1 && !reduced.back() &&
                                std::count(reduced.begin(), reduced.end(), true) == x->type.rank() - 1;
      if (!all_but_last || x->type.shape.back() != d.m || num_elements(x->type.shape) != d.k * d.m ||
          r->result()->type.dtype != DType::f32 || num_elements(r->result()->type.shape) != d.m)
        continue;
      // The group runs where the later of the two is: every reader of either runs after both.
      const size_t at = std::max(index_.at(&dot), index_.at(r));
      auto later = [&](const Value* v) {
        return std::all_of(uses(v).begin(), uses(v).end(), [&](const Op* u) { return index_.at(u) > at; });
      };
      if (!later(dot.result()) || !later(r->result())) continue;
      GemmEpilogueMatch m;
      m.epilogue = rt::GemmEpilogue::bgradb;
      m.ops = {&dot, r};
      m.product = &dot;
      m.extra = r;
      finish(m);
      return m;
    }
    return std::nullopt;
  }

  // The reduce_sums reading dy or a reshape of it.
  std::vector<const Op*> reduce_sums_of(const Value* dy) const {
    std::vector<const Op*> found;
    std::vector<const Value*> work = {dy};
    while (!work.empty()) {
      const Value* v = work.back();
      work.pop_back();
      for (const Op* u : uses(v)) {
        if (u->code == OpCode::Reshape) work.push_back(u->result());
        if (u->code == OpCode::ReduceSum) found.push_back(u);
      }
    }
    return found;
  }

  void finish(GemmEpilogueMatch& m) const {
    auto in_order = [&](const Op* a, const Op* b) { return index_.at(a) < index_.at(b); };
    std::sort(m.ops.begin(), m.ops.end(), in_order);
    m.ops.erase(std::unique(m.ops.begin(), m.ops.end()), m.ops.end());
    if (!m.product) {
      m.product = nullptr;
      for (const Op* op : m.ops)
        if (op->code != OpCode::Constant) m.product = op;  // the chain's last op
    }
  }

  const Function& f_;
  const Users& users_;
  const std::unordered_map<const Op*, size_t>& index_;
};

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
  std::unordered_map<const Op*, size_t> index;
  for (size_t i = 0; i < f.ops.size(); ++i) index[f.ops[i].get()] = i;
  return match_update(f, add, users_of(f), index);
}

std::optional<GemmEpilogueMatch> match_gemm_epilogue(const Function& f, const Op& dot) {
  std::unordered_map<const Op*, size_t> index;
  for (size_t i = 0; i < f.ops.size(); ++i) index[f.ops[i].get()] = i;
  const Users users = users_of(f);
  return EpilogueMatcher(f, users, index).match(dot);
}

namespace {

// One chain's rewrite (see fusion.h): true if it rewrote one.
bool recompute_one_gelu(Function& f) {
  std::unordered_map<const Op*, size_t> index;
  for (size_t i = 0; i < f.ops.size(); ++i) index[f.ops[i].get()] = i;
  const Users users = users_of(f);
  const EpilogueMatcher matcher(f, users, index);
  auto uses = [&](const Value* v) -> std::vector<const Op*> {
    auto it = users.find(v);
    return it == users.end() ? std::vector<const Op*>{} : it->second;
  };
  for (const auto& op : f.ops) {
    if (op->code != OpCode::Dot || op->result()->type.dtype != DType::f32) continue;
    const Value* y = matcher.pre_activation(*op);
    std::vector<const Op*> chain;
    if (!matcher.loose_gelu(y, chain)) continue;
    const std::unordered_set<const Op*> in_chain(chain.begin(), chain.end());
    // The intermediates read after the chain (not its last op, not constants).
    const Op* last = chain.back();
    std::vector<const Op*> escaping;
    size_t first_reader = f.ops.size();
    bool returned = false;
    for (const Op* c : chain) {
      if (c == last || c->code == OpCode::Constant) continue;
      returned |= std::find(f.results.begin(), f.results.end(), c->result()) != f.results.end();
      for (const Op* u : uses(c->result()))
        if (!in_chain.count(u)) {
          escaping.push_back(c);
          first_reader = std::min(first_reader, index.at(u));
        }
    }
    if (returned || escaping.empty() || first_reader <= index.at(last)) continue;
    // Clone what the readers need, in chain order, right before the first of them.
    std::unordered_set<const Op*> needed;
    std::vector<const Op*> work = escaping;
    while (!work.empty()) {
      const Op* c = work.back();
      work.pop_back();
      if (c->code == OpCode::Constant || !needed.insert(c).second) continue;
      for (const Value* v : c->operands)
        if (v->producer && in_chain.count(v->producer)) work.push_back(v->producer);
    }
    std::unordered_map<const Value*, Value*> clone_of;
    size_t at = first_reader;
    for (const Op* c : chain) {
      if (!needed.count(c)) continue;
      std::vector<Value*> operands;
      for (Value* v : c->operands) {
        auto it = clone_of.find(v);
        operands.push_back(it == clone_of.end() ? v : it->second);
      }
      Op* copy = f.insert_op(at++, c->code, std::move(operands), c->attrs, c->result()->type, c->loc);
      copy->meta = c->meta;
      clone_of[c->result()] = copy->result();
    }
    for (size_t i = at; i < f.ops.size(); ++i) {
      Op& reader = *f.ops[i];
      if (in_chain.count(&reader)) continue;
      for (Value*& v : reader.operands)
        if (auto it = clone_of.find(v); it != clone_of.end()) v = it->second;
    }
    return true;
  }
  return false;
}

}  // namespace

int recompute_gelu_for_epilogues(Function& f) {
  int n = 0;
  while (recompute_one_gelu(f)) ++n;
  return n;
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
  std::unordered_map<const Op*, size_t> index;
  for (size_t i = 0; i < f.ops.size(); ++i) index[f.ops[i].get()] = i;

  // Sources (splat constants, iota) are computed inside every loop kernel that
  // reads them; absorbed_by counts those users.
  std::unordered_map<const Op*, size_t> absorbed_by;
  auto is_shared_source = [](const Op& op) { return op.operands.empty() && is_loop_op(op); };

  // Gemm epilogues first (the dots in program order): no loop kernel takes
  // their ops (constants aside, which every reader computes).
  std::vector<GemmEpilogueMatch> epilogues;
  std::unordered_map<const Op*, size_t> claimed;  // op -> its epilogue
  if (options.gemm_epilogues) {
    const EpilogueMatcher matcher(f, users, index);
    for (const auto& op : f.ops) {
      if (op->code != OpCode::Dot || claimed.count(op.get())) continue;
      std::optional<GemmEpilogueMatch> m = matcher.match(*op);
      if (!m || std::any_of(m->ops.begin(), m->ops.end(), [&](const Op* o) { return claimed.count(o) > 0; })) continue;
      for (const Op* o : m->ops)
        if (o->code != OpCode::Constant) claimed[o] = epilogues.size();
      epilogues.push_back(std::move(*m));
    }
  }

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
      group.bias = m.bias;
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
