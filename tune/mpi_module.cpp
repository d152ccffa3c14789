// libcubekit_mpi.so: MPI behind the small table of tune/mpi_backend.h, so that only a run under
// mpirun loads Open MPI.
#include "tune/mpi_backend.h"

// The C API only: Open MPI's C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <vector>

namespace {

MPI_Win g_counter = MPI_WIN_NULL;
long* g_counter_base = nullptr;

int init() {
  int started = 0;
  MPI_Initialized(&started);
  if (started) return 0;
  int provided = 0;  // serialized: a rank's threads call MPI one at a time (tune/cluster.cpp locks)
  int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  return rc ? rc : provided < MPI_THREAD_SERIALIZED ? -1 : 0;
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

int counter_open() {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Aint bytes = me == 0 ? MPI_Aint(sizeof(long)) : 0;
  if (int rc = MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &g_counter_base, &g_counter)) return rc;
  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, g_counter);
    *g_counter_base = 0;
    MPI_Win_unlock(0, g_counter);
  }
  return MPI_Barrier(MPI_COMM_WORLD);
}

long fetch_add(long n) {
  long before = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, g_counter);
  MPI_Fetch_and_op(&n, &before, MPI_LONG, 0, 0, MPI_SUM, g_counter);
  MPI_Win_unlock(0, g_counter);
  return before;
}

void finalize() {
  int done = 0;
  MPI_Finalized(&done);
  if (done) return;
  if (g_counter != MPI_WIN_NULL) MPI_Win_free(&g_counter);
  MPI_Finalize();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const cubekit::tune::mpi::Backend* cubekit_mpi_backend() {
  static const cubekit::tune::mpi::Backend b{cubekit::tune::mpi::kBackendAbi, CUBEKIT_BUILD_ID, init, rank, size,
                                             allgather, counter_open, fetch_add, finalize};
  return &b;
}
