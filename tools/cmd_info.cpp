// `cubekit isa` and `cubekit chips`: the instruction reference and the chip presets.
#include "emulator/chip_config.h"
#include "emulator/isa.h"
#include "tools/commands.h"

#include <fmt/format.h>

namespace cubekit::cli {

namespace {

void print_isa_text() {
  Pipe last = Pipe::All;
  bool first = true;
  for (const InstrSpec& s : isa_table()) {
    if (first || s.pipe != last) fmt::print("\n[{}]\n", s.pipe == Pipe::All ? "sync (queue chosen by operand)" : pipe_name(s.pipe));
    first = false;
    last = s.pipe;
    std::string types;
    for (const auto& sig : s.types) {
      types += types.empty() ? "" : " ";
      for (int i = 0; i < s.ntypes; ++i) types += (i ? "." : "") + std::string(dtype_name(sig[i]));
    }
    fmt::print("  {:<18} {}{}\n", s.mnemonic, s.summary, types.empty() ? "" : "  [" + types + "]");
  }
  fmt::print("\nFull reference with operands and semantics: cubekit isa --markdown (docs/isa.md)\n");
}

// The presets, or the one named; as JSON one object (what --chip FILE.json loads) or, for all, a list.
void print_chips(bool json, const std::string& name) {
  const std::vector<ChipConfig> chips = name.empty() ? chip_presets() : std::vector<ChipConfig>{load_chip(name)};
  if (json && !name.empty()) {
    fmt::print("{}\n", chip_to_json(chips[0]));
    return;
  }
  if (json) {
    std::string out = "[";
    for (const ChipConfig& c : chips) out += (out.size() > 1 ? ",\n" : "\n") + chip_to_json(c);
    fmt::print("{}\n]\n", out);
    return;
  }
  for (const ChipConfig& c : chips) {
    fmt::print("{}: {}\n", c.name, c.description);
    fmt::print("  {} core groups, clock {} MHz, event ids 0-{}\n", c.cores, c.clock_mhz, c.event_ids - 1);
    for (const CoreConfig& k : c.kinds) {
      std::string pipes, paths;
      for (int p = 0; p < kNumPipes; ++p)
        if (k.has_pipe(Pipe(p))) pipes += (pipes.empty() ? "" : " ") + std::string(pipe_name(Pipe(p)));
      for (const DataPathRate& p : k.paths) paths += fmt::format("{}{} {}", paths.empty() ? "" : ", ", path_text(p.src, p.dst), p.rate);
      fmt::print("  {} x{}: pipes {}\n", core_kind_name(k.kind), c.count(k.kind), pipes);
      for (int s = 1; s < kNumSpaces; ++s)
        if (k.has_buffer(Space(s)))
          fmt::print("    {:<4} {:>8} bytes, {}-byte aligned\n", space_name(Space(s)), k.size[s], k.align[s]);
      fmt::print("    paths (bytes/cycle): {}\n", paths);
    }
    fmt::print("  vector {} B per repeat (blocks of {} B), repeat <= {}\n", c.vector_repeat_bytes, c.block_bytes, c.max_repeat);
    for (const CubeFractal& f : c.cube)
      fmt::print("  cube {}x{}->{}: m0 {} k0 {} n0 {}\n", dtype_name(f.input), dtype_name(f.input),
                 dtype_name(f.accumulator), f.m0, f.k0, f.n0);
  }
}

}  // namespace

void add_info(CLI::App& app, int& exit_code) {
  auto* isa = app.add_subcommand("isa", "print the instruction set reference");
  auto markdown = std::make_shared<bool>(false);
  isa->add_flag("--markdown", *markdown, "the full reference in Markdown (what docs/isa.md holds)");
  isa->callback([markdown, &exit_code] {
    if (*markdown) fmt::print("{}", isa_reference_markdown());
    else print_isa_text();
    exit_code = 0;
  });
  auto* chips = app.add_subcommand("chips", "list the chip presets and their parameters");
  auto json = std::make_shared<bool>(false);
  auto name = std::make_shared<std::string>();
  chips->add_option("name", *name, "one preset (or a chip JSON file) instead of all");
  chips->add_flag("--json", *json, "as JSON: with a name one object, loadable with --chip FILE.json; without, a list of all");
  chips->callback([json, name, &exit_code] {
    print_chips(*json, *name);
    exit_code = 0;
  });
}

}  // namespace cubekit::cli
