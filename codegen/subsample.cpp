#include "codegen/subsample.h"

#include "codegen/conv_edges.h"
#include "emulator/error.h"

#include <algorithm>

namespace cubekit::codegen {

namespace {

constexpr int64_t kBlock = 32;  // bytes of a position's 16 channels (16-bit results)

// Kept rows of one strip with the same kept columns: `rows` rows from row `y` (a multiple of s),
// columns [x0, x1) of the kept ones, the first at `at` among the strip's kept positions.
struct Run {
  int64_t y = 0, rows = 0, x0 = 0, x1 = 0, at = 0;
};

std::vector<Run> kept_runs(const sched::ContractionPlan& p, int64_t first, int64_t count) {
  const int64_t s = p.subsampled->stride, ow = p.c.g.ow, sow = p.subsampled->ow;
  std::vector<Run> runs;
  int64_t at = 0;
  for (int64_t y = cdiv(first / ow, s) * s; y * ow < first + count; y += s) {
    const int64_t a = std::max(first, y * ow) - y * ow, b = std::min(first + count, (y + 1) * ow) - y * ow;
    const int64_t x0 = cdiv(a, s), x1 = std::min(sow, cdiv(b, s));  // kept columns x * s in [a, b)
    if (x1 <= x0) continue;
    const bool whole = x0 == 0 && x1 == sow;  // whole kept rows, one after the other, make one run
    if (whole && !runs.empty() && runs.back().x0 == 0 && runs.back().x1 == sow && runs.back().y + runs.back().rows * s == y)
      ++runs.back().rows;
    else
      runs.push_back({y, 1, x0, x1, at});
    at += x1 - x0;
  }
  return runs;
}

int64_t kept_positions(const std::vector<Run>& runs) {
  int64_t n = 0;
  for (const Run& r : runs) n += r.rows * (r.x1 - r.x0);
  return n;
}

}  // namespace

std::vector<Node> subsample_strip(const sched::ContractionPlan& p, int gather, int out, const SubsampledStrip& s) {
  const sched::ContractionPlan::Subsampled& sub = *p.subsampled;
  const int64_t stride = sub.stride, ow = p.c.g.ow;
  const std::vector<Run> runs = kept_runs(p, s.first, s.count);
  const int64_t kept = kept_positions(runs), ld = s.images * kept;  // G: positions between blocks
  if (kept == 0) return {};
  // A gather's repeats step over the 16-channel blocks where both buffers' block pitches fit a
  // repeat stride (fewest instructions: one per kept row and 8 columns), else over the run's rows.
  const bool by_block = s.ld <= 255 && ld <= 255 && s.blocks > 1;
  std::vector<Node> nodes;
  auto gather_at = [&](int64_t im, const Run& r, int64_t row, int64_t b, int64_t x, int64_t reps) {
    const int64_t cols = std::min<int64_t>(8, r.x1 - x);
    const int64_t pos = (r.y + row * stride) * ow + x * stride - s.first;  // in the strip
    const Affine from((b * s.ld + im * s.per + pos) * kBlock);
    const Affine to((b * ld + im * kept + r.at + row * sub.ow + (x - r.x0)) * kBlock);
    const int64_t src_rep = by_block ? s.ld : stride * ow, dst_rep = by_block ? ld : sub.ow;
    std::vector<Arg> args = {mem_arg(0), mem_arg(1), mem_arg(2), kw("repeat", imm(reps)),
                             kw("src0_blk", imm(stride)), kw("src1_blk", imm(stride)), kw("dst_rep", imm(dst_rep)),
                             kw("src0_rep", imm(src_rep)), kw("src1_rep", imm(src_rep))};
    if (cols < 8) args.push_back(kw("mask", mask_count(cols * 16)));
    nodes.push_back(instr("vor.u16", Pipe::V, {{-1, gather, to}, {-1, s.src, from}, {-1, s.src, from}}, std::move(args)));
  };
  for (int64_t im = 0; im < s.images; ++im)
    for (const Run& r : runs)
      for (int64_t x = r.x0; x < r.x1; x += 8) {
        if (by_block) {
          for (int64_t row = 0; row < r.rows; ++row)
            for (int64_t b = 0; b < s.blocks; b += 255) gather_at(im, r, row, b, x, std::min<int64_t>(255, s.blocks - b));
          continue;
        }
        for (int64_t b = 0; b < s.blocks; ++b)
          for (int64_t row = 0; row < r.rows; row += 255) gather_at(im, r, row, b, x, std::min<int64_t>(255, r.rows - row));
      }
  // The strip's first kept position in the second output's map, and that map's and an image's elements.
  const int64_t q0 = runs.front().y / stride * sub.ow + runs.front().x0;
  const int64_t map = sub.oh * sub.ow, image = map * p.c.n * p.c.g.groups;
  for (int64_t im = 0; im < s.images; ++im)
    nodes.push_back(instr("copy_ub_gm", Pipe::MTE3,
                          {{out, -1, (s.gm + Affine(im * image + q0 * 16)) * 2}, {-1, gather, Affine(im * kept * kBlock)}},
                          {mem_arg(0), mem_arg(1), kw("nburst", imm(s.blocks)), kw("len", imm(kept)),
                           kw("src_gap", imm(ld - kept)), kw("dst_gap", imm(map - kept))}));
  return nodes;
}

Affine subsampled_base(const sched::ContractionPlan& p, const Affine& bc, const Affine& channels, const Affine& at) {
  const sched::ContractionPlan::Subsampled& sub = *p.subsampled;
  const int64_t map = sub.oh * sub.ow;
  Affine loops = at - Affine(at.c);  // the tile loops' part: whole multiples of s rows
  return rescale(bc, p.c.m, map) + channels * map + rescale(loops, sub.stride * p.c.g.ow, sub.ow) * 16;
}

std::vector<int64_t> subsampled_tensor(const sched::ContractionPlan& p, std::vector<TensorLayout>& layouts) {
  const sched::ConvGeometry& g = p.c.g;
  const sched::ContractionPlan::Subsampled& sub = *p.subsampled;
  layouts.push_back({sub.func->name, TensorLayout::Kind::NC1HWC0, p.c.out, {g.n, g.groups * g.k, sub.oh, sub.ow}, 16, g.groups});
  return {g.n, g.groups * g.k16() / 16, sub.oh, sub.ow, 16};
}

}  // namespace cubekit::codegen
