// The driver. Timing first, data second, window by window:
//   1. every core's timing advances to the end of the window, one event at a time in simulated
//      order over all cores (one thread: cores meet in the L2 and at HBM, deterministically);
//   2. every core replays the work instructions it started in the window, computing data and
//      checking races, on as many host threads as asked -- each with its own buffers and GM window;
//   3. the GM writes of the window are applied in a fixed order and GM accesses are checked
//      across cores.
// A window also ends where a wait_cross would take an increment set in it (cross_core.h): the
// setter's GM writes before its set_cross are then committed before the waiter's reads replay.
// Blocks go to cores as launch.h plans (coupled: block b on core b % cores) and run one after
// another on each core.
#include "emulator/arith.h"
#include "emulator/error.h"
#include "emulator/functional_core.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <queue>
#include <thread>

namespace cubekit {

namespace {

void replay_window(std::vector<std::unique_ptr<FunctionalCore>>& data, std::vector<std::unique_ptr<TimingCore>>& timing,
                   int threads) {
  auto work = [&](size_t c) {
    data[c]->replay(timing[c]->stream());
    timing[c]->stream().clear();
  };
  if (threads <= 1) {
    for (size_t c = 0; c < data.size(); ++c) work(c);
    return;
  }
  std::vector<std::jthread> workers;
  for (int w = 0; w < threads; ++w)
    workers.emplace_back([&, w] {
      for (size_t c = size_t(w); c < data.size(); c += size_t(threads)) work(c);
    });
}

// A mixed launch's groups (launch.h: the AICs in group order, then the AIVs, v a group): each
// core knows its group's cores, for the writes into a partner's buffers (the 950's paths).
void set_groups(const LaunchPlan& plan, int v, const CrossTopology& topology,
                std::vector<std::unique_ptr<FunctionalCore>>& data) {
  std::vector<int> aic;
  std::vector<std::vector<int>> aivs;
  for (size_t c = 0; c < plan.cores.size(); ++c) {
    const LaunchCore& k = plan.cores[c];
    size_t g = size_t(k.kind == CoreKind::Aiv ? k.index / v : k.index);
    if (aic.size() <= g) aic.resize(g + 1, -1), aivs.resize(g + 1);
    if (k.kind == CoreKind::Aiv) aivs[g].push_back(int(c));
    else aic[g] = int(c);
  }
  for (size_t c = 0; c < plan.cores.size(); ++c) {
    const LaunchCore& k = plan.cores[c];
    size_t g = size_t(k.kind == CoreKind::Aiv ? k.index / v : k.index);
    data[c]->set_group(aic[g], aivs[g], &topology);
  }
}

void merge(std::vector<Diagnostic>& into, std::vector<Diagnostic>& from) {
  for (Diagnostic& d : from) {
    auto same = std::find_if(into.begin(), into.end(), [&](const Diagnostic& x) {
      return x.kind == d.kind && x.index == d.index && x.other == d.other;
    });
    if (same != into.end()) same->repeats += d.repeats;
    else into.push_back(std::move(d));
  }
}

}  // namespace

SimResult simulate(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const SimOptions& options) {
  check_chip(chip);
  const bool functional = !options.timing_only, checks = functional && options.checks;
  check_run_inputs(program, gm, functional, options.max_steps, options.max_work);
  if (options.threads < 0)
    user_error("threads is {}; give 0 (one per host core) or a number of host threads (SimOptions::threads)", options.threads);
  if (options.trace && options.max_trace_events <= 0)
    user_error("max_trace_events is {}; give a positive bound on a trace's events (--max-trace-events, max_trace_events= "
               "in Python, SimOptions::max_trace_events in C++)", options.max_trace_events);
  const int blocks = launch_blocks(chip, program, gm, options.blocks);
  const LaunchPlan plan = plan_launch(chip, program, blocks);
  const int ncores = int(plan.cores.size());
  // One mapping for the timing model's zeroed state, the L2's and every core's pipe queues: apart,
  // each cleared huge pages of its own (an ascend910 add of 4096^2 cleared 6 MB for its 4 MB).
  const size_t l2_bytes = size_t(round_up(int64_t(L2Model::state_bytes(chip, gm.decls)), 64));
  ZeroedBytes state(l2_bytes + size_t(ncores) * TimingCore::queue_bytes(chip), true);  // before its users
  L2Model l2(chip, gm.decls, ZeroedBytes::slice(state.data(), l2_bytes));
  RunBudget budget;
  SimContext ctx{chip, program, gm, l2, options, blocks, {}, {}, {}, {}, budget};
  ctx.cores = ncores;
  std::unique_ptr<CrossCore> cross = make_cross_core(chip, program, plan);
  ctx.cross = cross.get();
  // The program's flags (pipe pair, event id) numbered in order of first use. An event id past
  // the chip's is reported when issued, before its slot is used.
  std::map<std::array<int64_t, 3>, int16_t> flags;
  auto flag_slot = [&](const Instr& in) {
    return flags.try_emplace({in.ops[0].imm, in.ops[1].imm, in.ops[2].imm}, int16_t(flags.size())).first->second;
  };
  for (const Instr& in : program.code) {
    Kind k = spec_of(in).pipe == Pipe::S ? Kind::Scalar
             : is_set_cross(in)          ? Kind::SetCross
             : is_wait_cross(in)         ? Kind::WaitCross
             : is_set_flag(in)           ? Kind::SetFlag
             : is_wait_flag(in)          ? Kind::WaitFlag
             : !is_barrier(in)           ? Kind::Work
             : Pipe(in.ops[0].imm) == Pipe::All ? Kind::BarrierAll
                                                : Kind::Barrier;
    ctx.kinds.push_back(k);
    ctx.flag_slot.push_back(k == Kind::SetFlag || k == Kind::WaitFlag ? flag_slot(in) : -1);
    ctx.scalar.push_back(spec_of(in).scalar);
    bool gm_operand = false;
    for (size_t k = 0; k < spec_of(in).operands.size(); ++k)
      gm_operand |= in.ops[k].kind == Operand::Kind::Mem && in.ops[k].space == Space::GM;
    ctx.gm_touching.push_back(gm_operand);
    ctx.pipes.push_back(uint8_t(k == Kind::Scalar || k == Kind::BarrierAll ? Pipe::S : issue_pipe(in)));
  }
  std::vector<CoreKind> kinds;
  for (const LaunchCore& c : plan.cores) kinds.push_back(c.kind);
  std::optional<CoreArena> arena;  // before the cores, which hold slices of it
  int64_t tensor_bytes = 0;
  for (size_t t = 0; t < gm.decls.size(); ++t) tensor_bytes += gm.tensor_bytes(t);
  if (functional) arena.emplace(chip, kinds, tensor_bytes);
  ctx.flags = int(flags.size());
  ctx.queues = state.data() + l2_bytes;
  for (CoreKind k : kinds)  // once a kind, not once a core
    if (ctx.rates[size_t(k)].empty()) ctx.rates[size_t(k)] = TimingCore::transfer_rates(*chip.kind(k), program);
  std::vector<std::unique_ptr<TimingCore>> timing;
  std::vector<std::unique_ptr<FunctionalCore>> data;
  for (int c = 0; c < ncores; ++c) {
    timing.push_back(std::make_unique<TimingCore>(ctx, c, plan.cores[size_t(c)]));
    if (functional) data.push_back(std::make_unique<FunctionalCore>(chip, kinds[size_t(c)], program, gm, c, checks, arena->memory(c)));
  }
  const CrossTopology topology = chip.split() ? cross_topology(chip, plan) : CrossTopology{};
  if (functional && plan.mixed) set_groups(plan, chip.vector_cores_per_cube, topology, data);
  int threads = options.threads > 0 ? options.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, ncores);
  std::unique_ptr<GmShadow> gm_shadow;
  if (checks) gm_shadow = std::make_unique<GmShadow>(gm, cross != nullptr, chip.split() ? &topology : nullptr);

  // (time, core): ties go to the lower core. A cross-core flag can move a core's next event
  // earlier: it is pushed again, and the entry that no longer matches is skipped when popped.
  using Event = std::pair<uint64_t, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  auto push = [&](int c) {
    uint64_t t = timing[c]->next_event();
    if (t != UINT64_MAX) events.push({t, c});  // a core waiting for another's flag has none
  };
  for (int c = 0; c < ncores; ++c) push(c);
  const uint64_t window = uint64_t(chip.timing.window_cycles);
  for (uint64_t until = window;;) {
    // Only GM accesses and cross-core flags meet other cores, so a core runs on by itself up to
    // its next such event that another core's events must precede.
    while (!events.empty() && events.top().first < until) {
      auto [t, c] = events.top();
      events.pop();
      if (timing[c]->next_event() != t) continue;
      uint64_t others = events.empty() ? UINT64_MAX : events.top().first;
      timing[c]->run(until, others);
      if (timing[c]->wants_cut()) until = std::min(until, timing[c]->next_event());
      for (int w : timing[c]->woken()) timing[w]->cross_delivered(), push(w);
      timing[c]->woken().clear();
      push(c);
    }
    if (functional) {
      replay_window(data, timing, threads);
      std::vector<GmWindow*> windows;
      for (auto& d : data) windows.push_back(&d->gm_window());
      if (gm_shadow) {
        std::vector<const GmAccess*> accesses;
        std::vector<RunResult*> sinks;
        for (auto& d : data) {
          for (const GmAccess& a : d->gm_accesses()) accesses.push_back(&a);
          sinks.push_back(&d->diagnostics());
        }
        gm_shadow->check(accesses, program, sinks);
        for (auto& d : data) d->gm_accesses().clear();
      }
      commit_gm(gm, windows);
      FunctionalCore::commit_remote(data);
    }
    if (cross) ++cross->window;
    if (events.empty()) {
      // Nothing can run: every core still going waits for a cross-core flag that nobody can set.
      for (int c = 0; c < ncores; ++c)
        if (!timing[c]->done()) timing[c]->give_up(), push(c);  // its next block may start
      if (events.empty()) break;
    }
    until = (events.top().first / window + 1) * window;  // skip idle windows
  }

  SimResult result;
  Report& r = result.report;
  r.kernel = program.name;
  r.chip = chip.name;
  r.clock_mhz = chip.clock_mhz;
  r.blocks = blocks;
  r.cores = ncores;
  r.timing_only = options.timing_only;
  r.race_checks = checks;
  r.work = budget.work;
  for (int c = 0; c < ncores; ++c) {
    r.per_core.push_back(std::move(timing[c]->stats()));
    merge(r.diagnostics, timing[c]->diagnostics().diagnostics);
    if (functional) merge(r.diagnostics, data[c]->diagnostics().diagnostics);
    if (options.trace) result.traces.push_back(std::move(timing[c]->trace()));
  }
  if (cross) report_cross_leftovers(*cross, program, r.diagnostics);
  // Only after a run that ended as the program says: a hang or a fault leaves outputs unwritten
  // as its symptom.
  const bool ended = std::none_of(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic& d) {
    using K = Diagnostic::Kind;
    return d.kind == K::Deadlock || d.kind == K::NoEnd || d.kind == K::StepLimit || d.kind == K::Fault;
  });
  if (gm_shadow && ended) report_unwritten_outputs(*gm_shadow, program, blocks, r.diagnostics);
  // A read of unwritten memory that a race explains (it ran before the write it should have
  // waited for) is the race's symptom: report the race alone.
  std::erase_if(r.diagnostics, [&](const Diagnostic& u) {
    if (u.kind != Diagnostic::Kind::Uninitialized) return false;
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) {
      return d.kind == Diagnostic::Kind::Race && (d.index == u.index || d.other == u.index);
    });
  });
  finish_report(r, program, chip);
  return result;
}

}  // namespace cubekit
