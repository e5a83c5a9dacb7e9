// The ranks of an mpirun launch, through the MPI plugin (ranks/mpi_api.h),
// which is loaded here on first use.

#include <cstdlib>
#include <exception>

#include "errors/error.h"
#include "ranks/mpi_api.h"
#include "ranks/plugin_loader.h"
#include "ranks/rank_context.h"

namespace osched {

#ifndef OSCHED_HAVE_MPI

std::unique_ptr<RankContext> make_mpi_context() {
  throw device_error(
      "this build has no MPI support (OpenMPI was not found when it was configured)");
}

#else

namespace {

const OschedMpiApi* mpi_api() {
  static const OschedMpiApi* api = [] {
    std::string path = plugin_path("libosched_mpi.so", "OSCHED_MPI_PLUGIN");
    // Global: OpenMPI's components, which it opens itself, resolve libmpi's
    // symbols through the global scope.
    void* handle = open_plugin(path, /*global=*/true, "MPI (OpenMPI is needed under mpirun)");
    auto fn =
        reinterpret_cast<OschedMpiApiFn>(plugin_symbol(handle, "osched_mpi_plugin_api", path));
    return fn();
  }();
  return api;
}

template <typename Call> void check(Call&& call) {
  char err[512] = {0};
  if (call(err, sizeof(err)) != 0)
    throw device_error(err[0] ? err : "MPI call failed");
}

class MpiRankContext : public RankContext {
public:
  MpiRankContext() : api_(mpi_api()) {
    int owns = 0;
    check([&](char* e, size_t n) { return api_->init(&rank_, &size_, &owns, e, n); });
    owns_ = owns != 0;
    local_rank_ = env_int("OMPI_COMM_WORLD_LOCAL_RANK",
                          env_int("MPI_LOCALRANKID", env_int("SLURM_LOCALID", rank_)));
  }
  ~MpiRankContext() override {
    if (!owns_)
      return;
    // Failing together: each rank still has its error line to print. Were
    // MPI finalized now, the first rank to exit non-zero could make mpirun
    // kill the others before they print; finalizing at exit (a fence across
    // ranks) lets every rank print first.
    if (std::uncaught_exceptions() > 0) {
      std::atexit([] { mpi_api()->finalize(); });
      return;
    }
    api_->finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::vector<double> allgather(const std::vector<double>& local) override {
    std::vector<double> all(local.size() * static_cast<size_t>(size_));
    int bytes = static_cast<int>(local.size() * sizeof(double));
    check(
        [&](char* e, size_t n) { return api_->allgather(local.data(), bytes, all.data(), e, n); });
    return all;
  }
  std::vector<std::string> allgather_strings(const std::string& local) override {
    int len = static_cast<int>(local.size());
    std::vector<int> lens(static_cast<size_t>(size_));
    check([&](char* e, size_t n) { return api_->allgather(&len, sizeof(int), lens.data(), e, n); });
    std::vector<int> displs(static_cast<size_t>(size_));
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    check([&](char* e, size_t n) {
      return api_->allgatherv(local.data(), len, all.data(), lens.data(), displs.data(), e, n);
    });
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r)
      out.push_back(all.substr(static_cast<size_t>(displs[r]), static_cast<size_t>(lens[r])));
    return out;
  }
  void broadcast(std::string& bytes, int root) override {
    int len = static_cast<int>(bytes.size());
    check([&](char* e, size_t n) { return api_->broadcast(&len, sizeof(int), root, e, n); });
    bytes.resize(static_cast<size_t>(len));
    check([&](char* e, size_t n) { return api_->broadcast(bytes.data(), len, root, e, n); });
  }
  void barrier() override {
    check([&](char* e, size_t n) { return api_->barrier(e, n); });
  }
  std::string kind() const override { return "mpi"; }

private:
  static int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v)
      return fallback;
    try {
      return std::stoi(v);
    } catch (const std::exception&) {
      return fallback;
    }
  }

  const OschedMpiApi* api_;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool owns_ = false;
};

} // namespace

std::unique_ptr<RankContext> make_mpi_context() {
  return std::make_unique<MpiRankContext>();
}

#endif

} // namespace osched
