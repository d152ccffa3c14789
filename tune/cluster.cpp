#include "tune/cluster.h"

#include "emulator/error.h"
#include "emulator/plugin.h"
#include "tune/mpi_backend.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace cubekit::tune {

namespace {

const mpi::Backend* open_module(const std::string& path, std::string& why) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);  // GLOBAL: Open MPI loads its own plugins
  if (!handle) {
    why = dlerror();
    return nullptr;
  }
  auto entry = reinterpret_cast<const mpi::Backend* (*)()>(dlsym(handle, "cubekit_mpi_backend"));
  const mpi::Backend* b = entry ? entry() : nullptr;
  if (!b || b->abi != mpi::kBackendAbi || std::string_view(b->build_id) != CUBEKIT_BUILD_ID) {
    why = fmt::format("{} is not the MPI module of this cubekit build", path);
    return nullptr;
  }
  return b;
}

const mpi::Backend& load() {
  CUBEKIT_ASSERT(can_load_modules(), "this executable is linked statically and cannot load the MPI module: the "
                 "command should have gone on in its dynamically linked twin (tools/twin.h)");
  std::string tried;
  if (const mpi::Backend* b = first_module(module_candidates(CUBEKIT_MPI_MODULE_NAME, reinterpret_cast<const void*>(&load),
                                                             CUBEKIT_MPI_MODULE_INSTALLED, CUBEKIT_MPI_MODULE_BUILT),
                                           open_module, tried))
    return *b;
  user_error("tune: this process runs under mpirun, but no loadable MPI module ({}) is beside this program, in the "
             "install prefix or in the build tree{}: install Debian's libopenmpi-dev and build cubekit again, or run "
             "without mpirun", CUBEKIT_MPI_MODULE_NAME, tried);
}

class MpiCluster : public Cluster {
 public:
  explicit MpiCluster(const mpi::Backend& b) : b_(b) {
    if (int rc = b_.init()) user_error("tune: MPI_Init failed (error {}); check the mpirun command line", rc);
    std::atexit([] { finalizer()(); });
    finalizer() = b_.finalize;
    rank_ = b_.rank(), size_ = b_.size();
    if (int rc = b_.counter_open()) user_error("tune: MPI could not open the shared counter window (error {})", rc);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> allgather(const std::string& mine) override {
    std::vector<std::string> all(static_cast<size_t>(size_));
    auto sink = [](void* context, int rank, const char* data, size_t n) {
      (*static_cast<std::vector<std::string>*>(context))[size_t(rank)].assign(data, n);
    };
    if (int rc = b_.allgather(mine.data(), mine.size(), &all, sink))
      user_error("tune: MPI_Allgather failed (error {}) on rank {}", rc, rank_);
    return all;
  }
  int64_t claim() override {
    std::lock_guard lock(mpi_);  // MPI_THREAD_SERIALIZED: one MPI call at a time from this rank
    return b_.fetch_add(1);
  }

 private:
  static void (*&finalizer())() {
    static void (*f)() = [] {};
    return f;
  }
  const mpi::Backend& b_;
  int rank_ = 0, size_ = 1;
  std::mutex mpi_;
};

}  // namespace

bool under_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

std::unique_ptr<Cluster> mpi_cluster() { return std::make_unique<MpiCluster>(load()); }

}  // namespace cubekit::tune
