// The memories a program runs against: each core's buffers and the GM tensors shared by all cores.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/program.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace cubekit {

// Zero-filled bytes mapped from the OS (mmap), whose pages exist only once touched: a core's
// megabyte of L1 costs what its program touches (a 910's 32 cores' buffers are 53 MB). Not calloc:
// once the process has freed a big block, glibc serves calloc from its heap and zeroes every byte
// (a third of a 128^3 matmul's run went to zeroing 32 cores' buffers).
class ZeroedBytes {
 public:
  ZeroedBytes() = default;
  explicit ZeroedBytes(size_t n);
  uint8_t* data() { return p_.get(); }
  const uint8_t* data() const { return p_.get(); }
  size_t size() const { return n_; }

 private:
  struct Free {
    size_t n;  // the mapped length
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> p_;
  size_t n_ = 0;
};

// n zero bytes, in transparent huge pages where the host gives them (madvise; 2 MB pages inside the
// buffer): a 32 MB tensor then costs the process 16 page faults instead of 8,192, which on a
// virtual machine were half of a functional add of 4096^2 (bench/run.py emulator).
std::vector<uint8_t> big_zeroed(size_t n);
// Asks for transparent huge pages over the 2 MB pages inside [p, p + bytes) (a hint: refused, it
// changes nothing). Give it memory not yet touched: the advice applies from the next fault on.
void advise_huge_pages(const void* p, size_t bytes);

struct CoreMemory {
  explicit CoreMemory(const ChipConfig& chip);  // every buffer of the chip (a coupled core's)
  explicit CoreMemory(const CoreConfig& kind);  // the buffers of one kind of core
  // The buffers of one kind of core, and a staging copy of each buffer of the partner core in its
  // group that its paths write (the 950's L0C -> UB and UB -> L1): the drivers pass those writes on.
  CoreMemory(const ChipConfig& chip, const CoreConfig& kind);
  ZeroedBytes buffer[kNumSpaces];  // GM unused
  uint8_t* data(Space s) { return buffer[int(s)].data(); }
};

struct GlobalMemory {
  std::vector<TensorDecl> decls;
  std::vector<std::vector<uint8_t>> data;

  static GlobalMemory for_program(const Program& program);  // zero-filled
  // The tensors without their bytes: what a timing-only run needs (timing never depends on data;
  // allocating and zeroing big tensors cost more than simulating them).
  static GlobalMemory shape_only(const Program& program);
  bool has_data() const { return data.size() == decls.size(); }
  int64_t tensor_bytes(size_t t) const { return has_data() ? int64_t(data[t].size()) : decls[t].bytes(); }
  int index(std::string_view name) const;                    // user error when absent
  std::vector<uint8_t>& bytes(std::string_view name) { return data[index(name)]; }
  // Seeded random values for every `in` and `inout` tensor: floats uniform on an exact grid in
  // [-1, 1) (steps of 2^-11 for f16, 2^-8 for bf16, 2^-23 for f32), s8/u8/u16 over their whole
  // range, s16 and s32 small multiples of 100 or 1000. `out` stays zero.
  void fill_inputs(uint64_t seed);
};

// gm[e] += src[e] for each element of dtype t in `bytes` (f16 and f32 rounded to nearest even,
// s32 wrapping): the arithmetic of an atomic-add store.
void atomic_add(uint8_t* dst, const uint8_t* src, int64_t bytes, DType t);

}  // namespace cubekit
