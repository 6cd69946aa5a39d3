// Kernel IR: what a loop group (compiler/fusion.h) computes, as a loop nest
// over the root's result with a scalar expression DAG per element.
//
// Contracts:
//  - The kernel writes every element of its outputs (params num_inputs and
//    on: root, then more_roots), of shape `domain`, row-major. Loop
//    variables 0..rank-1 index the domain; reductions introduce further
//    variables for their own loops.
//  - Index expressions are i64 (var, iconst, iadd, imul, idiv, irem, imin,
//    imax) and never overflow: they stay within the extents of the shapes
//    involved. Loads are in bounds: padding and concatenation clamp the
//    index and select the value, never read outside a buffer.
//  - Value expressions have the dtype of the IR value they compute; their
//    meaning is ir/scalar_math.h's (unary, binary), the op table's for the
//    rest. A reduce expression folds `a` over its variables
//    [var0, var0 + extents.size()) in row-major order, in the accumulator the
//    reference kernels use (double for float sums, i64 for integer sums).
//    A reduce with a mask `b` (a bool expression over the same variables)
//    folds only the elements where the mask is true; the others are neither
//    evaluated nor counted (a sum over none is 0, a max -inf, an argmax -1).
//    Argmax returns the row-major linear index over all its extents of the
//    first NaN, else of the first maximal element (an unmasked argmax has at
//    least one element: the IR rejects an empty one).
//  - fold (ir/ops.def) is an unrolled chain of f64 adds over its window taps
//    in row-major order, starting from 0: exactly the reference kernel's sum.
//  - A data-dependent index (gather's) is a checked_index: an integer value
//    `a` as an index expression, with the bound i (>= 1) it must lie below.
//    Where the value is outside [0, i) the kernel stops and returns
//    kIndexOutOfRange (its outputs are then unspecified); index_checks says
//    which op's indices the executor scans for the message. Every other index
//    expression is the affine-and-clamp arithmetic above.
//  - random is ir/random.h's uniform(a, b, seed i, stream f) as f32: a and b
//    are i64 values (the element's index and the step), f an integer in
//    [0, 2^32).
//  - Expressions are stored in topological order (operands first) and shared
//    where equal (hash-consed), except var and reduce. Index expressions are
//    simplified as they are built (constants folded; a reshape's split of a
//    linear index into digits and their re-joining cancel), which can leave
//    expressions nothing reads; code generation emits only what `root`
//    depends on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/fusion.h"
#include "runtime/executable.h"
#include "ir/expected.h"
#include "ir/scalar_math.h"

namespace mlc::kir {

enum class ExprKind : uint8_t {
  var, iconst, iadd, imul, idiv, irem, imin, imax,  // i64 index math
  ilt,                                              // bool: a < b (indices)
  constant,                                         // value, dtype
  load,                                             // param `param` at linear index a
  unary, binary,                                    // ir/scalar_math.h op `op`
  cmp,                                              // bool: a `dir` b
  select,                                           // a ? b : c
  cast,                                             // a converted to dtype
  index_value,                                      // an index expression a as dtype (iota)
  reduce,                                           // op: ReduceSum/Max/Min/Argmax of a, where b (mask) if b >= 0
  checked_index,                                    // i64 index: integer value a, which must lie in [0, i)
  random,                                           // f32: ir/random.h uniform(a, b, seed i, stream f)
};

// What a kernel's entry point returns (rt::CompiledKernelFn): 0, or this
// where a checked_index found its value outside its bound.
inline constexpr int kIndexOutOfRange = 1;

struct Expr {
  ExprKind kind = ExprKind::iconst;
  DType dtype = DType::i64;
  OpCode op = OpCode::Add;
  scalar::CmpDir dir = scalar::CmpDir::eq;
  int a = -1, b = -1, c = -1;
  int64_t i = 0;   // iconst value, var id, load param, integer constant
  double f = 0;    // float constant
  int var0 = 0;    // reduce: first variable
  std::vector<int64_t> extents;  // reduce: loop extents
};

struct Kernel {
  std::string name;
  std::vector<Expr> exprs;
  std::vector<int64_t> domain;
  int root = -1;                 // the value stored at each domain element
  std::vector<int> more_roots;   // further outputs' values, stored at the same element
  std::vector<DType> params;     // inputs, then the outputs (root first)
  int num_outputs() const { return 1 + static_cast<int>(more_roots.size()); }
  int num_inputs() const { return static_cast<int>(params.size()) - num_outputs(); }
  int num_vars = 0;
  // Inputs every load of which reads the element at the output's own index:
  // the output may be written into such an input's buffer.
  std::vector<bool> elementwise_input;
  std::string origin;  // the ops it computes, with their locations
  // Set by lowering: the input whose buffer the output is written into (an
  // elementwise input, see above), or -1; more_alias: the same for each of
  // more_roots. Code generation may assume no other pair of buffers overlaps.
  int output_alias = -1;
  std::vector<int> more_alias;
  // A scatter_add kernel (scatter.value >= 0): once the domain rows [begin,
  // end) of the output hold the root's value (scatter_add's operand), every
  // element of scatter.domain, in row-major order, whose target row
  // scatter.row (an index expression: the output's row, the domain without
  // its last dim) lies in [begin, end) adds scatter.value to the output's
  // element scatter.at (the linear index), in the output's dtype (integers
  // wrap): each output element gets its terms in the reference kernel's
  // order, whichever thread runs its row. Variables [scatter.var0,
  // scatter.var0 + scatter.domain.size()) index scatter.domain; the three
  // expressions depend on those only and hold no reduction.
  struct Scatter {
    std::vector<int64_t> domain;
    int var0 = 0;
    int value = -1, row = -1, at = -1;
  };
  Scatter scatter;
  bool scatters() const { return scatter.value >= 0; }
  // Per op whose indices a checked_index reads (program order): the input
  // holding them, whole (fusion never computes indices inside the kernel),
  // and what the reference kernel's error says. Not part of the code.
  std::vector<rt::IndexCheck> index_checks;
};

// Builds the kernel of a loop group; `inputs` are the values it reads (its
// params, in order; computed here, returned through it).
Expected<Kernel> build_kernel(const FusionGroup& group, std::string name, std::vector<const Value*>& inputs);

// Everything that determines a kernel's code (all but its name and origin),
// as bytes: equal signatures compile to the same machine code.
std::string signature(const Kernel& k);

// "mlc_kernel_" and the 16 lowercase hex digits of FNV-1a 64 of signature(k):
// the symbol of the kernel's object on every target (compiler/cpu/llvm_jit.h,
// compiler/gpu/gpu_compile.h).
std::string kernel_symbol(const Kernel& k);

// Calls `visit` (with its id) once for each expression `roots` depend on
// (the roots included; negative ids are none), in no particular order.
void for_each_reachable(const Kernel& k, std::vector<int> roots, const std::function<void(int id, const Expr&)>& visit);

// Text of a kernel, for dumps and tests.
std::string print_kernel(const Kernel& k);

// An expression kind's name ("var", "iadd", "load", ...), as print_kernel and
// compiler/kernel_ir_json.h write it.
std::string_view kind_name(ExprKind k);
inline constexpr ExprKind kLastExprKind = ExprKind::random;

}  // namespace mlc::kir
