// run_aligned_benchmarks across ranks in one process: threads stand in for
// MPI ranks, so agreement and medians are tested without a launcher.

#include <catch2/catch.hpp>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "benchmark/aligned_benchmark.h"
#include "errors/error.h"
#include "format/graph_file.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

// What every thread-rank shares: one slot per rank and a reusable barrier.
struct Shared {
  explicit Shared(int n)
      : size(n), doubles(static_cast<size_t>(n)), strings(static_cast<size_t>(n)) {}
  int size;
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  long generation = 0;
  std::vector<std::vector<double>> doubles;
  std::vector<std::string> strings;

  void barrier() {
    std::unique_lock<std::mutex> lock(mu);
    long gen = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return generation != gen; });
    }
  }
};

class ThreadRankContext : public RankContext {
public:
  ThreadRankContext(Shared& s, int rank) : s_(s), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_.size; }
  int local_rank() const override { return rank_; }
  std::vector<double> allgather(const std::vector<double>& local) override {
    s_.doubles[static_cast<size_t>(rank_)] = local;
    s_.barrier();
    std::vector<double> all;
    for (const auto& v : s_.doubles)
      all.insert(all.end(), v.begin(), v.end());
    s_.barrier(); // nobody overwrites a slot before everyone has read
    return all;
  }
  std::vector<std::string> allgather_strings(const std::string& local) override {
    s_.strings[static_cast<size_t>(rank_)] = local;
    s_.barrier();
    std::vector<std::string> all = s_.strings;
    s_.barrier();
    return all;
  }
  void broadcast(std::string& bytes, int root) override {
    std::vector<std::string> all = allgather_strings(bytes);
    bytes = all[static_cast<size_t>(root)];
  }
  void barrier() override { s_.barrier(); }
  std::string kind() const override { return "threads"; }

private:
  Shared& s_;
  int rank_;
};

// Runs fn(rank, ctx) on `n` thread-ranks; returns each rank's result or error.
template <typename Fn> std::vector<std::pair<BenchmarkTable, std::string>> on_ranks(int n, Fn fn) {
  Shared shared(n);
  std::vector<std::pair<BenchmarkTable, std::string>> out(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      ThreadRankContext ctx(shared, r);
      try {
        out[static_cast<size_t>(r)].first = fn(r, ctx);
      } catch (const Error& e) {
        out[static_cast<size_t>(r)].second = e.what();
      }
    });
  for (auto& t : threads)
    t.join();
  return out;
}

} // namespace

TEST_CASE("three ranks with different measurements agree on the medians") {
  Graph g = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  HardwareSpec hw = default_hardware();
  BenchmarkOptions opts;
  opts.compute = true;
  opts.collectives = true;
  opts.backend = "synthetic";
  auto results = on_ranks(3, [&](int, RankContext& ctx) {
    return run_aligned_benchmarks(g, opts, hw, ctx,
                                  [&] { return make_synthetic_measurer(ctx, hw); });
  });
  for (const auto& [table, error] : results)
    REQUIRE(error.empty());
  const BenchmarkTable& t0 = results[0].first;
  CHECK(t0.nranks == 3);
  CHECK(t0.measured > 0);
  for (int r = 1; r < 3; ++r) {
    CHECK(results[static_cast<size_t>(r)].first.compute == t0.compute);
    CHECK(results[static_cast<size_t>(r)].first.collectives == t0.collectives);
    const BenchmarkSummary& other = results[static_cast<size_t>(r)].first.summary;
    CHECK(other.compute.size() == t0.summary.compute.size());
    for (size_t i = 0; i < other.compute.size(); ++i)
      CHECK(other.compute[i].median_ms == t0.summary.compute[i].median_ms);
  }
  // Synthetic factors 1, 1.5, 3 (x for matmuls, / for collectives): the median is rank 1's.
  for (const BenchmarkEntry& e : t0.summary.compute) {
    CHECK(e.per_rank_ms[1] == Approx(1.5 * e.per_rank_ms[0]));
    CHECK(e.median_ms == e.per_rank_ms[1]);
  }
  for (const BenchmarkEntry& e : t0.summary.collectives) {
    CHECK(e.per_rank_ms[1] == Approx(e.per_rank_ms[0] / 1.5));
    CHECK(e.median_ms == e.per_rank_ms[1]);
  }
}

TEST_CASE("one rank's failure reaches every rank, naming the rank") {
  Graph g = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  HardwareSpec hw = default_hardware();
  BenchmarkOptions opts;
  opts.compute = true;
  auto results = on_ranks(3, [&](int rank, RankContext& ctx) {
    return run_aligned_benchmarks(g, opts, hw, ctx, [&]() -> std::unique_ptr<Measurer> {
      if (rank == 2)
        throw device_error("no usable CUDA GPU");
      return make_synthetic_measurer(ctx, hw);
    });
  });
  CHECK(results[2].second == "no usable CUDA GPU");
  CHECK(results[0].second == "rank 2: no usable CUDA GPU");
  CHECK(results[1].second == "rank 2: no usable CUDA GPU");
}

TEST_CASE("ranks holding different graphs refuse to measure") {
  Graph a = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  Graph b = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  HardwareSpec hw = default_hardware();
  BenchmarkOptions opts;
  opts.compute = true;
  auto results = on_ranks(2, [&](int rank, RankContext& ctx) {
    return run_aligned_benchmarks(rank == 0 ? a : b, opts, hw, ctx,
                                  [&] { return make_synthetic_measurer(ctx, hw); });
  });
  for (const auto& [table, error] : results)
    CHECK(error.find("different graph") != std::string::npos);
}
