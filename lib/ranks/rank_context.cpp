#include "ranks/rank_context.h"

#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "ranks/device_error.h"

#ifdef OSCHED_HAVE_MPI
#include <mpi.h>
#endif

namespace osched {
namespace {

class SingleRankContext : public RankContext {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  std::vector<double> allgather(const std::vector<double>& local) override { return local; }
  std::vector<std::string> allgather_strings(const std::string& local) override { return {local}; }
  void broadcast(std::string&, int) override {}
  void barrier() override {}
  std::string kind() const override { return "single"; }
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  try {
    return std::stoi(v);
  } catch (const std::exception&) {
    return fallback;
  }
}

#ifdef OSCHED_HAVE_MPI
void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS)
    return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw DeviceError(std::string("MPI error in ") + what + ": " +
                    std::string(msg, static_cast<size_t>(len)));
}

class MpiRankContext : public RankContext {
public:
  MpiRankContext() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
        throw DeviceError("MPI_Init failed");
      owns_ = true;
    }
    // Errors come back as codes, so they become one-line DeviceErrors.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    local_rank_ = env_int("OMPI_COMM_WORLD_LOCAL_RANK",
                          env_int("MPI_LOCALRANKID", env_int("SLURM_LOCALID", rank_)));
  }
  ~MpiRankContext() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!owns_ || finalized)
      return;
    // Failing together: each rank still has its error line to print. Were
    // MPI finalized now, the first rank to exit non-zero could make mpirun
    // kill the others before they print; finalizing at exit (a fence across
    // ranks) lets every rank print first.
    if (std::uncaught_exceptions() > 0) {
      std::atexit(finalize_at_exit);
      return;
    }
    MPI_Finalize();
  }
  static void finalize_at_exit() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::vector<double> allgather(const std::vector<double>& local) override {
    std::vector<double> all(local.size() * static_cast<size_t>(size_));
    check_mpi(MPI_Allgather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
                            static_cast<int>(local.size()), MPI_DOUBLE, MPI_COMM_WORLD),
              "MPI_Allgather");
    return all;
  }
  std::vector<std::string> allgather_strings(const std::string& local) override {
    int len = static_cast<int>(local.size());
    std::vector<int> lens(static_cast<size_t>(size_));
    check_mpi(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD),
              "MPI_Allgather");
    std::vector<int> displs(static_cast<size_t>(size_));
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    check_mpi(MPI_Allgatherv(local.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                             MPI_CHAR, MPI_COMM_WORLD),
              "MPI_Allgatherv");
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r)
      out.push_back(all.substr(static_cast<size_t>(displs[r]), static_cast<size_t>(lens[r])));
    return out;
  }
  void broadcast(std::string& bytes, int root) override {
    int len = static_cast<int>(bytes.size());
    check_mpi(MPI_Bcast(&len, 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast");
    bytes.resize(static_cast<size_t>(len));
    check_mpi(MPI_Bcast(bytes.data(), len, MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  void barrier() override { check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  std::string kind() const override { return "mpi"; }

private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool owns_ = false;
};
#endif

} // namespace

std::unique_ptr<RankContext> make_single_rank_context() {
  return std::make_unique<SingleRankContext>();
}

bool launched_by_mpi() {
  for (const char* var :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(var))
      return true;
  return false;
}

std::unique_ptr<RankContext> make_launch_rank_context() {
  return launched_by_mpi() ? make_mpi_context() : make_single_rank_context();
}

std::unique_ptr<RankContext> make_mpi_context() {
#ifdef OSCHED_HAVE_MPI
  return std::make_unique<MpiRankContext>();
#else
  throw DeviceError("this build has no MPI support (OpenMPI was not found when it was configured)");
#endif
}

void agree_or_throw(RankContext& ctx, const std::string& local_error) {
  std::vector<std::string> all = ctx.allgather_strings(local_error);
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    if (all[r].empty())
      continue;
    if (r == ctx.rank() || ctx.size() == 1)
      throw DeviceError(all[r]);
    throw DeviceError("rank " + std::to_string(r) + ": " + all[r]);
  }
}

} // namespace osched
