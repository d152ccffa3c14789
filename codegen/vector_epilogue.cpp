#include "codegen/vector_epilogue.h"

#include "codegen/subsample.h"
#include "codegen/vector_eval.h"
#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {


std::vector<Arg> mems2() { return {mem_arg(0), mem_arg(1)}; }

}  // namespace

VectorEpilogue::VectorEpilogue(Kernel& k, const sched::StageGraph& g, int workspace, int64_t ws_pitch, int out,
                               int64_t strip_rows, int sub)
    : k_(k), g_(g), p_(*g.contraction), workspace_(workspace), out_tensor_(out), ws_pitch_(ws_pitch), strip_rows_(strip_rows),
      sub_tensor_(sub) {
  int acc = -1, result = -1;
  for (const sched::Edge& e : g.edges)
    if (e.path == sched::Path::CrossCore) acc = e.consumer;
  for (const sched::Edge& e : g.edges)
    if (e.producer == acc && e.path == sched::Path::Compute) result = e.consumer;
  CUBEKIT_ASSERT(acc >= 0 && result >= 0, "{}: a vector epilogue's graph has its accumulator and result strips", p_.func_name);
  acc_ = buffer("ACC", g.stages[size_t(acc)]);
  out_ = buffer("OUT", g.stages[size_t(result)]);
  for (const sched::Edge& e : g.edges)  // the second output's gather, computed from the result
    if (sub >= 0 && e.producer == result && e.path == sched::Path::Gather) gather_ = buffer("G", g.stages[size_t(e.consumer)]);
  CUBEKIT_ASSERT((sub >= 0) == (gather_ >= 0), "{}: a second output has its gather stage", p_.func_name);
  pool_ = std::make_unique<ScratchPool>(k_);
  for (const auto& e : p_.epilogue_inputs)
    tiles_.push_back(e.tile ? buffer("T_" + e.input->name, g.stages[size_t(stage_of(e.input.get()))]) : -1);
}

int VectorEpilogue::stage_of(const dsl::InputImpl* input) const {
  for (size_t i = 0; i < g_.stages.size(); ++i)
    if (g_.stages[i].place == sched::Place::UB && g_.stages[i].input.get() == input) return int(i);
  CUBEKIT_ASSERT(false, "{}: no UB stage holds {}", p_.func_name, input->name);
  return -1;
}

int VectorEpilogue::buffer(const std::string& name, const sched::GraphStage& stage) {
  return k_.new_buffer(name, Space::UB, sched::stage_bytes(stage), stage.copies);
}

// The per-column inputs of tiles `nt` wide: buffers of their own per width, so that the padding
// each width leaves unwritten is zeroed once and never overwritten by a wider tile's copy.
const std::vector<int>& VectorEpilogue::input_buffers(int64_t nt) {
  // A conv's tiles are whole 16-channel blocks and its per-channel inputs padded to them: no
  // padding to keep, so one set of buffers (and one token) serves every width.
  if (p_.c.conv) nt = p_.tn;
  auto [it, fresh] = inputs_.try_emplace(nt);
  if (!fresh) return it->second;
  for (const auto& e : p_.epilogue_inputs) {
    if (e.tile) {  // loaded with each strip of rows (tiles_), not per tile
      it->second.push_back(-1);
      continue;
    }
    sched::GraphStage width = g_.stages[size_t(stage_of(e.input.get()))];  // its stage, for tiles nt wide
    width.tile = {nt};
    it->second.push_back(buffer(fmt::format("E_{}_{}", e.input->name, nt), width));
  }
  return it->second;
}

std::vector<Node> VectorEpilogue::tile(const Tile& t) {
  std::vector<Node> out = {wait_cross(Pipe::MTE2, kReady)};
  // Each image's rows halved between the two vector cores (a tile of stacked images: each image's
  // rows lie in the slot one after the other, in GM an image apart).
  const int64_t per = t.mt / t.images, h = cdiv(per, 2);
  for (int64_t i = 0; i < t.images; ++i) {
    Tile image = t;
    image.m0 = t.m0 - Affine(i * per);  // rows count from the slot's first; GM's from the image's
    image.bc = t.bc + Affine(i * p_.c.m * p_.c.n * p_.c.g.groups);
    out.push_back(when(Affine::var(k_.subblock), 0, rows(image, i * per, h), rows(image, i * per + h, per - h)));
  }
  out.push_back(set_cross(Pipe::MTE2, 2, kFree));
  return out;
}

// Rows [row0, row0 + count) of the tile, in strips, with the per-column inputs loaded once.
std::vector<Node> VectorEpilogue::rows(const Tile& t, int64_t row0, int64_t count) {
  if (count <= 0) return {};
  const std::vector<int>& inputs = input_buffers(t.nt);
  std::vector<Node> body;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& e = p_.epilogue_inputs[i];
    if (e.tile) continue;  // loaded with each strip
    int64_t s = dtype_size(e.input->dtype);
    std::vector<Arg> args = mems2();
    args.push_back(kw("len", imm(t.nt * s)));
    body.push_back(instr("copy_gm_ub_pad", Pipe::MTE2, {{-1, inputs[i], Affine(0)}, {2 + int(i), -1, (t.bg + t.n0) * s}}, std::move(args)));
  }
  int64_t full = count / strip_rows_, tail = count % strip_rows_;
  if (gather_ >= 0) {  // a second output: each strip's kept rows a constant of the program, so no strip loop
    for (int64_t j = 0; j < full; ++j) body += strip(t, Affine(row0 + j * strip_rows_), strip_rows_, inputs);
  } else if (full == 1) {
    body += strip(t, Affine(row0), strip_rows_, inputs);
  } else if (full > 1) {
    int v = k_.new_var("row_strip");
    body.push_back(loop(v, Affine(0), Affine(full), Affine(1), strip(t, Affine(row0) + Affine::var(v, strip_rows_), strip_rows_, inputs)));
  }
  if (tail) body += strip(t, Affine(row0 + full * strip_rows_), tail, inputs);
  std::vector<int> columns;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!p_.epilogue_inputs[i].tile) columns.push_back(inputs[i]);
  if (columns.empty()) return body;
  return {scope(columns, std::move(body))};
}

// Rows [row, row + r) of the tile: workspace -> ACC, the epilogue into OUT, OUT -> C.
std::vector<Node> VectorEpilogue::strip(const Tile& t, const Affine& row, int64_t r, const std::vector<int>& inputs) {
  const sched::Contraction& c = p_.c;
  int64_t pitch = padded(t.nt), s = dtype_size(c.out);
  std::vector<Arg> load_args = mems2();
  if (r > 1) load_args.push_back(kw("nburst", imm(r)));
  load_args.push_back(kw("len", imm(pitch * 4 / 32)));
  if (ws_pitch_ > pitch) load_args.push_back(kw("src_gap", imm((ws_pitch_ - pitch) * 4 / 32)));
  Node load = instr("copy_gm_ub", Pipe::MTE2, {{-1, acc_, Affine(0)}, {workspace_, -1, t.slot + row * (ws_pitch_ * 4)}},
                    std::move(load_args));
  // A conv's strip: r rows of each 16-channel block, in the slot tm rows apart, in GM c.m apart.
  auto blocks = [&](int64_t rows, int64_t size) { return rows * 16 * size / 32; };
  auto nz_strip = [&](int64_t rows_apart, int64_t size, bool to_gm) {
    std::vector<Arg> a = mems2();
    a.push_back(kw("nburst", imm(pitch / 16)));
    a.push_back(kw("len", imm(blocks(r, size))));
    if (rows_apart > r) a.push_back(kw(to_gm ? "dst_gap" : "src_gap", imm(blocks(rows_apart - r, size))));
    return a;
  };
  Affine gm_at = t.bc + t.n0 * c.m + (t.m0 + row) * 16;  // elements of the strip's first block in NC1HWC0
  if (c.conv) load = instr("copy_gm_ub", Pipe::MTE2, {{-1, acc_, Affine(0)}, {workspace_, -1, t.slot + row * 64}}, nz_strip(p_.tm, 4, false));
  std::vector<Node> make = {load};
  std::vector<int> strips;
  for (size_t i = 0; i < tiles_.size(); ++i) {
    if (tiles_[i] < 0) continue;
    int64_t size = dtype_size(p_.epilogue_inputs[i].input->dtype);
    make.push_back(instr("copy_gm_ub", Pipe::MTE2, {{-1, tiles_[i], Affine(0)}, {2 + int(i), -1, gm_at * size}}, nz_strip(c.m, size, false)));
    strips.push_back(tiles_[i]);
  }
  {
    VectorOps ops(k_, *pool_, make, {r, t.nt, pitch, c.conv});
    std::map<const dsl::InputImpl*, VValue> in;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& e = p_.epilogue_inputs[i];
      in[e.input.get()] = e.tile ? VValue{VShape::Full, e.input->dtype, {-1, tiles_[i], Affine(0)}, 0}
                                 : VValue{VShape::Col, e.input->dtype, {-1, inputs[i], Affine(0)}, 0};
    }
    std::map<const dsl::FuncImpl*, VValue> funcs = {{p_.producer.get(), {VShape::Full, c.acc, {-1, acc_, Affine(0)}, 0}}};
    VValue result{VShape::Full, c.out, {-1, out_, Affine(0)}, 0};
    Evaluator(ops, in, funcs).eval(p_.epilogue->value, &result);
  }
  std::vector<Arg> store_args = mems2();
  if (r > 1) store_args.push_back(kw("nburst", imm(r)));
  store_args.push_back(kw("len", imm(t.nt * s)));
  if (int64_t gap = pitch * s / 32 - cdiv(t.nt * s, 32)) store_args.push_back(kw("src_gap", imm(gap)));
  if (c.n > t.nt) store_args.push_back(kw("dst_gap", imm((c.n - t.nt) * s)));
  Node store = instr("copy_ub_gm_pad", Pipe::MTE3, {{out_tensor_, -1, (t.bc + (t.m0 + row) * c.n + t.n0) * s}, {-1, out_, Affine(0)}},
                     std::move(store_args));
  if (c.conv) store = instr("copy_ub_gm", Pipe::MTE3, {{out_tensor_, -1, gm_at * s}, {-1, out_, Affine(0)}}, nz_strip(c.m, s, true));
  std::vector<int> in_scope = {acc_};
  in_scope.insert(in_scope.end(), strips.begin(), strips.end());
  std::vector<Node> out = {scope(in_scope, std::move(make)), store};
  if (gather_ >= 0) {  // the second output: every s-th row and column of the strip
    const Affine at = t.m0 + row;  // a constant position plus whole multiples of s rows (the tile loops)
    SubsampledStrip sub{out_, r, pitch / 16, 1, r, at.c, r, subsampled_base(p_, t.bc, t.n0, at)};
    std::vector<Node> kept = subsample_strip(p_, gather_, sub_tensor_, sub);  // none: a strip of one skipped row
    if (!kept.empty()) out.push_back(scope({gather_}, std::move(kept)));
  }
  return {scope({out_}, std::move(out))};
}

std::vector<Node> VectorEpilogue::zeroed() {
  std::vector<Node> out;
  auto zero = [&](int buffer, int64_t offset, int64_t elements) {
    VectorOps(k_, *pool_, out, {1, elements, elements}).fill({VShape::Col, DType::f32, {-1, buffer, Affine(offset)}, 0}, 0);
  };
  for (int b : pool_->all())
    if (!pool_->written_whole(b)) zero(b, 0, k_.buffers[size_t(b)].bytes / 4);
  for (const auto& [nt, buffers] : inputs_)
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i] < 0) continue;
      int64_t s = dtype_size(p_.epilogue_inputs[i].input->dtype), written = cdiv(nt * s, 32) * 32;
      int64_t bytes = padded(nt) * s;
      if (bytes > written) zero(buffers[i], written, (bytes - written) / 4);
    }
  return out;  // the sync pass orders later V accesses of these bytes after the zeroing
}

}  // namespace cubekit::codegen
