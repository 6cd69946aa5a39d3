// Gemm epilogues (compiler/fusion.h): which dot takes which elementwise ops
// into its cuBLASLt epilogue, and the rewrite that lets training's GELU
// chains take one (recompute_gelu_for_epilogues).
#include "compiler/fusion_internal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

#include "ir/op_table.h"
#include "runtime/gemm_epilogue.h"
#include "runtime/kernels/kernels.h"

namespace mlc {

namespace {

using namespace fusion_internal;

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

// The dtypes cuBLASLt's epilogues take here: f32, and bf16 and f16 with f32
// compute (f64: not tried on a GPU; docs/architecture.md).
bool epilogue_dtype(DType t) { return t == DType::f32 || is_half(t); }

// cuBLASLt's aux matrix (GELU_AUX, DGELU): its leading dimension, the dot's
// n, "must be divisible by 8" (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD).
constexpr int64_t kAuxLdMultiple = 8;
bool aux_fits(const Value* v) { return v->type.shape.back() % kAuxLdMultiple == 0; }

const Value* through_reshapes(const Value* v) {
  while (v->producer && v->producer->code == OpCode::Reshape) v = v->producer->operands[0];
  return v;
}

class EpilogueMatcher {
 public:
  EpilogueMatcher(const Function& f, const Users& users, const OpIndex& index)
      : f_(f), users_(users), index_(index) {}

  // The tanh GELU chain over y whose intermediates may be read elsewhere.
  bool loose_gelu(const Value* y, std::vector<const Op*>& ops) const { return match_gelu(y, ops, false); }

  std::optional<GemmEpilogueMatch> match(const Op& dot) const {
    if (!shape_of(dot)) return std::nullopt;
    if (std::optional<GemmEpilogueMatch> m = forward(dot)) return m;
    if (std::optional<GemmEpilogueMatch> m = gelu_gradient(dot)) return m;
    return bias_gradient(dot);
  }

  // The reduce_sums that are dot's bias gradient, as bgradb would take them
  // (fusion.h), whatever reads them.
  std::vector<const Op*> bias_gradient_sums(const Op& dot) const {
    std::vector<const Op*> found;
    const std::optional<rt::blas::DotShape> d = shape_of(dot);
    const Value* a = dot.operands[0];
    if (!d || !d->trans_a || d->batch != 1 || a->type.rank() != 2) return found;
    // A gemm update keeps its dot (fusion.h).
    const std::vector<const Op*>& dot_users = uses(dot.result());
    if (dot_users.size() == 1 && dot_users[0]->code == OpCode::Add && match_gemm_update(f_, *dot_users[0]))
      return found;
    for (const Op* r : reduce_sums_of(through_reshapes(a)))
      if (sums_rows(*r, d->m) && num_elements(r->operands[0]->type.shape) == d->k * d->m &&
          r->result()->type.dtype == dot.result()->type.dtype)
        found.push_back(r);
    return found;
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

  // The casts of v to f32 of its shape (of a bf16 or f16 v).
  std::vector<const Op*> widenings(const Value* v) const {
    std::vector<const Op*> found;
    for (const Op* u : uses(v))
      if (u->code == OpCode::Cast && u->result()->type == TensorType{DType::f32, v->type.shape} &&
          std::find(found.begin(), found.end(), u) == found.end())
        found.push_back(u);
    return found;
  }
  // v's one reader, a cast of it to `t`, where v is not returned.
  const Op* only_cast(const Value* v, const TensorType& t) const {
    const std::vector<const Op*>& u = uses(v);
    if (u.size() != 1 || returned(v) || u[0]->code != OpCode::Cast || u[0]->result()->type != t) return nullptr;
    return u[0];
  }

  // What an activation epilogue reads: the dot's value, or its row bias
  // add's (the add's only reader of the dot), that add in *add.
  const Value* pre_activation(const Op& dot, const Op** add = nullptr) const {
    const Value* y = dot.result();
    const int64_t n = y->type.shape.back();
    if (const Op* a = only_user(y, OpCode::Add)) {
      const Value* bias = other_operand(*a, y);
      if (bias && bias != y && bias->type.dtype == y->type.dtype && bias->type.rank() >= 1 &&
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
      m.operand = other_operand(*add, dot.result());
      m.ops.push_back(add);
    }
    using E = rt::GemmEpilogue;
    if (std::optional<Activation> a = activation(y)) {
      m.ops.insert(m.ops.end(), a->ops.begin(), a->ops.end());
      m.product = a->product;
      if (a->relu) {
        m.epilogue = m.operand ? E::bias_relu : E::relu;
      } else {
        m.epilogue = m.operand ? (a->aux ? E::bias_gelu_aux : E::bias_gelu) : (a->aux ? E::gelu_aux : E::gelu);
        if (a->aux) m.extra = y->producer;
      }
    } else if (m.operand) {
      m.epilogue = E::bias;
    } else {
      return std::nullopt;
    }
    finish(m);
    return m;
  }

  // An activation epilogue's ops after y: relu, or the tanh GELU (whose y
  // may be read elsewhere: aux); the product is the last one's value.
  struct Activation {
    bool relu = false, aux = false;
    std::vector<const Op*> ops;
    const Op* product = nullptr;
  };

  // relu or the tanh GELU over y (f32), or over a cast of y to f32 whose
  // value is cast back to y's type (bf16, f16: autocast runs the composites
  // in f32 and rounds once), every intermediate read inside only.
  std::optional<Activation> activation(const Value* y) const {
    // Does a reader of v other than `inside` exist, or is v returned?
    auto read_elsewhere = [&](const Value* v, const std::vector<const Op*>& inside) {
      return returned(v) || std::any_of(uses(v).begin(), uses(v).end(), [&](const Op* u) {
               return std::find(inside.begin(), inside.end(), u) == inside.end();
             });
    };
    const bool half = is_half(y->type.dtype);
    const std::vector<const Op*> widen = half ? widenings(y) : std::vector<const Op*>{nullptr};
    for (const Op* w : widen) {
      const Value* x = w ? w->result() : y;
      Activation a;
      if (w) a.ops.push_back(w);
      const Op* max = only_user(x, OpCode::Max);
      std::vector<const Op*> gelu;
      if (max && max->operands[0] == x && max->operands[1] != x && is_f32_splat(max->operands[1], 0.0) &&
          !(w && read_elsewhere(y, {w}))) {
        a.relu = true;
        a.ops.push_back(max);
        a.ops.push_back(max->operands[1]->producer);
        a.product = max;
      } else if (match_gelu(x, gelu) && !(w && read_elsewhere(x, gelu))) {
        // y read elsewhere (by the backward): the GEMM stores it as the aux.
        a.aux = w ? read_elsewhere(y, {w}) : read_elsewhere(y, gelu);
        if (a.aux && !aux_fits(y)) continue;
        a.ops.insert(a.ops.end(), gelu.begin(), gelu.end());
        a.product = gelu.back();
      } else {
        continue;
      }
      if (w) {
        a.product = only_cast(a.product->result(), y->type);
        if (!a.product) continue;
        a.ops.push_back(a.product);
      }
      return a;
    }
    return std::nullopt;
  }

  // kGeluGradSteps bound to values: each step's, the leaves x and g, and the
  // constant ops read as the constant leaves.
  struct GeluGradMatch {
    std::array<const Value*, rt::kGeluGradSteps.size()> step{};
    const Value* x = nullptr;
    const Value* g = nullptr;
    std::vector<const Op*> constants;
  };

  // dot, then the tanh GELU's backward (rt::kGeluGradSteps) with the dot's
  // value as g and an x of its type (the aux), each step's value but the
  // last read only by the steps; dgelu_bgrad where a reduce_sum of the
  // result over its rows (the bias gradient) can join (fusion.h).
  std::optional<GemmEpilogueMatch> gelu_gradient(const Op& dot) const {
    const Value* product = dot.result();
    if (returned(product) || uses(product).empty() || !aux_fits(product)) return std::nullopt;
    // bf16, f16: the steps run in f32 between casts (autocast's composites).
    const bool half = is_half(product->type.dtype);
    const Op* widen = half ? only_cast(product, TensorType{DType::f32, product->type.shape}) : nullptr;
    if (half && !widen) return std::nullopt;
    const Value* g = half ? widen->result() : product;
    // The last step: an add that g reaches through elementwise ops of its type.
    std::vector<const Value*> reached = {g};
    std::unordered_set<const Value*> seen = {g};
    for (size_t i = 0; i < reached.size() && reached.size() <= 4 * rt::kGeluGradSteps.size(); ++i)
      for (const Op* u : uses(reached[i]))
        if (u->result() && u->result()->type == g->type && op_info(u->code).has(kElementwise) &&
            seen.insert(u->result()).second)
          reached.push_back(u->result());
    for (const Value* root : reached) {
      GeluGradMatch b;
      b.g = g;
      if (!match_step(rt::kGeluGradSteps.size() - 1, root, b) || !b.x || b.x == g || b.x->type != g->type) continue;
      GemmEpilogueMatch m;
      m.ops = {&dot};
      if (widen) m.ops.push_back(widen);
      for (const Value* v : b.step) m.ops.push_back(v->producer);
      m.ops.insert(m.ops.end(), b.constants.begin(), b.constants.end());
      // bf16, f16: x is the aux cast to f32, the result the last step's cast back.
      const Value* aux = b.x;
      const Op* narrow = half ? only_cast(root, product->type) : nullptr;
      if (half) {
        if (!b.x->producer || b.x->producer->code != OpCode::Cast || b.x->producer->operands[0]->type != product->type ||
            !narrow)
          continue;
        aux = b.x->producer->operands[0];
        if (aux == product) continue;
        m.ops.push_back(b.x->producer);
        m.ops.push_back(narrow);
      }
      const std::unordered_set<const Op*> inside(m.ops.begin(), m.ops.end());
      auto read_inside = [&](const Value* v) {
        return !returned(v) && std::all_of(uses(v).begin(), uses(v).end(), [&](const Op* u) { return inside.count(u); });
      };
      if (!read_inside(product) || !read_inside(g) || !std::all_of(b.step.begin(), b.step.end() - 1, read_inside) ||
          (half && (!read_inside(b.x) || !read_inside(root))))
        continue;
      const Value* result = half ? narrow->result() : root;
      m.epilogue = rt::GemmEpilogue::dgelu;
      m.operand = aux;
      m.product = result->producer;
      finish(m);
      for (const Op* r : reduce_sums_of(result)) {
        if (!sums_rows(*r, g->type.shape.back())) continue;
        GemmEpilogueMatch with = m;
        with.ops.push_back(r);
        with.epilogue = rt::GemmEpilogue::dgelu_bgrad;
        with.extra = r;
        finish(with);
        if (read_after(result, with) && read_after(r->result(), with)) return with;
      }
      if (read_after(result, m)) return m;
    }
    return std::nullopt;
  }

  // Binds step i (and through its operands the steps before it) to v, of g's type.
  bool match_step(size_t i, const Value* v, GeluGradMatch& b) const {
    if (b.step[i]) return b.step[i] == v;
    const rt::GeluGradStep& s = rt::kGeluGradSteps[i];
    const Op* op = v->producer;
    if (!op || op->code != s.code || v->type != b.g->type) return false;
    const GeluGradMatch before = b;
    for (int order = 0; order < (s.code == OpCode::Tanh || s.code == OpCode::Sub ? 1 : 2); ++order) {
      // add and mul either way round: IEEE's are commutative, so the numbers are the same.
      b.step[i] = v;
      if (match_operand(s.a, op->operands[order], b) &&
          (s.code == OpCode::Tanh || match_operand(s.b, op->operands[1 - order], b)))
        return true;
      b = before;
    }
    return false;
  }
  bool match_operand(int8_t id, const Value* v, GeluGradMatch& b) const {
    if (id >= 0) return match_step(static_cast<size_t>(id), v, b);
    if (id == rt::kGeluX || id == rt::kGeluG) {
      const Value*& leaf = id == rt::kGeluX ? b.x : b.g;
      if (leaf) return leaf == v;
      leaf = v;
      return true;
    }
    if (!is_f32_splat(v, rt::gelu_grad_constant(static_cast<rt::GeluGradLeaf>(id)))) return false;
    b.constants.push_back(v->producer);
    return true;
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
  std::optional<GemmEpilogueMatch> bias_gradient(const Op& dot) const {
    for (const Op* r : bias_gradient_sums(dot)) {
      GemmEpilogueMatch m;
      m.epilogue = rt::GemmEpilogue::bgradb;
      m.ops = {&dot, r};
      m.product = &dot;
      m.extra = r;
      finish(m);
      if (read_after(dot.result(), m) && read_after(r->result(), m)) return m;
    }
    return std::nullopt;
  }

  // A dot an epilogue may apply to: of an epilogue dtype, with elements and
  // terms, one product (batch 1, or batches folded into rows); its shape.
  static std::optional<rt::blas::DotShape> shape_of(const Op& dot) {
    if (dot.code != OpCode::Dot) return std::nullopt;
    const TensorType& t = dot.result()->type;
    if (!epilogue_dtype(t.dtype) || t.rank() < 2 || num_elements(t.shape) == 0) return std::nullopt;
    const rt::blas::DotShape d = rt::dot_shape(dot, dot.operands[0]->type.shape, dot.operands[1]->type.shape, t.shape);
    if (d.k == 0 || (d.batch > 1 && !(d.b_shared && !d.trans_a))) return std::nullopt;
    return d;
  }

  // Does reduce_sum r sum its operand over every dim but the last, of size
  // n, into n elements of its dtype?
  static bool sums_rows(const Op& r, int64_t n) {
    const Value* x = r.operands[0];
    std::vector<bool> reduced(static_cast<size_t>(x->type.rank()), false);
    for (int64_t k : r.attrs.get_ints("dims")) {
      const int64_t at = k < 0 ? k + x->type.rank() : k;
      if (at >= 0 && at < x->type.rank()) reduced[static_cast<size_t>(at)] = true;
    }
    const bool all_but_last = x->type.rank() >= 1 && !reduced.back() &&
                              std::count(reduced.begin(), reduced.end(), true) == x->type.rank() - 1;
    return all_but_last && x->type.shape.back() == n && num_elements(r.result()->type.shape) == n &&
           r.result()->type.dtype == x->type.dtype;
  }

  // The group runs where its last op is (m.ops in program order): does every
  // reader of v outside it run after that?
  bool read_after(const Value* v, const GemmEpilogueMatch& m) const {
    const size_t at = index_.at(m.ops.back());
    return std::all_of(uses(v).begin(), uses(v).end(), [&](const Op* u) {
      return index_.at(u) > at || std::find(m.ops.begin(), m.ops.end(), u) != m.ops.end();
    });
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
  const OpIndex& index_;
};

}  // namespace

namespace fusion_internal {

std::vector<GemmEpilogueMatch> choose_gemm_epilogues(const Function& f, const Users& users, const OpIndex& index) {
  std::vector<GemmEpilogueMatch> chosen;
  std::unordered_set<const Op*> claimed;
  const EpilogueMatcher matcher(f, users, index);
  for (const auto& op : f.ops) {
    if (op->code != OpCode::Dot || claimed.count(op.get())) continue;
    std::optional<GemmEpilogueMatch> m = matcher.match(*op);
    if (!m || std::any_of(m->ops.begin(), m->ops.end(), [&](const Op* o) { return claimed.count(o) > 0; })) continue;
    for (const Op* o : m->ops)
      if (o->code != OpCode::Constant) claimed.insert(o);
    chosen.push_back(std::move(*m));
  }
  return chosen;
}

}  // namespace fusion_internal

std::optional<GemmEpilogueMatch> match_gemm_epilogue(const Function& f, const Op& dot) {
  const Users users = users_of(f);
  const OpIndex index = op_index(f);
  return EpilogueMatcher(f, users, index).match(dot);
}

namespace {

// One chain's rewrite (see fusion.h): true if it rewrote one.
bool recompute_one_gelu(Function& f) {
  const OpIndex index = op_index(f);
  const Users users = users_of(f);
  const EpilogueMatcher matcher(f, users, index);
  auto uses = [&](const Value* v) -> std::vector<const Op*> {
    auto it = users.find(v);
    return it == users.end() ? std::vector<const Op*>{} : it->second;
  };
  for (const auto& op : f.ops) {
    if (op->code != OpCode::Dot || !epilogue_dtype(op->result()->type.dtype)) continue;
    const Value* y = matcher.pre_activation(*op);
    if (!aux_fits(y)) continue;
    // bf16, f16: the chain starts with y's cast to f32, which it copies too.
    std::vector<const Op*> chain;
    for (const Op* w : is_half(y->type.dtype) ? matcher.widenings(y) : std::vector<const Op*>{nullptr}) {
      if (!matcher.loose_gelu(w ? w->result() : y, chain)) continue;
      if (w) chain.insert(chain.begin(), w);
      break;
    }
    if (chain.empty()) continue;
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

// One deferral (see fusion.h): true if it moved ops.
bool defer_one_bias_gradient(Function& f) {
  const OpIndex index = op_index(f);
  const Users users = users_of(f);
  const EpilogueMatcher matcher(f, users, index);
  for (const auto& op : f.ops) {
    const Op* dot = op.get();
    for (const Op* r : matcher.bias_gradient_sums(*dot)) {
      const size_t from = index.at(r), to = index.at(dot);
      if (from > to) continue;
      // The ops between the sum and the dot that read it, or read those.
      std::unordered_set<const Op*> moving;
      auto reads = [](const Op* o, auto&& pred) { return std::any_of(o->operands.begin(), o->operands.end(), pred); };
      for (size_t i = from + 1; i < to; ++i)
        if (reads(f.ops[i].get(), [&](const Value* v) { return v == r->result() || moving.count(v->producer); }))
          moving.insert(f.ops[i].get());
      if (moving.empty()) continue;
      // Nothing else up to the dot (the dot included) reads them: after the
      // dot, in their order, they read what they read before.
      bool stays = true;
      for (size_t i = from + 1; i <= to && stays; ++i)
        stays = moving.count(f.ops[i].get()) || !reads(f.ops[i].get(), [&](const Value* v) { return moving.count(v->producer); });
      if (!stays) continue;
      std::stable_partition(f.ops.begin() + static_cast<std::ptrdiff_t>(from) + 1,
                            f.ops.begin() + static_cast<std::ptrdiff_t>(to) + 1,
                            [&](const std::unique_ptr<Op>& o) { return !moving.count(o.get()); });
      return true;
    }
  }
  return false;
}

}  // namespace

int recompute_gelu_for_epilogues(Function& f) {
  int n = 0;
  while (recompute_one_gelu(f)) ++n;
  return n;
}

int defer_bias_gradient_readers(Function& f) {
  int n = 0;
  while (defer_one_bias_gradient(f)) ++n;
  return n;
}

}  // namespace mlc
