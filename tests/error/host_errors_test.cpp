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

// The reference's module (libcubekit_halide.so) is loaded on first use; a wrong CUBEKIT_HALIDE_MODULE
// is the user's to fix, said when a kernel first needs the reference (a timing-only run never does).
TEST(HostErrors, HalideModuleThatCannotBeLoaded) {
  setenv("CUBEKIT_HALIDE_MODULE", "/nonexistent/libcubekit_halide.so", 1);
  auto [code, err] = cubekit_stderr("kernel add --rows 8 --cols 40");
  auto [timing_code, timing_err] = cubekit_stderr("kernel add --rows 8 --cols 40 --timing-only");
  unsetenv("CUBEKIT_HALIDE_MODULE");
  EXPECT_EQ(code, 2) << err;  // the CLI's code for a user error
  for (const char* part : {"the Halide host reference could not be loaded from CUBEKIT_HALIDE_MODULE=/nonexistent/",
                           "cannot open shared object file", "point it at the libcubekit_halide.so of this cubekit build, or unset it"})
    EXPECT_NE(err.find(part), std::string::npos) << part << "\n" << err;
  EXPECT_EQ(timing_code, 0) << timing_err;
}

}  // namespace
}  // namespace cubekit::test
