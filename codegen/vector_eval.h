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
}  // namespace cubekit::dsl

namespace cubekit::codegen {

class Evaluator {
 public:
  Evaluator(VectorOps& ops, const std::map<const dsl::InputImpl*, VValue>& inputs,
            const std::map<const dsl::FuncImpl*, VValue>& funcs)
      : ops_(ops), inputs_(inputs), funcs_(funcs) {}

  // The value of e, written into `into` when given (converted to its shape).
  VValue eval(const dsl::Expr& e, const VValue* into = nullptr);
  void release(const VValue& v);  // gives back a value this evaluator made

 private:
  VValue result(VShape s, DType t, const VValue* into);
  VValue value(const dsl::Expr& e, const VValue* into);
  VValue math(const dsl::ExprNode& n, const VValue* into, const char* mnemonic, int negate);
  VValue binary(const dsl::ExprNode& n, const VValue* into, VBinary op);
  VValue select(const dsl::ExprNode& n, const VValue* into);
  VValue reduce(const dsl::ExprNode& n, const VValue* into, VReduce op);

  VectorOps& ops_;
  const std::map<const dsl::InputImpl*, VValue>& inputs_;
  const std::map<const dsl::FuncImpl*, VValue>& funcs_;
  std::set<int> owned_;
};

}  // namespace cubekit::codegen
