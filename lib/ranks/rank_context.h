#pragma once
// The processes that must reach the same decision: one per GPU under an MPI
// launcher, or just this process. Benchmark alignment only needs these few
// collective operations, so the scheduler never sees MPI directly.

#include <memory>
#include <string>
#include <vector>

namespace osched {

class RankContext {
public:
  virtual ~RankContext() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0; // index among the ranks of this host
  // Every rank's `local` (all the same length), concatenated in rank order.
  virtual std::vector<double> allgather(const std::vector<double>& local) = 0;
  // Every rank's string, in rank order.
  virtual std::vector<std::string> allgather_strings(const std::string& local) = 0;
  // `bytes` of rank `root`, on every rank.
  virtual void broadcast(std::string& bytes, int root) = 0;
  virtual void barrier() = 0;
  virtual std::string kind() const = 0; // "single" or "mpi"
};

std::unique_ptr<RankContext> make_single_rank_context();

// True when an MPI launcher (mpirun/mpiexec/srun with PMI) started this
// process, read from the environment the launcher sets.
bool launched_by_mpi();

// Initializes MPI (finalized when the context is destroyed). Throws
// a device error when the build has no MPI or initialization fails.
std::unique_ptr<RankContext> make_mpi_context();

// The ranks of this launch: MPI's under an MPI launcher, else one process.
std::unique_ptr<RankContext> make_launch_rank_context();

// All ranks learn whether any failed; throws a device error on every rank if one
// did, with the first failing rank's message.
void agree_or_throw(RankContext& ctx, const std::string& local_error);

} // namespace osched
