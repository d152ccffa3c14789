// The lowering passes, in order. Each reads and rewrites the Kernel IR (ir.h).
#include "codegen/lower.h"

#include "codegen/emit.h"
#include "codegen/fit.h"
#include "codegen/launch_width.h"
#include "codegen/lower_stages.h"
#include "codegen/select.h"
#include "codegen/simplify.h"
#include "codegen/storage.h"
#include "codegen/sync.h"
#include "codegen/verify.h"
#include "dsl/bounds.h"
#include "emulator/error.h"
#include "schedules/attention.h"
#include "schedules/contraction.h"
#include "schedules/conv.h"
#include "schedules/pool.h"
#include "schedules/stages.h"
#include "schedules/vector.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <chrono>
#include <optional>
#include <cstdlib>
#include <cstring>

namespace cubekit::codegen {

namespace {

bool debug_lower() { return debug_flags().lower; }

// `ir()` only runs when CUBEKIT_DEBUG asks for the log.
template <class F>
void log(const char* pass, F ir) {
  if (debug_lower()) fmt::print(stderr, "\n==== after {} ====\n{}", pass, ir());
}

// A read through a boundary condition, in f or a Func it calls (nullptr: none). Each Func is read
// once (`seen`): a chain of Funcs each calling the one before twice was read 2^N times.
const dsl::ExprNode* exterior_read(const dsl::Expr& e, std::set<const dsl::FuncImpl*>& seen) {
  const dsl::ExprNode& n = e.node();
  if (n.op == dsl::Op::Exterior) return &n;
  if (n.op == dsl::Op::Func && seen.insert(n.func.get()).second)
    if (const dsl::ExprNode* r = exterior_read(n.func->value, seen)) return r;
  for (const dsl::Expr& a : n.args)
    if (const dsl::ExprNode* r = exterior_read(a, seen)) return r;
  return nullptr;
}
const dsl::ExprNode* exterior_read(const dsl::Expr& e) {
  std::set<const dsl::FuncImpl*> seen;
  return exterior_read(e, seen);
}

// A convolution e calls directly (nullptr: none): a consumer of one that forgot epilogue_of().
std::shared_ptr<dsl::FuncImpl> called_conv(const dsl::Expr& e) {
  const dsl::ExprNode& n = e.node();
  if (n.op == dsl::Op::Func && sched::is_conv(dsl::Func(n.func))) return n.func;
  for (const dsl::Expr& a : n.args)
    if (auto c = called_conv(a)) return c;
  return nullptr;
}

}  // namespace

Program lower_nest(Kernel& k, const ChipConfig& chip) {
  const bool check = verification_on();
  auto after = [&](const char* pass, Stage stage) {
    log(pass, [&] { return k.str(); });
    if (check) verify(k, stage, pass);
  };
  after("loop nest", Stage::LoopNest);
  select_instructions(k, chip);                    // Moves and Mmads become ISA instructions
  after("instruction selection", Stage::Selected);
  plan_storage(k, chip);                           // offsets of every buffer copy
  after("storage planning", Stage::Stored);
  insert_sync(k, chip);                            // tokens between pipes, barriers within
  after("synchronisation", Stage::Synchronised);
  simplify(k);                                     // what the shape decides at compile time
  after("simplification", Stage::Simplified);
  Program program = emit_program(k, chip);         // registers, real loops, branches
  log("scalar code", [&] { return print_program(program); });
  return program;
}

Compiled compile(const dsl::Func& f, const ChipConfig& chip) { return compile(std::vector<dsl::Func>{f}, chip); }

namespace {

// compile(), or with `plan_only` its checks and the schedule's planner alone (check_schedule).
// The program names its GM tensors by the inputs' and outputs' names: two of one name were the
// assembler's "tensor 'X' is declared twice", about a program the author never wrote.
void check_tensor_names(const std::vector<dsl::Func>& outputs) {
  std::map<std::string, std::string> seen;  // name -> what it names, for the message
  auto add = [&](const std::string& name, const std::string& what) {
    auto [it, fresh] = seen.emplace(name, what);
    if (!fresh)
      user_error("{} and {} are both named '{}': the kernel's tensors take their names; give them different names",
                 it->second, what, name);
  };
  std::set<const dsl::InputImpl*> inputs;
  for (const dsl::Func& o : outputs)
    for (const auto& in : o.inputs())
      if (inputs.insert(in.get()).second) add(in->name, fmt::format("input {}", in->name));
  for (const dsl::Func& o : outputs) add(o.name(), fmt::format("the output Func {}", o.name()));
}

// An RVar outside sum(), maximum() and minimum(): every path would refuse it in its own terms (the
// vector path spoke of rows it cannot read), so it is said once, as the reference says it.
void check_rvars_reduced(const dsl::Expr& e, const dsl::FuncImpl& f, bool reduced, std::set<const dsl::FuncImpl*>& seen) {
  const dsl::ExprNode& n = e.node();
  if (n.op == dsl::Op::Var && n.var->reduction && !reduced)
    user_error("{}: the RVar {} is used outside sum(), maximum() and minimum(); reduce over it, or use a Var", f.name,
               n.var->name);
  if (n.op == dsl::Op::Func && seen.insert(n.func.get()).second) check_rvars_reduced(n.func->value, *n.func, false, seen);
  const bool reduction = n.op == dsl::Op::Sum || n.op == dsl::Op::Maximum || n.op == dsl::Op::Minimum;
  for (const dsl::Expr& a : n.args) check_rvars_reduced(a, f, reduced || reduction, seen);
}

Compiled compile_or_plan(const std::vector<dsl::Func>& outputs, const ChipConfig& chip, bool plan_only) {
  auto start = std::chrono::steady_clock::now();
  check_chip(chip);  // a config built or changed in C++ (a chip of 0 cores divided by zero)
  if (outputs.empty()) user_error("compile: no output Func was given; a kernel computes at least one (its Func)");
  const dsl::Func& f = outputs[0];
  if (!f.defined()) user_error("{} has no definition", f.name());
  for (const dsl::Directive& d : f.impl->schedule)
    if (d.kind == dsl::Directive::Kind::StoreWith)
      user_error("{}.{}: {} is written by {}'s kernel: compile the two together, {} first (codegen::compile({{{}, {}}}, "
                 "chip); the CLI's and Python's conv2d take subsampled=)", f.name(), d.text, f.name(), d.func->name,
                 d.func->name, d.func->name, f.name());
  const dsl::Func* sub = nullptr;  // a second output (Func::store_with)
  for (size_t i = 1; i < outputs.size(); ++i) {
    const dsl::Func& o = outputs[i];
    if (!o.defined()) user_error("{} has no definition", o.name());
    if (o.impl == f.impl) user_error("{} is given twice among the outputs; give each output once", o.name());
    bool with = false;
    for (const dsl::Directive& d : o.impl->schedule) with = with || (d.kind == dsl::Directive::Kind::StoreWith && d.func == f.impl);
    if (!with)
      user_error("{}: a kernel makes one Func, {}; a second output is written by its kernel only with {}.store_with({})",
                 o.name(), f.name(), o.name(), f.name());
    if (sub) user_error("{}: {} already has a second output, {}; a kernel writes at most two", o.name(), f.name(), sub->name());
    sub = &o;
  }
  check_tensor_names(outputs);
  std::set<const dsl::FuncImpl*> reduced;
  for (const dsl::Func& o : outputs)
    if (reduced.insert(o.impl.get()).second) check_rvars_reduced(o.impl->value, *o.impl, false, reduced);
  Kernel k;
  std::string stages;  // the stage graph it is lowered from, printed (schedules/stages.h)
  auto directive = [&](dsl::Directive::Kind kind) -> const dsl::Directive* {
    for (const dsl::Directive& d : f.impl->schedule)
      if (d.kind == kind) return &d;
    return nullptr;
  };
  // A directive that sets one thing, given twice, would silently keep one of the two.
  // (epilogue_of() given twice has its own message, in the epilogue's planning.)
  for (dsl::Directive::Kind kind : {dsl::Directive::Kind::Cores, dsl::Directive::Kind::Cube, dsl::Directive::Kind::Flash,
                                    dsl::Directive::Kind::TileRows, dsl::Directive::Kind::MultiBuffer}) {
    const dsl::Directive* first = directive(kind);
    for (const dsl::Directive& d : f.impl->schedule)
      if (d.kind == kind && &d != first)
        user_error("{}.{}: the schedule already has {}; each of cores(), cube(), flash(), tile_rows() and "
                   "multi_buffer() is given once (merge the two into one call)", f.name(), d.text, first->text);
  }
  if (const dsl::Directive* cores = directive(dsl::Directive::Kind::Cores); cores && cores->vars.empty())
    user_error("{}.{}: name the loops whose iterations go to the cores (cores({{..}}) with none spreads nothing)", f.name(),
               cores->text);
  const dsl::Directive* epilogue = directive(dsl::Directive::Kind::EpilogueOf);
  if (epilogue && epilogue->func == f.impl)
    user_error("{}.{}: a Func is not its own epilogue; epilogue_of() names the contraction (a matmul or a convolution) "
               "whose tiles {} reads", f.name(), epilogue->text, f.name());
  if (epilogue && epilogue->func)
    for (const dsl::Directive& d : epilogue->func->schedule)
      if (d.kind == dsl::Directive::Kind::EpilogueOf && d.func)
        user_error("{}.{}: {} is itself an epilogue (of {}); epilogues do not chain: write {}'s expression into {}'s "
                   "definition, one epilogue of {}", f.name(), epilogue->text, epilogue->func->name, d.func->name, f.name(),
                   epilogue->func->name, d.func->name);
  // A convolution pads its input (constant_exterior) in set_fmatrix; nothing else lowers a
  // boundary condition yet.
  const bool conv = sched::is_conv(f) || (epilogue && epilogue->func && sched::is_conv(dsl::Func(epilogue->func)));
  // A pooling skips the window taps that read its padding.
  const bool pool = !epilogue && sched::is_pool(f);
  if (auto c = conv || pool ? nullptr : called_conv(f.impl->value))
    user_error("{}: it reads the convolution {}; compute {} in {}'s epilogue with {}.epilogue_of({}) (the convolution's "
               "tiles pass through it on their way out), or compile {} on its own and pass its result as an Input",
               f.name(), c->name, f.name(), c->name, f.name(), c->name, c->name);
  if (const dsl::ExprNode* r = conv || pool ? nullptr : exterior_read(f.impl->value))
    user_error("{}: {} is read through a boundary condition (BoundaryConditions::constant_exterior); the compiler "
               "lowers one only where a convolution reads its input (O(n, k, y, x) = sum(cast(T, P(n, r.x, y*sh + "
               "r.y - ph, x*sw + r.z - pw)) * cast(T, W(k, r.x, r.y, r.z))), the sum all of the value but a cast) "
               "or a pooling its window (maximum, minimum or sum of P(n, c, ..)): write {} in one of those forms, "
               "compute it on the CPU (dsl::run_on_host, cubekit.reference) or read the input inside its shape",
               f.name(), r->input->name, f.name());
  sched::StageGraph graph;  // the kernel's, with its tiles and strips chosen
  std::optional<Program> lowered;  // the vector and cube paths lower their launch widths whole
  if (sched::is_attention(f)) {                    // flash attention: two products and the softmax between
    sched::AttentionPlan plan = sched::plan_attention(f, chip);
    if (sub) sched::attach_lse(plan, *sub);
    log("schedule", [&] { return plan.str() + "\n"; });
    k = fit_attention(plan, chip, graph);          // the nest, or the user's error for tiles its buffers cannot hold
    if (plan_only) return {};
    stages = plan.str() + "\n" + graph.str();
  } else if (epilogue || conv || directive(dsl::Directive::Kind::Cube) || sched::is_contraction(f)) {  // the cube path
    dsl::Func producer = epilogue ? dsl::Func(epilogue->func) : f;  // with a fused epilogue, the contraction it reads
    sched::ContractionPlan plan = conv ? sched::plan_conv(producer, chip) : sched::plan_contraction(producer, chip);
    if (epilogue) sched::attach_epilogue(plan, f);
    if (sub) sched::attach_subsampled(plan, *sub);
    log("schedule", [&] { return plan.str() + (epilogue ? ", epilogue " + f.name() : "") + "\n"; });
    k = fit_strips(plan, chip, graph);             // loops, scopes, Move and Mmad, the strips UB holds
    if (plan_only) return {};
    dsl::check_reads_in_bounds(f);                 // before measuring launch widths
    if (sub) dsl::check_reads_in_bounds(*sub);
    Launch launch = fit_contraction_width(graph, plan, std::move(k), chip);  // the cores worth starting
    k = std::move(launch.kernel);
    lowered = std::move(launch.program);
  } else if (sub) {
    user_error("{}.store_with({}): a second output is a convolution's; {} is not one", sub->name(), f.name(), f.name());
  } else if (pool) {                               // a pooling on the vector unit
    sched::PoolPlan plan = sched::plan_pool(f, chip);
    if (plan_only) return {};
    log("schedule", [&] { return plan.str() + "\n"; });
    graph = sched::stage_graph(plan);
    k = lower_stages(graph, chip);
    dsl::check_reads_in_bounds(f);                 // before measuring launch widths
    Launch launch = fit_pool_width(graph, plan, std::move(k), chip);  // the cores worth starting
    k = std::move(launch.kernel);
    lowered = std::move(launch.program);
  } else {                                         // the vector path
    sched::VectorPlan plan = sched::plan_vector(f, chip);
    log("schedule", [&] { return plan.str() + "\n"; });
    if (plan_only) {
      fit_row_tiles(graph, plan, chip);            // the tile UB holds, or the user's error
      return {};
    }
    dsl::check_reads_in_bounds(f);
    Launch launch = fit_launch_width(graph, plan, chip);  // the tile, and the cores worth starting
    k = std::move(launch.kernel);
    lowered = std::move(launch.program);
  }
  if (stages.empty()) stages = graph.str();
  log("stage graph", [&] { return stages; });
  // After planning, which says more about the reads it cannot lower (the paths that measure
  // launch widths checked before measuring).
  if (!lowered) dsl::check_reads_in_bounds(f);
  if (!lowered && sub) dsl::check_reads_in_bounds(*sub);
  Program program = lowered ? std::move(*lowered) : lower_nest(k, chip);
  // A kernel on both kinds of core splits each tile between a cube core's two vector cores (the
  // 910B's and the 950's groups): a chip config of other groups is refused, not miscompiled.
  if (program.entry(CoreKind::Aic) && program.entry(CoreKind::Aiv) && chip.vector_cores_per_cube != 2)
    user_error("{}: the kernel runs on the cube cores and their vector cores, and hands each tile to a group's two "
               "vector cores; chip '{}' has {} vector core{} per cube core. Give the chip config "
               "vector_cores_per_cube 2 (the 910B's and the 950's), or compute {} with a kernel on one kind of core "
               "(no fused epilogue)", f.name(), chip.name, chip.vector_cores_per_cube,
               chip.vector_cores_per_cube == 1 ? "" : "s", f.name());
  // Reports, traces and diagnostics name lines of the program `cubekit compile` writes (a built
  // program has no source lines: every run but the CLI's said "line 0").
  number_lines(program);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return {std::move(program), ms, std::move(k.layouts), std::move(stages)};
}

}  // namespace

Compiled compile(const std::vector<dsl::Func>& outputs, const ChipConfig& chip) {
  return compile_or_plan(outputs, chip, false);
}

void check_schedule(const std::vector<dsl::Func>& outputs, const ChipConfig& chip) {
  compile_or_plan(outputs, chip, true);
}

Compiled compile(const dsl::Func& f, const dsl::Schedule& schedule, const ChipConfig& chip) {
  // The same definition (the same variables, so the schedule's names hold) under another schedule:
  // nothing refers to f's FuncImpl from inside its own definition, so a copy is f.
  auto with = std::make_shared<dsl::FuncImpl>(*f.impl);
  with->schedule = schedule;
  return compile(dsl::Func(with), chip);
}

}  // namespace cubekit::codegen
