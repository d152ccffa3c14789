// DSL expressions of one tile to UB values, through VectorOps: the vector path's stages and the
// fused epilogues of the cube path. Values it makes are scratch, given back when used up; the
// inputs and computed Funcs it is given are not.
#pragma once

#include "codegen/vector_ops.h"
#include "dsl/expr.h"

#include <map>
#include <set>

namespace cubekit::dsl {
struct InputImpl;
struct FuncImpl;
struct VarImpl;
}  // namespace cubekit::dsl

namespace cubekit::codegen {

class Evaluator {
 public:
  // `vars`: the values of the variables e may read (an attention score's indices, as f32).
  Evaluator(VectorOps& ops, const std::map<const dsl::InputImpl*, VValue>& inputs,
            const std::map<const dsl::FuncImpl*, VValue>& funcs, std::map<const dsl::VarImpl*, VValue> vars = {})
      : ops_(ops), inputs_(inputs), funcs_(funcs), vars_(std::move(vars)) {}

  // The value of e, written into `into` when given (converted to its shape).
  VValue eval(const dsl::Expr& e, const VValue* into = nullptr);
  // The value of e as a value of its own of shape s: in scratch this evaluator made (or adopted),
  // which it then lets go of (the caller gives it back with VectorOps::done).
  VValue materialize(const dsl::Expr& e, VShape s);
  // A value the evaluator may overwrite and gives back once used (a computed Func read for the
  // last time, and only once, by the next expression).
  void adopt(const VValue& v) { owned_.insert(v.at.buffer); }
  // A value the evaluator may compute over in place but does not give back (the caller's, which
  // the expression reads once: a step in place would otherwise clobber a later read).
  void scribble(const VValue& v) { scribble_.insert(v.at.buffer); }
  void release(const VValue& v);  // gives back a value this evaluator made

 private:
  // Where an operation's result goes: `into`, an operand's scratch it may overwrite, or new scratch.
  VValue result(VShape s, DType t, const VValue* into, std::initializer_list<const VValue*> operands = {});
  void release_unless(const VValue& v, const VValue& result);
  VValue value(const dsl::Expr& e, const VValue* into);
  VValue place(const VValue& v, const VValue& into);  // v converted into `into`
  VValue math(const dsl::ExprNode& n, const VValue* into, const char* mnemonic, int negate);
  VValue binary(const dsl::ExprNode& n, const VValue* into, VBinary op);
  VValue select(const dsl::ExprNode& n, const VValue* into);
  VValue reduce(const dsl::ExprNode& n, const VValue* into, VReduce op);

  VectorOps& ops_;
  const std::map<const dsl::InputImpl*, VValue>& inputs_;
  const std::map<const dsl::FuncImpl*, VValue>& funcs_;
  std::map<const dsl::VarImpl*, VValue> vars_;
  std::set<int> owned_, scribble_;
};

}  // namespace cubekit::codegen
