// What the host CPU runs, as glibc's loader found it at start-up (CPU_FEATURE_ACTIVE: the CPU has the
// feature and the OS saves its registers). Not __builtin_cpu_supports or target_clones: both link
// libgcc's own start-up probe, which runs CPUID in every process, and on a virtual machine each CPUID
// traps to the hypervisor; the probe took 0.1 ms of a 2 ms `cubekit` run (issue 14).
#pragma once

#if defined(__x86_64__)
#include <sys/platform/x86.h>
#endif

namespace cubekit::host_cpu {

#if defined(__x86_64__)
inline bool avx2_fma_f16c() { return CPU_FEATURE_ACTIVE(AVX2) && CPU_FEATURE_ACTIVE(FMA) && CPU_FEATURE_ACTIVE(F16C); }
inline bool avx512f() { return CPU_FEATURE_ACTIVE(AVX512F); }
// The AVX-512 subsets of a Skylake server and later (BW and VL for bytes and narrow vectors).
inline bool avx512_skylake() {
  return CPU_FEATURE_ACTIVE(AVX512F) && CPU_FEATURE_ACTIVE(AVX512BW) && CPU_FEATURE_ACTIVE(AVX512VL) &&
         CPU_FEATURE_ACTIVE(AVX512DQ) && CPU_FEATURE_ACTIVE(AVX512CD);
}
#else
inline bool avx2_fma_f16c() { return false; }
inline bool avx512f() { return false; }
inline bool avx512_skylake() { return false; }
#endif

}  // namespace cubekit::host_cpu
