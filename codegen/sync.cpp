#include "codegen/sync.h"

#include "codegen/accesses.h"
#include "codegen/slot_values.h"
#include "codegen/var_bounds.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace cubekit::codegen {

namespace {

struct Group {
  std::vector<int> buffers;  // sorted
  Pipe p, q;                 // producer, consumer
  int copies = 1;
  int counter = -1;          // uses so far (Whole scopes: also the fills)
  int fills = -1;            // fills so far, when Fill and Use scopes are separate
  bool whole = false;        // staged in Whole scopes
  std::vector<int> full, free;  // event ids per copy
  std::string name;
};

class SyncPass {
 public:
  // One core's program: `body` is the kernel's, or its vector cores' in a mixed kernel (their
  // pipes, event ids and buffers are their own).
  // `kind`: the core kind the program runs on when the kernel is mixed (its partner core's buffers
  // are then the other kind's), else nullptr.
  SyncPass(Kernel& k, std::vector<Node>& body, const ChipConfig& chip, const CoreConfig* kind = nullptr)
      : k_(k), body_(body), chip_(chip), kind_(kind) {}

  void run() {
    collect_pipes(body_);
    accesses_.clear();  // tokens() inserts nodes, moving the others
    tokens(body_);
    allocate_events();
    std::vector<Node> body = prologue();
    for (Node& n : body_) body.push_back(std::move(n));
    for (Node& n : epilogue()) body.push_back(std::move(n));
    body_ = std::move(body);
    bounds_ = VarBounds(k_, body_);
    State state;
    barriers(body_, state);
    accesses_.clear();
    insert_barriers(body_);
  }

 private:
  // ---- which pipes write and read a buffer inside some nodes ----
  void pipes_of(const std::vector<Node>& body, int buffer, std::set<Pipe>& writers, std::set<Pipe>& readers) {
    for (const Node& n : body) {
      if (n.kind == Node::Kind::Instr)
        for (const Access& a : accesses(n))  // a node's, asked for each buffer its scopes stage
          if (n.refs[size_t(a.ref)].buffer == buffer) (a.write ? writers : readers).insert(n.pipe);
      pipes_of(n.body, buffer, writers, readers);
      pipes_of(n.orelse, buffer, writers, readers);
    }
  }
  bool touches(const Node& n, const std::vector<int>& buffers, Pipe pipe, bool write) {
    if (n.kind == Node::Kind::Instr && n.pipe == pipe)
      for (const Access& a : accesses_of(k_, n, chip_))
        if (a.write == write && std::count(buffers.begin(), buffers.end(), n.refs[size_t(a.ref)].buffer)) return true;
    for (const Node& c : n.body)
      if (touches(c, buffers, pipe, write)) return true;
    for (const Node& c : n.orelse)
      if (touches(c, buffers, pipe, write)) return true;
    return false;
  }

  // ---- tokens between pipes, per scope ----
  // The writer and reader pipes of each buffer, over every scope staging it (a Fill scope sees
  // only the writer, a Use scope only the readers).
  void collect_pipes(const std::vector<Node>& body) {
    for (const Node& n : body) {
      collect_pipes(n.body);
      collect_pipes(n.orelse);
      if (n.kind != Node::Kind::Scope) continue;
      for (int b : n.stages) pipes_of(n.body, b, writers_[b], readers_[b]);
    }
  }

  void tokens(std::vector<Node>& body) {
    for (Node& n : body) {
      tokens(n.body);
      tokens(n.orelse);
      if (n.kind == Node::Kind::Scope) scope_tokens(n);
    }
  }

  void scope_tokens(Node& s) {
    std::map<std::pair<Pipe, Pipe>, std::vector<int>> by_pipes;
    for (int b : s.stages) {
      std::set<Pipe> w = writers_[b], r = readers_[b];
      CUBEKIT_ASSERT(w.size() == 1, "buffer {} has {} writer pipes in one scope", k_.buffers[size_t(b)].name, w.size());
      Pipe p = *w.begin();
      r.erase(p);
      CUBEKIT_ASSERT(r.size() <= 1, "buffer {} has {} reader pipes besides its writer", k_.buffers[size_t(b)].name, r.size());
      if (r.empty()) continue;  // one pipe: barriers only
      by_pipes[{p, *r.begin()}].push_back(b);
    }
    for (auto& [pipes, buffers] : by_pipes) {
      std::sort(buffers.begin(), buffers.end());
      Group& g = group(buffers, pipes.first, pipes.second);
      if (s.phase == Node::Phase::Whole) {
        CUBEKIT_ASSERT(g.fills < 0, "buffers {} are both preloaded and not", g.name);
        g.whole = true;
        place(s, g);
        continue;
      }
      CUBEKIT_ASSERT(!g.whole, "buffers {} are both preloaded and not", g.name);
      if (g.fills < 0) g.fills = k_.new_var("fills_" + g.name, true);
      if (s.phase == Node::Phase::Fill) place_fill(s, g);
      else place_use(s, g);
    }
  }

  Group& group(const std::vector<int>& buffers, Pipe p, Pipe q) {
    for (Group& g : groups_)
      if (g.buffers == buffers && g.p == p && g.q == q) return g;
    Group g{buffers, p, q, k_.buffers[size_t(buffers[0])].copies};
    for (int b : buffers)
      CUBEKIT_ASSERT(k_.buffers[size_t(b)].copies == g.copies, "buffers sharing a token differ in copies");
    for (int b : buffers) g.name += (g.name.empty() ? "" : "_") + k_.buffers[size_t(b)].name;
    g.counter = k_.new_var("uses_" + g.name, true);
    for (int b : buffers) k_.buffers[size_t(b)].counter = g.counter;
    groups_.push_back(g);
    return groups_.back();
  }

  Node sync(SyncKind kind, Pipe src, Pipe dst, const Group& g, bool full, int counter = -1) {
    Node n{Node::Kind::Sync};
    n.sync = kind, n.from = src, n.to = dst;
    n.counter = g.copies > 1 ? (counter >= 0 ? counter : g.counter) : -1;
    n.events = {int(&g - groups_.data()), full ? 1 : 0};  // resolved to ids by allocate_events()
    return n;
  }

  // Inserts the four token operations around the scope's first and last writes and reads.
  void place(Node& s, const Group& g) {
    int first_w = -1, last_w = -1, first_r = -1, last_r = -1;
    for (int i = 0; i < int(s.body.size()); ++i) {
      if (touches(s.body[size_t(i)], g.buffers, g.p, true)) {
        if (first_w < 0) first_w = i;
        last_w = i;
      }
      if (touches(s.body[size_t(i)], g.buffers, g.q, false)) {
        if (first_r < 0) first_r = i;
        last_r = i;
      }
    }
    CUBEKIT_ASSERT(first_w >= 0 && first_r > last_w, "scope uses of a token group are not write-then-read");
    std::vector<Node> out;
    for (int i = 0; i < int(s.body.size()); ++i) {
      if (i == first_w) out.push_back(sync(SyncKind::Wait, g.q, g.p, g, false));
      if (i == first_r) out.push_back(sync(SyncKind::Wait, g.p, g.q, g, true));
      out.push_back(std::move(s.body[size_t(i)]));
      if (i == last_w) out.push_back(sync(SyncKind::Set, g.p, g.q, g, true));
      if (i == last_r) out.push_back(sync(SyncKind::Set, g.q, g.p, g, false));
    }
    if (g.copies > 1) out.push_back(let(g.counter, Affine::var(g.counter), LetOp::Add, 1));
    s.body = std::move(out);
  }

  // A Fill scope: the producer half of the token protocol, on the fill counter; its accesses to
  // the buffers select their copy by that counter too.
  void place_fill(Node& s, const Group& g) {
    CUBEKIT_ASSERT(!std::any_of(s.body.begin(), s.body.end(), [&](const Node& n) { return touches(n, g.buffers, g.q, false); }),
                   "a fill scope of {} reads it", g.name);
    std::vector<Node> out = {sync(SyncKind::Wait, g.q, g.p, g, false, g.fills)};
    for (Node& n : s.body) out.push_back(std::move(n));
    out.push_back(sync(SyncKind::Set, g.p, g.q, g, true, g.fills));
    if (g.copies > 1) out.push_back(let(g.fills, Affine::var(g.fills), LetOp::Add, 1));
    set_counter(out, g.buffers, g.fills);
    s.body = std::move(out);
  }
  static void set_counter(std::vector<Node>& body, const std::vector<int>& buffers, int counter) {
    for (Node& n : body) {
      for (Ref& r : n.refs)
        if (std::count(buffers.begin(), buffers.end(), r.buffer)) r.counter = counter;
      set_counter(n.body, buffers, counter);
      set_counter(n.orelse, buffers, counter);
    }
  }

  // A Use scope: the consumer half, on the use counter.
  void place_use(Node& s, const Group& g) {
    CUBEKIT_ASSERT(!std::any_of(s.body.begin(), s.body.end(), [&](const Node& n) { return touches(n, g.buffers, g.p, true); }),
                   "a use scope of {} writes it", g.name);
    std::vector<Node> out = {sync(SyncKind::Wait, g.p, g.q, g, true)};
    for (Node& n : s.body) out.push_back(std::move(n));
    out.push_back(sync(SyncKind::Set, g.q, g.p, g, false));
    if (g.copies > 1) out.push_back(let(g.counter, Affine::var(g.counter), LetOp::Add, 1));
    s.body = std::move(out);
  }

  // Event ids: each group takes `copies` ids for each of its two directions.
  void allocate_events() {
    std::map<std::pair<Pipe, Pipe>, int> next;
    for (Group& g : groups_) {
      for (int c = 0; c < g.copies; ++c) g.full.push_back(next[{g.p, g.q}]++), g.free.push_back(next[{g.q, g.p}]++);
      for (auto [pair, used] : next)
        if (used > chip_.event_ids)
          user_error("{}: the schedule needs {} event ids from {} to {} but {} has {}; drop double_buffer() (or use "
                     "fewer copies in multi_buffer()) or stage fewer buffers between those pipes{}",
                     k_.name, used, pipe_name(pair.first), pipe_name(pair.second), chip_.name, chip_.event_ids,
                     chip_.event_ids < 2 ? "; a flash() nest, a layout conversion and the vector kernels' default "
                                           "schedules keep two copies in flight: give the chip at least 2 event ids "
                                           "(event_ids in its JSON)"
                                         : "");
    }
    resolve(body_);
  }
  void resolve(std::vector<Node>& body) {
    for (Node& n : body) {
      resolve(n.body);
      resolve(n.orelse);
      if (n.kind != Node::Kind::Sync || (n.sync != SyncKind::Set && n.sync != SyncKind::Wait) || n.events.size() != 2) continue;
      const Group& g = groups_[size_t(n.events[0])];
      n.events = n.events[1] ? g.full : g.free;
    }
  }

  std::vector<Node> prologue() {
    std::vector<Node> out;
    for (const Group& g : groups_) {
      if (g.copies > 1) out.push_back(let(g.counter, Affine(0), LetOp::Add, 0));
      if (g.copies > 1 && g.fills >= 0) out.push_back(let(g.fills, Affine(0), LetOp::Add, 0));
      for (int c = 0; c < g.copies; ++c) {
        Node n{Node::Kind::Sync};
        n.sync = SyncKind::Set, n.from = g.q, n.to = g.p, n.events = {g.free[size_t(c)]};
        out.push_back(n);
      }
    }
    return out;
  }

  std::vector<Node> epilogue() {
    std::vector<Node> out;
    for (const Group& g : groups_)
      for (int c = 0; c < g.copies; ++c) {
        Node n{Node::Kind::Sync};
        n.sync = SyncKind::Wait, n.from = g.q, n.to = g.p, n.events = {g.free[size_t(c)]};
        out.push_back(n);
      }
    return out;
  }

  // ---- barriers within one pipe ----
  struct Pending {
    int buffer;
    Affine offset;  // of the Ref the chunks are relative to
    Chunks chunks;
    bool write;
    bool staged = false;  // made inside a scope staging the buffer: part of its token protocol
    uint64_t released = 0;  // bit g: single-copy token group g's consumer released after it (follow_token)
    int copy = -1;          // the buffer copy, when a constant selects it (zeroing each copy at the start)
    SlotFacts slots = {};   // the slot values of its offset's variables (slot_values.h)
  };
  // Whether a pending access is one a token orders before the next scope of its buffer: only an
  // access of that protocol is (one outside every scope of the buffer, e.g. zeroing its padding
  // at the start, is ordered by nothing the token does).
  bool ordered_by_token(const Pending& x, const std::vector<int>& stages) const {
    return x.staged && token_buffer(x.buffer) && std::count(stages.begin(), stages.end(), x.buffer);
  }
  using State = std::array<std::vector<Pending>, kNumPipes>;

  // Offsets known only at run time may meet unless they differ by a constant (or by slot
  // variables whose values are known to differ).
  static bool may_overlap(const Affine& a, const Chunks& ac, const Affine& b, const Chunks& bc, const SlotFacts& as = {},
                          const SlotFacts& bs = {}) {
    const std::vector<int64_t> distances = slot_distances(a, as, b, bs);
    if (distances.empty()) return true;
    for (int64_t distance : distances)
      if (chunks_meet(ac, distance, bc)) return true;
    return false;
  }

  // A buffer of the partner core (the 950's FixPipe into a vector core's UB, a vector core's UB ->
  // L1): this core's writes there land in another core's memory, one per sub-block, and what
  // orders them with that core's accesses is the kernel's cross-core flags (the checker sees them
  // all), not this core's barriers.
  bool partner(int b) const { return kind_ && !kind_->has_buffer(k_.buffers[size_t(b)].space); }

  bool token_buffer(int b) const {
    for (const Group& g : groups_)
      if (std::count(g.buffers.begin(), g.buffers.end(), b)) return true;
    return false;
  }

  // An instruction's accesses, which collect_pipes() asks for once per buffer and barriers() on
  // every pass over a loop (the nodes stay in place until tokens() and insert_barriers()).
  const std::vector<Access>& accesses(const Node& n) {
    auto [it, fresh] = accesses_.try_emplace(&n);
    if (fresh) it->second = accesses_of(k_, n, chip_);
    return it->second;
  }

  // Adds an access unless the same one is pending already (branches and loop passes repeat them).
  static void add(std::vector<Pending>& pending, Pending x) {
    for (Pending& y : pending)
      if (y.buffer == x.buffer && y.write == x.write && y.copy == x.copy && y.slots == x.slots && (y.offset - x.offset).constant() &&
          (y.offset - x.offset).c == 0 &&
          (y.chunks == x.chunks || *y.chunks == *x.chunks) && (!y.staged || x.staged)) {
        y.released &= x.released;  // released only if released on every path that made it
        return;  // (an access outside the scopes stands for the same one inside them, not the reverse)
      }
    pending.push_back(std::move(x));
  }

  // A single-copy token orders more than its buffers: the consumer q's wait for `full` follows
  // the producer's fill, which waited for q's `free` of the previous use, which q set after
  // everything it had done by then. So at that wait, q's accesses made before its last `free`
  // are ordered, whatever buffer they touched (the vector clock of race_checker.h agrees).
  // The pending accesses q made before setting a `free` are marked with the group; its next
  // `full` wait orders them (the path's state carries the marks, so branches stay exact).
  void follow_token(const Node& n, State& st) {
    if (n.counter >= 0 || n.events.size() != 1 || (n.sync != SyncKind::Set && n.sync != SyncKind::Wait)) return;
    for (size_t g = 0; g < groups_.size() && g < 64; ++g) {
      const Group& t = groups_[g];
      if (t.copies != 1) continue;
      if (n.sync == SyncKind::Set && t.q == n.from && t.p == n.to && t.free[0] == n.events[0])
        for (Pending& x : st[size_t(t.q)]) x.released |= uint64_t(1) << g;
      if (n.sync == SyncKind::Wait && t.p == n.from && t.q == n.to && t.full[0] == n.events[0])
        std::erase_if(st[size_t(t.q)], [&](const Pending& x) { return x.released >> g & 1; });
    }
  }

  // The copy of its buffer a ref selects by a counter of known constant value, or -1.
  int copy_of(const Ref& r) const {
    if (r.counter < 0) return -1;
    auto it = constant_.find(r.counter);
    return it == constant_.end() ? -1 : int(it->second % k_.buffers[size_t(r.buffer)].copies);
  }

  void barriers(std::vector<Node>& body, State& st) {
    for (Node& n : body) {
      switch (n.kind) {
        case Node::Kind::Scope:
          // A token orders this use of its buffers after the previous one on every pipe.
          for (auto& pending : st) std::erase_if(pending, [&](const Pending& x) { return ordered_by_token(x, n.stages); });
          staged_.insert(staged_.end(), n.stages.begin(), n.stages.end());
          barriers(n.body, st);
          staged_.resize(staged_.size() - n.stages.size());
          break;
        case Node::Kind::Loop: {
          // An access in the body that meets one pending from before the loop gets one barrier
          // before the loop, not one in every iteration.
          State before;  // what the loop's barriers order
          for (int p = 0; p < kNumPipes; ++p)
            if (!st[size_t(p)].empty() && meets(n.body, Pipe(p), st[size_t(p)])) {
              n.loop_barriers |= uint8_t(1u << p);
              before[size_t(p)] = std::exchange(st[size_t(p)], {});
            }
          const SlotValues::Outer outer = slots_.begin_loop();
          barriers(n.body, st);  // the first iteration
          // A later iteration: barriers found here repeat every iteration. An access to a slot
          // meets the same slot `slots` iterations on, so as many later iterations are walked.
          for (int64_t later = slots_.most_slots(); later > 0; --later) {
            if (n.step.constant())  // what the previous iteration left, seen from the next one
              for (auto& pending : st)
                for (Pending& x : pending) x.offset = x.offset - Affine(x.offset.coefficient(n.var) * n.step.c);
            barriers(n.body, st);
          }
          const bool runs = bounds_.positive(n.end - n.begin);
          if (runs && n.step.constant() && n.step.c == 1 && at_.var < 0) {
            // What the loop leaves is what its last iteration leaves (var = end - 1), following
            // only the branches that value decides: a flash nest's last key steps only update O,
            // so the softmax's accesses are ordered by then (a pass that adds barriers only where
            // the one before added them, its state being no larger).
            for (auto& pending : st)
              for (Pending& x : pending) x.offset = x.offset - Affine(x.offset.coefficient(n.var));
            at_ = {n.var, n.end - Affine(1)};
            barriers(n.body, st);
            at_ = {-1, {}};
          }
          // The trip count is not known: nor is what the loop added to its counters.
          const std::set<int> changed = slots_.end_loop(outer);
          for (auto& pending : st)
            for (Pending& x : pending) SlotValues::forget(x.slots, changed);
          // A barrier the body has before its first access of a pipe that meets what came before
          // the loop runs in the first iteration too, so it orders that: the one before the loop
          // is redundant. So does one the first iteration meets, where that iteration surely runs
          // and the branches it takes are known (var = begin: a flash nest's key loop starts with
          // the softmax, which resets the running max after its barrier).
          for (int p = 0; p < kNumPipes; ++p)
            if ((n.loop_barriers & (1u << p)) &&
                (first_access(n.body, Pipe(p), 0, {-1, {}}, &before[size_t(p)]) == First::Barrier ||
                 (runs && first_access(n.body, Pipe(p), 0, {n.var, n.begin}, &before[size_t(p)]) == First::Barrier))) {
              n.loop_barriers &= uint8_t(~(1u << p));
              if (!runs)  // a loop of no trips orders nothing: what came before is still pending after it
                for (Pending& x : before[size_t(p)]) add(st[size_t(p)], std::move(x));
            }
          break;
        }
        case Node::Kind::If: {
          if (const int taken = at_.var >= 0 ? bounds_.decided(n, at_.var, at_.value) : -1; taken >= 0) {  // the last iteration's branch
            barriers(taken ? n.body : n.orelse, st);
            constant_.clear();
            break;
          }
          State other = st;
          const std::map<int, int64_t> before = constant_;
          const SlotValues slots_before = slots_;
          barriers(n.body, st);
          const SlotValues slots_body = std::exchange(slots_, slots_before);
          constant_ = before;
          barriers(n.orelse, other);
          constant_.clear();  // (which branch set what is not known after them)
          slots_.merge(slots_body);
          for (int p = 0; p < kNumPipes; ++p)
            for (Pending& x : other[size_t(p)]) add(st[size_t(p)], std::move(x));
          break;
        }
        case Node::Kind::Sync:
          follow_token(n, st);
          if (n.sync == SyncKind::Barrier && n.from == Pipe::All)  // every pipe drained
            for (auto& pending : st) pending.clear();
          else if (n.sync == SyncKind::Barrier) st[size_t(n.from)].clear();
          break;
        case Node::Kind::Let:  // a counter set to a constant selects a known copy
          if (n.a.constant() && n.let_op == LetOp::Add) constant_[n.var] = n.a.c + n.b;
          else constant_.erase(n.var);
          {
            const CounterChange change = slots_.let(n);
            for (auto& pending : st)
              for (Pending& x : pending) change.apply(x.slots);
          }
          break;
        case Node::Kind::Instr: {
          auto& pending = st[size_t(n.pipe)];
          const std::vector<Access>& accs = accesses(n);
          for (const Access& a : accs) {
            const Ref& r = n.refs[size_t(a.ref)];
            if (r.buffer < 0 || partner(r.buffer)) continue;
            const int copy = copy_of(r);
            const SlotFacts facts = slots_.facts(r.offset);
            for (const Pending& x : pending)
              if (x.buffer == r.buffer && (x.write || a.write) && (copy < 0 || x.copy < 0 || copy == x.copy) &&
                  may_overlap(r.offset, a.chunks, x.offset, x.chunks, facts, x.slots))
                n.barrier_before = true;
          }
          if (n.barrier_before) pending.clear();
          for (const Access& a : accs) {
            const Ref& r = n.refs[size_t(a.ref)];
            if (r.buffer >= 0 && !partner(r.buffer))
              add(pending, {r.buffer, r.offset, a.chunks, a.write, std::count(staged_.begin(), staged_.end(), r.buffer) > 0,
                            0, copy_of(r), slots_.facts(r.offset)});
          }
          break;
        }
        default: break;
      }
    }
  }

  // What comes first for pipe p in these nodes, on every path: a barrier of p, an access of p
  // without one, or neither. With `meeting`, only accesses that meet one of those count.
  enum class First { None, Barrier, Access };
  // With `at` (a variable and its value: a loop's first iteration), an If whose condition that
  // value decides takes only its branch.
  struct At {
    int var;  // -1: none
    Affine value;
  };
  First first_access(const std::vector<Node>& body, Pipe p, size_t from = 0) { return first_access(body, p, from, At{-1, {}}); }
  First first_access(const std::vector<Node>& body, Pipe p, size_t from, const At& at, const std::vector<Pending>* meeting = nullptr) {
    for (size_t i = from; i < body.size(); ++i) {
      const Node& n = body[i];
      if (n.kind == Node::Kind::If && at.var >= 0) {
        const int taken = bounds_.decided(n, at.var, at.value);  // 1: the body, 0: the orelse, -1: either
        if (taken >= 0) {
          const First inner = first_access(taken ? n.body : n.orelse, p, 0, at, meeting);
          if (inner != First::None) return inner;
          continue;
        }
      }
      if (n.kind == Node::Kind::Sync && n.sync == SyncKind::Barrier && (n.from == p || n.from == Pipe::All)) return First::Barrier;
      if (n.kind == Node::Kind::Instr && n.pipe == p) {
        if (n.barrier_before) return First::Barrier;
        if (!meeting || meets(n, p, *meeting)) return First::Access;
        continue;
      }
      if (n.kind == Node::Kind::Loop && (n.loop_barriers & (1u << int(p)))) return First::Barrier;
      First inner = First::None;
      if (n.kind == Node::Kind::If) {
        First a = first_access(n.body, p, 0, at, meeting), b = first_access(n.orelse, p, 0, at, meeting);
        if (a == First::None && b == First::None) continue;
        inner = a == First::Access || b == First::Access ? First::Access : First::Barrier;
        if (a == First::None || b == First::None) {  // one path has no access of p: the rest decides it
          First rest = first_access(body, p, i + 1, at, meeting);
          return inner == First::Barrier && rest != First::Access ? First::Barrier : First::Access;
        }
        return inner;
      }
      if (n.kind == Node::Kind::Loop) inner = first_access(n.body, p, 0, at, meeting);
      if (n.kind == Node::Kind::Scope && !meeting) inner = first_access(n.body, p, 0, at);
      if (n.kind == Node::Kind::Scope && meeting) {  // a token orders the scope's buffers (as barriers() assumes)
        std::vector<Pending> rest = *meeting;
        std::erase_if(rest, [&](const Pending& x) { return ordered_by_token(x, n.stages); });
        inner = first_access(n.body, p, 0, at, &rest);
      }
      if (inner == First::Access) return First::Access;
      if (inner == First::Barrier) {
        Affine trips = n.end - n.begin;
        bool runs = n.kind == Node::Kind::Scope || (trips.constant() && trips.c > 0);
        if (runs) return First::Barrier;
        return first_access(body, p, i + 1, at, meeting) == First::Access ? First::Access : First::Barrier;  // zero trips: the rest
      }
    }
    return First::None;
  }

  // Whether an access of pipe p in these nodes may meet one of `pending`.
  bool meets(const Node& n, Pipe p, const std::vector<Pending>& pending) {
    if (n.kind != Node::Kind::Instr || n.pipe != p) return false;
    for (const Access& a : accesses(n)) {
      const Ref& r = n.refs[size_t(a.ref)];
      for (const Pending& x : pending)
        if (r.buffer >= 0 && x.buffer == r.buffer && (x.write || a.write) && may_overlap(r.offset, a.chunks, x.offset, x.chunks))
          return true;
    }
    return false;
  }
  bool meets(const std::vector<Node>& body, Pipe p, const std::vector<Pending>& pending) {
    for (const Node& n : body) {
      if (meets(n, p, pending)) return true;
      if (n.kind == Node::Kind::Scope) {  // a token orders the scope's buffers (as barriers() assumes)
        std::vector<Pending> rest = pending;
        std::erase_if(rest, [&](const Pending& x) { return ordered_by_token(x, n.stages); });
        if (meets(n.body, p, rest)) return true;
        continue;
      }
      if (meets(n.body, p, pending) || meets(n.orelse, p, pending)) return true;
    }
    return false;
  }

  void insert_barriers(std::vector<Node>& body) {
    std::vector<Node> out;
    for (Node& n : body) {
      insert_barriers(n.body);
      insert_barriers(n.orelse);
      for (int p = 0; p < kNumPipes; ++p)
        if (n.loop_barriers & (1u << p)) {
          out.push_back(barrier(Pipe(p)));
        }
      if (n.kind == Node::Kind::Instr && n.barrier_before) {
        out.push_back(barrier(n.pipe));
      }
      out.push_back(std::move(n));
    }
    body = std::move(out);
  }

  Kernel& k_;
  std::vector<Node>& body_;
  const ChipConfig& chip_;
  const CoreConfig* kind_;
  std::vector<Group> groups_;
  std::map<int, std::set<Pipe>> writers_, readers_;
  std::vector<int> staged_;  // buffers the scopes around the node barriers() is at stage
  std::map<int, int64_t> constant_;  // variables a Let set to a constant, on the path barriers() walks
  SlotValues slots_;                 // the slot variables' values, on that path
  std::unordered_map<const Node*, std::vector<Access>> accesses_;  // accesses(): barriers() runs with the nodes in place
  VarBounds bounds_;                 // what the program's variables can hold
  At at_{-1, {}};                    // barriers() in a loop's last iteration: its variable's value
};

}  // namespace

void insert_sync(Kernel& kernel, const ChipConfig& chip) {
  if (!kernel.mixed()) return SyncPass(kernel, kernel.body, chip).run();
  SyncPass(kernel, kernel.body, chip, chip.kind(CoreKind::Aic)).run();
  SyncPass(kernel, kernel.vector_body, chip, chip.kind(CoreKind::Aiv)).run();
}

}  // namespace cubekit::codegen
