#include "codegen/vector_epilogue.h"

#include "codegen/vector_eval.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<Arg> mems2() { return {mem_arg(0), mem_arg(1)}; }

}  // namespace

VectorEpilogue::VectorEpilogue(Kernel& k, const sched::ContractionPlan& p, int workspace, int64_t ws_pitch, int out,
                               int64_t strip_rows)
    : k_(k), p_(p), workspace_(workspace), out_tensor_(out), ws_pitch_(ws_pitch), strip_rows_(strip_rows) {
  int64_t pitch = padded(p.tn);
  acc_ = k_.new_buffer("ACC", Space::UB, strip_rows * pitch * 4, 2);
  out_ = k_.new_buffer("OUT", Space::UB, (strip_rows * pitch * dtype_size(p.c.out) + 31) / 32 * 32, 2);
  pool_ = std::make_unique<ScratchPool>(k_);
}

// The per-column inputs of tiles `nt` wide: buffers of their own per width, so that the padding
// each width leaves unwritten is zeroed once and never overwritten by a wider tile's copy.
const std::vector<int>& VectorEpilogue::input_buffers(int64_t nt) {
  auto [it, fresh] = inputs_.try_emplace(nt);
  if (!fresh) return it->second;
  for (const auto& e : p_.epilogue_inputs)
    it->second.push_back(k_.new_buffer(fmt::format("E_{}_{}", e.input->name, nt), Space::UB,
                                       (padded(nt) * dtype_size(e.input->dtype) + 31) / 32 * 32, 1));
  return it->second;
}

std::vector<Node> VectorEpilogue::tile(const Tile& t) {
  int64_t h = cdiv(t.mt, 2);
  std::vector<Node> out = {wait_cross(Pipe::MTE2, kReady)};
  out.push_back(when(Affine::var(k_.subblock), 0, rows(t, 0, h), rows(t, h, t.mt - h)));
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
    int64_t s = dtype_size(e.input->dtype);
    std::vector<Arg> args = mems2();
    args.push_back(kw("len", imm(t.nt * s)));
    body.push_back(instr("copy_gm_ub_pad", Pipe::MTE2, {{-1, inputs[i], Affine(0)}, {2 + int(i), -1, t.n0 * s}}, std::move(args)));
  }
  int64_t full = count / strip_rows_, tail = count % strip_rows_;
  if (full == 1) {
    body += strip(t, Affine(row0), strip_rows_, inputs);
  } else if (full > 1) {
    int v = k_.new_var("row_strip");
    body.push_back(loop(v, Affine(0), Affine(full), Affine(1), strip(t, Affine(row0) + Affine::var(v, strip_rows_), strip_rows_, inputs)));
  }
  if (tail) body += strip(t, Affine(row0 + full * strip_rows_), tail, inputs);
  if (inputs.empty()) return body;
  return {scope(inputs, std::move(body))};
}

// Rows [row, row + r) of the tile: workspace -> ACC, the epilogue into OUT, OUT -> C.
std::vector<Node> VectorEpilogue::strip(const Tile& t, const Affine& row, int64_t r, const std::vector<int>& inputs) {
  const sched::Contraction& c = p_.c;
  int64_t pitch = padded(t.nt), s = dtype_size(c.out);
  std::vector<Arg> load_args = mems2();
  if (r > 1) load_args.push_back(kw("nburst", imm(r)));
  load_args.push_back(kw("len", imm(pitch * 4 / 32)));
  if (ws_pitch_ > pitch) load_args.push_back(kw("src_gap", imm((ws_pitch_ - pitch) * 4 / 32)));
  std::vector<Node> make = {instr("copy_gm_ub", Pipe::MTE2, {{-1, acc_, Affine(0)}, {workspace_, -1, t.slot + row * (ws_pitch_ * 4)}},
                                  std::move(load_args))};
  {
    VectorOps ops(k_, *pool_, make, {r, t.nt, pitch, false});
    std::map<const dsl::InputImpl*, VValue> in;
    for (size_t i = 0; i < inputs.size(); ++i)
      in[p_.epilogue_inputs[i].input.get()] = {VShape::Col, p_.epilogue_inputs[i].input->dtype, {-1, inputs[i], Affine(0)}, 0};
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
  return {scope({out_}, {scope({acc_}, std::move(make)), store})};
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
      int64_t s = dtype_size(p_.epilogue_inputs[i].input->dtype), written = cdiv(nt * s, 32) * 32;
      int64_t bytes = padded(nt) * s;
      if (bytes > written) zero(buffers[i], written, (bytes - written) / 4);
    }
  return out;  // the sync pass orders later V accesses of these bytes after the zeroing
}

}  // namespace cubekit::codegen
