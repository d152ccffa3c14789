// What flash()'s recogniser (plan_attention) compares a user's Funcs with the attention form by:
// structural equality up to the spellings users write, and the softmax-first O rewritten.
#pragma once

#include "dsl/func.h"

#include <memory>

namespace cubekit::sched {

// The spellings of one product by a constant as one, x * c: c * x, x / c (x * (1 / c)), and
// sum(x * c) (sum(x) * c; summed in another order, within the check's tolerance); and a Func's
// call first in a product with anything else (sum_t V * E as sum_t E * V). Rewrites the top node.
dsl::Expr canonical(const dsl::Expr& e);

// Whether `written` (a user's Func) computes what `form` does: the same operations, constants,
// inputs and reduction domains, each node as `canonical` spells it, variables paired by where
// they are bound (a Func's arguments by position, RVars one to one within a definition), a
// Func's call where the other side has its definition taken as that definition at its arguments.
bool same_form(const dsl::FuncImpl& written, const dsl::FuncImpl& form);

// O written as the textbook does, softmax first: O = [cast](sum_t P(.., t) * V(.., t)) with
// P(.., j) = E(.., j) / L(..), L not reading the key j. That is the form's sum_t E V / L, which
// flash() computes: O so rewritten (for the comparison only), or null when O is not so written.
std::shared_ptr<dsl::FuncImpl> softmax_first(const dsl::FuncImpl& o);

}  // namespace cubekit::sched
