#include "emulator/timing_core.h"

#include "emulator/error.h"
#include "emulator/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <type_traits>

namespace cubekit {

namespace {

// Pipes are examined in this order when two are ready in the same cycle.
constexpr int kPipeOrder[] = {int(Pipe::MTE2), int(Pipe::MTE1), int(Pipe::M), int(Pipe::V), int(Pipe::MTE3),
                               int(Pipe::FIX)};

}  // namespace

TimingCore::TimingCore(const SimContext& ctx, int core, const LaunchCore& launch)
    : ctx_(ctx), core_(core), kind_(*ctx.chip.kind(launch.kind)), entry_(launch.entry), subblock_(launch.subblock),
      rates_(ctx.rates[size_t(launch.kind)]), blocks_(launch.blocks), fired_(size_t(ctx.flags)) {
  // This core's queues: the zeroed mapping is their value-initialised entries already (Entry is an
  // aggregate of numbers, an implicit-lifetime type), so only the entries used are ever touched.
  const size_t depth = size_t(ctx.chip.timing.queue_depth);
  Entry* queues = reinterpret_cast<Entry*>(ctx.queues + size_t(core) * queue_bytes(ctx.chip));
  for (int p = 0; p < kNumPipes; ++p) pipes_[p].ring = queues + size_t(p) * depth, pipes_[p].depth = depth;
  stats_.core = core;
  stats_.kind = launch.kind;
  stats_.line_cycles.assign(ctx.program.code.size(), 0);
  stats_.line_issues.assign(ctx.program.code.size(), 0);
  if (blocks_.empty()) done_ = true;
  else start_block(uint64_t(ctx.chip.timing.launch_cycles) +
                   uint64_t(launch.start_order) * uint64_t(ctx.chip.timing.core_start_cycles));
}

size_t TimingCore::queue_bytes(const ChipConfig& chip) {
  static_assert(std::is_trivially_destructible_v<Entry> && std::is_aggregate_v<Entry>,
                "queues are zeroed bytes, never constructed or destroyed");
  return size_t(chip.timing.queue_depth) * kNumPipes * sizeof(Entry);
}

std::vector<double> TimingCore::transfer_rates(const CoreConfig& kind, const Program& program) {
  std::vector<double> rates(program.code.size(), 0);
  for (size_t i = 0; i < program.code.size(); ++i) {
    const Instr& in = program.code[i];
    const InstrSpec& spec = spec_of(in);
    int dst = spec.operand_index("dst"), src = spec.operand_index("src");
    if (dst < 0 || src < 0 || spec.operands[dst].kind != OperandKind::Mem || spec.operands[src].kind != OperandKind::Mem)
      continue;
    if (const DataPathRate* p = kind.path(in.ops[src].space, in.ops[dst].space)) rates[i] = p->rate;
  }
  return rates;
}

void TimingCore::report(Diagnostic::Kind kind, int index, std::string message) {
  uint32_t line = index >= 0 && index < int(ctx_.program.code.size()) ? ctx_.program.code[index].line : 0;
  diagnostics_.report({kind, core_, index, line, std::move(message)});
}

void TimingCore::start_block(uint64_t t) {
  t += uint64_t(ctx_.chip.timing.block_dispatch_cycles);  // the scheduler hands this core the block
  block_ = blocks_[next_block_++];
  unit_ = int32_t(core_ + ctx_.cores * int(next_block_ - 1));  // each core's blocks, one after another
  regs_ = ScalarState{};
  regs_.block_idx = block_;
  regs_.block_num = ctx_.total_blocks;
  regs_.subblock_idx = subblock_;
  pc_ = entry_;
  last_pc_ = -1;
  issued_ = 0;
  s_time_ = t;
  halted_ = false;
  waiting_queue_ = -1;
  steps_ = 0;
  for (PipeState& p : pipes_) {
    p.epoch = 0;
    p.known.fill(0);
    p.remote = nullptr;
    p.next_start = std::max(p.next_start, t);
    p.dirty = true;
  }
  for (auto& f : fired_) f.clear();
}

void TimingCore::finish_block() {
  for (int key = 0; key < ctx_.flags; ++key) {
    // A set that fired while the flag was set was reported then; what it left is that problem's.
    std::vector<Fire>& fifo = fired_[size_t(key)];
    auto left = std::find_if(fifo.begin(), fifo.end(), [](const Fire& f) { return !f.lost; });
    if (left == fifo.end()) continue;
    for (auto again = left + 1; again != fifo.end(); ++again)  // fired while `left` stayed set
      if (!again->lost) report_set_while_set(*again, *left, kNever);
    const Instr& in = ctx_.program.code[size_t(left->set_index)];
    report(Diagnostic::Kind::Sync, left->set_index,
           fmt::format("flag {}->{} event {} is still set when block {} ends: no wait_flag consumed it; remove the "
                       "set_flag or add the matching wait_flag {}, {}, {}",
                       pipe_name(Pipe(in.ops[0].imm)), pipe_name(Pipe(in.ops[1].imm)), in.ops[2].imm, block_,
                       pipe_name(Pipe(in.ops[0].imm)), pipe_name(Pipe(in.ops[1].imm)), in.ops[2].imm));
  }
  uint64_t end = s_time_;
  for (const PipeState& p : pipes_) end = std::max(end, p.last_completion);
  stats_.cycles = end;
  if (next_block_ < blocks_.size()) start_block(end);
  else done_ = true;
}

// ---- readiness --------------------------------------------------------------------------------

uint64_t TimingCore::s_ready() const {
  if (halted_ || waiting_queue_ >= 0) return kNever;
  if (pc_ >= 0 && pc_ < int64_t(ctx_.program.code.size()) && ctx_.kinds[pc_] == Kind::BarrierAll) {
    uint64_t t = s_time_;
    for (const PipeState& p : pipes_) {
      if (p.count) return kNever;
      t = std::max(t, p.last_completion);
    }
    return t;
  }
  return s_time_;
}

uint64_t TimingCore::sync_base(const PipeState& q, const Entry& e) const { return std::max(e.ready, q.last_start); }

uint64_t TimingCore::pipe_ready(int p) const {
  const PipeState& q = pipes_[p];
  if (q.dirty) q.ready = compute_ready(p), q.dirty = false;
  return q.ready;
}

uint64_t TimingCore::compute_ready(int p) const {
  const PipeState& q = pipes_[p];
  if (!q.count) return kNever;
  const Entry& e = q.ring[q.head];
  switch (e.kind) {
    case Kind::WaitFlag: {
      const auto& f = fired_of(e.I.index);
      return f.empty() ? kNever : std::max(sync_base(q, e), f.front().time);
    }
    case Kind::WaitCross: {
      const CrossDelivery* d = ctx_.cross->front(core_, int(e.I.instr->ops[1].imm));
      return d ? std::max(sync_base(q, e), d->time) : kNever;
    }
    case Kind::SetFlag:
    case Kind::SetCross:
    case Kind::Barrier: return sync_base(q, e);
    default: return std::max({e.ready, q.next_start, q.barrier_floor});
  }
}

uint64_t TimingCore::next_event() const {
  int who;
  return done_ ? kNever : earliest(who);
}

// ---- the event loop -----------------------------------------------------------------------------

void TimingCore::run(uint64_t until, uint64_t others) {
  cut_ = false;
  for (bool first = true; !done_; first = false) {
    int who;
    uint64_t t = earliest(who);
    if (t == kNever || (!first && t >= until) || must_yield(who, t, first ? UINT64_MAX : others)) return;
    process(who, t);
    if (delivered_elsewhere_) {  // another core may now have an earlier event than `others`
      delivered_elsewhere_ = false;
      return;
    }
  }
}

// Whether the event must wait for the other cores': a GM access or a cross-core flag comes after
// their earlier events (ties: the heap orders the cores). A wait_cross whose increment was set in
// this window also ends the window first, so that the setter's GM writes are committed before
// this core's reads after the wait replay.
bool TimingCore::must_yield(int who, uint64_t t, uint64_t others) {
  if (who < 0 || who == int(Pipe::S)) return false;
  const Entry& e = pipes_[who].ring[pipes_[who].head];
  if (e.kind == Kind::WaitCross && !ctx_.options.timing_only &&
      ctx_.cross->front(core_, int(e.I.instr->ops[1].imm))->window == ctx_.cross->window)
    return cut_ = true;
  if (t < others) return false;
  return e.kind == Kind::SetCross || e.kind == Kind::WaitCross || (e.kind == Kind::Work && ctx_.gm_touching[e.I.index]);
}

bool TimingCore::blocked_on_cross() const {
  if (done_ || !ctx_.cross) return false;
  for (const PipeState& q : pipes_)
    if (q.count && q.ring[q.head].kind == Kind::WaitCross &&
        !ctx_.cross->front(core_, int(q.ring[q.head].I.instr->ops[1].imm)))
      return true;
  return false;
}

void TimingCore::cross_delivered() {
  for (PipeState& q : pipes_) q.dirty = true;
}

uint64_t TimingCore::earliest(int& who) const {
  uint64_t best = kNever;
  who = -1;
  for (int p : kPipeOrder) {
    if (!pipes_[p].count) continue;  // an empty queue is never ready: most pipes of most kernels
    uint64_t r = pipe_ready(p);
    if (r < best) best = r, who = p;
  }
  uint64_t s = s_ready();
  if (s < best) best = s, who = int(Pipe::S);
  if (best != kNever) return best;
  if (blocked_on_cross()) return kNever;  // another core may still set the flag
  // Nothing can start: the block has ended (or is stuck), which process() settles at once.
  uint64_t now = s_time_;
  for (const PipeState& p : pipes_) now = std::max(now, p.last_completion);
  return done_ ? kNever : now;
}

void TimingCore::step() {
  int who;
  uint64_t t = earliest(who);
  process(who, t);
}

void TimingCore::process(int who, uint64_t t) {
  if (who == int(Pipe::S)) return step_scalar(t);
  if (who >= 0) return step_pipe(who, t);
  bool drained = true;
  for (const PipeState& p : pipes_) drained &= p.count == 0;
  if (halted_ && drained) finish_block();
  else deadlock();
}

std::string TimingCore::cross_deadlock(int p, const Instr& in) const {
  const CrossTopology::Core& me = ctx_.cross->topology().cores[size_t(core_)];
  int index = pipes_[p].ring[pipes_[p].head].I.index;
  const std::string round = ctx_.cross->open_round(core_, int(in.ops[1].imm));
  return fmt::format("; pipe {} of core {} ({} of group {}) waits at {} `{}` for cross-core flag "
                     "id {}, and no core left running will set it ({})",
                     pipe_name(Pipe(p)), core_, cross_role_name(me.role), me.group, instruction_at(ctx_.program, index),
                     print_instr(ctx_.program, in), in.ops[1].imm,
                     round.empty() ? "a set_cross of that id, in a mode that reaches this core, is missing or never runs"
                                   : round);
}

void TimingCore::deadlock() {
  std::string what;
  int stuck = -1;  // the first stuck wait, where the diagnostic points (not at the scalar unit's `end`)
  for (int p : kPipeOrder) {
    const PipeState& q = pipes_[p];
    if (!q.count) continue;
    const Instr& in = *q.ring[q.head].I.instr;
    int index = q.ring[q.head].I.index;
    const bool waits = q.ring[q.head].kind == Kind::WaitCross || q.ring[q.head].kind == Kind::WaitFlag;
    if (waits && stuck < 0) stuck = index;
    if (q.ring[q.head].kind == Kind::WaitCross) {
      what += cross_deadlock(p, in);
      continue;
    }
    if (q.ring[q.head].kind != Kind::WaitFlag) continue;
    what += fmt::format("; pipe {} waits at {} `{}` for flag {}->{} event {}, and nothing left to run will set it",
                        pipe_name(Pipe(p)), instruction_at(ctx_.program, index), print_instr(ctx_.program, in), pipe_name(Pipe(in.ops[0].imm)),
                        pipe_name(Pipe(in.ops[1].imm)), in.ops[2].imm);
  }
  if (waiting_queue_ >= 0)
    what += fmt::format("; S waits for a free slot in {}'s queue (depth {}) to issue {}", pipe_name(Pipe(waiting_queue_)),
                        ctx_.chip.timing.queue_depth, instruction_at(ctx_.program, int(pc_)));
  else if (!halted_)
    what += fmt::format("; S waits at {} `barrier ALL` for pipes that cannot drain", instruction_at(ctx_.program, int(pc_)));
  int index = stuck >= 0 ? stuck : pc_ < int64_t(ctx_.program.code.size()) ? int(pc_) : -1;
  report(Diagnostic::Kind::Deadlock, index, fmt::format("block {} can make no progress{}", block_, what));
  for (PipeState& p : pipes_) p.count = 0, p.dirty = true;
  halted_ = true;
  waiting_queue_ = -1;
  finish_block();
}

bool TimingCore::step_limit() {
  report(Diagnostic::Kind::StepLimit, int(pc_), step_limit_message(ctx_.options.max_steps));
  halted_ = true;
  return false;
}

void TimingCore::count_trace_events(int64_t events) {
  if ((ctx_.budget.trace_events += events) > ctx_.options.max_trace_events)
    trace_limit_exceeded(ctx_.options.max_trace_events);
}

void TimingCore::scalar_one(uint64_t t) {
  const Program& prog = ctx_.program;
  const int scalar = ctx_.chip.timing.scalar_cycles;
  if (pc_ < 0 || pc_ >= int64_t(prog.code.size())) {
    report(Diagnostic::Kind::NoEnd, int(last_pc_), no_end_message(pc_));
    halted_ = true;
    return;
  }
  if (!count_step()) return;
  const Instr& in = prog.code[pc_];
  const InstrSpec& spec = spec_of(in);
  PipeStats& s = stats_.pipes[int(Pipe::S)];
  if (spec.pipe == Pipe::S) {
    // A run of scalar instructions touches nothing another pipe or core sees: do it in one step.
    for (uint64_t now = t;; now += scalar) {
      Flow flow;
      try {
        flow = ctx_.scalar[pc_](prog.code[pc_], regs_);
      } catch (const Fault& f) {
        report(Diagnostic::Kind::Fault, int(pc_), f.message);
        halted_ = true;
        return;
      }
      s.busy += scalar, ++s.instructions, ++stats_.scalar_instructions;
      stats_.line_cycles[pc_] += scalar, ++stats_.line_issues[pc_];
      if (ctx_.options.trace) {
        count_trace_events(1);
        trace_.slices.push_back({uint8_t(Pipe::S), int32_t(pc_), block_, now, now + scalar});
      }
      s_time_ = now + scalar;
      if (flow.kind == Flow::End) {
        halted_ = true;
        return;
      }
      last_pc_ = pc_;
      pc_ = flow.kind == Flow::Jump ? flow.target : pc_ + 1;
      if (pc_ < 0 || pc_ >= int64_t(prog.code.size()) || ctx_.kinds[pc_] != Kind::Scalar) return;
      if (!count_step()) return;
    }
  }
  const Kind kind = ctx_.kinds[pc_];
  if (kind == Kind::BarrierAll) {
    Knowledge remote;
    for (const PipeState& p : pipes_) remote = merge_knowledge(remote, p.remote);
    for (PipeState& p : pipes_) {
      p.dirty = true;
      ++p.syncs;
      for (int q = 0; q < kNumPipes; ++q) p.known[q] = pipes_[q].epoch;
      p.remote = remote;
      p.next_start = std::max(p.next_start, t);
    }
    s.busy += scalar, ++s.instructions, ++stats_.line_issues[pc_];
    s_time_ = t + scalar;
    last_pc_ = pc_++;
    return;
  }
  int p = ctx_.pipes[pc_];
  PipeState& q = pipes_[p];
  if (q.count == size_t(ctx_.chip.timing.queue_depth)) {
    waiting_queue_ = p;
    return;
  }
  if (kind == Kind::SetFlag || kind == Kind::WaitFlag) {
    if (in.ops[2].imm >= ctx_.chip.event_ids) {
      report(Diagnostic::Kind::Sync, int(pc_),
             fmt::format("event id {} is out of range: {} has event ids 0-{} per pipe pair", in.ops[2].imm,
                         ctx_.chip.name, ctx_.chip.event_ids - 1));
      s_time_ = t + scalar;
      last_pc_ = pc_++;
      return;
    }
  }
  Entry& slot = q.push();
  issue_into(slot.I, in, int(pc_), regs_);
  slot.ready = t + scalar, slot.order = issued_++, slot.kind = kind;
  if (q.count++ == 0) q.dirty = true;
  s.busy += scalar, ++s.instructions, ++stats_.line_issues[pc_];
  s_time_ = t + scalar;
  last_pc_ = pc_++;
}

// S issues on by itself until it must wait: issuing touches nothing a pipe reads before the
// entry's own ready time, and a full queue still stops it (it resumes when a slot frees).
void TimingCore::step_scalar(uint64_t t) {
  for (;;) {
    scalar_one(t);
    if (halted_ || waiting_queue_ >= 0) return;
    t = s_ready();
    if (t == kNever) return;
  }
}

void TimingCore::step_pipe(int p, uint64_t t) {
  PipeState& q = pipes_[p];
  const Entry& e = q.front();  // stays valid: only S adds to queues, and not during this step
  q.head = (q.head + 1) % q.depth;
  --q.count;
  q.dirty = true;
  if (waiting_queue_ == p) {
    waiting_queue_ = -1;
    s_time_ = std::max(s_time_, t);
  }
  const Instr& in = *e.I.instr;
  if (e.kind == Kind::SetFlag) {
    uint64_t fire = std::max(t, q.last_completion);
    pipes_[in.ops[1].imm].dirty = true;  // its waiting pipe may now go
    Clock snapshot = q.known;
    snapshot[p] = q.epoch;
    fired_of(e.I.index).push_back({fire, snapshot, q.remote, e.I.index, q.syncs});
    q.last_start = t;
    return;
  }
  if (e.kind == Kind::WaitFlag) {
    auto& fifo = fired_of(e.I.index);
    Fire f = fifo.front();
    fifo.erase(fifo.begin());
    check_set_while_set(fifo, f, t);
    ++q.syncs;
    uint64_t base = sync_base(q, e);
    stats_.pipes[p].flag_stall += f.time > base ? f.time - base : 0;
    for (int k = 0; k < kNumPipes; ++k) q.known[k] = std::max(q.known[k], f.snapshot[k]);
    q.remote = merge_knowledge(q.remote, f.remote);
    q.next_start = std::max(q.next_start, t);
    q.last_start = t;
    if (ctx_.options.trace) {
      count_trace_events(4);  // two zero-length slices and the flow's two ends
      trace_.flows.push_back({uint8_t(in.ops[0].imm), uint8_t(p), f.set_index, e.I.index, f.time, t, -1, block_});
    }
    return;
  }
  if (e.kind == Kind::SetCross) return set_cross(p, e, t);
  if (e.kind == Kind::WaitCross) return wait_cross(p, e, t);
  if (e.kind == Kind::Barrier) {
    q.barrier_floor = std::max(q.barrier_floor, q.last_completion);
    q.known[p] = q.epoch;
    q.last_start = t;
    if (ctx_.options.trace) {  // an instant on its pipe: where the pipe's next instructions wait from
      count_trace_events(1);
      trace_.slices.push_back({uint8_t(p), e.I.index, block_, std::max(t, q.last_completion), std::max(t, q.last_completion)});
    }
    return;
  }
  execute_work(p, e, t);
}

// A flag holds one signal. The set after `consumed`, when it fired before this wait took the signal
// (`when`), was lost on hardware: its waits would hang. Judged in simulated time, not program order:
// waits issued before their sets, on a busy pipe, still lose a signal, and a second set ordered
// after the first wait through another flag loses none. A set that fires in the very cycle the wait
// takes the signal is lost too unless something could have ordered it after the wait: the setting
// pipe passed a wait or a barrier ALL since the first set (flag instructions take no cycles, so a
// correct ping-pong may tie; two sets back to back with nothing between them race the wait).
void TimingCore::check_set_while_set(std::vector<Fire>& fifo, const Fire& consumed, uint64_t when) {
  if (fifo.empty() || fifo.front().lost) return;
  const Fire& next = fifo.front();
  if (next.time < when || (next.time == when && next.setter_syncs == consumed.setter_syncs))
    report_set_while_set(fifo.front(), consumed, when);
}

// `when`: the cycle a wait took `earlier`'s signal; kNever: no wait took it.
void TimingCore::report_set_while_set(Fire& again, const Fire& earlier, uint64_t when) {
  again.lost = true;
  const Instr& in = ctx_.program.code[size_t(again.set_index)];
  const std::string taken = when == kNever ? "no wait took the first" : fmt::format("the wait took the first at cycle {}", when);
  report(Diagnostic::Kind::Sync, again.set_index,
         fmt::format("flag {}->{} event {} is set again before a wait_flag consumed the set at {}: it "
                     "fired at cycle {}, {}. The flag holds one signal, so the first signal is lost and a "
                     "second wait would hang on hardware: order the set after the wait (a flag back from the waiting "
                     "pipe)",
                     pipe_name(Pipe(in.ops[0].imm)), pipe_name(Pipe(in.ops[1].imm)), in.ops[2].imm,
                     instruction_at(ctx_.program, earlier.set_index), again.time, taken));
}

// ---- cross-core flags ---------------------------------------------------------------------------

// Fires like set_flag (once every earlier instruction of its pipe completed) and hands the engine
// what the pipe knows, of this core and of others.
void TimingCore::set_cross(int p, const Entry& e, uint64_t t) {
  PipeState& q = pipes_[p];
  const Instr& in = *e.I.instr;
  Clock snapshot = q.known;
  snapshot[p] = q.epoch;
  std::vector<int> woken;
  std::vector<std::string> errors;
  const uint64_t fired = std::max(t, q.last_completion);
  ctx_.cross->set(core_, int(in.ops[1].imm), int(in.ops[2].imm), fired, with_unit_clock(q.remote, unit_, snapshot),
                  e.I.index, woken, errors);
  // Its own instant: a set_cross may reach several cores (mode 2 of a cube core) or be one of several
  // a wait takes (of vector cores), so the flow arrows, one a wait, cannot stand for it.
  if (ctx_.options.trace) {
    count_trace_events(1);
    trace_.slices.push_back({uint8_t(p), e.I.index, block_, fired, fired});
  }
  for (std::string& m : errors) report(Diagnostic::Kind::Sync, e.I.index, std::move(m));
  for (int c : woken) {
    if (c == core_) cross_delivered();
    else delivered_elsewhere_ = true, woken_.push_back(c);
  }
  q.last_start = t;
}

void TimingCore::wait_cross(int p, const Entry& e, uint64_t t) {
  PipeState& q = pipes_[p];
  CrossDelivery d = ctx_.cross->consume(core_, int(e.I.instr->ops[1].imm));
  uint64_t base = sync_base(q, e);
  stats_.pipes[p].flag_stall += d.time > base ? d.time - base : 0;
  if (const Clock* mine = find_unit_clock(d.knowledge, unit_))  // what this core signalled comes back
    for (int k = 0; k < kNumPipes; ++k) q.known[k] = std::max(q.known[k], (*mine)[k]);
  q.remote = merge_knowledge(q.remote, d.knowledge);
  q.next_start = std::max(q.next_start, t);
  q.last_start = t;
  ++q.syncs;
  if (ctx_.options.trace && d.set_index >= 0) {
    count_trace_events(3);  // the wait's zero-length slice and the flow's two ends (set_cross has its own slice)
    const uint64_t latency = uint64_t(ctx_.chip.timing.cross_core_latency);
    trace_.flows.push_back({ctx_.pipes[size_t(d.set_index)], uint8_t(p), d.set_index, e.I.index,
                            d.time > latency ? d.time - latency : 0, t, int32_t(d.setter_core), block_});
  }
}

// ---- work instructions ------------------------------------------------------------------------

void TimingCore::execute_work(int p, const Entry& e, uint64_t t) {
  PipeState& q = pipes_[p];
  const Issued& I = e.I;
  ++q.epoch;
  PipeStats& ps = stats_.pipes[p];
  ++ps.instructions;
  Cost c{0, 1};
  // Bounds, alignment and types are checked in timing-only runs too: an instruction that faults
  // is not run (nor costed) in either mode, so both report the same faults and cycles.
  const AccessError err = check(I, ctx_.chip, ctx_.gm, fp_);
  if (err.kind != AccessError::None) {
    Diagnostic::Kind kind = err.kind == AccessError::OutOfBounds  ? Diagnostic::Kind::OutOfBounds
                            : err.kind == AccessError::Misaligned ? Diagnostic::Kind::Misaligned
                            : err.kind == AccessError::Fault      ? Diagnostic::Kind::Fault
                                                                  : Diagnostic::Kind::DtypeMismatch;
    report(kind, I.index, err.message);
  } else {
    c = cost_of(I, fp_, t);
    if (!ctx_.options.timing_only) stream_.push_back({I, t, q.known, q.remote, unit_, q.epoch, uint8_t(p), block_, e.order});
  }
  uint64_t completion = t + uint64_t(c.latency + c.occupancy);
  q.next_start = t + uint64_t(c.occupancy);
  q.last_completion = std::max(q.last_completion, completion);
  q.last_start = t;
  ps.busy += uint64_t(c.occupancy);
  stats_.line_cycles[I.index] += uint64_t(c.occupancy);
  if (ctx_.options.trace) {
    count_trace_events(1);
    trace_.slices.push_back({uint8_t(p), I.index, block_, t, completion});
  }
}

}  // namespace cubekit
