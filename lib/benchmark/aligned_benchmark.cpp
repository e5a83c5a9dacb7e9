#include "benchmark/aligned_benchmark.h"

#include <algorithm>
#include <set>

#include "benchmark/collective_problem.h"
#include "benchmark/matmul_problem.h"
#include "cost/nccl_model.h"
#include "errors/error.h"
#include "files/content_hash.h"
#include "ops/op_table.h"

namespace osched {
namespace {

struct ComputeEntry {
  MatmulProblem problem;
  std::vector<std::string> nodes;
  double analytical_ms = 0;
};

// Runs `fn`, turning any failure into a message all ranks agree on.
template <typename Fn> void on_all_ranks(RankContext& ctx, Fn&& fn) {
  std::string error;
  try {
    fn();
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree_or_throw(ctx, error);
}

} // namespace

double lower_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
}

BenchmarkTable
run_aligned_benchmarks(const Graph& g, const BenchmarkOptions& opts, const HardwareSpec& hw,
                       RankContext& ctx,
                       const std::function<std::unique_ptr<Measurer>()>& make_measurer) {
  BenchmarkTable table;
  table.nranks = ctx.size();
  if (opts.cache)
    table.cache = *opts.cache;

  // What to measure, keyed (and so ordered) identically on every rank.
  AnalyticalEstimator analytical(hw);
  std::map<std::string, ComputeEntry> compute;
  if (opts.compute) {
    for (NodeId i = 0; i < g.size(); ++i) {
      if (!is_compute_node(g.nodes[i]))
        continue;
      auto p = matmul_problem(g, i);
      if (!p)
        continue;
      auto [it, fresh] = compute.try_emplace(p->key(), ComputeEntry{*p, {}, 0});
      if (fresh)
        it->second.analytical_ms = analytical.compute_ms(g, i).value_or(0.0);
      it->second.nodes.push_back(g.nodes[i].name);
    }
  }
  std::map<std::string, CollectiveProblem> colls;
  if (opts.collectives) {
    for (NodeId i = 0; i < g.size(); ++i) {
      auto c = decode_collective(g, i);
      // Broadcasts are not benchmarked: the scheduler keeps them in place.
      if (!c || c->kind == CollectiveKind::Broadcast || !c->input_bytes)
        continue;
      for (int64_t bytes : measurement_sizes(*c->input_bytes)) {
        CollectiveProblem p{c->kind, *c->dtype, bytes, ctx.size()};
        colls.emplace(p.key(), p);
      }
    }
  }

  // Ranks must agree on the work, or the collectives below would deadlock.
  std::string work;
  for (const auto& [k, _] : compute)
    work += k + "\n";
  for (const auto& [k, _] : colls)
    work += k + "\n";
  std::vector<std::string> hashes = ctx.allgather_strings(content_hash(work));
  for (int r = 1; r < ctx.size(); ++r)
    if (hashes[r] != hashes[0])
      throw device_error(
          "rank " + std::to_string(r) +
          " has a different graph than rank 0; every rank must schedule the same graph");

  std::unique_ptr<Measurer> measurer;
  on_all_ranks(ctx, [&] { measurer = make_measurer(); });
  const std::string device = measurer->device_name();
  auto cache_key = [&](const char* what, const std::string& key) {
    return std::string(what) + "|" + device + "|" + key;
  };

  // A key is measured unless every rank has it cached.
  std::vector<std::string> keys;
  for (const auto& [k, _] : compute)
    keys.push_back(cache_key("compute", k));
  for (const auto& [k, _] : colls)
    keys.push_back(cache_key("collective", k));
  std::vector<double> have(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    have[i] = table.cache.entries.count(keys[i]) ? 1.0 : 0.0;
  std::vector<double> all_have = ctx.allgather(have);
  std::vector<bool> cached(keys.size(), true);
  for (size_t i = 0; i < keys.size(); ++i)
    for (int r = 0; r < ctx.size(); ++r)
      if (all_have[static_cast<size_t>(r) * keys.size() + i] == 0.0)
        cached[i] = false;

  std::vector<double> local(keys.size(), 0.0);
  size_t idx = 0;
  on_all_ranks(ctx, [&] {
    for (const auto& [k, e] : compute) {
      local[idx] = cached[idx] ? table.cache.entries.at(keys[idx]) : measurer->matmul_ms(e.problem);
      ++idx;
    }
  });
  bool any_collective_to_measure = false;
  for (size_t i = compute.size(); i < keys.size(); ++i)
    any_collective_to_measure |= !cached[i];
  if (any_collective_to_measure)
    on_all_ranks(ctx, [&] { measurer->prepare_collectives(); });
  on_all_ranks(ctx, [&] {
    for (const auto& [k, p] : colls) {
      local[idx] = cached[idx] ? table.cache.entries.at(keys[idx]) : measurer->collective_ms(p);
      ++idx;
    }
  });

  // Alignment: every rank sees every rank's values and keeps the medians.
  std::vector<double> all = ctx.allgather(local);
  auto per_rank = [&](size_t i) {
    std::vector<double> v;
    for (int r = 0; r < ctx.size(); ++r)
      v.push_back(all[static_cast<size_t>(r) * keys.size() + i]);
    return v;
  };
  BenchmarkSummary& summary = table.summary;
  idx = 0;
  for (const auto& [k, e] : compute) {
    std::vector<double> v = per_rank(idx);
    double med = lower_median(v);
    table.compute[k] = med;
    table.cache.entries[keys[idx]] = med;
    summary.compute.push_back({k, e.nodes, v, med, e.analytical_ms, cached[idx]});
    (cached[idx] ? table.cache_hits : table.measured)++;
    ++idx;
  }
  for (const auto& [k, p] : colls) {
    std::vector<double> v = per_rank(idx);
    double med = lower_median(v);
    table.collectives[p.series()].emplace_back(p.input_bytes, med);
    table.cache.entries[keys[idx]] = med;
    CollectiveShape shape{p.kind, collective_model_bytes(p.kind, p.input_bytes, p.nranks), p.nranks,
                          1};
    summary.collectives.push_back({k, {}, v, med, estimate_nccl_ms(shape, hw), cached[idx]});
    (cached[idx] ? table.cache_hits : table.measured)++;
    ++idx;
  }
  for (auto& [_, pts] : table.collectives)
    std::sort(pts.begin(), pts.end());

  summary.backend = opts.backend;
  summary.ranks = ctx.size();
  summary.devices = ctx.allgather_strings(device);
  summary.cache_hits = table.cache_hits;
  summary.measured = table.measured;
  return table;
}

std::optional<double> BenchmarkEstimator::compute_ms(const Graph& g, NodeId n) {
  auto p = matmul_problem(g, n);
  if (!p)
    return std::nullopt;
  auto it = table_.compute.find(p->key());
  if (it == table_.compute.end())
    return std::nullopt;
  return it->second;
}

std::optional<double> BenchmarkEstimator::collective_ms(const Graph&, const CollectiveInfo& c) {
  if (c.kind == CollectiveKind::Broadcast || !c.input_bytes)
    return std::nullopt;
  CollectiveProblem series_of{c.kind, *c.dtype, 0, table_.nranks};
  auto it = table_.collectives.find(series_of.series());
  if (it == table_.collectives.end())
    return std::nullopt;
  auto ms = interpolate_ms(it->second, *c.input_bytes);
  if (!ms)
    return std::nullopt;
  // Measured on this machine's ranks: scale by the model to the graph's group.
  const int hosts = c.num_hosts(hw_.gpus_per_node);
  if (c.group_size != table_.nranks || hosts > 1) {
    double target = estimate_nccl_ms({c.kind, c.size_bytes, c.group_size, hosts}, hw_);
    double measured = estimate_nccl_ms(
        {c.kind, collective_model_bytes(c.kind, *c.input_bytes, table_.nranks), table_.nranks, 1},
        hw_);
    if (measured > 0)
      *ms *= target / measured;
  }
  return ms;
}

} // namespace osched
