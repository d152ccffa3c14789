// The memories a program runs against: each core's buffers and the GM tensors shared by all cores.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/program.h"

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cubekit {

// Zero-filled bytes mapped from the OS (mmap), whose pages exist only once touched: a core's
// megabyte of L1 costs what its program touches (a 910's 32 cores' buffers are 53 MB). Not calloc:
// once the process has freed a big block, glibc serves calloc from its heap and zeroes every byte
// (a third of a 128^3 matmul's run went to zeroing 32 cores' buffers).
// A transparent huge page of x86-64 Linux, the unit the huge-page allocations below round to.
inline constexpr size_t kHugePage = size_t(2) << 20;

class ZeroedBytes {
 public:
  ZeroedBytes() = default;
  // `huge`: the bytes start at a 2 MB boundary and are advised for transparent huge pages, so
  // that touching them costs a page fault per 2 MB rather than per 4 KB (on a virtual machine a
  // fault costs some 30 us: 8 MB in 4 KB pages took 60-90 ms here, in 2 MB pages 1-2 ms).
  explicit ZeroedBytes(size_t n, bool huge = false);
  // n bytes at p inside another ZeroedBytes, which must outlive this one (nothing is unmapped).
  static ZeroedBytes slice(uint8_t* p, size_t n);
  uint8_t* data() { return p_; }
  const uint8_t* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  struct Unmap {
    size_t n;  // the mapped length (0: a slice)
    void operator()(uint8_t* base) const;
  };
  std::unique_ptr<uint8_t, Unmap> mapping_;
  uint8_t* p_ = nullptr;
  size_t n_ = 0;
};

// n Ts whose bytes start as zeros, in huge pages (ZeroedBytes): T must be an implicit-lifetime
// type (an aggregate of numbers) for which all-zero bytes are the value wanted.
template <class T>
class ZeroedArray {
 public:
  ZeroedArray() = default;
  // In huge pages from 256 KB up. A fault on this virtual machine costs about 4 us for a 4 KB page
  // and 0.3 ms for a 2 MB one (it clears the whole page): an array of that size or more, touched
  // throughout, is cheaper in huge pages, while a small run's few touched small pages cost less than
  // one huge page each (a timing-only add of 16 x 16 cleared three of them, a quarter of its run).
  explicit ZeroedArray(size_t n) : bytes_(n * sizeof(T), n * sizeof(T) >= kHugePage / 8) {}
  // n Ts at byte `offset` of `block` (aligned for T), which must outlive the array: arrays that
  // share one block share its huge pages (three small arrays in their own cleared three).
  static ZeroedArray in(ZeroedBytes& block, size_t offset, size_t n) {
    ZeroedArray a;
    a.bytes_ = ZeroedBytes::slice(block.data() + offset, n * sizeof(T));
    return a;
  }
  T& operator[](size_t i) { return reinterpret_cast<T*>(bytes_.data())[i]; }
  const T& operator[](size_t i) const { return reinterpret_cast<const T*>(bytes_.data())[i]; }

 private:
  ZeroedBytes bytes_;
};

// A user error when `bytes` of `what` exceed `available` bytes of host memory (< 0: unknown, no
// check); available_host_memory() is the kernel's MemAvailable, or -1.
void check_host_memory(int64_t bytes, int64_t available, std::string_view what);
int64_t available_host_memory();

// n zero bytes, in transparent huge pages where the host gives them (madvise; 2 MB pages inside the
// buffer): a 32 MB tensor then costs the process 16 page faults instead of 8,192, which on a
// virtual machine were half of a functional add of 4096^2 (bench/run.py emulator).
std::vector<uint8_t> big_zeroed(size_t n);
// Asks for transparent huge pages over the 2 MB pages inside [p, p + bytes) (a hint: refused, it
// changes nothing). Give it memory not yet touched: the advice applies from the next fault on.
void advise_huge_pages(const void* p, size_t bytes);
// Puts the C heap of a short-lived process in transparent huge pages, once, before its work: the
// blocks malloc hands out from then on lie in 2 MB pages, and any thread allocates from that heap.
// On a virtual machine the first touch of a 4 KB page costs 10-15 us; a functional matmul of 128^3
// faulted 856 times before, 424 after, and took 15 ms instead of 23. For programs (`cubekit`), not
// libraries: it sets the process's allocator options. A hint like the rest: where the heap is not
// glibc's brk heap, it changes nothing.
void put_heap_in_huge_pages();

struct CoreMemory {
  CoreMemory() = default;
  explicit CoreMemory(const ChipConfig& chip);  // every buffer of the chip (a coupled core's)
  explicit CoreMemory(const CoreConfig& kind);  // the buffers of one kind of core
  // The buffers of one kind of core, and a staging copy of each buffer of the partner core in its
  // group that its paths write (the 950's L0C -> UB and UB -> L1): the drivers pass those writes on.
  CoreMemory(const ChipConfig& chip, const CoreConfig& kind);
  // The bytes of each of those buffers (0: none).
  static std::array<size_t, kNumSpaces> sizes(const ChipConfig& chip, const CoreConfig& kind);
  ZeroedBytes buffer[kNumSpaces];  // GM unused
  uint8_t* data(Space s) { return buffer[int(s)].data(); }
};

// The buffers of every core of a launch, each level's of all cores in one mapping: in huge pages
// (ZeroedBytes) where the run's GM tensors are at least half as big as the level's mapping. 32
// cores' UB is 8 MB: 2,048 faults in 4 KB pages (some 60 ms on a virtual machine), 4 in 2 MB
// pages. But a level that every core touches a little then costs its cores' whole share: in 2 MB
// pages a matmul of 128^3 took 38 MB instead of 13, for 150 fewer faults; one of 2048^3 faulted
// 7,000 times instead of 11,600 with L1 in huge pages too.
class CoreArena {
 public:
  // `kinds`: each core's kind, in core order; `tensor_bytes`: the run's GM tensors, in all.
  CoreArena(const ChipConfig& chip, const std::vector<CoreKind>& kinds, int64_t tensor_bytes);
  CoreMemory memory(int core);  // the core's buffers, slices of the arena (which must outlive them)

 private:
  ZeroedBytes level_[kNumSpaces];
  std::vector<std::array<size_t, kNumSpaces>> offset_, size_;  // per core
};

struct GlobalMemory {
  std::vector<TensorDecl> decls;
  std::vector<std::vector<uint8_t>> data;

  // Zero-filled. A user error when the tensors need more host memory than the machine has
  // available (an over-committed allocation was killed by the OOM killer, without a word).
  static GlobalMemory for_program(const Program& program);
  // The tensors without their bytes: what a timing-only run needs (timing never depends on data;
  // allocating and zeroing big tensors cost more than simulating them).
  static GlobalMemory shape_only(const Program& program);
  bool has_data() const { return data.size() == decls.size(); }
  int64_t tensor_bytes(size_t t) const { return has_data() ? int64_t(data[t].size()) : decls[t].bytes(); }
  int index(std::string_view name) const;                    // user error when absent
  // User errors when absent, or when the memory has no data (a timing-only run's).
  const std::vector<uint8_t>& bytes(std::string_view name) const;
  std::vector<uint8_t>& bytes(std::string_view name) {
    return const_cast<std::vector<uint8_t>&>(std::as_const(*this).bytes(name));
  }
  // Seeded random values for every `in` and `inout` tensor: floats uniform on an exact grid in
  // [-1, 1) (steps of 2^-11 for f16, 2^-8 for bf16, 2^-23 for f32), s8/u8/u16 over their whole
  // range, s16 and s32 small multiples of 100 or 1000. `out` stays zero.
  void fill_inputs(uint64_t seed);
  // Every `in` and `inout` float tensor (f16, bf16, f32) times `factor`, rounded to nearest even
  // (a cast to an integer type is checked over that type's range and past it, not on [-1, 1)).
  void scale_float_inputs(double factor);
};

// gm[e] += src[e] for each element of dtype t in `bytes` (f16 and f32 rounded to nearest even,
// s32 wrapping): the arithmetic of an atomic-add store.
void atomic_add(uint8_t* dst, const uint8_t* src, int64_t bytes, DType t);

}  // namespace cubekit
