#include "emulator/chip_config.h"

#include "emulator/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
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

namespace {

// Figures from ../shared/HARDWARE.md, "Per-chip parameters" (CANN platform ini Ascend910ProA.ini /
// Ascend910PremiumA.ini) and "Cube and vector" (Hot Chips 2019, ini [DtypeMKN]).
ChipConfig ascend910() {
  ChipConfig c;
  c.name = "ascend910";
  c.description = "Ascend 910 (dav-c100): 32 coupled AI cores, cube 16x16x16 fp16 per cycle";
  c.core_kind = "coupled";  // HARDWARE.md "Core organisation": cube and vector share one scalar unit
  c.cores = 32;             // ini: ai_core_cnt 32
  c.clock_mhz = 1000;       // ProA 1100 / PremiumA 1220 MHz; 1 GHz matches the 256 TFLOPS fp16 peak
  c.size[int(Space::L1)] = 1 << 20;     // ini: l1_size 1 MiB
  c.size[int(Space::L0A)] = 64 << 10;   // ini: l0_a_size 64 KiB
  c.size[int(Space::L0B)] = 64 << 10;   // ini: l0_b_size 64 KiB
  c.size[int(Space::L0C)] = 256 << 10;  // ini: l0_c_size 256 KiB
  c.size[int(Space::UB)] = 256 << 10;   // ini: ub_size 256 KiB
  c.align[int(Space::GM)] = 1;
  c.align[int(Space::L1)] = 32;   // HARDWARE.md "Alignment"
  c.align[int(Space::L0A)] = 512;
  c.align[int(Space::L0B)] = 512;
  c.align[int(Space::L0C)] = 64;
  c.align[int(Space::UB)] = 32;
  c.event_ids = 4;                // event ids 0-3 per pipe pair on the 910
  c.vector_repeat_bytes = 256;    // 128 fp16 lanes, 8 blocks of 32 B
  c.block_bytes = 32;
  c.max_repeat = 255;
  c.cube = {{DType::f16, DType::f32, 16, 16, 16},  // [DtypeMKN] fp16 16,16,16
            {DType::s8, DType::s32, 16, 32, 16}};  // int8 16,32,16
  // Timing. "910B2 ini" = HARDWARE.md's [AICoreMemoryRates] of Ascend910B2.ini (bytes/cycle/core,
  // the closest public figures; the 910's own ini has none). "msopdev" = the simulator config
  // example in HARDWARE.md. "assumed" = no public figure; chosen to be plausible, editable here.
  TimingConfig& t = c.timing;
  t.queue_depth = 32;                // assumed
  t.scalar_cycles = 1;               // DESIGN.md: scalar 1 cycle
  t.mte1_latency = 20;               // assumed
  t.cube_latency = 20;               // assumed
  t.vector_latency = 10;             // assumed
  t.l2_hit_latency = 241;            // msopdev: L2 read latency 241 cycles
  t.l2_miss_latency = 441;           // assumed: an L2 hit plus ~200 cycles of HBM access
  t.gm_write_latency = 96;           // msopdev: L2 write latency 96 cycles
  t.gm_read_l2_rate = 110;           // 910B2 ini: l2 110
  t.gm_read_hbm_rate = 32;           // 910B2 ini: ddr 32
  t.gm_write_rate = 64;              // 910B2 ini: ub->ddr 64, ub->l2 64
  t.l1_to_l0a_rate = 512;            // 910B2 ini: l1->l0a 512
  t.l1_to_l0b_rate = 256;            // 910B2 ini: l1->l0b 256
  t.l1_to_ub_rate = 128;             // 910B2 ini: l1->ub 128
  t.l0c_to_ub_rate = 256;            // 910B2 ini: l0c->ub 256
  t.l2_bytes = 32 << 20;             // 910 ini: 32 MiB L2
  t.l2_line_bytes = 512;             // msopdev: L2 line 512 B
  t.hbm_rate = 1000;                 // ~1 TB/s HBM2 at 1 GHz (seed article: "HBM2 bandwidth up to 1 TB/s")
  t.vector_simple_cycles = 1;        // HARDWARE.md: a conflict-free repeat ~ 1 cycle
  t.vector_reduce_cycles = 2;        // assumed: a tree over the repeat
  t.vector_complex_cycles = 4;       // assumed: exp ln sqrt rsqrt rec div
  t.ub_bank_groups = 16;             // HARDWARE.md: blk_stride 16 -> 8 cycles per repeat
  t.window_cycles = 1000;            // simulation parameter, not hardware
  t.l0c_to_gm_rate = 0;              // none: the 910's cores are coupled, L0C leaves through UB (mov_l0c_ub)
  t.l0c_to_l1_rate = 0;              // none, likewise
  return c;
}

// A strict reader: a missing or mistyped field is named, unknown fields are rejected (a typo in a
// field name must not silently keep the default).
class Reader {
 public:
  Reader(const json& j, std::string origin) : j_(j), origin_(std::move(origin)) {
    if (!j_.is_object()) user_error("{}: a chip config must be a JSON object", origin_);
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
  int64_t integer(const char* key, int64_t lo, int64_t hi, const char* what = "") {
    const json& v = sub(key);
    if (!v.is_number_integer())
      user_error("{}: chip config field '{}' must be a whole number{}, got {}", origin_, key, what, v.dump());
    int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
    if (x < lo || x > hi)
      user_error("{}: chip config field '{}' must be in {}..{}{}, got {}", origin_, key, lo, hi, what, v.dump());
    return x;
  }
  double positive_number(const char* key) {
    const json& v = sub(key);
    if (!v.is_number()) user_error("{}: chip config field '{}' must be a number, got {}", origin_, key, v.dump());
    double x = v.get<double>();
    if (!(x > 0) || !std::isfinite(x)) user_error("{}: chip config field '{}' must be positive, got {}", origin_, key, v.dump());
    return x;
  }

  // A rate of a path the chip may lack: 0 (also when absent) or a positive number.
  double path_rate(const char* key) {
    seen_.push_back(key);
    auto it = j_.find(key);
    if (it == j_.end()) return 0;
    if (!it->is_number() || !(it->get<double>() >= 0) || !std::isfinite(it->get<double>()))
      user_error("{}: chip config field '{}' must be 0 (no such path) or a positive number, got {}", origin_, key,
                 it->dump());
    return it->get<double>();
  }

  const json& sub(const char* key) {
    seen_.push_back(key);
    auto it = j_.find(key);
    if (it == j_.end()) user_error("{}: chip config has no field '{}'", origin_, key);
    return *it;
  }
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
  if (c.core_kind != "coupled")
    user_error("{}: core_kind '{}' is not modelled; only 'coupled' (cube and vector in one core) is", origin, c.core_kind);
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
  f("gm_read_l2_rate", t.gm_read_l2_rate);
  f("gm_read_hbm_rate", t.gm_read_hbm_rate);
  f("gm_write_rate", t.gm_write_rate);
  f("l1_to_l0a_rate", t.l1_to_l0a_rate);
  f("l1_to_l0b_rate", t.l1_to_l0b_rate);
  f("l1_to_ub_rate", t.l1_to_ub_rate);
  f("l0c_to_ub_rate", t.l0c_to_ub_rate);
  f("l2_bytes", t.l2_bytes);
  f("l2_line_bytes", t.l2_line_bytes);
  f("hbm_rate", t.hbm_rate);
  f("vector_simple_cycles", t.vector_simple_cycles);
  f("vector_reduce_cycles", t.vector_reduce_cycles);
  f("vector_complex_cycles", t.vector_complex_cycles);
  f("ub_bank_groups", t.ub_bank_groups);
  f("window_cycles", t.window_cycles);
}

// Rates of paths a chip may lack: 0 says it has none. Absent from a JSON config they are 0, so
// configs written before the FixPipe existed still load (as chips without one).
template <class F>
void for_each_path_rate(TimingConfig& t, F f) {
  f("l0c_to_gm_rate", t.l0c_to_gm_rate);
  f("l0c_to_l1_rate", t.l0c_to_l1_rate);
}

// What a chip can have, so that every figure the emulator computes from a config stays exact
// (cycle counts in 64 bits, no float-to-integer overflow) and a run fits in host memory. Buffers
// go from what one instruction needs to 4x the largest of any Ascend chip (HARDWARE.md: L1 1 MiB,
// L0A/L0B 64 KiB, L0C and UB 256 KiB), room to model a variant.
struct BufferLimit {
  int64_t min, max;
  const char* why;
};
constexpr BufferLimit kBufferLimits[kNumSpaces] = {
    {0, 0, ""},
    {512, 4 << 20, "at least one 512 B cube fractal; at most 4 MiB, 4x the Ascend 910's 1 MiB"},
    {512, 256 << 10, "at least one 512 B cube fractal; at most 256 KiB, 4x the Ascend 910's 64 KiB"},
    {512, 256 << 10, "at least one 512 B cube fractal; at most 256 KiB, 4x the Ascend 910's 64 KiB"},
    {1024, 1 << 20, "at least one 16x16 f32 accumulator fractal (1024 B); at most 1 MiB, 4x the Ascend 910's 256 KiB"},
    {256, 1 << 20, "at least one 256 B vector repeat; at most 1 MiB, 4x the Ascend 910's 256 KiB"},
};
// Rates are bytes per cycle (the ascend910's are 32..1000). Slower than 0.01 a single transfer of a
// big tensor would last beyond what the cycle counters hold; faster than 10^6 is no memory system.
constexpr double kMinRate = 0.01, kMaxRate = 1e6;
// Latencies and cycle counts per instruction, and the simulation window.
constexpr int64_t kMaxCycles = 1'000'000;

void validate_limits(const ChipConfig& c, const std::string& origin) {
  for (int s = 1; s < kNumSpaces; ++s) {
    const BufferLimit& l = kBufferLimits[s];
    if (c.size[s] < l.min || c.size[s] > l.max)
      user_error("{}: buffer {} is {} bytes, but a chip's {} holds {}..{} bytes ({})", origin, space_name(Space(s)),
                 c.size[s], space_name(Space(s)), l.min, l.max, l.why);
  }
  const std::string where = origin + " (timing)";
  TimingConfig t = c.timing;
  const int64_t line = t.l2_line_bytes;
  if (line & (line - 1)) user_error("{}: timing field 'l2_line_bytes' must be a power of two, got {}", where, line);
  for_each_timing_field(t, [&](const char* key, auto& v) {
    using T = std::remove_reference_t<decltype(v)>;
    if constexpr (std::is_floating_point_v<T>) {
      if (!(v >= kMinRate && v <= kMaxRate))
        user_error("{}: timing field '{}' must be in {}..{} bytes per cycle, got {} (real chips move 32..1000 bytes per "
                   "cycle; a slower rate makes one transfer outlast the cycle counters, a faster one is no chip)",
                   where, key, kMinRate, kMaxRate, v);
      return;
    }
    std::string_view k = key;
    int64_t lo = 1, hi = kMaxCycles;
    const char* why = " (cycles per instruction or per window; real chips need hundreds at most)";
    if (k == "queue_depth") hi = 1024, why = " (entries; the ascend910 has 32)";
    else if (k == "ub_bank_groups") hi = 64, why = " (a repeat reads at most 8 blocks; the ascend910 has 16 groups)";
    else if (k == "l2_line_bytes") lo = 32, hi = 65536, why = " (bytes: at least one 32 B block; the ascend910's is 512)";
    else if (k == "l2_bytes") lo = line, hi = int64_t(1) << 40, why = " (bytes: at least one line of l2_line_bytes)";
    else if (k == "window_cycles") hi = 1'000'000'000, why = " (cycles)";
    if (int64_t(v) < lo || int64_t(v) > hi)
      user_error("{}: timing field '{}' must be in {}..{}{}, got {}", where, key, lo, hi, why, v);
  });
  for_each_path_rate(t, [&](const char* key, double v) {
    if (v != 0 && !(v >= kMinRate && v <= kMaxRate))
      user_error("{}: timing field '{}' must be 0 (the chip has no such path) or in {}..{} bytes per cycle, got {}",
                 where, key, kMinRate, kMaxRate, v);
  });
}

json timing_to_json(TimingConfig t) {
  json j = json::object();
  for_each_timing_field(t, [&](const char* key, auto& v) { j[key] = v; });
  for_each_path_rate(t, [&](const char* key, double& v) { j[key] = v; });
  return j;
}

void timing_from_json(Reader& r, TimingConfig& t) {
  for_each_timing_field(t, [&](const char* key, auto& v) {
    using T = std::remove_reference_t<decltype(v)>;
    if constexpr (std::is_floating_point_v<T>) v = r.positive_number(key);
    else v = T(r.integer(key, 1, std::numeric_limits<T>::max()));
  });
  for_each_path_rate(t, [&](const char* key, double& v) { v = r.path_rate(key); });
}

}  // namespace

const std::vector<ChipConfig>& chip_presets() {
  static const std::vector<ChipConfig> presets = {ascend910()};
  return presets;
}

std::string chip_to_json(const ChipConfig& c, int indent) {
  json j;
  j["name"] = c.name;
  j["description"] = c.description;
  j["core_kind"] = c.core_kind;
  j["cores"] = c.cores;
  j["clock_mhz"] = c.clock_mhz;
  json buffers = json::object(), align = json::object();
  for (int s = 1; s < kNumSpaces; ++s) {
    buffers[std::string(space_name(Space(s)))] = c.size[s];
    align[std::string(space_name(Space(s)))] = c.align[s];
  }
  j["buffer_bytes"] = buffers;
  j["align_bytes"] = align;
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
  c.description = r.get<std::string>("description");
  c.core_kind = r.get<std::string>("core_kind");
  c.cores = int(r.integer("cores", 1, 4096));
  c.clock_mhz = r.positive_number("clock_mhz");
  {
    Reader t(r.sub("buffer_bytes"), origin + " (buffer_bytes)");
    for (int s = 1; s < kNumSpaces; ++s) {
      std::string key(space_name(Space(s)));
      const json& v = t.sub(key.c_str());
      if (v.is_number_integer() && v.get<int64_t>() <= 0)
        user_error("{}: buffer {} must be positive, got {}", t.origin(), key, v.dump());
      c.size[s] = t.integer(key.c_str(), 1, int64_t(1) << 40, " bytes");
    }
    t.finish();
  }
  {
    Reader t(r.sub("align_bytes"), origin + " (align_bytes)");
    for (int s = 1; s < kNumSpaces; ++s) {
      int64_t a = t.integer(std::string(space_name(Space(s))).c_str(), 1, 4096);
      if (a & (a - 1)) user_error("{}: alignment of {} must be a power of two, got {}", origin, space_name(Space(s)), a);
      c.align[s] = a;
    }
    t.finish();
  }
  c.align[int(Space::GM)] = 1;
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
    timing_from_json(t, c.timing);
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
    if (!in) user_error("cannot read chip config file '{}'", path);
    std::stringstream ss;
    ss << in.rdbuf();
    return chip_from_json(ss.str(), path);
  }
  std::string names;
  for (const ChipConfig& c : chip_presets()) names += (names.empty() ? "" : ", ") + c.name;
  user_error("unknown chip '{}': the presets are {} (see 'cubekit chips'), or give a path to a JSON chip config",
             name_or_path, names);
}

}  // namespace cubekit
