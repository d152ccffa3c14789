#include "schedules/stages.h"

#include "schedules/conv.h"
#include "emulator/error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace cubekit::sched {

std::string_view at_name(At a) {
  switch (a) {
    case At::Given: return "";
    case At::Core: return "core";
    case At::Tile: return "tile";
    case At::Chunk: return "L1 chunk of k";
    case At::Step: return "L0 step of k";
    case At::Strip: return "strip";
    case At::RowStrip: return "strip of rows";
    case At::KeyTile: return "key tile";
  }
  return "?";
}

std::string_view engine_name(Engine e) {
  switch (e) {
    case Engine::None: return "";
    case Engine::MTE2: return "MTE2";
    case Engine::MTE1: return "MTE1";
    case Engine::Cube: return "Cube";
    case Engine::FixPipe: return "FixPipe";
    case Engine::Vector: return "Vector";
    case Engine::MTE3: return "MTE3";
  }
  return "?";
}

std::string_view place_name(Place p) {
  switch (p) {
    case Place::GM: return "GM";
    case Place::L1: return "L1";
    case Place::L0A: return "L0A";
    case Place::L0B: return "L0B";
    case Place::L0C: return "L0C";
    case Place::UB: return "UB";
    case Place::Workspace: return "GM workspace";
  }
  return "?";
}

std::string_view path_name(Path p) {
  switch (p) {
    case Path::Nd2Nz: return "nd2nz";
    case Path::Copy: return "copy";
    case Path::Load2d: return "load2d";
    case Path::Load3d: return "load3d";
    case Path::Mmad: return "mmad";
    case Path::Drain: return "mov_l0c_ub";
    case Path::FixPipe: return "fixpipe";
    case Path::CrossCore: return "cross-core";
    case Path::Compute: return "vector";
    case Path::Gather: return "gather";
  }
  return "?";
}

int64_t stage_bytes(const GraphStage& s) {
  const int64_t size = dtype_size(s.dtype), c0 = 32 / size;
  switch (s.form) {
    case Form::None: break;
    case Form::NZ: return round_up(s.tile[0], 16) * round_up(s.tile[1], c0) * size;
    case Form::ZN: return round_up(s.tile[0], c0) * round_up(s.tile[1], 16) * size;
    case Form::FractalZ: return s.tile[0] * round_up(s.tile[1], 16) * size;
    case Form::FeatureMap: return s.tile[0] * s.tile[1] * s.tile[2] * s.tile[3] * size;
    case Form::Acc: return round_up(s.tile[0], 16) * round_up(s.tile[1], 16) * size;
    case Form::Strip: return round_up(s.tile[0], 16) * s.tile[1] * size;
    case Form::Vector:
    case Form::Rows: {
      int64_t n = 1;
      for (size_t i = 0; i < s.tile.size(); ++i)
        n *= s.form == Form::Rows && i + 1 == s.tile.size() ? round_up(s.tile[i], 16) : s.tile[i];
      return round_up(n * size, 32);
    }
  }
  CUBEKIT_ASSERT(false, "{}: a stage without a form is sized by its lowering", s.name);
  return 0;
}

int64_t StageGraph::step(At at) const {
  for (const Loop& l : loops)
    if (l.at == at) return l.step;
  return 0;
}

int StageGraph::add(GraphStage s) {
  stages.push_back(std::move(s));
  return int(stages.size()) - 1;
}

void StageGraph::connect(int producer, int consumer, Path path) { edges.push_back({producer, consumer, path}); }

std::string StageGraph::str() const {
  size_t width = 4;
  for (const GraphStage& s : stages) width = std::max(width, s.name.size());
  std::string out = fmt::format("stages of {}:\n", kernel);
  for (size_t i = 0; i < stages.size(); ++i) {
    const GraphStage& s = stages[i];
    std::string where = std::string(place_name(s.place));
    if (s.engine != Engine::None) where += fmt::format(" on {}", engine_name(s.engine));
    std::vector<std::string> extents;  // 0: chosen by the nest (the rows UB holds, a strip's rows)
    for (int64_t e : s.tile) extents.push_back(e > 0 ? std::to_string(e) : e == 0 ? "rows" : "elements");
    std::string what = s.tile.empty() ? "" : fmt::format(" [{}]", fmt::join(extents, " x "));
    if (s.at != At::Given) what += fmt::format(" per {}", at_name(s.at));
    if (s.copies > 1) what += fmt::format(", {} copies", s.copies);
    std::string from;
    for (const Edge& e : edges)
      if (e.consumer == int(i))
        from += fmt::format("{}{} ({})", from.empty() ? " <- " : ", ", stages[size_t(e.producer)].name, path_name(e.path));
    if (from.empty()) from = " (given)";
    out += fmt::format("  {:<{}} {}{}{}\n", s.name, width, where, what, from);
  }
  return out;
}

namespace {

// The k loop one L1 (or L0) fill is made in: every chunk of k, or once per tile.
At chunk_loop(int64_t chunk, int64_t k, At loop) { return chunk < k ? loop : At::Tile; }

}  // namespace

StageGraph stage_graph(const ContractionPlan& p, int64_t chosen) {
  const Contraction& c = p.c;
  StageGraph g;
  g.kernel = p.func_name;
  g.contraction = std::make_shared<const ContractionPlan>(p);
  // The UB strips: the fit's width, else the plan's (the vector cores' rows: to be chosen).
  const int64_t strip = chosen >= 0 ? chosen : p.split ? 0 : p.strip;
  g.tiles = {p.tile_loops, p.core_loops, p.core_group, p.stagger, p.core_limit};
  g.loops = {{At::Chunk, c.k, p.tk_l1}, {At::Step, p.tk_l1, p.tk_l0}};
  if (!p.split) g.loops.push_back({At::Strip, p.tn, strip});
  if (p.vector_epilogue) g.loops.push_back({At::RowStrip, p.tm, strip});
  int a = g.add({c.a->name, Engine::None, Place::GM, {}, At::Given, 1});
  int b = g.add({c.b->name, Engine::None, Place::GM, {}, At::Given, 1});
  At l1_at = chunk_loop(p.tk_l1, c.k, At::Chunk), l0_at = chunk_loop(p.tk_l0, c.k, At::Step);
  int copies = p.double_buffer ? 2 : 1;
  std::vector<int64_t> a_tile = c.a_transposed ? std::vector<int64_t>{p.tk_l1, p.tm} : std::vector<int64_t>{p.tm, p.tk_l1};
  if (c.conv)  // channel blocks x the input rows a tile of output rows reads (of each stacked image) x W x C0
    a_tile = {p.tk_l1 / c.g.window(), c.g.images * conv_input_rows(c.g, p.tm / (c.g.ow * c.g.images)), c.g.w, c.g.c0};
  int a1 = g.add({c.a->name + ".l1", Engine::MTE2, Place::L1, a_tile, l1_at, p.l1_copies});
  int b1 = g.add({c.b->name + ".l1", Engine::MTE2, Place::L1,
                  c.b_transposed ? std::vector<int64_t>{p.tn, p.tk_l1} : std::vector<int64_t>{p.tk_l1, p.tn}, l1_at,
                  p.l1_copies});
  auto held = [&](int stage, Form form, DType t) { g.stages[size_t(stage)].form = form, g.stages[size_t(stage)].dtype = t; };
  held(a1, c.conv ? Form::FeatureMap : Form::NZ, c.in);
  held(b1, c.conv ? Form::FractalZ : Form::NZ, c.in);
  g.connect(a, a1, c.conv ? Path::Copy : Path::Nd2Nz);
  g.connect(b, b1, c.conv ? Path::Copy : Path::Nd2Nz);
  int a0 = g.add({c.a->name + ".l0a", Engine::MTE1, Place::L0A, {p.tm, p.tk_l0}, l0_at, copies});
  int b0 = g.add({c.b->name + ".l0b", Engine::MTE1, Place::L0B, {p.tk_l0, p.tn}, l0_at, copies});
  held(a0, Form::NZ, c.in);
  held(b0, Form::ZN, c.in);
  g.connect(a1, a0, c.conv ? Path::Load3d : Path::Load2d);
  g.connect(b1, b0, Path::Load2d);
  std::string acc = p.producer ? p.producer->name : p.func_name;
  int l0c = g.add({acc, Engine::Cube, Place::L0C, {p.tm, p.tn}, At::Tile, 1});
  held(l0c, Form::Acc, c.acc);
  g.connect(a0, l0c, Path::Mmad);
  g.connect(b0, l0c, Path::Mmad);
  if (p.split && !p.vector_epilogue) {  // out through the FixPipe
    int out = g.add({p.func_name + ".gm", Engine::FixPipe, Place::GM, {p.tm, p.tn}, At::Tile, 1});
    g.connect(l0c, out, Path::FixPipe);
    return g;
  }
  int ub;
  if (p.vector_epilogue) {
    int ws = g.add({acc + ".workspace", Engine::FixPipe, Place::Workspace, {p.tm, p.tn}, At::Tile, 2});
    g.connect(l0c, ws, Path::FixPipe);
    // The vector cores' strips of rows: each double-buffered (its next strip loads while this one
    // computes), whatever the cube's copies.
    ub = g.add({acc + ".ub", Engine::MTE2, Place::UB, {strip, p.tn}, At::RowStrip, 2});
    held(ub, Form::Rows, c.acc);
    g.connect(ws, ub, Path::CrossCore);
  } else {
    ub = g.add({acc + ".ub", Engine::Vector, Place::UB, {p.tm, strip}, At::Strip, p.epilogue ? 1 : copies});
    held(ub, Form::Strip, p.epilogue ? c.acc : c.out);  // the accumulator strip, or the result cast
    g.connect(l0c, ub, Path::Drain);
  }
  int last = ub;
  if (p.epilogue) {
    const bool aiv = p.vector_epilogue;
    int e = g.add({p.func_name, Engine::Vector, Place::UB, aiv ? std::vector<int64_t>{strip, p.tn} : std::vector<int64_t>{p.tm, strip},
                   aiv ? At::RowStrip : At::Strip, aiv ? 2 : copies});
    held(e, aiv ? Form::Rows : Form::Strip, c.out);
    g.connect(ub, e, Path::Compute);
    for (const auto& in : p.epilogue_inputs) {
      int gm = g.add({in.input->name, Engine::None, Place::GM, {}, At::Given, 1});
      // On the vector cores: a full-tile input in strips of rows like the accumulator's; a
      // per-column one once per tile, one buffer for each tile width (the padding a narrower
      // edge tile leaves is zeroed once).
      std::vector<int64_t> tile = aiv ? (in.tile ? std::vector<int64_t>{strip, p.tn} : std::vector<int64_t>{p.tn})
                                      : (in.tile ? std::vector<int64_t>{p.tm, strip} : std::vector<int64_t>{strip});
      At at = in.tile ? (aiv ? At::RowStrip : At::Strip) : At::Tile;
      int s = g.add({in.input->name + ".ub", Engine::MTE2, Place::UB, tile, at, in.tile ? (aiv ? 2 : 1) : (aiv ? 1 : copies), in.input});
      held(s, aiv ? Form::Rows : in.tile ? Form::Strip : Form::Vector, in.input->dtype);
      g.connect(gm, s, Path::Copy);
      g.connect(s, e, Path::Compute);
    }
    last = e;
  }
  int out = g.add({p.func_name + ".gm", Engine::MTE3, Place::GM, {}, At::Given, 1});
  g.connect(last, out, Path::Copy);
  if (p.subsampled) {  // every s-th row and column of each strip gathered (vector unit), then to GM
    constexpr int kGatherCopies = 2;
    const ContractionPlan::Subsampled& sub = *p.subsampled;
    const bool aiv = p.vector_epilogue;
    const int64_t ow = c.g.ow, s = sub.stride, rows = p.tm / (c.g.images * ow);
    // Its positions: of a tile (every image's kept rows), or at most of a strip of the vector cores'
    // positions (which may start inside a row: the kept rows of the rows it spans).
    const int64_t kept = aiv ? (strip > 0 ? std::min(strip, cdiv(cdiv(strip, ow) + 1, s) * sub.ow) : 0)
                             : c.g.images * cdiv(rows, s) * sub.ow;
    int gather = g.add({sub.func->name, Engine::Vector, Place::UB, aiv ? std::vector<int64_t>{kept, p.tn} : std::vector<int64_t>{kept, strip},
                        aiv ? At::RowStrip : At::Strip, kGatherCopies, nullptr, sub.func});
    held(gather, aiv ? Form::Rows : Form::Strip, c.out);
    g.connect(last, gather, Path::Gather);
    int sub_out = g.add({sub.func->name + ".gm", Engine::MTE3, Place::GM, {}, At::Given, 1});
    g.connect(gather, sub_out, Path::Copy);
  }
  return g;
}

namespace {

// The inputs and Funcs an expression reads directly (not through the Funcs it calls).
void reads(const dsl::Expr& e, std::set<const dsl::InputImpl*>& inputs, std::set<const dsl::FuncImpl*>& funcs) {
  const dsl::ExprNode& n = e.node();
  if (n.op == dsl::Op::Input || n.op == dsl::Op::Exterior) inputs.insert(n.input.get());
  if (n.op == dsl::Op::Func) funcs.insert(n.func.get());
  for (const dsl::Expr& a : n.args) reads(a, inputs, funcs);
}

// A stage's tile: rows of columns, one value per row or per column, or (flat) elements; a tile
// size still to be chosen is 0 rows or -1 elements.
std::vector<int64_t> vector_tile(VecShape shape, int64_t rows, int64_t cols, bool flat) {
  if (flat) return {rows > 0 ? rows : -1};
  if (shape == VecShape::Row) return {rows};
  if (shape == VecShape::Col) return {cols};
  return {rows, cols};
}

}  // namespace

StageGraph stage_graph(const VectorPlan& p, int64_t tile_rows) {
  StageGraph g;
  g.kernel = p.name;
  int copies = p.copies;
  const int64_t rows = tile_rows >= 0 ? tile_rows : p.tile_rows;  // 0: as many as UB holds, chosen by the fit
  std::map<const dsl::InputImpl*, int> input_stage;
  std::map<const dsl::FuncImpl*, int> func_stage;
  for (const auto& in : p.inputs) {
    int gm = g.add({in.input->name, Engine::None, Place::GM, {}, At::Given, 1, in.input});
    bool once = in.shape == VecShape::Col;  // per column: loaded once per core
    int ub = g.add({in.input->name + ".ub", Engine::MTE2, Place::UB, vector_tile(in.shape, rows, p.cols, p.flat), once ? At::Core : At::Tile,
                    once ? 1 : copies, in.input, nullptr, in.shape});
    g.connect(gm, ub, Path::Copy);
    input_stage[in.input.get()] = ub;
  }
  auto compute = [&](const std::shared_ptr<dsl::FuncImpl>& f, VecShape shape) {
    int s = g.add({f->name, Engine::Vector, Place::UB, vector_tile(shape, rows, p.cols, p.flat), At::Tile, 1, nullptr, f, shape});
    std::set<const dsl::InputImpl*> ins;
    std::set<const dsl::FuncImpl*> fs;
    reads(f->value, ins, fs);
    for (const auto& in : p.inputs)  // in the plan's order, for a stable print
      if (ins.count(in.input.get())) g.connect(input_stage[in.input.get()], s, Path::Compute);
    for (const auto& st : p.stages)
      if (fs.count(st.func.get())) g.connect(func_stage[st.func.get()], s, Path::Compute);
    func_stage[f.get()] = s;
    return s;
  };
  for (const auto& st : p.stages) compute(st.func, st.shape);
  int out = compute(p.output, p.row_output ? VecShape::Row : VecShape::Full);
  g.stages[size_t(out)].copies = copies;
  int gm = g.add({p.name + ".gm", Engine::MTE3, Place::GM, {}, At::Given, 1, nullptr, p.output});
  g.connect(out, gm, Path::Copy);
  g.row_tiles = {p.rows, p.cols, rows, p.flat, p.row_output, p.cores, p.core_limit};
  return g;
}

StageGraph stage_graph(const PoolPlan& p) {
  StageGraph g;
  g.kernel = p.name;
  g.pool = std::make_shared<const PoolPlan>(p);
  const int copies = p.copies;
  const int64_t planes = p.tile_planes;
  int gm = g.add({p.input->name, Engine::None, Place::GM, {}, At::Given, 1});
  int ub = g.add({p.input->name + ".ub", Engine::MTE2, Place::UB, {planes, std::min(p.g.h, p.in_rows(p.rows)), p.g.w, p.g.c0}, At::Tile, copies});
  g.connect(gm, ub, Path::Copy);
  int out = g.add({p.name, Engine::Vector, Place::UB, {planes, p.rows, p.g.ow, p.g.c0}, At::Tile, copies});
  g.connect(ub, out, Path::Compute);
  int back = g.add({p.name + ".gm", Engine::MTE3, Place::GM, {}, At::Given, 1});
  g.connect(out, back, Path::Copy);
  return g;
}

}  // namespace cubekit::sched
