// User errors of the Halide host reference (dsl/host.h): one test per error, checking its message.
#include "dsl/host.h"
#include "error_test_util.h"

namespace cubekit::test {
namespace {


TEST(HostErrors, RVarOutsideAReduction) {
  dsl::Input X("X", DType::f32, {4, 6});
  dsl::Var r("r");
  dsl::RDom k(0, 6, "k");
  dsl::Func F("F");
  F(r) = X(r, k) * 2;
  std::vector<uint8_t> x(4 * 6 * 4);
  expect_user_error([&] { dsl::run_on_host(F, {{"X", &x}}); },
                    {"F", "the RVar k is used outside sum(), maximum() and minimum()", "reduce over it, or use a Var"});
}

TEST(HostErrors, ReductionWithoutAnRVarOfItsOwn) {
  dsl::Input X("X", DType::f32, {4, 6});
  dsl::Var r("r");
  dsl::RDom k(0, 6, "k");
  dsl::Func F("F");
  F(r) = dsl::sum(dsl::maximum(X(r, k)));
  std::vector<uint8_t> x(4 * 6 * 4);
  expect_user_error([&] { dsl::run_on_host(F, {{"X", &x}}); },
                    {"F", "sum(maximum(X(r, k))) has no RVar of its own", "reduce over a different RDom"});
}

}  // namespace
}  // namespace cubekit::test
