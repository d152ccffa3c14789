// The decode of a core's tile number into the tile loops' indices (codegen/core_tiles.h), which
// every nest uses, as a function checked over every coordinate (as CuTe checks its layouts): for
// random tile spaces (loops on the cores and serial ones, rasterised groups, loops of one trip,
// rounds in snake order) and core counts, the nodes it and core_tiles' count make are run here by
// a small interpreter of Let and If, and every core's tile numbers must cover every index tuple
// of the space exactly once, in bounds.
// The expected order of the serial loops and of an ungrouped decode is row-major, written here
// independently.
#include "codegen/core_tiles.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace cubekit::codegen {
namespace {

using Env = std::map<int, int64_t>;

int64_t eval(const Affine& a, const Env& env) {
  int64_t v = a.c;
  for (auto [var, coef] : a.terms) v += env.at(var) * coef;
  return v;
}

void run(const std::vector<Node>& nodes, Env& env) {
  for (const Node& n : nodes) {
    if (n.kind == Node::Kind::Let) {
      int64_t a = eval(n.a, env);
      env[n.var] = n.let_op == LetOp::Div ? a / n.b : n.let_op == LetOp::Rem ? a % n.b : a + n.b;
    } else if (n.kind == Node::Kind::If) {
      int64_t a = eval(n.a, env);
      run((n.compare == Compare::Eq ? a == n.b : a < n.b) ? n.body : n.orelse, env);
    } else {
      FAIL() << "the decode makes only Lets and Ifs";
    }
  }
}

struct Space {
  TileSpace s;
  int block_dim = 1;
};

Space random_space(std::mt19937& rng) {
  Space sp;
  const int n = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int i = 0; i < n; ++i)  // extents 1..5, a loop of one trip now and then
    sp.s.loops.push_back({"l" + std::to_string(i), std::uniform_int_distribution<int64_t>(1, 5)(rng)});
  sp.s.on_cores = std::uniform_int_distribution<int>(0, n)(rng);
  if (sp.s.on_cores >= 2 && rng() % 2) sp.s.group = std::uniform_int_distribution<int64_t>(2, 4)(rng);
  // As the nests choose it: at most one core per fused iteration.
  sp.block_dim = sp.s.on_cores ? int(std::min<int64_t>(std::uniform_int_distribution<int>(1, 7)(rng), sp.s.fused())) : 1;
  sp.s.snake = sp.s.on_cores && rng() % 2;
  return sp;
}

TEST(DecodeTiles, EveryIndexOnceOverEveryCoresTiles) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 400; ++trial) {
    Space sp = random_space(rng);
    Kernel k;
    k.new_var("block_idx");
    k.new_var("block_num");
    k.block_dim = sp.block_dim;
    const int64_t fused = sp.s.fused(), serial = sp.s.serial();
    const CoreTiles tiles = core_tiles(k, sp.s.on_cores > 0, fused, serial, "", sp.s.snake);
    const int w = tiles.w;
    std::vector<int> index;
    std::vector<Node> nodes = decode_tiles(k, sp.s, Affine::var(w), "", index);
    ASSERT_EQ(index.size(), sp.s.loops.size());
    std::set<std::vector<int64_t>> seen;
    for (int core = 0; core < sp.block_dim; ++core) {
      // core_tiles' count: this core's fused iterations, each with every serial iteration
      Env setup = {{kBlockIdx, core}, {kBlockNum, sp.block_dim}};
      run(tiles.setup, setup);
      const int64_t count = eval(tiles.count, setup);
      for (int64_t t = 0; t < count; ++t) {
        Env env = setup;
        env[w] = t;
        run(nodes, env);
        std::vector<int64_t> at;
        for (size_t i = 0; i < index.size(); ++i) {
          int64_t v = env.at(index[i]);
          ASSERT_GE(v, 0) << "trial " << trial << " loop " << i;
          ASSERT_LT(v, sp.s.loops[i].extent) << "trial " << trial << " loop " << i;
          at.push_back(v);
        }
        EXPECT_TRUE(seen.insert(at).second) << "trial " << trial << ": a tile decoded twice";
        // Row-major where nothing is grouped: the fused iteration (core c takes c, c + block_dim,
        // ...; snake: c, 2 block_dim - 1 - c, 2 block_dim + c, ...) and the serial one, the last
        // loop varying fastest.
        if (sp.s.group == 1) {
          const int64_t round = t / serial, place = sp.s.snake && round % 2 ? sp.block_dim - 1 - core : core;
          const int64_t u = sp.s.on_cores ? place + round * sp.block_dim : 0, r = sp.s.on_cores ? t % serial : t;
          int64_t cu = u, cr = r;
          for (int i = int(at.size()) - 1; i >= 0; --i) {
            int64_t& from = i < sp.s.on_cores ? cu : cr;
            EXPECT_EQ(at[size_t(i)], from % sp.s.loops[size_t(i)].extent) << "trial " << trial << " loop " << i;
            from /= sp.s.loops[size_t(i)].extent;
          }
        }
      }
    }
    EXPECT_EQ(int64_t(seen.size()), fused * serial) << "trial " << trial << ": tiles missed";
  }
}

}  // namespace
}  // namespace cubekit::codegen
