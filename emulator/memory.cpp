#include "emulator/memory.h"

#include "emulator/arith.h"
#include "emulator/error.h"
#include "emulator/rounding.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <system_error>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <cmath>

namespace cubekit {

ZeroedBytes::ZeroedBytes(size_t n, bool huge) : n_(n) {
  const size_t whole = (std::max<size_t>(n, 1) + kHugePage - 1) / kHugePage * kHugePage;  // the huge pages it spans
  const size_t mapped = huge ? whole + kHugePage : std::max<size_t>(n, 1);
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  mapping_ = std::unique_ptr<uint8_t, Unmap>(static_cast<uint8_t*>(p), Unmap{mapped});
  p_ = static_cast<uint8_t*>(p);
  if (!huge) return;
  p_ = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + kHugePage - 1) / kHugePage * kHugePage);
  // The last huge page only when the bytes fill an eighth of it: touched, it is cleared whole
  // (0.3 ms), where its 4 KB pages cost about 4 us each (an ascend910 add of 4096^2 used 128 KB of
  // its third huge page).
  const size_t advised = n % kHugePage >= kHugePage / 8 ? whole : n / kHugePage * kHugePage;
  if (advised) madvise(p_, advised, MADV_HUGEPAGE);  // a hint: refused, it changes nothing
}

ZeroedBytes ZeroedBytes::slice(uint8_t* p, size_t n) {
  ZeroedBytes z;
  z.p_ = p, z.n_ = n;
  return z;
}

void ZeroedBytes::Unmap::operator()(uint8_t* base) const {
  if (n) munmap(base, n);
}

std::array<size_t, kNumSpaces> CoreMemory::sizes(const ChipConfig& chip, const CoreConfig& kind) {
  std::array<size_t, kNumSpaces> n{};
  for (int s = 1; s < kNumSpaces; ++s) n[size_t(s)] = size_t(kind.size[s]);
  for (const DataPathRate& p : kind.paths)
    if (p.dst != Space::GM && !kind.has_buffer(p.dst)) n[size_t(p.dst)] = size_t(chip.buffer_size(p.dst));
  return n;
}

CoreMemory::CoreMemory(const ChipConfig& chip) {
  for (int s = 1; s < kNumSpaces; ++s) buffer[s] = ZeroedBytes(size_t(chip.buffer_size(Space(s))));
}

CoreMemory::CoreMemory(const CoreConfig& kind) {
  for (int s = 1; s < kNumSpaces; ++s) buffer[s] = ZeroedBytes(size_t(kind.size[s]));
}

CoreMemory::CoreMemory(const ChipConfig& chip, const CoreConfig& kind) {
  const std::array<size_t, kNumSpaces> n = sizes(chip, kind);
  for (int s = 1; s < kNumSpaces; ++s) buffer[s] = ZeroedBytes(n[size_t(s)]);
}

CoreArena::CoreArena(const ChipConfig& chip, const std::vector<CoreKind>& kinds, int64_t tensor_bytes) {
  size_t total[kNumSpaces] = {};
  for (CoreKind k : kinds) {
    size_.push_back(CoreMemory::sizes(chip, *chip.kind(k)));
    offset_.emplace_back();
    for (int s = 1; s < kNumSpaces; ++s) {
      offset_.back()[size_t(s)] = total[s];
      const size_t n = (size_.back()[size_t(s)] + 4095) / 4096 * 4096;  // each core's buffers page-aligned
      total[s] += n;
    }
  }
  for (int s = 1; s < kNumSpaces; ++s)
    if (total[s]) level_[s] = ZeroedBytes(total[s], size_t(tensor_bytes) * 2 >= total[s]);
}

CoreMemory CoreArena::memory(int core) {
  CoreMemory m;
  for (int s = 1; s < kNumSpaces; ++s)
    if (const size_t n = size_[size_t(core)][size_t(s)])
      m.buffer[s] = ZeroedBytes::slice(level_[s].data() + offset_[size_t(core)][size_t(s)], n);
  return m;
}

void advise_huge_pages(const void* p, size_t bytes) {
  constexpr uintptr_t kHuge = kHugePage;
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  const uintptr_t lo = (at + kHuge - 1) / kHuge * kHuge, hi = (at + bytes) / kHuge * kHuge;
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
}

void put_heap_in_huge_pages() {
#if !defined(__SANITIZE_ADDRESS__)  // the sanitizers' allocator is not glibc's
  constexpr uintptr_t kHuge = kHugePage;
  constexpr int kGrowth = 16 << 20;  // address space: a page costs nothing until touched
  mallopt(M_TOP_PAD, kGrowth);             // the heap grows 16 MB at a time, so the advice below covers it
  mallopt(M_TRIM_THRESHOLD, 4 * kGrowth);  // and does not shrink away from under it
  mallopt(M_MMAP_THRESHOLD, 4 << 20);      // blocks below 4 MB (a program, the shadows' pools) from the heap too:
                                           // above 128 KB each block was a fresh mapping in 4 KB pages
  mallopt(M_ARENA_MAX, 1);                 // threads (the functional replay's) share this heap
  // The heap's top ends at brk, its free part keepcost bytes long. A block from there to just
  // below the next 2 MB boundary, kept and never touched past its header, puts what malloc hands
  // out next at that boundary; the 2 MB pages from there to the heap's new end are advised before
  // any of their bytes is touched (a page touched first stays a 4 KB one).
  const uintptr_t brk = reinterpret_cast<uintptr_t>(sbrk(0)), top = brk - mallinfo2().keepcost;
  uintptr_t boundary = uintptr_t(round_up(int64_t(brk), int64_t(kHuge)));
  if (boundary < top + (size_t(64) << 10)) boundary += kHuge;
  constexpr size_t kHeader = 2 * sizeof(size_t), kPage = 4096;  // the top chunk's header, in the page below
  static void* volatile spacer = nullptr;  // kept: freed, the heap's top would start below the boundary again
  spacer = std::malloc(boundary - kPage - top - kHeader);
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0)) / kHuge * kHuge;
  if (spacer && end > boundary) madvise(reinterpret_cast<void*>(boundary), end - boundary, MADV_HUGEPAGE);
#endif
}

std::vector<uint8_t> big_zeroed(size_t n) {
  // Mapped, not touched: the advice applies before the first fault. 2 MB more than asked for, never
  // touched: the kernel starts a big mapping at a 2 MB boundary, so with the spare 2 MB at its end
  // the tensor's last bytes lie in a whole 2 MB page of the mapping too (without, the last partial
  // 2 MB of each tensor faulted in 4 KB pages: 1,400 of a functional add of 4096^2's 2,800 faults).
  std::vector<uint8_t> v;
  v.reserve(n >= kHugePage ? n + kHugePage : n);
  advise_huge_pages(v.data(), v.capacity());
  v.resize(n);
  return v;
}

namespace {

// Runs f(t) for each of the tensors, on up to 4 threads when they hold enough bytes to pay for
// starting one: a first touch of fresh memory (the kernel zeroing its pages, on a virtual machine
// the host backing them) and a random fill run on every core at once. Which thread does which
// tensor changes nothing: each tensor's bytes depend on it alone.
template <class F>
void for_each_tensor(const std::vector<TensorDecl>& decls, F f) {
  constexpr int64_t kWorthAThread = int64_t(8) << 20;
  int64_t bytes = 0;
  for (const TensorDecl& t : decls) bytes += t.bytes();
  const size_t threads = std::min<size_t>({decls.size(), size_t(bytes / kWorthAThread), 4,
                                           size_t(std::max(1u, std::thread::hardware_concurrency()))});
  if (threads < 2) {
    for (size_t t = 0; t < decls.size(); ++t) f(t);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> failed(threads);  // a helper's exception (bad_alloc) goes to the caller
  auto work = [&](size_t i) {
    try {
      for (size_t t; (t = next++) < decls.size();) f(t);
    } catch (...) {
      failed[i] = std::current_exception();
      next = decls.size();
    }
  };
  std::vector<std::thread> helpers;
  try {
    for (size_t i = 1; i < threads; ++i) helpers.emplace_back(work, i);
  } catch (const std::system_error&) {  // no thread to be had: fewer helpers (the caller works on)
  }
  work(0);
  for (std::thread& h : helpers) h.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace

int64_t available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return -1;
}

void check_host_memory(int64_t bytes, int64_t available, std::string_view what) {
  if (available < 0 || bytes <= available) return;
  constexpr double kGiB = double(int64_t(1) << 30);
  user_error("{} need {:.1f} GiB of host memory and this machine has {:.1f} GiB available; use smaller shapes (a timing-only "
             "run keeps no data)", what, double(bytes) / kGiB, double(available) / kGiB);
}

GlobalMemory GlobalMemory::for_program(const Program& program) {
  int64_t bytes = 0;
  for (const TensorDecl& t : program.tensors) bytes += t.bytes();  // each at most kMaxTensorBytes: no overflow
  check_host_memory(bytes, available_host_memory(), fmt::format("the GM tensors of kernel '{}'", program.name));
  GlobalMemory gm;
  gm.decls = program.tensors;
  gm.data.resize(program.tensors.size());
  for_each_tensor(gm.decls, [&](size_t t) { gm.data[t] = big_zeroed(size_t(gm.decls[t].bytes())); });
  return gm;
}

GlobalMemory GlobalMemory::shape_only(const Program& program) {
  GlobalMemory gm;
  gm.decls = program.tensors;
  return gm;
}

const std::vector<uint8_t>& GlobalMemory::bytes(std::string_view name) const {
  const int t = index(name);
  if (!has_data())
    user_error("tensor '{}' has no data: the run was timing-only (cycles only: no tensor is created, filled or computed); "
               "run it without timing_only for its values", name);
  return data[size_t(t)];
}

int GlobalMemory::index(std::string_view name) const {
  for (size_t i = 0; i < decls.size(); ++i)
    if (decls[i].name == name) return int(i);
  std::string names;
  for (const TensorDecl& t : decls) names += (names.empty() ? "" : ", ") + t.name;
  user_error("no tensor '{}' (the program declares: {})", name, names.empty() ? "none" : names);
}

namespace {
// 32 random bits scaled onto [0, n): multiply-shift, no division and no modulo bias worth counting
// for n far below 2^32.
int64_t below(uint64_t bits, int64_t n) { return int64_t((bits * uint64_t(n)) >> 32); }

// Floats are k / 2^b for k uniform in [-2^b, 2^b): exact in the dtype (b = 11 for f16's 11
// significand bits, 8 for bf16, 23 for f32), so filling needs no rounding; f16 and bf16 read their
// bit patterns from a table built once.
template <typename Bits>
std::vector<Bits> grid_table(int b, Bits (*convert)(double)) {
  std::vector<Bits> table(size_t(2) << b);
  for (size_t i = 0; i < table.size(); ++i) table[i] = convert(std::ldexp(double(int64_t(i) - (int64_t(1) << b)), -b));
  return table;
}
uint16_t to_f16(double v) { return f64_to_f16(v); }
uint16_t to_bf16(double v) { return double_to_bf16(v, RoundMode::rint); }

// Fills n values of T, each from `Width` bits of a draw (its top bits first, as many values a draw as
// fit): value(bits) maps bits in [0, 2^Width) to a value. Five f16 values a draw made filling a 4096^2
// add's inputs four times faster than one a draw.
template <typename T, int Width, class Value>
void fill(uint8_t* p, int64_t n, uint64_t& state, Value value) {
  constexpr int kPer = 64 / Width;
  for (int64_t e = 0; e < n;) {
    uint64_t d = splitmix64(state);
    for (int k = 0; k < kPer && e < n; ++k, ++e, p += sizeof(T), d <<= Width) {
      T v = value(d >> (64 - Width));
      std::memcpy(p, &v, sizeof(T));
    }
  }
}
}  // namespace

void GlobalMemory::fill_inputs(uint64_t seed) {
  static const std::vector<uint16_t> f16_grid = grid_table<uint16_t>(11, to_f16);
  static const std::vector<uint16_t> bf16_grid = grid_table<uint16_t>(8, to_bf16);
  for_each_tensor(decls, [&](size_t t) {
    if (!given_by_host(decls[t].role)) return;
    uint64_t state = seed * 1000003 + t;
    uint8_t* p = data[t].data();
    int64_t n = decls[t].elements();
    switch (decls[t].dtype) {
      case DType::f16: fill<uint16_t, 12>(p, n, state, [](uint64_t b) { return f16_grid[size_t(b)]; }); break;
      case DType::bf16: fill<uint16_t, 9>(p, n, state, [](uint64_t b) { return bf16_grid[size_t(b)]; }); break;
      case DType::f32:
        fill<float, 24>(p, n, state, [](uint64_t b) { return std::ldexp(float(int64_t(b) - (int64_t(1) << 23)), -23); });
        break;
      case DType::s8: fill<int8_t, 8>(p, n, state, [](uint64_t b) { return int8_t(uint8_t(b)); }); break;
      case DType::u8: fill<uint8_t, 8>(p, n, state, [](uint64_t b) { return uint8_t(b); }); break;
      case DType::s16: fill<int16_t, 32>(p, n, state, [](uint64_t b) { return int16_t((below(b, 17) - 8) * 100); }); break;
      case DType::u16: fill<uint16_t, 16>(p, n, state, [](uint64_t b) { return uint16_t(b); }); break;
      case DType::s32: fill<int32_t, 32>(p, n, state, [](uint64_t b) { return int32_t((below(b, 17) - 8) * 1000); }); break;
    }
  });
}

void GlobalMemory::scale_float_inputs(double factor) {
  for (size_t t = 0; t < decls.size(); ++t) {
    if (!given_by_host(decls[t].role)) continue;
    uint8_t* p = data[t].data();
    const int64_t n = decls[t].elements();
    for (int64_t i = 0; i < n; ++i) {
      switch (decls[t].dtype) {
        case DType::f16: {
          uint16_t h;
          std::memcpy(&h, p + 2 * i, 2);
          h = f64_to_f16(double(f16_to_f32(h)) * factor);
          std::memcpy(p + 2 * i, &h, 2);
          break;
        }
        case DType::bf16: {
          uint16_t b;
          std::memcpy(&b, p + 2 * i, 2);
          b = f32_to_bf16(float(double(bf16_to_f32(b)) * factor));
          std::memcpy(p + 2 * i, &b, 2);
          break;
        }
        case DType::f32: {
          float f;
          std::memcpy(&f, p + 4 * i, 4);
          f = float(double(f) * factor);
          std::memcpy(p + 4 * i, &f, 4);
          break;
        }
        default: break;
      }
    }
  }
}

void atomic_add(uint8_t* dst, const uint8_t* src, int64_t bytes, DType t) {
  int size = dtype_size(t);
  for (int64_t e = 0; e + size <= bytes; e += size) {
    if (t == DType::f32) {
      float a, b;
      std::memcpy(&a, dst + e, 4), std::memcpy(&b, src + e, 4);
      a += b;
      std::memcpy(dst + e, &a, 4);
    } else if (t == DType::f16) {
      uint16_t a, b;
      std::memcpy(&a, dst + e, 2), std::memcpy(&b, src + e, 2);
      a = f32_to_f16(f16_to_f32(a) + f16_to_f32(b));  // f32 then f16: one correct rounding (24 >= 2*11+2)
      std::memcpy(dst + e, &a, 2);
    } else {
      uint32_t a, b;
      std::memcpy(&a, dst + e, 4), std::memcpy(&b, src + e, 4);
      a += b;
      std::memcpy(dst + e, &a, 4);
    }
  }
}

}  // namespace cubekit
