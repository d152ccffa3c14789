#include "kernels/matmul.h"
#include "kernels/defaults.h"

#include "kernels/conv.h"
#include "kernels/tuned.h"
#include "schedules/conv.h"

#include "emulator/error.h"
#include "schedules/contraction.h"
#include "schedules/vector.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <tuple>

namespace cubekit::kernels {

using dsl::Level;
using dsl::LoopVar;

namespace {

// Saturates: a tile override beyond any extent (refused by split() in schedule_matmul) must not
// overflow the sizing arithmetic that runs before it.
int64_t up16(int64_t x) { return (std::min<int64_t>(x, int64_t(1) << 40) + 15) / 16 * 16; }

// See tk1 in schedule_matmul: measured over square 256-4096, BERT-Large's GEMMs, 1000^3 and odd
// shapes, 16 chunks of at least 64 is never slower than one chunk of up to 512 but at 77x131x45
// (a 45-long K), where it changes nothing, and is 2.4x faster at 512^3.
constexpr int64_t kMinL1Chunks = 16, kMinL1Chunk = 64;

// Tile sizes for the default schedule: the fewest waves of tiles over the cores (each tile one
// core's L0C accumulator), then the biggest tiles (less traffic per MAC).
std::pair<int64_t, int64_t> choose_tiles(const MatmulOptions& o, const ChipConfig& chip, int64_t batches, int cores) {
  auto candidates = [](int64_t extent) {
    std::vector<int64_t> c;
    for (int64_t t = 16; t <= 256 && t < extent; t += 16) c.push_back(t);
    if (extent <= 256) c.push_back(extent);
    return c;
  };
  int64_t best_m = 0, best_n = 0;
  double best = 1e300;
  for (int64_t tm : candidates(o.m))
    for (int64_t tn : candidates(o.n)) {
      if (up16(tm) * up16(tn) * 4 > chip.buffer_size(Space::L0C)) continue;
      int64_t tiles = batches * ((o.m + tm - 1) / tm) * ((o.n + tn - 1) / tn);
      int64_t waves = (tiles + cores - 1) / cores;
      double cost = double(waves) * double(up16(tm) * up16(tn)) * (1.0 + 32.0 * double(up16(tm) + up16(tn)) / double(up16(tm) * up16(tn)));
      if (cost < best) best = cost, best_m = tm, best_n = tn;
    }
  return {best_m, best_n};
}

// Tiles go to the cores G m-tiles at a time (Func::cores with a group), serpentine over the
// n-tiles: the cores running together then share G panels of A and about cores / G panels of B.
// Picks the G (a divisor of the m-tile count) whose tile order reads the fewest panel bytes from
// HBM, replaying the order wave by wave against an LRU of panels as big as L2 (less what a wave
// writes); 1 when one wave covers every tile anyway.
int64_t choose_group(int64_t m_tiles, int64_t n_tiles, int64_t batches, int64_t a_panel, int64_t b_panel,
                     int64_t c_tile, const ChipConfig& chip) {
  int64_t cores = chip.cores, tiles = batches * m_tiles * n_tiles;
  if (tiles <= cores || m_tiles < 2 || n_tiles < 2) return 1;
  int64_t capacity = chip.timing.l2_bytes - cores * c_tile;
  auto traffic = [&](int64_t g) {
    std::list<int64_t> lru;  // panel ids, most recent first: A panels >= 0, B panels < 0
    int64_t bytes = 0, used = 0;
    auto touch = [&](int64_t id, int64_t size) {
      auto it = std::find(lru.begin(), lru.end(), id);
      if (it != lru.end()) return lru.splice(lru.begin(), lru, it);
      bytes += size, used += size;
      lru.push_front(id);
      while (used > capacity && !lru.empty()) used -= lru.back() >= 0 ? a_panel : b_panel, lru.pop_back();
    };
    for (int64_t wave = 0; wave * cores < tiles; ++wave)
      for (int64_t u = wave * cores; u < std::min(tiles, (wave + 1) * cores); ++u) {
        int64_t v = u % (m_tiles * n_tiles), b = u / (m_tiles * n_tiles);
        int64_t grp = v / (g * n_tiles), r = v % (g * n_tiles);
        int64_t mo = grp * g + r % g, no = grp % 2 ? n_tiles - 1 - r / g : r / g;
        touch(b * m_tiles + mo, a_panel);
        touch(-1 - (b * n_tiles + no), b_panel);
      }
    return bytes;
  };
  int64_t best = 1, best_bytes = INT64_MAX;
  for (int64_t g = 1; g <= std::min<int64_t>(m_tiles, cores); ++g) {
    if (m_tiles % g) continue;
    int64_t bytes = traffic(g);
    if (bytes < best_bytes) best_bytes = bytes, best = g;
  }
  return best;
}

bool has(const std::vector<std::string>& items, const char* item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

void check_epilogue(const MatmulOptions& o) {
  for (const std::string& e : o.epilogue)
    if (e != "bias" && e != "relu" && e != "gelu" && e != "scale")
      user_error("matmul: unknown epilogue '{}'; use bias, scale, relu or gelu", e);
  if (has(o.epilogue, "relu") && has(o.epilogue, "gelu")) user_error("matmul: the epilogue takes relu or gelu, not both");
  // gelu reads its input five times, so that each further gelu multiplied the code by five (eight
  // took 79 s to compile); the other steps read theirs once and may repeat (bias, scale, bias).
  if (std::count(o.epilogue.begin(), o.epilogue.end(), "gelu") > 1)
    user_error("matmul: the epilogue takes gelu once (each gelu reads its input five times: repeated, it multiplies the "
               "code); it was given {} times", std::count(o.epilogue.begin(), o.epilogue.end(), "gelu"));
  // A NaN or infinite scale made every output NaN or infinite, and the golden check agreed (exit 0).
  if (has(o.epilogue, "scale") && !std::isfinite(o.scale))
    user_error("matmul: the epilogue's scale is {}; it must be a finite number (--scale)", o.scale);
  // The scale multiplies f32 accumulators: past f32's range it was inf, and so was every output.
  if (has(o.epilogue, "scale") && std::abs(o.scale) > largest_finite(DType::f32))
    user_error("matmul: the epilogue's scale {} is past f32's range (the accumulators are f32); give at most {} (--scale)",
               o.scale, largest_finite(DType::f32));
  if (!o.epilogue.empty() && o.in == DType::s8)
    user_error("matmul: epilogues run on f32 accumulators, so they take f16 or bf16 inputs (not {})", dtype_name(o.in));
}

// The epilogue's steps applied to x in the order written (["relu", "bias"] is relu(x) + bias, a
// step listed twice is applied twice), cast to the output type.
dsl::Expr epilogue_value(const MatmulOptions& o, dsl::Expr x, const dsl::Expr& bias) {
  for (const std::string& step : o.epilogue) {
    if (step == "scale") x = x * float(o.scale);
    if (step == "bias") x = x + bias;
    if (step == "relu") x = dsl::max(x, 0.0f);
    if (step == "gelu") {
      dsl::Expr y = 0.7978845608f * (x + 0.044715f * x * x * x);
      x = 0.5f * x * (2.0f - 2.0f / (dsl::exp(2.0f * y) + 1.0f));  // x (1 + tanh y), tanh y = 1 - 2 / (e^2y + 1)
    }
  }
  return o.out == DType::f32 ? x : dsl::cast(o.out, x);
}

// What the default schedule needs of a contraction C(b.., m, n) = sum_k A(..) * B(..).
struct ContractionParts {
  dsl::Schedule& c;  // what to write the schedule into
  const dsl::Input &a, &b;       // the operand indexed by m, the one indexed by n
  std::optional<dsl::Var> batch;
  dsl::Var m, n;
  dsl::RVar k;
};

// The default (or naive) schedule of kernels::matmul, on the extents and types in `o`.
void schedule_matmul(const ContractionParts& p, const MatmulOptions& o, const ChipConfig& chip) {
  sched::check_l1_copies_option("matmul", o.l1_copies, chip);
  bool naive = o.schedule == MatmulOptions::Schedule::Naive;
  int64_t k0 = 32 / dtype_size(o.in), s = dtype_size(o.in);
  bool cores = o.use_cores.value_or(!naive), db = double_buffer_or_default(o.double_buffer, naive, chip);
  int64_t copies = db ? 2 : 1, batches = std::max<int64_t>(o.batch, 1);
  auto [tm, tn] = naive ? std::pair<int64_t, int64_t>{std::min<int64_t>(o.m, 64), std::min<int64_t>(o.n, 64)}
                        : choose_tiles(o, chip, batches, cores ? chip.cores : 1);
  // check_chip holds L0C to one 16 x 16 f32 accumulator fractal at least: choose_tiles finds one.
  CUBEKIT_ASSERT(tm != 0, "no matmul tile fits the {} bytes of L0C of chip '{}'", chip.buffer_size(Space::L0C), chip.name);
  if (o.tm) tm = o.tm;
  if (o.tn) tn = o.tn;
  // The L0 k step: as much as L0A and L0B hold; the L1 step: a multiple of it that L1 holds.
  int64_t l0 = std::min(chip.buffer_size(Space::L0A) / (up16(tm) * s * copies), chip.buffer_size(Space::L0B) / (up16(tn) * s * copies));
  int64_t tk0 = o.tk_l0 ? o.tk_l0 : std::max<int64_t>(k0, std::min<int64_t>(naive ? 64 : 256, l0) / k0 * k0);
  if (tk0 >= o.k) tk0 = o.k;
  if (o.tk_l1 && o.tk_l1 < tk0 && o.tk_l1 < o.k)  // it was taken as tk0, the run still naming it
    user_error("matmul: tk_l1 {} is less than the L0 k step {}{}: an L1 fill holds at least one L0 step; give tk_l1 at "
               "least {} (--tk-l1), or a smaller tk_l0 (--tk-l0)", o.tk_l1, tk0, o.tk_l0 ? " (tk_l0)" : " (the schedule's)", tk0);
  // L1 holds up to four copies (one event id each) so that fills run three chunks ahead: enough
  // to hide a chunk that misses L2 while the cube works on the ones before it.
  int l1_copies = o.l1_copies ? o.l1_copies : (db ? std::min(4, chip.event_ids) : 1);
  auto l1_k = [&](int c) { return chip.buffer_size(Space::L1) / ((up16(tm) + up16(tn)) * s * c); };
  while (!o.l1_copies && l1_copies > 2 && l1_k(l1_copies) < tk0) --l1_copies;
  int64_t tk1 = o.tk_l1 ? o.tk_l1 : (naive ? tk0 : std::max(tk0, std::min<int64_t>(512, l1_k(l1_copies)) / tk0 * tk0));
  // At least kMinL1Chunks chunks of K when it allows: a fill overlaps the cube only while an
  // earlier chunk is in use, so with few chunks (one, at K = 512) the loads of every tile are
  // exposed, which is what bounds small matmuls.
  int64_t few = (o.k + kMinL1Chunks - 1) / kMinL1Chunks;
  if (!naive && !o.tk_l1 && std::max(few, kMinL1Chunk) < tk1) {
    tk1 = std::max(kMinL1Chunk, (few + k0 - 1) / k0 * k0);
    if (!o.tk_l0) tk0 = std::min(tk0, tk1);
    tk1 = std::max(tk0, tk1 / tk0 * tk0);
  }
  if (tk1 >= o.k) tk1 = o.k;

  dsl::Var mo("mo"), mi("mi"), no("no"), ni("ni");
  dsl::RVar ko("ko"), ki("ki"), kio("kio"), kii("kii");
  p.c.split(p.m, mo, mi, tm).split(p.n, no, ni, tn);
  std::vector<LoopVar> order = {ni, mi};  // innermost first
  LoopVar cube_k = p.k, l0_at = no, l1_at = no;
  if (tk0 < o.k) {
    if (tk1 > tk0 && tk1 < o.k) {
      p.c.split(p.k, ko, ki, tk1).split(ki, kio, kii, tk0);
      order = {kii, ni, mi, kio, ko};
      cube_k = kii, l0_at = kio, l1_at = ko;
    } else {
      p.c.split(p.k, kio, kii, tk0);
      order = {kii, ni, mi, kio};
      cube_k = kii, l0_at = kio, l1_at = tk1 >= o.k ? LoopVar(no) : LoopVar(kio);
    }
  } else {
    order = {p.k, ni, mi};
  }
  order.push_back(no);
  order.push_back(mo);
  if (p.batch) order.push_back(*p.batch);
  p.c.reorder(order);
  // A tile larger than its extent is one tile of the extent (as a split beyond it is): the group
  // choice works on those, which also keeps its products of sizes far from overflow.
  const int64_t em = std::min(tm, o.m), en = std::min(tn, o.n);
  int64_t group = naive || !cores ? 1
                                  : choose_group((o.m + em - 1) / em, (o.n + en - 1) / en, batches, up16(em) * o.k * s,
                                                 up16(en) * o.k * s, up16(em) * up16(en) * dtype_size(o.out), chip);
  if (o.core_group) group = o.core_group;
  if (cores) p.c.cores(o.batch ? std::vector<LoopVar>{*p.batch, mo, no} : std::vector<LoopVar>{mo, no}, group);
  p.c.stage(p.a, Level::L1, l1_at).stage(p.b, Level::L1, l1_at);
  p.c.stage(p.a, Level::L0A, l0_at).stage(p.b, Level::L0B, l0_at);
  p.c.cube(mi, ni, cube_k);
  if (db) p.c.double_buffer();
  if (l1_copies != copies) p.c.multi_buffer(Level::L1, l1_copies);
  if (o.stagger.value_or(cores && !naive)) p.c.stagger();
}

}  // namespace

namespace {
Matmul defined(const MatmulOptions& o, const ChipConfig& chip, const std::optional<tune::Tuned>& tuned);
}  // namespace

Matmul matmul(const MatmulOptions& options, const ChipConfig& chip) {
  check_chip(chip);  // a config changed in C++: its figures divide the schedule's sizes
  MatmulOptions o = options;
  const std::optional<tune::Tuned> tuned = take_tuned(o, chip);
  return with_tuned(tuned, [&] { return defined(o, chip, tuned); });
}

namespace {

// The schedule overrides of a problem of o.m x o.n x o.k in o.in, for `what` (matmul, or
// default_schedule of a Func): said in the options' terms, since the cube() directive would name its
// loops (mi, ni, kii) instead. A tile past its extent is one tile of the extent, whatever it is.
void check_overrides(std::string_view what, const MatmulOptions& o, const ChipConfig& chip) {
  for (auto [name, v] : {std::pair<const char*, int64_t>{"tm", o.tm}, {"tn", o.tn}, {"tk_l0", o.tk_l0}, {"tk_l1", o.tk_l1},
                         {"core_group", o.core_group}, {"l1_copies", o.l1_copies}})
    if (v < 0) user_error("{}: {} must be at least 1 (or 0 to let the schedule choose), got {}", what, name, v);
  const CubeFractal* frac = chip.fractal(o.in);
  if (!frac) return;
  for (auto [name, v, edge, extent] :
       {std::tuple<const char*, int64_t, int, int64_t>{"tm", o.tm, frac->m0, o.m}, {"tn", o.tn, frac->n0, o.n},
        {"tk_l0", o.tk_l0, frac->k0, o.k}, {"tk_l1", o.tk_l1, frac->k0, o.k}})
    if (v % edge && v < extent) {
      std::string flag = name;
      std::replace(flag.begin(), flag.end(), '_', '-');
      user_error("{}: {} {} is not a multiple of {}, the cube's fractal edge for {} (--{}; Python {}=)", what, name, v,
                 edge, dtype_name(o.in), flag, name);
    }
}

Matmul defined(const MatmulOptions& o, const ChipConfig& chip, const std::optional<tune::Tuned>& tuned) {
  if (o.m < 1 || o.n < 1 || o.k < 1) user_error("matmul: m, n and k must be at least 1 (got {}, {}, {})", o.m, o.n, o.k);
  if (o.batch < 0) user_error("matmul: the batch must be at least 1 (or 0 for none), got {}", o.batch);
  check_overrides("matmul", o, chip);
  check_epilogue(o);
  std::vector<int64_t> lead = o.batch ? std::vector<int64_t>{o.batch} : std::vector<int64_t>{};
  auto shape = [&](int64_t r, int64_t c) {
    std::vector<int64_t> s = lead;
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  Matmul mm{dsl::Input("A", o.in, o.transpose_a ? shape(o.k, o.m) : shape(o.m, o.k)),
            dsl::Input("B", o.in, o.transpose_b ? shape(o.n, o.k) : shape(o.k, o.n)), dsl::Func("C"), std::nullopt,
            dsl::Func("C")};
  const CubeFractal* frac = chip.fractal(o.in);
  DType acc = frac ? frac->accumulator : DType::f32;
  dsl::Var b("b"), m("m"), n("n");
  dsl::RDom k(0, o.k, "k");
  auto index = [&](dsl::Expr r, dsl::Expr c) {
    std::vector<dsl::Expr> i;
    if (o.batch) i.push_back(b);
    i.push_back(r);
    i.push_back(c);
    return i;
  };
  dsl::Expr a = mm.a.call(o.transpose_a ? index(k, m) : index(m, k));
  dsl::Expr bb = mm.b.call(o.transpose_b ? index(n, k) : index(k, n));
  dsl::Expr value = dsl::sum(dsl::cast(acc, a) * dsl::cast(acc, bb));
  if (o.out != acc && o.epilogue.empty()) value = dsl::cast(o.out, value);
  if (o.batch) mm.c(b, m, n) = value;
  else mm.c(m, n) = value;

  schedule_matmul({mm.c.schedule(), mm.a, mm.b, o.batch ? std::optional<dsl::Var>(b) : std::nullopt, m, n, k}, o, chip);
  mm.out = mm.c;
  if (!o.epilogue.empty()) {
    dsl::Func d("D");
    std::vector<dsl::Expr> args = o.batch ? std::vector<dsl::Expr>{b, m, n} : std::vector<dsl::Expr>{m, n};
    std::optional<dsl::Input> bias;
    if (has(o.epilogue, "bias")) bias = dsl::Input("bias", DType::f32, {o.n});
    dsl::FuncRef(d.impl, args) = epilogue_value(o, dsl::FuncRef(mm.c.impl, args), bias ? bias->call({n}) : dsl::Expr());
    d.epilogue_of(mm.c);
    mm.bias = bias, mm.out = d;
  }
  mm.tuned = tuned;
  return mm;
}

}  // namespace

Epilogue unfused_epilogue(const MatmulOptions& o, const ChipConfig&) {
  check_epilogue(o);
  std::vector<int64_t> shape = o.batch ? std::vector<int64_t>{o.batch, o.m, o.n} : std::vector<int64_t>{o.m, o.n};
  Epilogue e{{dsl::Input("C", DType::f32, shape)}, dsl::Func("D")};
  dsl::Var b("b"), m("m"), n("n");
  std::vector<dsl::Expr> args = o.batch ? std::vector<dsl::Expr>{b, m, n} : std::vector<dsl::Expr>{m, n};
  dsl::Expr bias;
  if (has(o.epilogue, "bias")) {
    e.inputs.push_back(dsl::Input("bias", DType::f32, {o.n}));
    bias = e.inputs.back().call({n});
  }
  dsl::FuncRef(e.out.impl, args) = epilogue_value(o, e.inputs[0].call(args), bias);
  e.out.cores({o.batch ? b : m}).double_buffer();
  return e;
}

dsl::Schedule default_schedule(const dsl::Func& f, const ChipConfig& chip, const MatmulOptions& options) {
  return default_schedule(f, chip, options, nullptr);
}

namespace {

// A Func that is no matmul takes only some of its overrides: the others are refused, not ignored
// (tk_l1=-5 on an elementwise Func returned its schedule without a word).
void refuse_matmul_overrides(const dsl::Func& f, const MatmulOptions& o, bool conv) {
  std::vector<std::string> given;
  for (auto [name, v] : {std::pair<const char*, int64_t>{"tm", o.tm}, {"tn", o.tn}, {"tk_l0", o.tk_l0},
                         {"tk_l1", o.tk_l1}, {"core_group", o.core_group}, {"l1_copies", conv ? 0 : o.l1_copies}})
    if (v) given.push_back(fmt::format("{}={}", name, v));
  if (o.stagger) given.push_back(fmt::format("stagger={}", *o.stagger));
  if (given.empty()) return;
  const std::string what = conv ? "is a convolution, whose default schedule takes l1_copies, double_buffer and use_cores"
                                : "is not a contraction: the vector kernels' schedule takes use_cores and double_buffer";
  user_error("default_schedule({}): {} {} only; {} {} matmul's", f.name(), f.name(), what, fmt::join(given, ", "),
             given.size() == 1 ? "is" : "are");
}

}  // namespace

dsl::Schedule default_schedule(const dsl::Func& f, const ChipConfig& chip, const MatmulOptions& options,
                               std::optional<tune::Tuned>* tuned) {
  if (!f.defined()) user_error("default_schedule({}): define {} first", f.name(), f.name());
  check_chip(chip);
  // An epilogue's schedule is its epilogue_of(): the vector schedule assigned over it dropped that,
  // and compiling then asked for the epilogue_of() the user had written.
  for (const dsl::Directive& d : f.impl->schedule)
    if (d.kind == dsl::Directive::Kind::EpilogueOf)
      user_error("default_schedule({}): {} is computed in {}'s epilogue ({}.{}); the default schedule is {}'s: "
                 "schedule {} (default_schedule({})) and keep {}'s as it is", f.name(), f.name(), d.func->name, f.name(),
                 d.text, d.func->name, d.func->name, d.func->name, f.name());
  bool naive = options.schedule == MatmulOptions::Schedule::Naive;
  dsl::Schedule s;
  if (sched::is_conv(f)) {
    refuse_matmul_overrides(f, options, true);
    Conv2dOptions o;
    o.schedule = naive ? Conv2dOptions::Schedule::Naive : Conv2dOptions::Schedule::Default;
    o.double_buffer = options.double_buffer, o.use_cores = options.use_cores, o.l1_copies = options.l1_copies;
    o.subsampled = sched::second_output_stride(f);  // its tiles start at the rows a second output keeps
    return conv_schedule(f, chip, o);
  }
  if (!sched::is_contraction(f)) {
    refuse_matmul_overrides(f, options, false);
    if (options.use_cores.value_or(!naive)) s.cores({dsl::Var(f.impl->args.front())});
    if (double_buffer_or_default(options.double_buffer, naive, chip)) s.double_buffer();
    return s;
  }
  sched::Contraction c = sched::recognise_contraction(f, chip);
  if (c.batch_vars.size() > 1)
    user_error("default_schedule({}): the default schedule takes at most one batch dimension, {} has {}; schedule it "
               "by hand (cores over the batch loops)", f.name(), f.name(), c.batch_vars.size());
  MatmulOptions o = options;
  o.m = c.m, o.n = c.n, o.k = c.k, o.batch = c.batch.empty() ? 0 : c.batch[0];
  o.in = c.in, o.out = c.out, o.transpose_a = c.a_transposed, o.transpose_b = c.b_transposed;
  o.epilogue.clear();
  check_overrides(fmt::format("default_schedule({})", f.name()), o, chip);
  std::optional<tune::Tuned> t = take_tuned(o, chip);  // the Func's own contraction, keyed as matmul's
  if (tuned) *tuned = t;
  dsl::Input a(c.a), b(c.b);
  std::optional<dsl::Var> batch;
  if (!c.batch_vars.empty()) batch = dsl::Var(c.batch_vars[0]);
  schedule_matmul({s, a, b, batch, dsl::Var(c.mv), dsl::Var(c.nv), dsl::RVar(c.kv)}, o, chip);
  return s;
}

}  // namespace cubekit::kernels
