// count_work (forward_work.h).
#include "frontends/forward_work.h"

#include <vector>

#include "frontends/forward_builtins.h"

namespace mlc {

namespace {

// Ops an expression node emits itself, at most.
int64_t own_ops(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::call: {
      if (!e.builtin) return 0;
      int64_t n = find_builtin(e.name, kFunction | kMethod | kAttribute | kQualified)->max_ops;
      if (e.name == "stack" && e.args[0] && e.args[0]->kind == Expr::Kind::list)
        n += static_cast<int64_t>(e.args[0]->args.size());  // a reshape per 0-d tensor
      return n;
    }
    case Expr::Kind::binary: return e.op == "@" ? 8 : 1;
    case Expr::Kind::subscript: return 2;  // slice, reshape
    case Expr::Kind::number:
    case Expr::Kind::negate: return 1;
    case Expr::Kind::name: return e.maybe_number ? 1 : 0;
    default: return 0;
  }
}

}  // namespace

// Iteratively: expressions are at most kMaxExprHeight deep, but this need not
// rely on it.
void count_work(const Expr& root, ForwardProgram& program) {
  std::vector<const Expr*> stack{&root};
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    if (e->kind == Expr::Kind::call && !e->builtin)
      ++program.calls[e->name];
    else
      program.ops += own_ops(*e);
    for (const auto& a : e->args)
      if (a) stack.push_back(a.get());
  }
}

}  // namespace mlc
