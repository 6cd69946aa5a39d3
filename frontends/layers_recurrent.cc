// Recurrent layers with PyTorch 1.13's semantics, parameters and init:
// RNN (tanh or relu), LSTM and GRU over a sequence, and RNNCell, LSTMCell and
// GRUCell for one step (docs/model-format.md, "Recurrent layers").
//
// Contracts:
//  - Parameters, in registration order: per layer l and direction (the second
//    suffixed "_reverse"), weight_ih_l{l} [G*H, in], weight_hh_l{l} [G*H, H],
//    bias_ih_l{l} [G*H], bias_hh_l{l} [G*H] (a cell: weight_ih, weight_hh,
//    bias_ih, bias_hh), G = 1 (RNN), 4 (LSTM: gates i, f, g, o), 3 (GRU:
//    r, z, n); every one U(-1/sqrt(H), 1/sqrt(H)), as reset_parameters.
//  - One step is PyTorch's CPU cell: gates = (h W_hh^T + b_hh) + (x W_ih^T +
//    b_ih); RNN h' = tanh|relu(gates); LSTM c' = f*c + i*g, h' = o*tanh(c');
//    GRU r, z = sigmoid of their gates, n = tanh(x_n + r*(h W_hn^T + b_hn)),
//    h' = (h - n)*z + n. The input projection of a whole layer is one dot;
//    the steps are unrolled (the sequence length is static, at most kMaxSteps).
//  - Sequence layers take x [T, B, in] ([B, T, in] with batch_first, [T, in]
//    unbatched) and optionally the initial state h_0 [L*D, B, H] ([L*D, H]
//    unbatched; never batch-first), for LSTM the tuple (h_0, c_0); an absent
//    state is zeros. The call returns (output, h_n) or (output, (h_n, c_n)),
//    output [T, B, D*H] (batch_first: [B, T, D*H]). Between layers, in
//    training mode only, dropout as the Dropout layer's (a stream per layer).
//  - Cells take x [B, in] or [in] and optionally h ([B, H] or [H]; LSTMCell
//    the tuple (h, c)) and return h' (LSTMCell: (h', c')).
//  - A forward calls them through Layer::call_spec as PyTorch's forward(input,
//    hx=None) (hx None is absent); the tuples are lists of Vals. A Sequential
//    container's call (Layer::apply) gives the first item: the output, or h'.
#include <cmath>

#include "frontends/emit_util.h"
#include "frontends/forward_builtins.h"
#include "frontends/layers.h"

namespace mlc {

namespace {

constexpr int64_t kMaxSteps = 512;  // unrolled steps of one sequence layer call

enum class Mode { rnn_tanh, rnn_relu, lstm, gru };

// forward(input, hx=None) of every recurrent layer and cell.
const BuiltinSpec& recurrent_spec() {
  static const BuiltinSpec spec{"recurrent", kFunction, {"input", "hx"}, 1};
  return spec;
}

Val tuple_of(std::vector<Val> items, const Loc& at) {
  Val v = Val::of(Val::Kind::list, at);
  v.items = std::move(items);
  return v;
}

int64_t gate_count(Mode m) { return m == Mode::lstm ? 4 : m == Mode::gru ? 3 : 1; }

// Bounds on the ops of one step and of one (layer, direction) outside the steps.
int64_t step_ops(Mode m) { return m == Mode::lstm ? 16 : m == Mode::gru ? 17 : 6; }
constexpr int64_t kDirectionOps = 16;

struct State {
  Value* h = nullptr;  // [B, H]
  Value* c = nullptr;  // [B, H], LSTM only
};

Expected<Value*> zeros(Builder& b, const Shape& shape, DType dtype) {
  MLC_TRY(Value* zero, emit_scalar(b, 0, dtype));
  return b.try_create(OpCode::Broadcast, {zero}, {{"dims", std::vector<int64_t>{}}}, TensorType{dtype, shape});
}

// The rows [k*H, (k+1)*H) of x [B, G*H] along dim 1, for every k.
Expected<std::vector<Value*>> split_gates(Builder& b, Value* x, int64_t gates, int64_t hidden) {
  if (gates == 1) return std::vector<Value*>{x};
  return b.try_create_results(OpCode::Split, {x},
                              {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>(gates, hidden)}});
}

// Shared by the sequence layers and the cells: the mode, sizes and parameters.
class RecurrentBase : public Layer {
 public:
  Mode mode = Mode::lstm;
  int64_t input_size = 0, hidden = 0;
  bool bias = true;

 protected:
  void add_params(std::vector<ParamDecl>& p, const std::string& suffix, int64_t in) const {
    ParamInit init = uniform_fan_in(static_cast<double>(hidden));  // U(+-1/sqrt(H))
    const int64_t g = gate_count(mode) * hidden;
    p.push_back({"weight_ih" + suffix, {g, in}, init});
    p.push_back({"weight_hh" + suffix, {g, hidden}, init});
    if (bias) {
      p.push_back({"bias_ih" + suffix, {g}, init});
      p.push_back({"bias_hh" + suffix, {g}, init});
    }
  }

  // x [N, in] W_ih^T (+ b_ih): [N, G*H].
  Expected<Value*> project_input(LayerContext& ctx, Value* x, const std::string& suffix) const {
    MLC_TRY(Value* y, emit_op(ctx.b, OpCode::Dot, {x, ctx.param("weight_ih" + suffix)}, {{"transpose_b", true}}));
    if (!bias) return y;
    return emit_op(ctx.b, OpCode::Add, {y, ctx.param("bias_ih" + suffix)});
  }

  // One step from the projected input xp [B, G*H] and the state s.
  Expected<State> step(LayerContext& ctx, Value* xp, const State& s, const std::string& suffix) const {
    Builder& b = ctx.b;
    auto op = [&](OpCode code, std::vector<Value*> args) { return emit_op(b, code, std::move(args)); };
    MLC_TRY(Value* hp, emit_op(b, OpCode::Dot, {s.h, ctx.param("weight_hh" + suffix)}, {{"transpose_b", true}}));
    if (bias) {
      MLC_TRY(hp, op(OpCode::Add, {hp, ctx.param("bias_hh" + suffix)}));
    }
    const int64_t g = gate_count(mode);
    if (mode == Mode::gru) {
      MLC_TRY(auto ig, split_gates(b, xp, g, hidden));
      MLC_TRY(auto hg, split_gates(b, hp, g, hidden));
      MLC_TRY(Value* r, op(OpCode::Add, {hg[0], ig[0]}));
      MLC_TRY(r, op(OpCode::Sigmoid, {r}));
      MLC_TRY(Value* z, op(OpCode::Add, {hg[1], ig[1]}));
      MLC_TRY(z, op(OpCode::Sigmoid, {z}));
      MLC_TRY(Value* n, op(OpCode::Mul, {hg[2], r}));
      MLC_TRY(n, op(OpCode::Add, {ig[2], n}));
      MLC_TRY(n, op(OpCode::Tanh, {n}));
      MLC_TRY(Value* h, op(OpCode::Sub, {s.h, n}));
      MLC_TRY(h, op(OpCode::Mul, {h, z}));
      MLC_TRY(h, op(OpCode::Add, {h, n}));
      return State{h, nullptr};
    }
    MLC_TRY(Value* gates, op(OpCode::Add, {hp, xp}));
    if (mode != Mode::lstm) {
      MLC_TRY(Value* h, op(mode == Mode::rnn_relu ? OpCode::Relu : OpCode::Tanh, {gates}));
      return State{h, nullptr};
    }
    MLC_TRY(auto q, split_gates(b, gates, g, hidden));
    MLC_TRY(Value* i, op(OpCode::Sigmoid, {q[0]}));
    MLC_TRY(Value* f, op(OpCode::Sigmoid, {q[1]}));
    MLC_TRY(Value* cell, op(OpCode::Tanh, {q[2]}));
    MLC_TRY(Value* o, op(OpCode::Sigmoid, {q[3]}));
    MLC_TRY(Value* c, op(OpCode::Mul, {f, s.c}));
    MLC_TRY(Value* ig, op(OpCode::Mul, {i, cell}));
    MLC_TRY(c, op(OpCode::Add, {c, ig}));
    MLC_TRY(Value* tc, op(OpCode::Tanh, {c}));
    MLC_TRY(Value* h, op(OpCode::Mul, {o, tc}));
    return State{h, c};
  }

  // The state argument: a tensor of `shape`, or for LSTM a tuple of two.
  Expected<std::vector<Value*>> state_arg(LayerContext& ctx, const Val& arg, const Shape& shape,
                                          const char* names) const {
    const size_t n = mode == Mode::lstm ? 2 : 1;
    const bool tuple = arg.kind == Val::Kind::list;
    std::vector<Val> parts = n == 1 ? std::vector<Val>{arg} : arg.items;
    if (n == 2 && (!tuple || parts.size() != 2))
      return error(ctx, std::string("expected the state as a tuple ") + names + ", found " +
                            (tuple ? "a tuple of " + std::to_string(parts.size())
                                   : arg.is_tensor() ? "a tensor" : arg.describe()));
    std::vector<Value*> out;
    for (const Val& p : parts) {
      if (!p.is_tensor())
        return error(ctx, std::string("expected the state ") + names + " of tensors, found " +
                              (p.kind == Val::Kind::list ? "a tuple" : p.describe()));
      if (p.v->type != TensorType{ctx.float_dtype, shape})
        return error(ctx, std::string("expected the state ") + names + " of " + std::string(dtype_name(ctx.float_dtype)) +
                              shape_to_string(shape) +
                              ", found " + p.v->type.str());
      out.push_back(p.v);
    }
    return out;
  }

  // The forward's call: the input and hx (absent or None: zeros).
  const BuiltinSpec* call_spec() const override { return &recurrent_spec(); }
  Expected<Val> apply_call(LayerContext& ctx, const std::vector<Val>& args, const Loc& at) const override {
    if (!args[0].is_tensor())
      return error(ctx, "expected the input as a tensor, found " +
                            (args[0].kind == Val::Kind::list ? std::string("a tuple") : args[0].describe()));
    const Val& hx = args[1];
    const bool given = hx.kind != Val::Kind::absent && hx.kind != Val::Kind::none;
    return run(ctx, args[0].v, given ? &hx : nullptr, at);
  }
  // A Sequential container's call: the first item of the result.
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_TRY(Val y, run(ctx, x, nullptr, loc()));
    return y.is_tensor() ? y.v : y.items[0].v;
  }
  virtual Expected<Val> run(LayerContext& ctx, Value* x, const Val* hx, const Loc& at) const = 0;

  Status check_input(LayerContext& ctx, Value* x, int64_t batched_rank) const {
    MLC_CHECK_OK(require_float(ctx, x, true));
    const int64_t rank = x->type.rank();
    if (rank != batched_rank && rank != batched_rank - 1)
      return error(ctx, "expected an input of rank " + std::to_string(batched_rank - 1) + " or " +
                            std::to_string(batched_rank) + ", found " + x->type.str());
    if (x->type.shape.back() != input_size)
      return error(ctx, "input has " + std::to_string(x->type.shape.back()) + " features but input_size is " +
                            std::to_string(input_size));
    return {};
  }
};

class RecurrentCell : public RecurrentBase {
 public:
  int64_t max_ops() const override { return 12 + step_ops(mode); }
  std::vector<ParamDecl> params() const override {
    std::vector<ParamDecl> p;
    add_params(p, "", input_size);
    return p;
  }
  Expected<Val> run(LayerContext& ctx, Value* x, const Val* hx, const Loc& at) const override {
    MLC_CHECK_OK(check_input(ctx, x, 2));
    const bool batched = x->type.rank() == 2;
    const int64_t batch = batched ? x->type.shape[0] : 1;
    const Shape state_shape = batched ? Shape{batch, hidden} : Shape{hidden};
    Builder& b = ctx.b;
    MLC_TRY(x, emit_reshape(b, x, {batch, input_size}));
    State s;
    if (hx) {
      MLC_TRY(auto st, state_arg(ctx, *hx, state_shape, mode == Mode::lstm ? "(h, c)" : "h"));
      MLC_TRY(s.h, emit_reshape(b, st[0], {batch, hidden}));
      if (mode == Mode::lstm) {
        MLC_TRY(s.c, emit_reshape(b, st[1], {batch, hidden}));
      }
    } else {
      MLC_TRY(s.h, zeros(b, {batch, hidden}, ctx.float_dtype));
      s.c = s.h;
    }
    MLC_TRY(Value* xp, project_input(ctx, x, ""));
    MLC_TRY(State next, step(ctx, xp, s, ""));
    MLC_TRY(Value* h, emit_reshape(b, next.h, state_shape));
    if (mode != Mode::lstm) return Val::tensor(h, at);
    MLC_TRY(Value* c, emit_reshape(b, next.c, state_shape));
    return tuple_of({Val::tensor(h, at), Val::tensor(c, at)}, at);
  }
};

class RecurrentLayer : public RecurrentBase {
 public:
  int64_t num_layers = 1;
  bool batch_first = false, bidirectional = false;
  double dropout = 0;

  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t max_ops() const override {
    return 16 + num_layers * (10 + directions() * (kDirectionOps + kMaxSteps * step_ops(mode)));
  }
  std::vector<ParamDecl> params() const override {
    std::vector<ParamDecl> p;
    for (int64_t l = 0; l < num_layers; ++l)
      for (int64_t d = 0; d < directions(); ++d)
        add_params(p, suffix(l, d), l == 0 ? input_size : hidden * directions());
    return p;
  }

  Expected<Val> run(LayerContext& ctx, Value* x, const Val* hx, const Loc& at) const override {
    MLC_CHECK_OK(check_input(ctx, x, 3));
    Builder& b = ctx.b;
    const bool batched = x->type.rank() == 3;
    const Shape in_shape = x->type.shape;
    const int64_t steps = x->type.shape[batched && batch_first ? 1 : 0];
    const int64_t batch = batched ? x->type.shape[batch_first ? 0 : 1] : 1;
    if (steps > kMaxSteps)
      return error(ctx, "the sequence has " + std::to_string(steps) + " steps; at most " +
                            std::to_string(kMaxSteps) + " are unrolled (split it, or use a cell in a forward)");
    const int64_t slots = num_layers * directions();
    const Shape state_shape = batched ? Shape{slots, batch, hidden} : Shape{slots, hidden};
    std::vector<Value*> given;  // h_0 (and c_0), [L*D, B, H]
    if (hx) {
      MLC_TRY(given, state_arg(ctx, *hx, state_shape, mode == Mode::lstm ? "(h_0, c_0)" : "h_0"));
      for (Value*& v : given) {
        MLC_TRY(v, emit_reshape(b, v, {slots, batch, hidden}));
      }
    }
    if (batch_first && batched) {
      MLC_TRY(x, emit_transpose(b, x, {1, 0, 2}));
    }
    MLC_TRY(Value* seq, emit_reshape(b, x, {steps, batch, input_size}));  // [T, B, in]
    std::vector<Value*> h_n, c_n;
    for (int64_t l = 0; l < num_layers; ++l) {
      std::vector<Value*> outs;
      for (int64_t d = 0; d < directions(); ++d) {
        const int64_t slot = l * directions() + d;
        State s;
        if (!given.empty()) {
          MLC_TRY(s.h, state_slot(b, given[0], slot));
          if (mode == Mode::lstm) {
            MLC_TRY(s.c, state_slot(b, given[1], slot));
          }
        } else {
          MLC_TRY(s.h, zeros(b, {batch, hidden}, ctx.float_dtype));
          s.c = s.h;
        }
        MLC_TRY(Value* out, run_direction(ctx, seq, s, l, d));
        outs.push_back(out);
        h_n.push_back(s.h);
        c_n.push_back(s.c);
      }
      MLC_TRY(seq, outs.size() == 1 ? Expected<Value*>(outs[0]) : emit_op(b, OpCode::Concat, outs, {{"axis", int64_t{2}}}));
      if (l + 1 < num_layers) {  // emit_dropout: x itself in evaluation or for p = 0
        MLC_TRY(seq, emit_dropout(ctx, seq, dropout, ctx.stream ^ static_cast<uint32_t>(0x9e3779b9u * (l + 1))));
      }
    }
    Value* output = seq;  // [T, B, D*H]
    if (batch_first && batched) {
      MLC_TRY(output, emit_transpose(b, output, {1, 0, 2}));
    }
    const int64_t width = hidden * directions();
    MLC_TRY(output, emit_reshape(b, output, batched ? Shape{in_shape[0], in_shape[1], width} : Shape{steps, width}));
    MLC_TRY(Value* h, stack_state(b, h_n, state_shape));
    if (mode != Mode::lstm) return tuple_of({Val::tensor(output, at), Val::tensor(h, at)}, at);
    MLC_TRY(Value* c, stack_state(b, c_n, state_shape));
    return tuple_of({Val::tensor(output, at), tuple_of({Val::tensor(h, at), Val::tensor(c, at)}, at)}, at);
  }

 private:
  static std::string suffix(int64_t layer, int64_t direction) {
    return "_l" + std::to_string(layer) + (direction ? "_reverse" : "");
  }

  // Slot k of a state [L*D, B, H] as [B, H].
  static Expected<Value*> state_slot(Builder& b, Value* state, int64_t k) {
    const Shape& s = state->type.shape;
    MLC_TRY(Value* y, emit_op(b, OpCode::Slice, {state},
                              {{"start", std::vector<int64_t>{k, 0, 0}},
                               {"limit", std::vector<int64_t>{k + 1, s[1], s[2]}},
                               {"stride", std::vector<int64_t>{1, 1, 1}}}));
    return emit_reshape(b, y, {s[1], s[2]});
  }

  // The final states [B, H] of every (layer, direction) as `shape`.
  static Expected<Value*> stack_state(Builder& b, const std::vector<Value*>& states, const Shape& shape) {
    std::vector<Value*> rows;
    for (Value* v : states) {
      MLC_TRY(Value* r, emit_reshape(b, v, {1, v->type.shape[0], v->type.shape[1]}));
      rows.push_back(r);
    }
    MLC_TRY(Value* y, rows.size() == 1 ? Expected<Value*>(rows[0]) : emit_op(b, OpCode::Concat, rows, {{"axis", int64_t{0}}}));
    return emit_reshape(b, y, shape);
  }

  // Layer l, direction d over seq [T, B, in]: the outputs [T, B, H] in time
  // order; `s` becomes the final state.
  Expected<Value*> run_direction(LayerContext& ctx, Value* seq, State& s, int64_t l, int64_t d) const {
    Builder& b = ctx.b;
    const Shape& shape = seq->type.shape;
    const int64_t steps = shape[0], batch = shape[1], g = gate_count(mode) * hidden;
    const std::string sfx = suffix(l, d);
    MLC_TRY(Value* flat, emit_reshape(b, seq, {steps * batch, shape[2]}));
    MLC_TRY(Value* proj, project_input(ctx, flat, sfx));
    MLC_TRY(proj, emit_reshape(b, proj, {steps, batch, g}));
    std::vector<Value*> per_step{proj};
    if (steps > 1) {
      MLC_TRY(per_step, b.try_create_results(OpCode::Split, {proj},
                                             {{"axis", int64_t{0}}, {"sizes", std::vector<int64_t>(steps, 1)}}));
    }
    std::vector<Value*> outs(steps);
    for (int64_t k = 0; k < steps; ++k) {
      const int64_t t = d == 0 ? k : steps - 1 - k;
      MLC_TRY(Value* xp, emit_reshape(b, per_step[t], {batch, g}));
      MLC_TRY(s, step(ctx, xp, s, sfx));
      MLC_TRY(outs[t], emit_reshape(b, s.h, {1, batch, hidden}));
    }
    if (steps == 1) return outs[0];
    return emit_op(b, OpCode::Concat, outs, {{"axis", int64_t{0}}});
  }
};

Expected<Mode> rnn_mode(const Fields& f) {
  auto nl = f.choice("nonlinearity", "tanh", {"tanh", "relu"});
  if (!nl) return nl.take_error();
  return *nl == "tanh" ? Mode::rnn_tanh : Mode::rnn_relu;
}

// `allowed` fields of `type` (RNN's and RNNCell's also nonlinearity), the mode
// and the fields every recurrent layer has.
Status parse_common(const Fields& f, const std::string& type, std::vector<std::string> allowed, RecurrentBase& l) {
  const bool rnn = type == "RNN" || type == "RNNCell";
  if (rnn) allowed.push_back("nonlinearity");
  MLC_CHECK_OK(f.allow(with_common_fields(allowed)));
  l.mode = type.rfind("LSTM", 0) == 0 ? Mode::lstm : Mode::gru;
  if (rnn) {
    MLC_TRY(l.mode, rnn_mode(f));
  }
  MLC_TRY(l.input_size, f.positive("input_size"));
  MLC_TRY(l.hidden, f.positive("hidden_size"));
  MLC_TRY(l.bias, f.boolean("bias", true));
  return {};
}

Expected<std::unique_ptr<Layer>> parse_sequence_layer(const Fields& f, const std::string& type) {
  auto l = std::make_unique<RecurrentLayer>();
  MLC_CHECK_OK(parse_common(f, type, {"input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional"}, *l));
  MLC_TRY(l->num_layers, f.positive("num_layers", 1));
  if (l->num_layers > 64) return f.doc().error(*f.get("num_layers"), "'num_layers': at most 64");
  MLC_TRY(l->batch_first, f.boolean("batch_first", false));
  MLC_TRY(l->bidirectional, f.boolean("bidirectional", false));
  MLC_TRY(l->dropout, f.number("dropout", 0));
  if (l->dropout < 0 || l->dropout > 1)
    return f.doc().error(*f.get("dropout"), "'dropout': must be in [0, 1]");
  if (l->dropout == 1 && l->num_layers > 1)
    return f.doc().error(*f.get("dropout"), "'dropout': 1 drops everything between layers; must be below 1");
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_cell(const Fields& f, const std::string& type) {
  auto l = std::make_unique<RecurrentCell>();
  MLC_CHECK_OK(parse_common(f, type, {"input_size", "hidden_size", "bias"}, *l));
  return std::unique_ptr<Layer>(std::move(l));
}

}  // namespace

Expected<std::unique_ptr<Layer>> parse_recurrent_layer(const Fields& f, const std::string& type) {
  if (type == "RNN" || type == "LSTM" || type == "GRU") return parse_sequence_layer(f, type);
  if (type == "RNNCell" || type == "LSTMCell" || type == "GRUCell") return parse_cell(f, type);
  return std::unique_ptr<Layer>();
}

}  // namespace mlc
