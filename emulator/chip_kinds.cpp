#include "emulator/chip_kinds.h"

#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit {

void validate_kinds(const ChipConfig& c, const std::string& origin) {
  const CoreConfig *coupled = c.kind(CoreKind::Coupled), *aic = c.kind(CoreKind::Aic), *aiv = c.kind(CoreKind::Aiv);
  bool split = aic && aiv && !coupled && c.kinds.size() == 2, joined = coupled && c.kinds.size() == 1;
  if (!split && !joined) {
    std::string kinds;
    for (const CoreConfig& k : c.kinds) kinds += (kinds.empty() ? "" : ", ") + std::string(core_kind_name(k.kind));
    user_error("{}: the chip's core kinds are [{}]; a chip has either one kind 'coupled' (cube and vector behind one "
               "scalar unit, like the ascend910) or the kinds 'aic' and 'aiv' (cube cores and vector cores, like the "
               "ascend910b2)", origin, kinds);
  }
  if (joined && c.vector_cores_per_cube != 0)
    user_error("{}: 'vector_cores_per_cube' is {}, but a coupled chip has no separate vector cores: it must be 0",
               origin, c.vector_cores_per_cube);
  if (split && (c.vector_cores_per_cube < 1 || c.vector_cores_per_cube > 8))
    user_error("{}: 'vector_cores_per_cube' is {}; a split chip has 1..8 vector cores per cube core (the 910B and 950 "
               "have 2)", origin, c.vector_cores_per_cube);
  for (const CoreConfig& k : c.kinds) {
    if (!k.has_pipe(Pipe::S))
      user_error("{}: kind {} has no pipe S: every core has a scalar unit", origin, core_kind_name(k.kind));
    if (k.pipes >> kNumPipes)
      user_error("{}: kind {} names a pipe beyond S MTE1 MTE2 MTE3 M V FIX", origin, core_kind_name(k.kind));
    const CoreConfig* partner = k.kind == CoreKind::Aic ? aiv : k.kind == CoreKind::Aiv ? aic : nullptr;
    for (size_t i = 0; i < k.paths.size(); ++i) {
      const DataPathRate& p = k.paths[i];
      std::string where = fmt::format("{}: kind {}, path {}", origin, core_kind_name(k.kind), path_text(p.src, p.dst));
      if (p.src == p.dst) user_error("{}: a path goes from one buffer to another", where);
      for (size_t j = 0; j < i; ++j)
        if (k.paths[j].src == p.src && k.paths[j].dst == p.dst) user_error("{}: the path is listed twice", where);
      // A path starts at a buffer of its kind (or GM) and ends at GM, at a buffer of its kind or
      // (split chips) at a buffer of the partner core in its group; GM -> a buffer of its kind.
      if (p.src != Space::GM && !k.has_buffer(p.src))
        user_error("{}: kind {} has no buffer {}; a path starts at GM or at a buffer of its own kind", where,
                   core_kind_name(k.kind), space_name(p.src));
      if (p.src == Space::GM && !k.has_buffer(p.dst))
        user_error("{}: kind {} has no buffer {}; a path from GM ends at a buffer of its own kind", where,
                   core_kind_name(k.kind), space_name(p.dst));
      if (!k.has_buffer(p.dst) && !(partner && partner->has_buffer(p.dst)))
        user_error("{}: kind {} has no buffer {}{}; a path ends at GM, at a buffer of its kind or (split chips) at a "
                   "buffer of the other kind in its group", where, core_kind_name(k.kind), space_name(p.dst),
                   partner ? fmt::format(", and neither has {}", core_kind_name(partner->kind)) : "");
    }
  }
  for (const CoreConfig& k : c.kinds) {
    // A pipe works on its own kind's buffers: the cube reads L0A and L0B into L0C, the vector unit
    // works in UB, MTE1 moves out of L1, the FixPipe out of L0C.
    struct Needs {
      Pipe pipe;
      std::initializer_list<Space> buffers;
      const char* why;
    };
    for (const Needs& n : {Needs{Pipe::M, {Space::L0A, Space::L0B, Space::L0C}, "the cube reads L0A and L0B into L0C"},
                           Needs{Pipe::V, {Space::UB}, "the vector unit works in UB"},
                           Needs{Pipe::MTE1, {Space::L1}, "MTE1 moves data out of L1"},
                           Needs{Pipe::FIX, {Space::L0C}, "the FixPipe moves data out of L0C"}})
      for (Space b : n.buffers)
        if (k.has_pipe(n.pipe) && !k.has_buffer(b))
          user_error("{}: kind {} has pipe {} but no buffer {} ({}); give the buffer or drop the pipe", origin,
                     core_kind_name(k.kind), pipe_name(n.pipe), space_name(b), n.why);
  }
  // A buffer's size and alignment are the chip's (ChipConfig::buffer_size, alignment): two kinds
  // that both have it must agree, or one kind's accesses were checked against the other's.
  for (int s = 1; s < kNumSpaces; ++s)
    for (size_t a = 0; a < c.kinds.size(); ++a)
      for (size_t b = a + 1; b < c.kinds.size(); ++b) {
        const CoreConfig &x = c.kinds[a], &y = c.kinds[b];
        if (!x.has_buffer(Space(s)) || !y.has_buffer(Space(s))) continue;
        if (x.size[s] != y.size[s] || x.align[s] != y.align[s])
          user_error("{}: kinds {} and {} both have buffer {}, of {} bytes aligned to {} and of {} bytes aligned to {}; a "
                     "buffer has one size and alignment across a chip's kinds: give it the same in both, or to one kind only",
                     origin, core_kind_name(x.kind), core_kind_name(y.kind), space_name(Space(s)), x.size[s], x.align[s],
                     y.size[s], y.align[s]);
      }
}

}  // namespace cubekit
