#include "tune/space.h"

#include "codegen/lower.h"
#include "emulator/error.h"
#include "kernels/tuned.h"
#include "schedules/contraction.h"
#include "schedules/vector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace cubekit::tune {

namespace {

bool is_vector(const std::string& kernel) {
  const auto& names = kernels::vector_kernel_names();
  return std::find(names.begin(), names.end(), kernel) != names.end();
}

// `values` below `limit` (and `limit` itself when `with_limit`), plus the default's `chosen`:
// sorted, without repeats.
std::vector<int64_t> values_up_to(std::vector<int64_t> values, int64_t limit, bool with_limit, int64_t chosen) {
  std::vector<int64_t> out;
  for (int64_t v : values)
    if (v < limit) out.push_back(v);
  if (with_limit) out.push_back(limit);
  out.push_back(chosen);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void add(Space& s, const std::string& name, std::vector<int64_t> values, int64_t chosen) {
  if (values.size() < 2) return;  // one value: the default's own, which the kernel chooses anyway
  auto it = std::find(values.begin(), values.end(), chosen);
  CUBEKIT_ASSERT(it != values.end(), "space: {}'s default {} is not among its values", name, chosen);
  s.start.push_back(int(it - values.begin()));
  s.params.push_back({name, std::move(values)});
}

Space matmul_space(const Problem& p, const ChipConfig& chip) {
  kernels::MatmulOptions o = p.matmul;
  o.use_tuned = false;
  sched::ContractionPlan d = sched::plan_contraction(kernels::matmul(o, chip).c, chip);  // the product, without its epilogue
  const std::vector<int64_t> tiles = {16, 32, 48, 64, 96, 128, 160, 192, 256};
  auto tile = [&](int64_t extent, int64_t chosen) {
    return values_up_to(tiles, std::min<int64_t>(round_up(extent, 16), 257), round_up(extent, 16) <= 256, chosen);
  };
  Space s;
  add(s, "tm", tile(o.m, d.tm), d.tm);
  add(s, "tn", tile(o.n, d.tn), d.tn);
  add(s, "tk_l0", values_up_to({32, 64, 128, 256}, std::min<int64_t>(o.k, 257), o.k <= 256, d.tk_l0), d.tk_l0);
  add(s, "tk_l1", values_up_to({64, 128, 256, 512, 1024}, std::min<int64_t>(o.k, 1025), o.k <= 1024, d.tk_l1), d.tk_l1);
  add(s, "l1_copies", values_up_to({2, 3, 4}, chip.event_ids + 1, false, d.l1_copies), d.l1_copies);
  add(s, "group", values_up_to({1, 2, 4, 8}, chip.cores + 1, false, d.core_group), d.core_group);
  add(s, "stagger", {0, 1}, d.stagger ? 1 : 0);
  return s;
}

Space conv_space(const Problem& p, const ChipConfig& chip) {
  const kernels::Conv2dOptions& o = p.conv;
  kernels::Conv2dOptions plain = o;
  plain.use_tuned = false;
  kernels::Conv2d cv = kernels::conv2d(plain, chip);
  const kernels::ConvTiling& t = cv.tiling;
  const int64_t oh = kernels::conv_output_extent(o.h, o.kh, o.stride, o.pad, o.dilation);
  std::vector<int64_t> rows;
  for (int64_t r = 1; r <= oh; ++r)
    if (oh % r == 0 || (r & (r - 1)) == 0) rows.push_back(r);
  const int64_t k16 = round_up(o.k / o.groups, 16), c0 = o.in == DType::s8 ? 32 : 16;
  const int64_t c1 = (o.c / o.groups + c0 - 1) / c0;
  std::vector<int64_t> channels;
  for (int64_t b : {1, 2, 4, 8, 16, 32})
    if (b <= c1) channels.push_back(b * c0);
  Space s;
  add(s, "rows", values_up_to(rows, oh + 1, false, t.rows), t.rows);
  add(s, "tn", values_up_to({16, 32, 48, 64, 96, 128, 192, 256}, std::min<int64_t>(k16, 257), k16 <= 256, t.tn), t.tn);
  add(s, "channels", values_up_to(channels, c1 * c0, true, t.channels), t.channels);
  add(s, "l1_copies", values_up_to({1, 2, 3, 4}, chip.event_ids + 1, false, t.l1_copies), t.l1_copies);
  const bool stackable = o.pad == 0 && oh * o.stride == o.h;
  if (stackable && o.n > 1) add(s, "images", values_up_to({1, 2, 4, 8, 16, 32}, o.n + 1, false, t.images), t.images);
  return s;
}

Space attention_space(const Problem& p, const ChipConfig& chip) {
  const kernels::AttentionOptions& o = p.attention;
  auto [tq, tkv] = kernels::default_attention_tiles(o, chip);
  const int64_t sq = round_up(o.seq_q, 16), skv = round_up(o.seq_kv ? o.seq_kv : o.seq_q, 16);
  Space s;
  add(s, "tile_q", values_up_to({16, 32, 64, 128, 256}, std::min<int64_t>(sq, 257), sq <= 256, tq), tq);
  add(s, "tile_kv", values_up_to({16, 32, 64, 128, 256, 512}, std::min<int64_t>(skv, 513), skv <= 512, tkv), tkv);
  // How far the cube runs ahead of the vector cores: only a split chip's nest has the choice.
  if (chip.split()) add(s, "preload", {1, 2, 3, 4, 6, 8}, sched::kAttentionPreload);
  return s;
}

Space vector_space(const Problem& p, const ChipConfig& chip) {
  std::vector<dsl::Func> f = p.build({}, chip);
  sched::VectorPlan d = sched::plan_vector(f[0], chip);
  Space s;
  if (kernels::is_row_kernel(p.kernel)) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < p.vector.shape.size(); ++i) rows *= p.vector.shape[i];
    add(s, "tile_rows", values_up_to({0, 1, 2, 4, 8, 16, 32, 64, 128}, rows + 1, false, d.tile_rows), d.tile_rows);
  }
  add(s, "copies", values_up_to({1, 2, 3, 4}, chip.event_ids + 1, false, d.copies), d.copies);
  return s;
}

}  // namespace

void check_tunable(const std::string& kernel) {
  if (kernel == "matmul" || kernel == "conv2d" || kernel == "attention" || is_vector(kernel)) return;
  user_error("tune: no kernel '{}' to tune; the tunable kernels are matmul, conv2d, attention and the vector kernels ({})",
             kernel, fmt::join(kernels::vector_kernel_names(), ", "));
}

std::string Problem::key() const {
  if (kernel == "matmul") return kernels::problem_key(matmul);
  if (kernel == "conv2d") return kernels::problem_key(conv);
  if (kernel == "attention") return kernels::problem_key(attention);
  return kernels::problem_key(kernel, vector);
}

std::string Problem::shape() const {
  if (kernel == "matmul") {
    const auto& o = matmul;
    return fmt::format("{}{}x{}x{} {}{}", o.batch ? fmt::format("{}x", o.batch) : "", o.m, o.n, o.k, dtype_name(o.in),
                       o.epilogue.empty() ? "" : fmt::format(" +{}", fmt::join(o.epilogue, ",")));
  }
  if (kernel == "conv2d") {
    const auto& o = conv;
    return fmt::format("{}x{}x{}x{} -> {} {}x{}/{}{}{}", o.n, o.c, o.h, o.w, o.k, o.kh, o.kw, o.stride,
                       o.groups > 1 ? fmt::format(" g{}", o.groups) : "",
                       o.epilogue.empty() ? "" : fmt::format(" +{}", fmt::join(o.epilogue, ",")));
  }
  if (kernel == "attention") {
    const auto& o = attention;
    return fmt::format("b{} h{}/{} s{}x{} d{}{}", o.batch, o.heads, o.kv_heads ? o.kv_heads : o.heads, o.seq_q,
                       o.seq_kv ? o.seq_kv : o.seq_q, o.dim, o.causal ? " causal" : "");
  }
  return fmt::format("[{}] {}", fmt::join(vector.shape, ","), dtype_name(vector.dtype));
}

std::vector<dsl::Func> Problem::build(const Params& p, const ChipConfig& chip) const {
  if (kernel == "matmul") {
    kernels::MatmulOptions o = matmul;
    o.use_tuned = false;
    kernels::apply_params(o, p);
    return {kernels::matmul(o, chip).out};
  }
  if (kernel == "conv2d") {
    kernels::Conv2dOptions o = conv;
    o.use_tuned = false;
    kernels::apply_params(o, p);
    return kernels::conv2d(o, chip).outputs();
  }
  if (kernel == "attention") {
    kernels::AttentionOptions o = attention;
    o.use_tuned = false;
    kernels::apply_params(o, p);
    return kernels::attention(o, chip).outputs();
  }
  check_tunable(kernel);
  kernels::VectorOptions o = vector;
  o.use_tuned = false;
  kernels::apply_params(o, p);
  return {kernels::vector_kernel(kernel, o).out};
}

void Problem::validate(const Params& p, const ChipConfig& chip) const { codegen::check_schedule(build(p, chip), chip); }

double Problem::flops() const {
  if (kernel == "matmul")
    return 2.0 * double(std::max<int64_t>(matmul.batch, 1)) * double(matmul.m) * double(matmul.n) * double(matmul.k);
  if (kernel == "conv2d") {
    const auto& o = conv;
    int64_t oh = kernels::conv_output_extent(o.h, o.kh, o.stride, o.pad, o.dilation);
    int64_t ow = kernels::conv_output_extent(o.w, o.kw, o.sw(), o.pw(), o.dw());
    return 2.0 * double(o.n * o.k * oh * ow) * double(o.c / o.groups * o.kh * o.kw);
  }
  if (kernel == "attention") {
    const auto& o = attention;
    return 4.0 * double(o.batch * o.heads) * double(o.seq_q) * double(o.seq_kv ? o.seq_kv : o.seq_q) * double(o.dim) *
           (o.causal ? 0.5 : 1.0);
  }
  return 0;
}

uint64_t Space::grid() const {
  uint64_t n = 1;
  for (const Param& p : params) n *= p.values.size();
  return n;
}

Params Space::at(const std::vector<int>& point) const {
  Params out;
  for (size_t i = 0; i < params.size(); ++i) out[params[i].name] = params[i].values[size_t(point[i])];
  return out;
}

uint64_t Space::ordinal(const std::vector<int>& point) const {
  uint64_t n = 0;
  for (size_t i = 0; i < params.size(); ++i) n = n * params[i].values.size() + uint64_t(point[i]);
  return n;
}

std::vector<int> Space::point(uint64_t ordinal) const {
  std::vector<int> p(params.size());
  for (size_t i = params.size(); i-- > 0;) {
    p[i] = int(ordinal % params[i].values.size());
    ordinal /= params[i].values.size();
  }
  return p;
}

Space space_of(const Problem& problem, const ChipConfig& chip) {
  check_tunable(problem.kernel);
  // A problem the kernel rejects (a zero extent, an unknown epilogue) says so itself; a default
  // schedule the chip cannot hold leaves no point to search.
  std::vector<dsl::Func> outputs = problem.build({}, chip);
  try {
    codegen::check_schedule(outputs, chip);
  } catch (const UserError& e) {
    user_error("tune {} {}: the schedule space has no valid point on {}: its default schedule is rejected: {}",
               problem.kernel, problem.shape(), chip.name, e.what());
  }
  if (problem.kernel == "matmul") return matmul_space(problem, chip);
  if (problem.kernel == "conv2d") return conv_space(problem, chip);
  if (problem.kernel == "attention") return attention_space(problem, chip);
  return vector_space(problem, chip);
}

}  // namespace cubekit::tune
