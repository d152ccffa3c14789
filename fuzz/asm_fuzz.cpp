// Fuzz target: program text -> the assembler -> the emulator, as `cubekit run PROGRAM.s` does, on
// the ascend910 preset with a bounded budget.
//
// Checks, besides "no crash, no hang, only user errors": an accepted program prints to text that
// parses back to the same program (print_program is a fixed point after one round), and running it
// -- in program order (`--in-order`), then with the timing model with and without data and checks
// -- ends in diagnostics at worst, and the reports of both print.
//
// A first line `#! --cores N` (a comment to the assembler) launches N blocks instead of the
// program's .block_dim, as `cubekit run --cores N` does (no other check stands between the two);
// `#! --chip NAME` (on the same line, either order) runs it on that preset instead of ascend910,
// so that the split chips' cores, cross-core flags and paths are fuzzed too.
//
// Budget: kStepsPerInput S instructions over all blocks (each block gets an equal share, at least
// one), so that a program's block count cannot multiply the work; programs whose GM tensors need
// more than kMaxGmBytes of host memory are skipped (a legal program may declare up to 16 GiB).
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/memory.h"
#include "emulator/program.h"
#include "emulator/simulator.h"
#include "fuzz/fuzz_target.h"

#include <algorithm>
#include <charconv>
#include <climits>

namespace {

using namespace cubekit;

constexpr int64_t kStepsPerInput = 5'000;
constexpr int64_t kMaxGmBytes = int64_t(64) << 20;

void check_round_trip(const Program& p) {
  std::string printed = print_program(p);
  std::string again;
  bool ok = fuzz::accepted([&] { again = print_program(parse_program(printed, "printed.s")); });
  if (!ok) fuzz::finding("the printed form of an accepted program does not parse", printed);
  if (again != printed) fuzz::finding("print -> parse -> print changed the program", printed + "\n---- became\n" + again);
}

// The options of a first line `#! --cores N --chip NAME` (each optional, either order): N (0: the
// program's .block_dim) and the preset; false when the line is not one `cubekit run` accepts.
bool options_line(std::string_view text, int64_t& cores, const ChipConfig*& chip) {
  cores = 0;
  chip = &chip_presets().at(0);
  if (!text.starts_with("#! ")) return true;
  std::string_view line = text.substr(3, text.find('\n') == std::string_view::npos ? std::string_view::npos : text.find('\n') - 3);
  std::vector<std::string_view> words;
  for (size_t at = 0; at < line.size();) {
    size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    if (end > at) words.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  for (size_t i = 0; i + 1 < words.size(); i += 2) {
    if (words[i] == "--cores") {
      std::string_view n = words[i + 1];
      auto [end, error] = std::from_chars(n.data(), n.data() + n.size(), cores);
      if (error != std::errc() || end != n.data() + n.size() || cores < 0 || cores > INT32_MAX) return false;
    } else if (words[i] == "--chip") {
      auto it = std::find_if(chip_presets().begin(), chip_presets().end(), [&](const ChipConfig& c) { return c.name == words[i + 1]; });
      if (it == chip_presets().end()) return false;  // an unknown chip: a user error of load_chip
      chip = &*it;
    } else {
      return true;  // not an option line: a comment like any other
    }
  }
  return words.size() % 2 == 0;
}

void run(const Program& p, int cores, const ChipConfig& chip) {
  int64_t gm_bytes = 0;
  for (const TensorDecl& t : p.tensors) gm_bytes += t.bytes();  // each is at most 16 GiB: no overflow
  if (gm_bytes > kMaxGmBytes) return;
  const int blocks = cores > 0 ? cores : p.block_dim;
  // The target's budget, not a bug: every block allocates and clears a core's buffers, so a launch
  // of 65535 one-instruction blocks takes about 100 s of host time (the emulator's speed, issue 14).
  if (blocks > 1024) return;
  const int64_t steps = std::max<int64_t>(1, kStepsPerInput / std::max(1, blocks));

  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  RunResult in_order = run_in_order(chip, p, gm, {.cores = cores, .max_steps = steps});
  for (const Diagnostic& d : in_order.diagnostics) format_diagnostic(p, d, "fuzz.s");

  for (bool timing_only : {false, true}) {
    GlobalMemory g = GlobalMemory::for_program(p);
    g.fill_inputs(1);
    SimResult r = simulate(chip, p, g, {.blocks = cores, .timing_only = timing_only, .checks = !timing_only, .threads = 1, .max_steps = steps});
    report_text(r.report, p, "fuzz.s");  // what `cubekit run` prints, and its --json
    report_json(r.report, p, "fuzz.s");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  Program program;
  if (!fuzz::accepted([&] { program = parse_program(text, "fuzz.s"); })) return 0;
  check_round_trip(program);
  int64_t cores = 0;
  const ChipConfig* chip = nullptr;
  if (!options_line(text, cores, chip)) return 0;
  fuzz::accepted([&] { run(program, int(cores), *chip); });
  return 0;
}
