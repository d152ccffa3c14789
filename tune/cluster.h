// The processes of a distributed tuning run: one by default, or the ranks of an MPI job when
// cubekit runs under mpirun (Debian's OpenMPI, loaded on first use from libcubekit_mpi.so, so a
// plain run never links or starts MPI). The tuner splits each batch of candidates over the ranks
// and gathers the results on all of them, so every rank takes the same decisions and rank 0
// writes the database.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cubekit::tune {

class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  // Every rank's `mine`, in rank order (a collective: every rank calls it the same number of times).
  virtual std::vector<std::string> allgather(const std::string& mine) { return {mine}; }
  // The next number of a counter shared by every thread of every rank (0, 1, 2, ...): whoever is
  // free takes the next candidate, so uneven candidates even out. Thread-safe.
  virtual int64_t claim() { return next_++; }

 private:
  std::atomic<int64_t> next_{0};
};

// Whether this process was started by mpirun (OpenMPI's or a PMI launcher's environment).
bool under_mpi();
// The MPI job's cluster, initialising MPI (finalised at exit); a user error naming what is
// missing when the MPI module cannot be loaded.
std::unique_ptr<Cluster> mpi_cluster();

}  // namespace cubekit::tune
