// Expressions of the DSL: a small immutable tree. Every node has a type; binary operators need
// both sides of the same type (cast explicitly), except that a plain number takes the other
// side's type, as in Halide.
#pragma once

#include "emulator/dtype.h"

#include <memory>
#include <string>
#include <vector>

namespace cubekit::dsl {

struct InputImpl;
struct FuncImpl;

// A loop variable: pure (Var) or reduction (RVar). Identity is the object, names are for messages.
struct VarImpl {
  std::string name;
  bool reduction = false;
  int64_t min = 0, extent = 0;  // reductions: the domain
  // An RVar of a multi-dimensional RDom: the RDom's id (0: none; unique for the process, so that it
  // outlives the RDom object) and this RVar's dimension in it, 0 innermost. A reduction over
  // several of them runs them in that order.
  int64_t domain = 0;
  int dimension = 0;
  // Set on the stand-ins of what is not a variable (a 2-D RDom's r.z, a 3-D RDom used as one
  // RVar): why, for the user error raised where it is used.
  std::string absent;
};

enum class Op : uint8_t {
  Const, Var, Input, Func,                    // leaves and calls
  Exterior,                                   // an input read with a constant outside its shape
  Cast, Add, Sub, Mul, Div, Min, Max, Neg,    // arithmetic
  Exp, Log, Sqrt, Abs,                        // math
  Lt, Le, Gt, Ge, Eq, Ne, Select,             // comparisons make bool
  Sum, Maximum, Minimum                       // reductions over the RVars inside
};
std::string_view op_name(Op op);

struct Type {
  DType dtype = DType::f32;
  bool boolean = false;
  bool operator==(const Type&) const = default;
};
std::string type_name(Type t);

struct ExprNode;
class Expr {
 public:
  Expr() = default;
  Expr(double value);  // NOLINT: numbers take the type of what they meet (f32 alone)
  Expr(int value);     // NOLINT
  // Shapes and extents are int64_t: one converts as an int does, within s32 (the DSL's integers).
  Expr(int64_t value);  // NOLINT
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}

  bool defined() const { return node_ != nullptr; }
  const ExprNode& node() const { return *node_; }
  const ExprNode* get() const { return node_.get(); }
  Type type() const;
  std::string str() const;

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct ExprNode {
  Op op;
  Type type;
  bool untyped_const = false;  // a literal that adopts its partner's type
  double value = 0;            // Const; Exterior: the value outside the input's shape
  std::shared_ptr<VarImpl> var;        // Var
  std::shared_ptr<InputImpl> input;    // Input and Exterior calls
  std::shared_ptr<FuncImpl> func;      // Func calls
  std::vector<Expr> args;              // call indices / operands
  int depth = 1;                       // of the tree below, Func definitions included
};

// The compiler's passes recurse over expression trees, so a tree deeper than this (a sum of
// thousands of terms built in a loop, say) is refused where it is built, before it can overflow
// the stack of a pass, of Halide, or of its own destructor.
inline constexpr int kMaxExprDepth = 1000;
// Sets n.depth from its operands (and `below`, a called Func's definition); a user error past
// kMaxExprDepth.
void set_depth(ExprNode& n, int below = 0);

// Where an expression node sits in the user's source, for messages ("C(m, n) = ..." line).
Expr make(Op op, Type type, std::vector<Expr> args);

Expr cast(DType t, const Expr& e);
Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);
Expr operator-(const Expr& a);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
Expr exp(const Expr& e);
Expr log(const Expr& e);
Expr sqrt(const Expr& e);
Expr abs(const Expr& e);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr select(const Expr& condition, const Expr& if_true, const Expr& if_false);
// Reductions over every RVar the expression uses (one reduction domain at a time).
Expr sum(const Expr& e);
Expr maximum(const Expr& e);
Expr minimum(const Expr& e);

// e with the node `target` (compared by identity) replaced by `with` wherever it occurs; e itself
// when it does not. Calls of Funcs are leaves here: their definitions are not entered.
Expr substitute(const Expr& e, const ExprNode* target, const Expr& with);
// e with every use of the variable `var` replaced by `with`.
Expr substitute(const Expr& e, const VarImpl* var, const Expr& with);
// e with every floating-point constant below `floor` (-inf among them) raised to it.
Expr raise_float_constants(const Expr& e, double floor);
// How many times the node `target` (compared by identity) occurs in e, Func definitions not entered.
int occurrences(const Expr& e, const ExprNode* target);

// The distinct reduction variables an expression uses, in first-use order.
std::vector<std::shared_ptr<VarImpl>> rvars_of(const Expr& e);

}  // namespace cubekit::dsl
