// The function table of libcubekit_mpi.so (tune/mpi_module.cpp), the only code that links MPI:
// tune/cluster.cpp loads it when cubekit runs under mpirun.
#pragma once

#include <cstddef>

namespace cubekit::tune::mpi {

inline constexpr int kBackendAbi = 2;

// Receives rank r's bytes of an allgather.
using Sink = void (*)(void* context, int rank, const char* data, size_t size);

struct Backend {
  int abi;
  const char* build_id;
  // MPI_Init (once); 0 on success, else an MPI error code.
  int (*init)();
  int (*rank)();
  int (*size)();
  // Every rank's bytes, handed to `sink` in rank order; 0 on success.
  int (*allgather)(const char* data, size_t size, void* context, Sink sink);
  // A counter every rank adds to atomically (a one-sided window on rank 0), for handing out work:
  // counter_open is collective (0 on success); fetch_add returns the value before adding `n`.
  int (*counter_open)();
  long (*fetch_add)(long n);
  void (*finalize)();
};

}  // namespace cubekit::tune::mpi

extern "C" const cubekit::tune::mpi::Backend* cubekit_mpi_backend();
