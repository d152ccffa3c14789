// Shared by the randomized compiler tests: building Funcs case by case, and running seeded cases
// against the Halide reference with a tally a reader can check (how many the API refused, and why).
#pragma once

#include "codegen_test_util.h"
#include "dsl/func.h"
#include "emulator/error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace cubekit::test {

inline int pick(std::mt19937& rng, size_t n) { return std::uniform_int_distribution<int>(0, int(n) - 1)(rng); }
inline bool chance(std::mt19937& rng, double p) { return std::bernoulli_distribution(p)(rng); }

inline dsl::Expr call(const dsl::Func& f, std::vector<dsl::Expr> args) { return dsl::FuncRef(f.impl, std::move(args)); }
inline void define(const dsl::Func& f, std::vector<dsl::Expr> args, const dsl::Expr& value) {
  dsl::FuncRef(f.impl, std::move(args)) = value;
}

inline std::string definition(const dsl::Func& f) {
  std::vector<std::string> args;
  for (const auto& v : f.impl->args) args.push_back(v->name);
  return fmt::format("{}({}) = {};", f.name(), fmt::join(args, ", "), f.impl->value.str());
}

// Runs `cases` cases of `make(rng)` (each with .out, the Func to compile, .text, what a
// reproduction needs, and .atol): every case the API accepts must run clean and match Halide; a
// UserError counts as refused. At least two thirds must be accepted, or the generator tests little.
template <class Make>
void run_random_cases(const char* name, uint32_t seed, int cases, Make make) {
  std::mt19937 rng(seed);
  int accepted = 0, rejected = 0, passed = 0;
  std::vector<std::string> rejections;
  for (int i = 0; i < cases; ++i) {
    std::string what = fmt::format("case {}", i);
    try {
      auto c = make(rng);
      what = fmt::format("case {} (atol {:.3g}):\n{}", i, c.atol, c.text);
      kernels::KernelRun run = kernels::compile_and_run(c.out, chip(), {.seed = uint64_t(i + 1), .atol = c.atol});
      ++accepted;
      EXPECT_TRUE(run.sim.report.clean()) << what << "\n" << describe(run);
      EXPECT_TRUE(run.checked && run.check.pass)
          << what << "\nmax abs error " << run.check.max_abs << ", max rel error " << run.check.max_rel << ", "
          << run.check.mismatches << " mismatches";
      passed += run.sim.report.clean() && run.checked && run.check.pass;
    } catch (const UserError& e) {
      ++rejected;
      if (rejections.size() < 4) rejections.push_back(fmt::format("case {}: {}", i, e.what()));
    } catch (const std::exception& e) {
      ++accepted;
      ADD_FAILURE() << what << "\nthrew: " << e.what();
    }
  }
  std::printf("%s: %d cases, %d accepted, %d rejected, %d passed\n", name, cases, accepted, rejected, passed);
  for (const std::string& r : rejections) std::printf("  rejected %s\n", r.c_str());
  EXPECT_GE(accepted, cases * 2 / 3);
}

}  // namespace cubekit::test
