// A single core with buffers the test fills and reads directly, running a program text in
// program order. Tests compute their expected values with naive loops of their own.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/rounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace cubekit::test {

// A GM tensor's bytes as values of T (its dtype's C++ type: uint16_t for f16 and bf16 bits).
template <class T>
std::vector<T> gm_values(GlobalMemory& gm, const char* name) {
  const std::vector<uint8_t>& b = gm.bytes(name);
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

class Harness {
 public:
  // `text` is a program; ".kernel t" and "end" are added when missing.
  explicit Harness(const std::string& text, const std::string& chip_name = "ascend910")
      : chip(load_chip(chip_name)), core(chip) {
    std::string src = text;
    if (src.find(".kernel") == std::string::npos) src = ".kernel t\n" + src;
    if (src.find("\n    end") == std::string::npos && src.find("\nend") == std::string::npos) src += "\nend\n";
    program = parse_program(src, "test.s");
    gm = GlobalMemory::for_program(program);
  }

  // Runs the program on this core's current buffers; returns the diagnostics (empty when clean).
  std::vector<Diagnostic> run() {
    RunResult r;
    ScalarState s;
    run_core_in_order(chip, program, gm, core, s, {}, r);
    return r.diagnostics;
  }
  void run_clean() {
    auto d = run();
    for (const Diagnostic& x : d) ADD_FAILURE() << format_diagnostic(program, x);
  }

  uint8_t* at(Space s, int64_t offset) { return core.data(s) + offset; }
  uint8_t* tensor(const std::string& name) { return gm.bytes(name).data(); }

  template <class T>
  void put(Space s, int64_t offset, const std::vector<T>& v) {
    std::memcpy(at(s, offset), v.data(), v.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> get(Space s, int64_t offset, size_t n) {
    std::vector<T> v(n);
    std::memcpy(v.data(), at(s, offset), n * sizeof(T));
    return v;
  }

  ChipConfig chip;
  Program program;
  GlobalMemory gm;
  CoreMemory core;
};

// Random fp16 bit patterns drawn from [-range, range] (finite values), and helpers for them.
// binary16 -> float, decoded independently of the emulator (finite values only).
// A number as text, for the assembly the tests build (cube_test, fixpipe_test).
inline std::string s(int64_t v) { return std::to_string(v); }

inline float half(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  float v = e == 0 ? std::ldexp(float(h & 0x3ff), -24) : std::ldexp(float(1024 + (h & 0x3ff)), e - 25);
  return (h & 0x8000) ? -v : v;
}

inline std::vector<uint16_t> random_f16(size_t n, uint64_t seed, double range = 4.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-range, range);
  std::vector<uint16_t> v(n);
  for (auto& h : v) h = f64_to_f16(d(rng));
  return v;
}
inline std::vector<float> random_f32(size_t n, uint64_t seed, double range = 4.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-range, range);
  std::vector<float> v(n);
  for (auto& f : v) f = float(d(rng));
  return v;
}

}  // namespace cubekit::test
