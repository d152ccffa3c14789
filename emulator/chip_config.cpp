#include "emulator/chip_config.h"
#include "emulator/chip_kinds.h"

#include "emulator/error.h"
#include "emulator/isa.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cubekit {

using nlohmann::json;

std::string_view space_name(Space s) {
  static constexpr std::string_view names[] = {"gm", "l1", "l0a", "l0b", "l0c", "ub"};
  return names[int(s)];
}

const CubeFractal* ChipConfig::fractal(DType input) const {
  for (const CubeFractal& f : cube)
    if (f.input == input) return &f;
  return nullptr;
}

std::string_view core_kind_name(CoreKind k) {
  static constexpr std::string_view names[] = {"coupled", "aic", "aiv"};
  return names[int(k)];
}

std::string path_text(Space src, Space dst) { return fmt::format("{}->{}", space_name(src), space_name(dst)); }

const DataPathRate* CoreConfig::path(Space src, Space dst) const {
  for (const DataPathRate& p : paths)
    if (p.src == src && p.dst == dst) return &p;
  return nullptr;
}

const CoreConfig* ChipConfig::kind(CoreKind k) const {
  for (const CoreConfig& c : kinds)
    if (c.kind == k) return &c;
  return nullptr;
}

CoreConfig* ChipConfig::kind(CoreKind k) { return const_cast<CoreConfig*>(std::as_const(*this).kind(k)); }

const CoreConfig* ChipConfig::kind_with(Space s) const {
  for (const CoreConfig& c : kinds)
    if (s != Space::GM && c.has_buffer(s)) return &c;
  return nullptr;
}

int ChipConfig::count(CoreKind k) const {
  if (!kind(k)) return 0;
  return k == CoreKind::Aiv ? cores * vector_cores_per_cube : cores;
}

int64_t ChipConfig::buffer_size(Space s) const {
  const CoreConfig* k = kind_with(s);
  return k ? k->size[int(s)] : 0;
}

int64_t ChipConfig::alignment(Space s) const {
  const CoreConfig* k = kind_with(s);
  return k ? k->align[int(s)] : 1;
}

void ChipConfig::set_buffer_size(Space s, int64_t bytes) {
  for (CoreConfig& k : kinds)
    if (k.has_buffer(s)) k.size[int(s)] = bytes;
}

void ChipConfig::set_alignment(Space s, int64_t bytes) {
  for (CoreConfig& k : kinds)
    if (k.has_buffer(s)) k.align[int(s)] = bytes;
}

namespace {

// A strict reader: a missing or mistyped field is named, unknown fields are rejected (a typo in a
// field name must not silently keep the default).
class Reader {
 public:
  Reader(const json& j, std::string origin) : j_(j), origin_(std::move(origin)) {
    if (!j_.is_object())
      user_error("{}: a chip config must be a JSON object{}", origin_,
                 j_.is_array() ? ", not a list (`cubekit chips --json` lists them all: save one with `cubekit chips NAME "
                                 "--json > FILE`)"
                               : "");
  }
  template <class T>
  T get(const char* key) {
    seen_.push_back(key);
    auto it = j_.find(key);
    if (it == j_.end()) user_error("{}: chip config has no field '{}'", origin_, key);
    try {
      return it->get<T>();
    } catch (const json::exception&) {
      user_error("{}: chip config field '{}' has the wrong type ({})", origin_, key, it->dump());
    }
  }
  // A whole number in [lo, hi]; a fraction or a value out of range is named with the value given.
  // `noun`: what the message calls the field (check_chip says "timing field" of the timing's).
  int64_t integer(const char* key, int64_t lo, int64_t hi, const char* what = "", const char* noun = "chip config field") {
    const json& v = sub(key);
    if (!v.is_number_integer())
      user_error("{}: {} '{}' must be a whole number{}, got {}", origin_, noun, key, what, v.dump());
    int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
    if (x < lo || x > hi) user_error("{}: {} '{}' must be in {}..{}{}, got {}", origin_, noun, key, lo, hi, what, v.dump());
    return x;
  }
  double positive_number(const char* key) {
    const json& v = sub(key);
    if (!v.is_number()) user_error("{}: chip config field '{}' must be a number, got {}", origin_, key, v.dump());
    double x = v.get<double>();
    if (!(x > 0) || !std::isfinite(x)) user_error("{}: chip config field '{}' must be positive, got {}", origin_, key, v.dump());
    return x;
  }

  bool has(const char* key) const { return j_.contains(key); }
  const json& sub(const char* key) {
    seen_.push_back(key);
    auto it = j_.find(key);
    if (it == j_.end()) user_error("{}: chip config has no field '{}'", origin_, key);
    return *it;
  }
  bool has(const std::string& key) const { return j_.find(key) != j_.end(); }
  void finish() {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (std::find(seen_.begin(), seen_.end(), it.key()) == seen_.end())
        user_error("{}: chip config has an unknown field '{}'", origin_, it.key());
  }
  const std::string& origin() const { return origin_; }

 private:
  const json& j_;
  std::string origin_;
  std::vector<std::string> seen_;
};

DType dtype_field(const std::string& s, const std::string& where) {
  auto t = parse_dtype(s);
  if (!t) user_error("{}: '{}' is not a dtype ({})", where, s, dtype_list());
  return *t;
}

// What the emulator's ISA fixes: a config may not change it (the fields are in the JSON so that a
// config documents the whole chip).
constexpr int kVectorRepeatBytes = 256, kBlockBytes = 32, kMaxRepeat = 255;

void validate(const ChipConfig& c, const std::string& origin) {
  validate_kinds(c, origin);
  auto fixed = [&](const char* key, int got, int want) {
    if (got != want)
      user_error("{}: chip config field '{}' is {}, but the ISA cubekit models fixes it at {}", origin, key, got, want);
  };
  fixed("vector_repeat_bytes", c.vector_repeat_bytes, kVectorRepeatBytes);
  fixed("block_bytes", c.block_bytes, kBlockBytes);
  fixed("max_repeat", c.max_repeat, kMaxRepeat);
  for (size_t i = 0; i < c.cube.size(); ++i) {
    const CubeFractal& f = c.cube[i];
    bool s8 = f.input == DType::s8, floats = f.input == DType::f16 || f.input == DType::bf16;
    if (!floats && !s8)
      user_error("{}: cube input '{}' is not modelled; mmad takes f16, bf16 or s8", origin, dtype_name(f.input));
    DType acc = floats ? DType::f32 : DType::s32;
    if (f.accumulator != acc)
      user_error("{}: cube accumulator for {} is '{}', but mmad accumulates {} inputs in {}", origin,
                 dtype_name(f.input), dtype_name(f.accumulator), dtype_name(f.input), dtype_name(acc));
    int k0 = 32 / dtype_size(f.input);
    if (f.m0 != 16 || f.n0 != 16 || f.k0 != k0)
      user_error("{}: cube fractal for {} is m0 {} k0 {} n0 {}, but the emulator's fractals are 512 B: m0 16, k0 {}, "
                 "n0 16", origin, dtype_name(f.input), f.m0, f.k0, f.n0, k0);
    for (size_t j = 0; j < i; ++j)
      if (c.cube[j].input == f.input) user_error("{}: the cube lists {} twice", origin, dtype_name(f.input));
  }
  const bool cube_cores = std::any_of(c.kinds.begin(), c.kinds.end(), [](const CoreConfig& k) { return k.has_pipe(Pipe::M); });
  if (cube_cores && c.cube.empty())
    user_error("{}: the chip has cube cores (pipe M) but 'cube' lists nothing they multiply; list each input type, "
               "e.g. {{\"input\": \"f16\", \"accumulator\": \"f32\", \"m0\": 16, \"k0\": 16, \"n0\": 16}}",
               origin);
}

// The timing fields, listed once for both directions of the JSON mapping.
template <class F>
void for_each_timing_field(TimingConfig& t, F f) {
  f("queue_depth", t.queue_depth);
  f("scalar_cycles", t.scalar_cycles);
  f("mte1_latency", t.mte1_latency);
  f("cube_latency", t.cube_latency);
  f("vector_latency", t.vector_latency);
  f("l2_hit_latency", t.l2_hit_latency);
  f("l2_miss_latency", t.l2_miss_latency);
  f("gm_write_latency", t.gm_write_latency);
  f("gm_read_hbm_rate", t.gm_read_hbm_rate);
  f("l2_bytes", t.l2_bytes);
  f("l2_line_bytes", t.l2_line_bytes);
  f("hbm_rate", t.hbm_rate);
  f("vector_simple_cycles", t.vector_simple_cycles);
  f("vector_reduce_cycles", t.vector_reduce_cycles);
  f("vector_complex_cycles", t.vector_complex_cycles);
  f("ub_bank_groups", t.ub_bank_groups);
  f("window_cycles", t.window_cycles);
  f("gm_transfer_overhead_cycles", t.gm_transfer_overhead_cycles);
  f("gm_aligned_bytes", t.gm_aligned_bytes);
  f("gm_misaligned_efficiency", t.gm_misaligned_efficiency);
  f("hbm_efficiency", t.hbm_efficiency);
  f("hbm_turnaround_cycles", t.hbm_turnaround_cycles);
  f("hbm_page_bytes", t.hbm_page_bytes);
  f("hbm_scattered_efficiency", t.hbm_scattered_efficiency);
  f("launch_cycles", t.launch_cycles);
  f("block_dispatch_cycles", t.block_dispatch_cycles);
  f("core_start_cycles", t.core_start_cycles);
  f("l2_rate", t.l2_rate);
  f("l2_replacement_candidates", t.l2_replacement_candidates);
  f("cube_efficiency", t.cube_efficiency);
  f("vector_efficiency", t.vector_efficiency);
}

// Timing fields that are a share of a peak (0.01..1) rather than a rate, and whole-number fields
// that may be 0 (an overhead a config can switch off).
bool is_efficiency(std::string_view key) { return key.ends_with("_efficiency"); }
bool may_be_zero(std::string_view key) {
  return key == "gm_transfer_overhead_cycles" || key == "hbm_turnaround_cycles" || key == "launch_cycles" ||
         key == "block_dispatch_cycles" || key == "core_start_cycles";
}

// What a chip can have, so that every figure the emulator computes from a config stays exact
// (cycle counts in 64 bits, no float-to-integer overflow) and a run fits in host memory. Buffers
// go from what one instruction needs to 4x the largest of any Ascend chip (HARDWARE.md: L1 1 MiB,
// L0A/L0B 64 KiB, L0C and UB 256 KiB), room to model a variant.
struct BufferLimit {
  int64_t min, max;
  const char* why;
  // The ISA steps through the buffer in units of this many bytes (32 B blocks, 512 B fractals, 64 B
  // accumulator rows), so a coarser alignment would make its own instructions misaligned.
  int64_t max_align;
  const char* align_why;
};
constexpr BufferLimit kBufferLimits[kNumSpaces] = {
    {0, 0, "", 0, ""},
    {512, 4 << 20, "at least one 512 B cube fractal; at most 4 MiB, 4x the Ascend 910's 1 MiB", 32,
     "the MTEs move 32 B blocks into and out of it"},
    {512, 256 << 10, "at least one 512 B cube fractal; at most 256 KiB, 4x the Ascend 910's 64 KiB", 512,
     "load2d and load3d fill it 512 B fractal by fractal"},
    {512, 256 << 10, "at least one 512 B cube fractal; at most 256 KiB, 4x the Ascend 910's 64 KiB", 512,
     "load2d and load3d fill it 512 B fractal by fractal"},
    {1024, 1 << 20, "at least one 16x16 f32 accumulator fractal (1024 B); at most 1 MiB, 4x the Ascend 910's 256 KiB",
     64, "its accumulators are read out 16 f32 (64 B) per row"},
    {256, 1 << 20, "at least one 256 B vector repeat; at most 1 MiB, 4x the Ascend 910's 256 KiB", 32,
     "the vector unit addresses it in 32 B blocks"},
};
// Rates are bytes per cycle (the ascend910's are 32..1000). Slower than 0.01 a single transfer of a
// big tensor would last beyond what the cycle counters hold; faster than 10^6 is no memory system.
constexpr double kMinRate = 0.01, kMaxRate = 1e6;
// An efficiency divides a rate: at least 0.01 keeps it within the rates' range.
constexpr double kMinEfficiency = 0.01;
// Latencies and cycle counts per instruction, and the simulation window.
constexpr int64_t kMaxCycles = 1'000'000;

// The range of an integer timing field, and what it counts: one range, whether the JSON reader or
// check_chip finds the value outside it (the reader said 1..2147483647 of queue_depth, check_chip
// 1..1024). `line`: the chip's l2_line_bytes (l2_bytes holds at least one line).
struct TimingRange {
  int64_t lo, hi;
  const char* why;
};
TimingRange timing_range(std::string_view k, int64_t line) {
  TimingRange r{may_be_zero(k) ? 0 : 1, kMaxCycles, " (cycles per instruction or per window; real chips need hundreds at most)"};
  if (k == "queue_depth") r = {1, 1024, " (entries; the ascend910 has 32)"};
  else if (k == "ub_bank_groups") r = {1, 64, " (a repeat reads at most 8 blocks; the ascend910 has 16 groups)"};
  else if (k == "l2_line_bytes") r = {32, 65536, " (bytes: at least one 32 B block; the ascend910's is 512)"};
  else if (k == "l2_bytes") r = {line, int64_t(1) << 40, " (bytes: at least one line of l2_line_bytes)"};
  else if (k == "window_cycles") r.hi = 1'000'000'000, r.why = " (cycles)";
  else if (k == "gm_aligned_bytes") r = {32, 65536, " (bytes: at least one 32 B block; the ascend910's is 512)"};
  else if (k == "hbm_page_bytes") r = {32, 65536, " (bytes: at least one 32 B block; the presets' is 1024)"};
  else if (k == "l2_replacement_candidates") r = {1, 64, " (lines compared per eviction: 1 is random, more approach LRU)"};
  return r;
}

void validate_limits(const ChipConfig& c, const std::string& origin) {
  // The counts the JSON reader bounds, for a config built in C++ (check_chip) too.
  auto count = [&](const char* key, int v, int lo, int hi, const char* what) {
    if (v < lo || v > hi) user_error("{}: chip config field '{}' must be in {}..{}{}, got {}", origin, key, lo, hi, what, v);
  };
  count("cores", c.cores, 1, 4096, "");
  count("vector_cores_per_cube", c.vector_cores_per_cube, 0, 8, " (0 on a coupled chip)");
  count("event_ids", c.event_ids, 1, 16, " (the ISA's event operand takes 0..15)");
  // Real AI Cores run at 1000..1850 MHz; the bounds keep every figure derived from it (us, TFLOPS) finite.
  if (!(c.clock_mhz >= 1 && c.clock_mhz <= 100000))
    user_error("{}: chip config field 'clock_mhz' must be in 1..100000 (MHz; the presets run at 1000 to 1800), got {}",
               origin, c.clock_mhz);
  const int cross = c.timing.cross_core_latency;
  if (c.split() && (cross < 1 || cross > kMaxCycles))
    user_error("{} (timing): timing field 'cross_core_latency' must be in 1..{} (cycles from a set_cross to the other "
               "cores' counters), got {}", origin, kMaxCycles, cross);
  if (!c.split() && cross != 0)
    user_error("{} (timing): timing field 'cross_core_latency' is {}, but a coupled chip has no cross-core flags: it "
               "must be 0", origin, cross);
  for (const CoreConfig& k : c.kinds) {
    for (int s = 1; s < kNumSpaces; ++s) {
      const BufferLimit& l = kBufferLimits[s];
      if (k.size[s] == 0) continue;  // the kind has no such buffer
      if (k.size[s] < l.min || k.size[s] > l.max)
        user_error("{}: buffer {} is {} bytes, but a chip's {} holds {}..{} bytes ({}; kind {})", origin,
                   space_name(Space(s)), k.size[s], space_name(Space(s)), l.min, l.max, l.why, core_kind_name(k.kind));
      int64_t a = k.align[s];
      if (a < 1 || a > l.max_align || (a & (a - 1)))
        user_error("{}: alignment of {} (kind {}) must be a power of two in 1..{} ({}, so a coarser alignment "
                   "would misalign the ISA's own accesses), got {}",
                   origin, space_name(Space(s)), core_kind_name(k.kind), l.max_align, l.align_why, a);
    }
    for (const DataPathRate& p : k.paths)
      if (!(p.rate >= kMinRate && p.rate <= kMaxRate))
        user_error("{}: kind {}, path {}: rate must be in {}..{} bytes per cycle, got {} (real chips move 32..1000 "
                   "bytes per cycle; a slower rate makes one transfer outlast the cycle counters, a faster one is no "
                   "chip)", origin, core_kind_name(k.kind), path_text(p.src, p.dst), kMinRate, kMaxRate, p.rate);
  }
  const std::string where = origin + " (timing)";
  TimingConfig t = c.timing;
  const int64_t line = t.l2_line_bytes;
  if (line & (line - 1)) user_error("{}: timing field 'l2_line_bytes' must be a power of two, got {}", where, line);
  for_each_timing_field(t, [&](const char* key, auto& v) {
    using T = std::remove_reference_t<decltype(v)>;
    if constexpr (std::is_floating_point_v<T>) {
      if (is_efficiency(key)) {
        if (!(v >= kMinEfficiency && v <= 1))
          user_error("{}: timing field '{}' must be in {}..1 (a share of the peak rate), got {}", where, key,
                     kMinEfficiency, v);
        return;
      }
      if (!(v >= kMinRate && v <= kMaxRate))
        user_error("{}: timing field '{}' must be in {}..{} bytes per cycle, got {} (real chips move 32..1000 bytes per "
                   "cycle; a slower rate makes one transfer outlast the cycle counters, a faster one is no chip)",
                   where, key, kMinRate, kMaxRate, v);
      return;
    }
    const TimingRange r = timing_range(key, line);
    if (int64_t(v) < r.lo || int64_t(v) > r.hi)
      user_error("{}: timing field '{}' must be in {}..{}{}, got {}", where, key, r.lo, r.hi, r.why, v);
  });
}

json timing_to_json(TimingConfig t) {
  json j = json::object();
  for_each_timing_field(t, [&](const char* key, auto& v) { j[key] = v; });
  if (t.cross_core_latency) j["cross_core_latency"] = t.cross_core_latency;  // split chips only
  return j;
}

void timing_from_json(Reader& r, TimingConfig& t, bool split) {
  for_each_timing_field(t, [&](const char* key, auto& v) {
    using T = std::remove_reference_t<decltype(v)>;
    if constexpr (std::is_floating_point_v<T>) v = r.positive_number(key);
    else {
      const TimingRange range = timing_range(key, 32);  // l2_bytes' bound on its line is checked once both are read
      v = T(r.integer(key, range.lo, std::min<int64_t>(range.hi, std::numeric_limits<T>::max()), range.why, "timing field"));
    }
  });
  // Required on a split chip; elsewhere read when given, for validate_limits to say it must be 0.
  if (split || r.has("cross_core_latency"))
    t.cross_core_latency = int(r.integer("cross_core_latency", split ? 1 : 0, kMaxCycles, " (cycles)"));
}

}  // namespace

namespace {

json kind_to_json(const CoreConfig& k) {
  json j;
  j["kind"] = core_kind_name(k.kind);
  json pipes = json::array();
  for (int p = 0; p < kNumPipes; ++p)
    if (k.has_pipe(Pipe(p))) pipes.push_back(pipe_name(Pipe(p)));
  j["pipes"] = pipes;
  json buffers = json::object(), align = json::object();
  for (int s = 1; s < kNumSpaces; ++s) {
    if (!k.has_buffer(Space(s))) continue;
    buffers[std::string(space_name(Space(s)))] = k.size[s];
    align[std::string(space_name(Space(s)))] = k.align[s];
  }
  j["buffer_bytes"] = buffers;
  j["align_bytes"] = align;
  json paths = json::array();
  for (const DataPathRate& p : k.paths)
    paths.push_back({{"src", space_name(p.src)}, {"dst", space_name(p.dst)}, {"rate", p.rate}});
  j["paths"] = paths;
  return j;
}

std::optional<Space> space_named(std::string_view n) {
  for (int s = 0; s < kNumSpaces; ++s)
    if (space_name(Space(s)) == n) return Space(s);
  return std::nullopt;
}

Space space_field(Reader& r, const char* key) {
  std::string n = r.get<std::string>(key);
  auto s = space_named(n);
  if (!s) user_error("{}: '{}' of a path is '{}', not one of gm l1 l0a l0b l0c ub", r.origin(), key, n);
  return *s;
}

CoreConfig kind_from_json(const json& j, const std::string& origin) {
  Reader r(j, origin + " (kinds)");
  CoreConfig k;
  std::string name = r.get<std::string>("kind");
  int id = 0;
  while (id < kNumCoreKinds && core_kind_name(CoreKind(id)) != name) ++id;
  if (id == kNumCoreKinds)
    user_error("{} (kinds): kind '{}' is not modelled; the kinds are 'coupled' (cube and vector in one core), 'aic' "
               "(cube cores) and 'aiv' (vector cores)", origin, name);
  k.kind = CoreKind(id);
  const std::string where = fmt::format("{} (kind {})", origin, name);
  Reader kr(j, where);
  kr.sub("kind");
  const json& pipes = kr.sub("pipes");
  if (!pipes.is_array()) user_error("{}: 'pipes' must be an array of pipe names", where);
  for (const json& p : pipes) {
    int id = 0;
    while (id < kNumPipes && !(p.is_string() && pipe_name(Pipe(id)) == p.get<std::string>())) ++id;
    if (id == kNumPipes) user_error("{}: {} is not a pipe (S MTE1 MTE2 MTE3 M V FIX)", where, p.dump());
    if (k.pipes >> id & 1) user_error("{}: pipe {} is listed twice", where, p.dump());
    k.pipes |= 1u << id;
  }
  {
    Reader b(kr.sub("buffer_bytes"), fmt::format("{} (kind {}, buffer_bytes)", origin, name));
    Reader a(kr.sub("align_bytes"), fmt::format("{} (kind {}, align_bytes)", origin, name));
    for (int s = 1; s < kNumSpaces; ++s) {
      std::string key(space_name(Space(s)));
      bool sized = b.has(key), aligned = a.has(key);
      if (sized != aligned)
        user_error("{}: buffer {} has {} but no {}: give both or neither", where, key, sized ? "a size" : "an alignment",
                   sized ? "alignment" : "size");
      if (!sized) continue;
      const json& v = b.sub(key.c_str());
      if (v.is_number_integer() && v.get<int64_t>() <= 0)
        user_error("{}: buffer {} must be positive, got {}", b.origin(), key, v.dump());
      k.size[s] = b.integer(key.c_str(), 1, int64_t(1) << 40, " bytes");
      k.align[s] = a.integer(key.c_str(), 1, 4096);
      if (k.align[s] & (k.align[s] - 1))
        user_error("{}: alignment of {} must be a power of two, got {}", where, key, k.align[s]);
    }
    b.finish();
    a.finish();
  }
  const json& paths = kr.sub("paths");
  if (!paths.is_array()) user_error("{}: 'paths' must be an array of {{\"src\", \"dst\", \"rate\"}}", where);
  for (const json& pj : paths) {
    Reader pr(pj, fmt::format("{} (kind {}, paths)", origin, name));
    DataPathRate p;
    p.src = space_field(pr, "src");
    p.dst = space_field(pr, "dst");
    Reader named(pj, fmt::format("{}: kind {}, path {}", origin, name, path_text(p.src, p.dst)));
    named.sub("src"), named.sub("dst");
    if (!named.has("rate"))
      user_error("{}: kind {}, path {} has no 'rate': every data path needs its rate in bytes per cycle (cubekit has no "
                 "default rate)", origin, name, path_text(p.src, p.dst));
    p.rate = named.positive_number("rate");
    named.finish();
    k.paths.push_back(p);
  }
  kr.finish();
  return k;
}

}  // namespace

std::string chip_to_json(const ChipConfig& c, int indent) {
  json j;
  j["name"] = c.name;
  j["description"] = c.description;
  j["cores"] = c.cores;
  j["vector_cores_per_cube"] = c.vector_cores_per_cube;
  j["clock_mhz"] = c.clock_mhz;
  json kinds = json::array();
  for (const CoreConfig& k : c.kinds) kinds.push_back(kind_to_json(k));
  j["kinds"] = kinds;
  j["event_ids"] = c.event_ids;
  j["vector_repeat_bytes"] = c.vector_repeat_bytes;
  j["block_bytes"] = c.block_bytes;
  j["max_repeat"] = c.max_repeat;
  json cube = json::array();
  for (const CubeFractal& f : c.cube)
    cube.push_back({{"input", dtype_name(f.input)}, {"accumulator", dtype_name(f.accumulator)},
                    {"m0", f.m0}, {"k0", f.k0}, {"n0", f.n0}});
  j["cube"] = cube;
  j["timing"] = timing_to_json(c.timing);
  return j.dump(indent);
}

ChipConfig chip_from_json(std::string_view text, std::string_view origin_view) {
  std::string origin(origin_view);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    user_error("{}: not valid JSON: {}", origin, e.what());
  } catch (const json::exception& e) {  // e.g. 1e999: valid JSON syntax, but no double holds it
    user_error("{}: not valid JSON: a number is out of range ({}); chip figures are far smaller", origin, e.what());
  }
  Reader r(j, origin);
  ChipConfig c;
  c.name = r.get<std::string>("name");
  if (c.name.empty()) user_error("{}: 'name' is empty; name the chip (every report says which chip it ran on)", origin);
  c.description = r.get<std::string>("description");
  c.cores = int(r.integer("cores", 1, 4096));
  c.vector_cores_per_cube = int(r.integer("vector_cores_per_cube", 0, 8, " (0 on a coupled chip)"));
  c.clock_mhz = r.positive_number("clock_mhz");
  const json& kinds = r.sub("kinds");
  if (!kinds.is_array()) user_error("{}: chip config field 'kinds' must be an array of core kinds", origin);
  for (const json& k : kinds) c.kinds.push_back(kind_from_json(k, origin));
  c.event_ids = int(r.integer("event_ids", 1, 16, " (the ISA's event operand takes 0..15)"));
  c.vector_repeat_bytes = int(r.integer("vector_repeat_bytes", 1, 1 << 20));
  c.block_bytes = int(r.integer("block_bytes", 1, 1 << 20));
  c.max_repeat = int(r.integer("max_repeat", 1, 1 << 20));
  const json& cube = r.sub("cube");
  if (!cube.is_array()) user_error("{}: chip config field 'cube' must be an array", origin);
  for (const json& f : cube) {
    Reader fr(f, origin + " (cube)");
    CubeFractal cf;
    cf.input = dtype_field(fr.get<std::string>("input"), origin);
    cf.accumulator = dtype_field(fr.get<std::string>("accumulator"), origin);
    cf.m0 = int(fr.integer("m0", 1, 1024));
    cf.k0 = int(fr.integer("k0", 1, 1024));
    cf.n0 = int(fr.integer("n0", 1, 1024));
    fr.finish();
    c.cube.push_back(cf);
  }
  {
    Reader t(r.sub("timing"), origin + " (timing)");
    timing_from_json(t, c.timing, c.split());
    t.finish();
  }
  r.finish();
  validate(c, origin);
  validate_limits(c, origin);
  return c;
}

void check_chip(const ChipConfig& chip) {
  std::string origin = fmt::format("chip '{}'", chip.name);
  validate(chip, origin);
  validate_limits(chip, origin);
}

ChipConfig load_chip(std::string_view name_or_path) {
  for (const ChipConfig& c : chip_presets())
    if (c.name == name_or_path) return c;
  std::string path(name_or_path);
  std::error_code unreadable;  // e.g. a name longer than a path can be: then it is no file
  if (path.ends_with(".json") || std::filesystem::exists(path, unreadable)) {
    std::ifstream in(path);
    if (!in || !std::filesystem::is_regular_file(path, unreadable))
      user_error("cannot read chip config file '{}': {}", path, unreadable_reason(path));
    std::stringstream ss;
    ss << in.rdbuf();
    ChipConfig c = chip_from_json(ss.str(), path);
    // A preset edited under its own name (`cubekit chips ascend910 --json > my.json`, then changed)
    // is no longer that preset: reports and messages said "ascend910" of a chip that lacked what
    // ascend910 has.
    for (const ChipConfig& p : chip_presets())
      if (p.name == c.name && chip_to_json(p) != chip_to_json(c))
        c.name = fmt::format("{} (edited: {})", c.name, std::filesystem::path(path).filename().string());
    return c;
  }
  std::string names;
  for (const ChipConfig& c : chip_presets()) names += (names.empty() ? "" : ", ") + c.name;
  user_error("unknown chip '{}': the presets are {} (see 'cubekit chips'), or give a path to a JSON chip config",
             name_or_path, names);
}

}  // namespace cubekit
