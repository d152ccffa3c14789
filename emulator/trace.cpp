// Chrome trace JSON ("Trace Event Format"), streamed: traces of big kernels have millions of
// slices, so they are written line by line rather than built as one JSON value.
#include "emulator/error.h"
#include "emulator/simulator.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>
#include <tuple>
#include <vector>

namespace cubekit {

namespace {

// Track (thread) ids: the pipes in the order data flows, so viewers list them that way.
int track_of(Pipe p) {
  switch (p) {
    case Pipe::S: return 0;
    case Pipe::MTE2: return 1;
    case Pipe::MTE1: return 2;
    case Pipe::M: return 3;
    case Pipe::V: return 4;
    case Pipe::MTE3: return 5;
    default: return 6;
  }
}

// A pipe's instructions overlap in time (pipelined), but a viewer drops slices of one track that
// overlap without nesting (Perfetto: 28,000 of a naive 1000^3 matmul's MTE2 loads). Each slice gets
// the first lane of its pipe that is free at its start: lane 0 is the pipe's own track, the others
// tracks of their own beside it. Returns each slice's lane.
std::vector<uint8_t> lanes_of(const std::vector<TraceSlice>& slices) {
  std::vector<uint8_t> lane(slices.size());
  std::vector<size_t> order(slices.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(slices[a].pipe, slices[a].start) < std::tie(slices[b].pipe, slices[b].start);
  });
  std::vector<uint64_t> free_at;  // per lane of the current pipe: when its last slice ends
  for (size_t k = 0; k < order.size(); ++k) {
    const TraceSlice& s = slices[order[k]];
    if (k == 0 || slices[order[k - 1]].pipe != s.pipe) free_at.clear();
    size_t l = 0;
    while (l < free_at.size() && free_at[l] > s.start) ++l;
    if (l == free_at.size()) free_at.push_back(0);
    free_at[l] = std::max(free_at[l], s.end);
    lane[order[k]] = uint8_t(std::min<size_t>(l, 255));
  }
  return lane;
}

// The track of a pipe's lane: lane 0 keeps the pipe's own id, the others follow all of them.
int track_of(Pipe p, int lane) { return lane == 0 ? track_of(p) : 8 * (1 + lane) + track_of(p); }

// The trace's JSON into `out` (fmt throws std::system_error when a write fails).
void write_events(FILE* out, const SimResult& result, const Program& program, const ChipConfig& chip) {
  const double us_per_cycle = 1.0 / chip.clock_mhz;
  // A time in us, rounded to 0.1 ns (a cycle is 0.56 ns at 1800 MHz).
  auto at_us = [&](uint64_t cycle) { return std::round(double(cycle) * us_per_cycle * 1e4) / 1e4; };
  bool first = true;
  auto emit = [&](const std::string& event) {
    fmt::print(out, "{}{}", first ? "" : ",\n", event);
    first = false;
  };
  fmt::print(out, "{{\"displayTimeUnit\": \"ns\", \"otherData\": {{\"kernel\": {}, \"chip\": {}, \"cycles\": {}}},\n"
                      "\"traceEvents\": [\n",
             nlohmann::json(program.name).dump(), nlohmann::json(chip.name).dump(), result.report.cycles);
  for (size_t core = 0; core < result.traces.size(); ++core) {
    // On a split chip each core says its kind: the cube cores (aic) and their vector cores (aiv).
    const auto& per_core = result.report.per_core;
    const CoreKind kind = core < per_core.size() ? per_core[core].kind : CoreKind::Coupled;
    const std::string name = kind == CoreKind::Coupled ? fmt::format("core {}", core) : fmt::format("core {} ({})", core, core_kind_name(kind));
    emit(fmt::format(R"({{"ph": "M", "pid": {}, "name": "process_name", "args": {{"name": "{}"}}}})", core, name));
    const CoreTrace& t = result.traces[core];
    const std::vector<uint8_t> lane = lanes_of(t.slices);
    std::array<int, kNumPipes> lanes{};  // per pipe: the lanes its slices use
    for (size_t i = 0; i < t.slices.size(); ++i)
      lanes[t.slices[i].pipe] = std::max(lanes[t.slices[i].pipe], lane[i] + 1);
    for (Pipe p : {Pipe::S, Pipe::MTE2, Pipe::MTE1, Pipe::M, Pipe::V, Pipe::MTE3, Pipe::FIX}) {
      // A track for each pipe this core has (a split chip's cube cores have no V, their vector cores no M).
      bool has = false;
      for (const CoreConfig& k : chip.kinds) has = has || ((kind == CoreKind::Coupled || k.kind == kind) && k.has_pipe(p));
      if (!has) continue;
      for (int l = 0; l < std::max(1, lanes[int(p)]); ++l) {
        const std::string track = l == 0 ? std::string(pipe_name(p)) : fmt::format("{} ({})", pipe_name(p), l + 1);
        emit(fmt::format(R"({{"ph": "M", "pid": {}, "tid": {}, "name": "thread_name", "args": {{"name": "{}"}}}})", core,
                         track_of(p, l), track));
        emit(fmt::format(R"({{"ph": "M", "pid": {}, "tid": {}, "name": "thread_sort_index", "args": {{"sort_index": {}}}}})",
                         core, track_of(p, l), 8 * track_of(p) + l));
      }
    }
    for (size_t i = 0; i < t.slices.size(); ++i) {
      const TraceSlice& s = t.slices[i];
      const Instr& in = program.code[s.index];
      // Start and end rounded alike, the duration their difference: rounded apart,
      // a slice ended past the next one's start.
      const double start = at_us(s.start), end = at_us(s.end);
      emit(fmt::format(R"({{"ph": "X", "pid": {}, "tid": {}, "ts": {:.4f}, "dur": {:.4f}, "name": "{}", )"
                       R"("args": {{"line": {}, "instruction": {}, "block": {}, "cycles": {}, "text": {}}}}})",
                       core, track_of(Pipe(s.pipe), lane[i]), start, end - start, spec_of(in).mnemonic, in.line, s.index,
                       s.block, s.end - s.start, nlohmann::json(print_instr(program, in)).dump()));
    }
    // A flow arrow from the flag's firing on the source pipe (of the setting core, for a
    // set_cross) to its release of the waiting pipe, each end bound to a zero-length slice so
    // viewers can attach it.
    for (size_t k = 0; k < t.flows.size(); ++k) {
      const TraceFlow& fl = t.flows[k];
      uint64_t id = (uint64_t(core) << 32) | k;
      double a = at_us(fl.fired), b = at_us(fl.released);
      const Instr& set = program.code[fl.set_index];
      const Instr& wait = program.code[fl.wait_index];
      const size_t from = fl.src_core >= 0 ? size_t(fl.src_core) : core;
      const char* what = fl.src_core >= 0 ? "cross" : "flag";
      auto instant = [&](size_t on, int pipe, double at, const Instr& in, int index) {
        emit(fmt::format(R"({{"ph": "X", "pid": {}, "tid": {}, "ts": {:.4f}, "dur": 0, "name": "{}", )"
                         R"("args": {{"line": {}, "instruction": {}, "block": {}, "cycles": 0, "text": {}}}}})",
                         on, track_of(Pipe(pipe)), at, spec_of(in).mnemonic, in.line, index, fl.block,
                         nlohmann::json(print_instr(program, in)).dump()));
      };
      if (fl.src_core < 0) instant(from, fl.src, a, set, fl.set_index);  // a set_cross has its own slice
      instant(core, fl.dst, b, wait, fl.wait_index);
      emit(fmt::format(R"({{"ph": "s", "pid": {}, "tid": {}, "ts": {:.4f}, "id": {}, "name": "{}", "cat": "sync"}})",
                       from, track_of(Pipe(fl.src)), a, id, what));
      emit(fmt::format(R"({{"ph": "f", "bp": "e", "pid": {}, "tid": {}, "ts": {:.4f}, "id": {}, "name": "{}", "cat": "sync"}})",
                       core, track_of(Pipe(fl.dst)), b, id, what));
    }
  }
  fmt::print(out, "\n]}}\n");
}

// The result must be a traced run of this program on this chip: another program's instruction
// indices would be looked up past this one's code.
void check_traced(const SimResult& result, const Program& program, const ChipConfig& chip) {
  if (result.traces.empty())
    user_error("write_trace: the result of '{}' holds no trace; run it with SimOptions::trace = true (Python trace=, the "
               "CLI's --trace FILE)", result.report.kernel);
  if (result.report.kernel != program.name || result.report.chip != chip.name)
    user_error("write_trace: the result is of kernel '{}' on {}, but the program given is '{}' and the chip {}; give the "
               "program and chip that were simulated", result.report.kernel, result.report.chip, program.name, chip.name);
  auto check = [&](int32_t index) {
    if (index < 0 || size_t(index) >= program.code.size())
      user_error("write_trace: the result's trace names instruction {}, but program '{}' has {}; give the program that was "
                 "simulated", index, program.name, program.code.size());
  };
  for (const CoreTrace& t : result.traces) {
    for (const TraceSlice& s : t.slices) check(s.index);
    for (const TraceFlow& f : t.flows) check(f.set_index), check(f.wait_index);
  }
}

}  // namespace

void write_trace(const std::string& path, const SimResult& result, const Program& program, const ChipConfig& chip) {
  check_traced(result, program, chip);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!f) user_error("cannot write the trace to '{}' ({})", path, std::strerror(errno));
  try {
    write_events(f.get(), result, program, chip);
  } catch (const std::system_error& e) {  // fmt's, when a write fails (a full disk)
    user_error("writing the trace to '{}' failed ({})", path, e.code().message());
  }
  // Buffered bytes that do not fit fail only here.
  if (std::fflush(f.get()) != 0 || std::ferror(f.get()))
    user_error("writing the trace to '{}' failed ({})", path, std::strerror(errno));
}

}  // namespace cubekit
