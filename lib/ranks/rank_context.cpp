#include "ranks/rank_context.h"

#include <cstdlib>

#include "errors/error.h"

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

void agree_or_throw(RankContext& ctx, const std::string& local_error) {
  std::vector<std::string> all = ctx.allgather_strings(local_error);
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    if (all[r].empty())
      continue;
    if (r == ctx.rank() || ctx.size() == 1)
      throw device_error(all[r]);
    throw device_error("rank " + std::to_string(r) + ": " + all[r]);
  }
}

} // namespace osched
