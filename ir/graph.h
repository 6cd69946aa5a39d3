// The in-memory IR: SSA values, ops, functions and modules.
//
// Contracts:
//  - Every Value has a static TensorType. A value is either a function argument
//    (producer == nullptr) or result `result_index` of one Op. Most ops have
//    one result; an op like split has several (printed `%a, %b = split(...)`).
//  - Function::ops is in program order: every operand is defined before use.
//    Passes keep this order (they rebuild the list rather than reorder it).
//  - A Function owns its Values and Ops; pointers stay valid until the Function
//    is destroyed or `erase_dead_values()` runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/mesh.h"
#include "ir/op_code.h"
#include "ir/types.h"

namespace mlc {

// A position in a source file (a model file or a textual IR file).
// line/col are 1-based; line == 0 means "unknown".
struct Loc {
  std::string file;
  int line = 0;
  int col = 0;
  bool known() const { return line > 0; }
  std::string str() const;  // "file:line:col", or "" when unknown
  friend bool operator==(const Loc&, const Loc&) = default;
};

class Function;
class Op;

struct Value {
  TensorType type;
  std::string name;        // arguments only: their (PyTorch state_dict) name
  Op* producer = nullptr;  // nullptr for function arguments
  int result_index = 0;    // which of producer's results this is
  // A sharded program's values: one placement per axis of the module's mesh
  // (ir/mesh.h); the type is then the local (per-device) type. Empty in an
  // unsharded program.
  Placements placements;
};

// What a function argument is, printed after its type: `{input}` (data),
// `{param}` (trainable parameter), `{frozen}` (parameter that gets no
// gradient), `{state}` (optimizer state), `{step}` (the optimizer's step
// counter: i64[], at most one per function; the runtime binds it by this kind,
// whatever its name), `{buffer}` (a module buffer such as BatchNorm's
// running_mean: saved with the parameters, never differentiated nor given
// optimizer state, but updated by the train step's results).
enum class ArgKind : uint8_t { input, param, frozen, state, step, buffer };
inline constexpr ArgKind kAllArgKinds[] = {ArgKind::input, ArgKind::param, ArgKind::frozen,
                                           ArgKind::state, ArgKind::step, ArgKind::buffer};
std::string_view arg_kind_name(ArgKind k);

// What an op carries besides its schema attributes: facts about where it
// comes from and, in later stages, what became of it (fusion group,
// collective-ledger entry). Printed `meta {scope = "layers.0.attn"}` after the
// type; never part of an op's identity (CSE ignores it).
struct OpMeta {
  // The module path of the layer or container it was emitted for, in
  // state_dict form ("layers.0.attn"; "" for the loss and the optimizer).
  std::string scope;
  // A collective the sharding pass inserted: the id of the ledger entry that
  // says why (passes/sharding.h LedgerEntry::id); -1 otherwise.
  int ledger = -1;

  bool empty() const { return scope.empty() && ledger < 0; }
  friend bool operator==(const OpMeta&, const OpMeta&) = default;
};
// "" if `scope` is a valid scope (names of [A-Za-z0-9_] joined by '.'), else why not.
std::string check_scope(std::string_view scope);

class Op {
 public:
  OpCode code;
  std::vector<Value*> operands;
  // At least one; results[k]->producer == this and results[k]->result_index == k.
  std::vector<Value*> results;
  Attrs attrs;
  Loc loc;  // where in the model file this op comes from (may be unknown)
  OpMeta meta;
  // A fusion op's body (ir/ops.def `fusion`): a function of the op's operands
  // (its arguments, all {input}, typed like the operands) whose results are
  // the op's results. Isolated: the body uses only its own arguments and ops,
  // and holds no fusion op. Immutable once built, so copies of the op share it.
  // Null for every other op.
  std::shared_ptr<const Function> body;

  // The result of a single-result op (every op but the multi-result ones, such
  // as split); for those, the first result.
  Value* result() const { return results.empty() ? nullptr : results.front(); }
  size_t num_results() const { return results.size(); }
};

// Argument names: PyTorch state_dict names and input names ("fc1.weight",
// "layers.0.attn.wq.weight", "0.weight" for a top-level repeat), made of
// [A-Za-z0-9_.] and not only digits, so that no name collides with the
// numbered op results "%0", "%1", ... of the textual form.
inline constexpr std::string_view kArgNameRule = "[A-Za-z0-9_.]+, not only digits";
bool is_arg_name(std::string_view s);

class Function {
 public:
  explicit Function(std::string name) : name(std::move(name)) {}
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  std::string name;
  std::vector<Value*> args;
  std::vector<ArgKind> arg_kinds;
  std::vector<std::unique_ptr<Op>> ops;  // program order
  std::vector<Value*> results;
  // The calling convention of results that replace an argument: the train
  // step's updated parameters, optimizer state and buffers. result_updates[k] is the
  // index of the {param}/{state}/{buffer} argument that result k is the new value of
  // (same type; the runtime may write it in place, donating the argument's
  // buffer), or -1 for a fresh result. Empty means all -1. Printed as
  // `-> (f32[], f32[128,64] {updates = %fc1.weight})`.
  std::vector<int> result_updates;

  // The argument result k updates, or -1.
  int updated_arg(size_t k) const { return k < result_updates.size() ? result_updates[k] : -1; }

  Value* add_arg(std::string arg_name, TensorType type, ArgKind kind);
  // Creates an op and its result values (one per type) WITHOUT checking
  // anything; use Builder (ir/builder.h) to create verified ops. Inserted
  // before ops[position] (appended when position == ops.size()).
  Op* insert_op(size_t position, OpCode code, std::vector<Value*> operands, Attrs attrs,
                std::vector<TensorType> result_types, Loc loc);
  Op* insert_op(size_t position, OpCode code, std::vector<Value*> operands, Attrs attrs,
                TensorType result_type, Loc loc) {
    return insert_op(position, code, std::move(operands), std::move(attrs),
                     std::vector<TensorType>{std::move(result_type)}, std::move(loc));
  }
  // Replaces every use of `from` (operands and results) by `to`.
  void replace_all_uses(Value* from, Value* to);
  // Frees the values no longer reachable from args or ops (after passes erase ops).
  void erase_dead_values();
  // Deep copy.
  std::unique_ptr<Function> clone() const;

 private:
  std::vector<std::unique_ptr<Value>> values_;
};

// Module attributes, printed `module @m attributes {target = "cpu"} {`. Each
// name has one kind and meaning (kModuleAttrs); the verifier rejects others.
//   target: "cpu" or "cuda", the device the module is compiled for.
//   mesh:   "dp=2,tp=2", the device mesh of a sharded (SPMD) module: its
//           values carry placements over these axes (ir/mesh.h).
struct ModuleAttrSpec {
  std::string_view name;
  AttrKind kind;
  std::vector<std::string_view> choices;  // for strings: the allowed values ({} = any)
};
const std::vector<ModuleAttrSpec>& module_attr_specs();
// "" if `a` is a valid module attribute, else what is wrong with it.
std::string check_module_attr(const NamedAttr& a);

class Module {
 public:
  std::string name;
  Attrs attrs;  // module attributes (above), in the order given
  std::vector<std::unique_ptr<Function>> functions;

  Function* find(std::string_view func_name) const;
  Function& add_function(std::string func_name);
  // The `mesh` attribute, parsed; the empty mesh when there is none (the
  // verifier guarantees it parses).
  Mesh mesh() const;
  void set_mesh(const Mesh& mesh);
};

}  // namespace mlc
