// The host reference's fast schedule against its plain pipeline: bit for bit the same results (NaN
// for NaN) on small odd shapes, for every ready kernel (matmul in each dtype, transposed, batched,
// with epilogues; the vector kernels in f16 and f32) and for Funcs of one's own (reductions over rows,
// columns and two RDoms, several reductions in one Func, a reduction used by a wider Func, a
// reduction inside a reduction, integer types). Inputs are seeded random, some with inf and NaN.
#include "codegen_test_util.h"
#include "dsl/host.h"
#include "emulator/isa_helpers.h"
#include "emulator/rounding.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

namespace cubekit {
namespace {

using dsl::Func;
using dsl::HostSchedule;
using dsl::Input;
using dsl::RDom;
using dsl::Var;

// Seeded inputs for every Input of f, as the emulator gets them; with `specials`, every 13th
// element of a float input is +inf, -inf or NaN in turn.
std::map<std::string, std::vector<uint8_t>> inputs_of(const Func& f, uint64_t seed, bool specials) {
  Program decl;
  for (const auto& in : f.inputs()) decl.tensors.push_back({in->name, in->dtype, in->shape, TensorRole::In});
  GlobalMemory gm = GlobalMemory::for_program(decl);
  gm.fill_inputs(seed);
  std::map<std::string, std::vector<uint8_t>> out;
  for (size_t t = 0; t < decl.tensors.size(); ++t) {
    std::vector<uint8_t>& bytes = gm.data[t];
    DType dt = decl.tensors[t].dtype;
    if (specials && (dt == DType::f16 || dt == DType::f32)) {
      const double values[] = {INFINITY, -INFINITY, NAN};
      int size = dtype_size(dt);
      for (size_t e = 5, i = 0; e < bytes.size() / size_t(size); e += 13, ++i) {
        if (dt == DType::f16) {
          uint16_t h = f64_to_f16(values[i % 3]);
          std::memcpy(&bytes[e * 2], &h, 2);
        } else {
          float x = float(values[i % 3]);
          std::memcpy(&bytes[e * 4], &x, 4);
        }
      }
    }
    out[decl.tensors[t].name] = std::move(bytes);
  }
  return out;
}

// Fast and plain, element by element: the same bits, or NaN in both.
void expect_same(const Func& f, uint64_t seed, bool specials, const std::string& what) {
  auto in = inputs_of(f, seed, specials);
  std::map<std::string, const std::vector<uint8_t>*> ptrs;
  for (const auto& [name, bytes] : in) ptrs[name] = &bytes;
  dsl::HostTensor fast = dsl::run_on_host(f, ptrs, HostSchedule::Fast);
  dsl::HostTensor plain = dsl::run_on_host(f, ptrs, HostSchedule::Plain);
  ASSERT_EQ(fast.shape, plain.shape) << what;
  ASSERT_EQ(fast.data.size(), plain.data.size()) << what;
  int size = dtype_size(fast.dtype);
  int64_t differing = 0, first = -1;
  for (size_t e = 0; e < fast.data.size() / size_t(size); ++e) {
    if (std::memcmp(&fast.data[e * size_t(size)], &plain.data[e * size_t(size)], size_t(size)) == 0) continue;
    if (is_float(fast.dtype) && std::isnan(isa::load_as_double(&fast.data[e * size_t(size)], fast.dtype)) &&
        std::isnan(isa::load_as_double(&plain.data[e * size_t(size)], plain.dtype)))
      continue;
    if (first < 0) first = int64_t(e);
    ++differing;
  }
  EXPECT_EQ(differing, 0) << what << ": first at element " << first << " of " << fast.data.size() / size_t(size) << ": fast "
                          << isa::load_as_double(&fast.data[size_t(first) * size_t(size)], fast.dtype) << ", plain "
                          << isa::load_as_double(&plain.data[size_t(first) * size_t(size)], plain.dtype);
}

struct Shape {
  int64_t m, n, k, batch;
};

TEST(HostFast, MatmulsEqualThePlainPipeline) {
  const std::vector<Shape> shapes = {{1, 1, 1, 0}, {3, 5, 7, 0}, {17, 33, 9, 0}, {40, 19, 65, 0},
                                     {64, 48, 32, 0}, {9, 130, 21, 0}, {5, 37, 11, 3}, {33, 17, 40, 2}};
  struct Variant {
    const char* name;
    std::function<void(kernels::MatmulOptions&)> set;
  };
  const std::vector<Variant> variants = {
      {"f16 -> f32", [](kernels::MatmulOptions&) {}},
      {"f16 -> f16", [](kernels::MatmulOptions& o) { o.out = DType::f16; }},
      {"A transposed", [](kernels::MatmulOptions& o) { o.transpose_a = true; }},
      {"B transposed", [](kernels::MatmulOptions& o) { o.transpose_b = true; }},
      {"both transposed", [](kernels::MatmulOptions& o) { o.transpose_a = o.transpose_b = true; }},
      {"s8 -> s32", [](kernels::MatmulOptions& o) { o.in = DType::s8, o.out = DType::s32, o.transpose_b = true; }},
      {"s8 -> s32, A transposed",
       [](kernels::MatmulOptions& o) { o.in = DType::s8, o.out = DType::s32, o.transpose_a = o.transpose_b = true; }},
      {"bias", [](kernels::MatmulOptions& o) { o.epilogue = {"bias"}; }},
      {"scale, relu -> f16", [](kernels::MatmulOptions& o) { o.epilogue = {"scale", "relu"}, o.scale = 0.125, o.out = DType::f16; }},
      {"bias, gelu", [](kernels::MatmulOptions& o) { o.epilogue = {"bias", "gelu"}, o.transpose_b = true; }},
      {"bias, scale, relu -> f16", [](kernels::MatmulOptions& o) { o.epilogue = {"bias", "scale", "relu"}, o.out = DType::f16; }},
  };
  // Each variant on three of the shapes, in turn (every shape meets most variants).
  uint64_t seed = 0;
  for (size_t vi = 0; vi < variants.size(); ++vi)
    for (size_t si = vi; si < vi + 3; ++si) {
      const Variant& v = variants[vi];
      const Shape& s = shapes[si % shapes.size()];
      kernels::MatmulOptions o;
      o.m = s.m, o.n = s.n, o.k = s.k, o.batch = s.batch;
      v.set(o);
      kernels::Matmul mm = kernels::matmul(o, test::chip());
      std::string what = fmt::format("matmul {} x {}x{}x{}, {}", s.batch, s.m, s.n, s.k, v.name);
      ++seed;
      expect_same(mm.out, seed, seed % 4 == 0, what);
    }
}

TEST(HostFast, VectorKernelsEqualThePlainPipeline) {
  const std::vector<std::vector<int64_t>> shapes = {{1}, {7}, {3, 5}, {37, 19}, {2, 3, 33}, {5, 129}, {70, 16}};
  // Each kernel and dtype on two of the shapes, taken in turn across the kernels (the Halide JIT of
  // both pipelines is most of this test's time).
  uint64_t seed = 100;
  size_t next = 0;
  for (const std::string& name : kernels::vector_kernel_names())
    for (DType dt : {DType::f16, DType::f32})
      for (int taken = 0; taken < 2;) {
        const std::vector<int64_t>& shape = shapes[next++ % shapes.size()];
        bool along_rows = name == "softmax" || name == "layernorm" || name == "rmsnorm";
        if (along_rows && shape.size() < 2) continue;  // they need rows
        ++taken;
        kernels::VectorOptions o;
        o.shape = shape, o.dtype = dt;
        kernels::VectorKernel k = kernels::vector_kernel(name, o);
        std::string what = fmt::format("{} [{}] {}", name, fmt::join(shape, ", "), dtype_name(dt));
        ++seed;
        expect_same(k.out, seed, seed % 3 == 0, what);
      }
}

TEST(HostFast, OwnFuncsEqualThePlainPipeline) {
  const int64_t R = 37, C = 45;
  Var r("r"), c("c"), i("i");
  RDom k(0, C, "k"), j(0, R, "j"), q(2, C - 3, "q");
  for (DType dt : {DType::f16, DType::f32}) {
    Input X("X", dt, {R, C}), Y("Y", dt, {R, C}), T("T", dt, {4, R, C});
    auto f32 = [](const dsl::Expr& e) { return dsl::cast(DType::f32, e); };
    Func cols("column_sum"), several("several"), wide("wide"), nested("nested"), two("two_rdoms"), offset("offset");
    cols(c) = dsl::sum(f32(X(j, c)) * f32(Y(j, c)));
    several(r, c) = f32(X(r, c)) - f32(dsl::maximum(X(r, k))) + f32(dsl::minimum(Y(r, k))) + dsl::sum(f32(X(r, k)) * f32(Y(r, k)));
    wide(r, c) = f32(X(r, c)) / dsl::sum(f32(X(r, k)) * f32(X(r, k)));
    nested(r) = dsl::sum(f32(X(r, k)) - f32(dsl::maximum(Y(r, q))));
    two(i) = dsl::sum(f32(T(i, j, k)));
    offset(r, c) = dsl::maximum(X(r, q) * Y(r, c));
    for (const Func& f : {cols, several, wide, nested, two, offset}) {
      expect_same(f, 7, false, f.name() + " " + std::string(dtype_name(dt)));
      expect_same(f, 8, true, f.name() + " " + std::string(dtype_name(dt)) + " with inf and NaN");
    }
  }
  // integers: exact in any order, but the schedule keeps it anyway
  Input U("U", DType::u8, {R, C}), S("S", DType::s16, {C, 23});
  Func ints("int_contraction");
  ints(r, i) = dsl::sum(dsl::cast(DType::s32, U(r, k)) * dsl::cast(DType::s32, S(k, i)));
  expect_same(ints, 9, false, "u8 x s16 -> s32");
  // f32 operands read as they are (no conversion), one of them transposed
  Input P("P", DType::f32, {R, C}), Q("Q", DType::f32, {29, C});
  Func f32s("f32_contraction");
  f32s(r, i) = dsl::sum(P(r, k) * Q(i, k));
  expect_same(f32s, 10, true, "f32 x f32^T");
}

}  // namespace
}  // namespace cubekit
