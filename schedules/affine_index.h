// An integer index expression of the DSL as c + sum(coefficient x variable): how the conv and
// pooling paths read a feature map's spatial indices (`y*stride + r*dilation - pad`).
#pragma once

#include "dsl/expr.h"

#include <cstdint>
#include <map>
#include <string>

namespace cubekit::sched {

struct Linear {
  std::map<const dsl::VarImpl*, int64_t> terms;
  int64_t c = 0;
  bool ok = true;  // false: the expression is not affine in its variables
  int64_t of(const dsl::VarImpl* v) const {
    auto it = terms.find(v);
    return it == terms.end() ? 0 : it->second;
  }
};

Linear linear(const dsl::Expr& e);

// The expression under one cast (or the node itself).
const dsl::ExprNode* strip_cast(const dsl::ExprNode* n);
// Whether a read has an index that is not a plain variable (what makes a feature map's read).
bool affine_read(const dsl::ExprNode* n);

// A feature map's spatial index `out*stride + r*dilation - pad` along one axis ("row" or
// "column"), or a user error naming the Func, the index and `form` (what the path expects).
struct Axis {
  int64_t stride = 1, dilation = 1, pad = 0;
};
Axis window_axis(const std::string& fname, const dsl::Expr& index, const dsl::VarImpl* out, const dsl::VarImpl* r,
                 const char* axis, const char* form);

}  // namespace cubekit::sched
