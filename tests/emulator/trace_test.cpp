// The Chrome trace parses back: a process per core, a track per pipe, a slice per instruction,
// and a flow arrow (start and finish) for every flag a wait_flag consumed.
#include "emulator/simulator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace cubekit {
namespace {

TEST(Trace, ParsesBackWithEveryTrackAndFlow) {
  Program p = load_program((std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm/matmul_f16_db.s").string());
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  ChipConfig chip = load_chip("ascend910");
  chip.clock_mhz = 1800;  // the 910B2's: a cycle is 0.556 ns, which the microseconds written round
  SimResult r = simulate(chip, p, gm, {.blocks = 2, .trace = true});
  auto path = std::filesystem::temp_directory_path() / fmt::format("cubekit_trace_{}.json", ::getpid());
  write_trace(path.string(), r, p, chip);
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  std::filesystem::remove(path);

  std::map<int, std::set<std::string>> tracks;  // pid -> pipe names
  std::map<std::string, int> slices_per_pipe;
  std::map<uint64_t, double> flow_start, flow_end;
  std::map<std::pair<int, int>, std::string> tid_name;
  int barriers = 0;
  std::map<int, std::vector<std::pair<double, double>>> scalar;  // per core: the S slices, as written
  for (const auto& e : j["traceEvents"]) {
    std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "thread_name") {  // a pipe's track, or a lane beside it ("MTE2 (2)")
      const std::string name = e["args"]["name"], pipe = name.substr(0, name.find(" ("));
      tracks[e["pid"]].insert(pipe);
      tid_name[{e["pid"], e["tid"]}] = pipe;
    }
    if (ph == "X" && e["name"] == "barrier") {  // an instant on its pipe (M's, between mmads)
      EXPECT_EQ(e["dur"], 0);
      ++barriers;
    } else if (ph == "X" && e["name"] != "set_flag" && e["name"] != "wait_flag") {
      ++slices_per_pipe[tid_name.at({e["pid"], e["tid"]})];
      EXPECT_TRUE(e["args"].contains("line"));
      if (tid_name.at({e["pid"], e["tid"]}) == "S") scalar[e["pid"]].push_back({e["ts"], double(e["ts"]) + double(e["dur"])});
    }
    if (ph == "s") flow_start[e["id"]] = e["ts"];
    if (ph == "f") flow_end[e["id"]] = e["ts"];
  }
  ASSERT_EQ(tracks.size(), 2u) << "one process per core";
  for (const auto& [pid, names] : tracks)
    EXPECT_EQ(names, (std::set<std::string>{"S", "MTE1", "MTE2", "MTE3", "M", "V"})) << "core " << pid;

  // Every executed instruction is one slice on its pipe's track.
  const Report& rep = r.report;
  for (Pipe pipe : {Pipe::S, Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::M, Pipe::V}) {
    uint64_t expected = pipe == Pipe::S ? 0 : rep.pipes[int(pipe)].instructions;
    if (pipe == Pipe::S)
      for (const CoreTrace& t : r.traces)
        for (const TraceSlice& s : t.slices) expected += s.pipe == uint8_t(Pipe::S);
    EXPECT_EQ(uint64_t(slices_per_pipe[std::string(pipe_name(pipe))]), expected) << pipe_name(pipe);
  }
  EXPECT_GT(barriers, 0);
  // S issues one instruction after another: no slice ends after the next starts, as written (start
  // and duration rounded apart, 204 did on a conv on the 910B2).
  for (auto& [pid, spans] : scalar) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first + 1e-9) << "core " << pid << " S slice " << i;  // (the sum's float error)
  }
  // One flow per consumed flag: 10 pairs per k-tile pair... counted from the simulation itself.
  size_t flows = 0;
  for (const CoreTrace& t : r.traces) flows += t.flows.size();
  EXPECT_GT(flows, 0u);
  EXPECT_EQ(flow_start.size(), flows);
  EXPECT_EQ(flow_end.size(), flows);
  for (const auto& [id, ts] : flow_start) {
    ASSERT_TRUE(flow_end.count(id)) << "flow " << id << " has no end";
    EXPECT_LE(ts, flow_end[id]) << "a flag is released before it fires";
  }
}

// On a split chip each wait_cross is released by an arrow from the set_cross that completed its
// round, on the setting core's track: the hand-off between the cube core and its vector cores,
// which the trace left out (a Python probe).
TEST(Trace, CrossCoreFlagsAreArrowsBetweenTheCores) {
  Program p = load_program((std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm/mixed_matmul_bias_relu_910b2.s").string());
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  ChipConfig chip = load_chip("ascend910b2");
  SimResult r = simulate(chip, p, gm, {.trace = true});
  ASSERT_TRUE(r.report.diagnostics.empty());
  auto path = std::filesystem::temp_directory_path() / fmt::format("cubekit_cross_trace_{}.json", ::getpid());
  write_trace(path.string(), r, p, chip);
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  std::map<uint64_t, std::pair<int, double>> start, end;  // id -> (pid, ts) of the "cross" flows
  std::map<std::pair<int, int>, int> slices;  // (core, instruction) -> its slices: the program has no loop
  int sets = 0, waits = 0, total = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") ++total, ++slices[{e["pid"], e["args"]["instruction"]}];
    if (e["ph"] == "X" && e["name"] == "set_cross") ++sets;
    if (e["ph"] == "X" && e["name"] == "wait_cross") ++waits;
    if (e.contains("cat") && e["name"] == "cross") (e["ph"] == "s" ? start : end)[e["id"]] = {e["pid"], e["ts"]};
  }
  int64_t executed = 0;  // wait_cross instructions run, from the program's own count
  for (const CoreTrace& t : r.traces)
    for (const TraceFlow& f : t.flows) executed += f.src_core >= 0;
  EXPECT_GT(executed, 0);
  EXPECT_EQ(waits, executed);
  // A slice an instruction run: the cube core's one set_cross (mode 2) reaches both vector cores,
  // each wait_cross its arrow; the set is one slice, not one a wait (a probe counted 55 for 54).
  EXPECT_EQ(sets, 1);
  EXPECT_EQ(total, r.report.instructions);
  for (const auto& [at, n] : slices) EXPECT_EQ(n, 1) << "core " << at.first << " instruction " << at.second;
  ASSERT_EQ(start.size(), size_t(executed));
  ASSERT_EQ(end.size(), size_t(executed));
  int across = 0;
  for (const auto& [id, s] : start) {
    EXPECT_LE(s.second, end.at(id).second) << "released before it was set";
    across += s.first != end.at(id).first;
  }
  EXPECT_EQ(across, executed) << "every cross-core arrow joins two cores";
}

}  // namespace
}  // namespace cubekit
