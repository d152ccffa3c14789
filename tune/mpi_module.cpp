// libcubekit_mpi.so: MPI behind the small table of tune/mpi_backend.h, so that only a run under
// mpirun loads Open MPI.
#include "tune/mpi_backend.h"

// The C API only: Open MPI's C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <vector>

namespace {

int init() {
  int started = 0;
  MPI_Initialized(&started);
  if (started) return 0;
  return MPI_Init(nullptr, nullptr);
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

int allgather(const char* data, size_t bytes, void* context, cubekit::tune::mpi::Sink sink) {
  const int n = size();
  int mine = int(bytes);
  std::vector<int> sizes(static_cast<size_t>(n)), offsets(static_cast<size_t>(n));
  if (int rc = MPI_Allgather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD)) return rc;
  int total = 0;
  for (int r = 0; r < n; ++r) offsets[size_t(r)] = total, total += sizes[size_t(r)];
  std::vector<char> all(size_t(total) + 1);
  if (int rc = MPI_Allgatherv(data, mine, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD))
    return rc;
  for (int r = 0; r < n; ++r) sink(context, r, all.data() + offsets[size_t(r)], size_t(sizes[size_t(r)]));
  return 0;
}

void finalize() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const cubekit::tune::mpi::Backend* cubekit_mpi_backend() {
  static const cubekit::tune::mpi::Backend b{cubekit::tune::mpi::kBackendAbi, CUBEKIT_BUILD_ID, init, rank, size,
                                             allgather, finalize};
  return &b;
}
