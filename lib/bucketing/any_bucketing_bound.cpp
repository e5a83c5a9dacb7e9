#include "bucketing/any_bucketing_bound.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "bucketing/apply_buckets.h"
#include "cost/merge_floor.h"
#include "ops/collective_info.h"

namespace osched {
namespace {

bool mergeable_kind(CollectiveKind k) {
  return k == CollectiveKind::AllGather || k == CollectiveKind::ReduceScatter ||
         k == CollectiveKind::AllReduce;
}

// Whether a user estimate may price a merged collective: an `ops` entry
// for a collective target, bare or with shapes.
bool custom_prices_collectives(const CustomEstimates* custom) {
  if (!custom)
    return false;
  for (const auto& [key, ms] : custom->ops)
    if (collective_signature(std::string_view(key).substr(0, key.find('|'))))
      return true;
  return false;
}

struct Pool {
  std::optional<MergeFloor> floor;
  double smallest = 0, total = 0;
};

} // namespace

AnyBucketingBound any_bucketing_bound(const Graph& g, const SimulationPlan& plan,
                                      const RuntimeTable& rt, const CollectiveTable* table,
                                      const HardwareSpec& hw, const CustomEstimates* custom,
                                      bool measured) {
  AnyBucketingBound r;
  const size_t count = plan.collectives.size();
  MergePools m;
  m.pool.assign(count, -1);
  m.bytes.assign(count, 0);
  m.least_bucket_ms.assign(count, 0);
  m.removable.assign(g.nodes.size(), 0);
  const bool other_rule = measured || custom_prices_collectives(custom);
  // Pools by (group stream, kind), in the order their first member comes.
  std::map<std::pair<int32_t, CollectiveKind>, int32_t> pool_of;
  std::vector<Pool> pools;
  ConvertFusion converts(g);
  for (size_t k = 0; k < count; ++k) {
    const NodeId c = plan.collectives[k];
    const std::optional<CollectiveInfo> info = decode_collective(g, c);
    if (!info || !info->input_bytes || !mergeable_kind(info->kind))
      continue;
    const auto key = std::make_pair(plan.group[static_cast<size_t>(c)], info->kind);
    auto [it, fresh] = pool_of.emplace(key, static_cast<int32_t>(pools.size()));
    if (fresh)
      pools.push_back({MergeFloor::of(*info, table, hw), 0, 0});
    Pool& p = pools[static_cast<size_t>(it->second)];
    m.pool[k] = it->second;
    m.bytes[k] = p.floor->bytes(*info);
    p.smallest = p.total == 0 ? m.bytes[k] : std::min(p.smallest, m.bytes[k]);
    p.total += m.bytes[k];
    ++r.pooled;
    if (info->kind == CollectiveKind::AllGather) {
      const Node& n = g.nodes[static_cast<size_t>(c)];
      if (!n.args.empty())
        if (const NodeId v = converts.fusable(n.args[0]); v >= 0)
          m.removable[static_cast<size_t>(v)] = 1;
    }
  }
  m.least_ms_per_byte.resize(pools.size());
  for (size_t p = 0; p < pools.size(); ++p)
    m.least_ms_per_byte[p] =
        pools[p].smallest > 0 ? pools[p].floor->least_ms_per_byte(pools[p].smallest, pools[p].total)
                              : 0;
  // The critical path's times: a pooled collective at its least bucket
  // time, an uncosted one at none, removable nodes at none.
  RuntimeTable floored = rt;
  for (size_t k = 0; k < count; ++k) {
    if (m.pool[k] < 0)
      continue;
    const auto c = static_cast<size_t>(plan.collectives[k]);
    const RuntimeSource s = rt.source[c];
    const bool by_rule = s == RuntimeSource::Table || s == RuntimeSource::TableExtrapolated ||
                         s == RuntimeSource::Analytical;
    if (other_rule || !by_rule) {
      m.pool[k] = MergePools::kUncosted;
      ++r.uncosted;
      floored.ms[c] = 0;
      continue;
    }
    const Pool& p = pools[static_cast<size_t>(m.pool[k])];
    m.least_bucket_ms[k] = std::min(rt.ms[c], p.floor->least_ms(m.bytes[k], p.total));
    floored.ms[c] = m.least_bucket_ms[k];
  }
  for (size_t v = 0; v < g.nodes.size(); ++v)
    if (m.removable[v])
      floored.ms[v] = 0;
  r.bound = step_lower_bound(g, plan, floored, -1, &m);
  return r;
}

} // namespace osched
