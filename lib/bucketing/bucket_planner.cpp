#include "bucketing/bucket_planner.h"

#include "graph/mutation.h"
#include "memory/storage_map.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_set>

#include "benchmark/collective_problem.h"
#include "graph/collective.h"

namespace osched {
namespace {

// Same key: the collectives can run as one.
std::optional<std::string> bucket_key(const Graph& g, NodeId start) {
  const Node& n = g.nodes[start];
  auto sig = collective_signature(n.target);
  // In-place and out= forms write a buffer that a bucket's flat copy would not.
  if (!sig || sig->coalesced || sig->kind == CollectiveKind::AllToAll ||
      sig->kind == CollectiveKind::Broadcast || !mutated_args(n).empty())
    return std::nullopt;
  auto group = collective_group_name(n);
  auto in = collective_input(g, start);
  if (!group || !in || n.args.empty() || !n.args[0].is_ref())
    return std::nullopt;
  std::string key = *group + "|" + n.target + "|" + std::string(dtype_name(in->second));
  // reduce op (reduce_scatter, all_reduce) and group_size (all_gather, reduce_scatter)
  for (size_t i = 1; i < n.args.size() && static_cast<int>(i) != sig->group_name_pos; ++i) {
    const Value& v = n.args[i];
    if (v.kind == Value::Kind::String)
      key += "|" + v.s;
    if (v.kind == Value::Kind::Int)
      key += "|" + std::to_string(v.i);
  }
  return key;
}

struct Candidate {
  std::vector<size_t> members;
  int64_t bytes = 0;
  std::string key;
  size_t first_rank = 0; // position of the first member in the group's issue order
};

} // namespace

std::vector<Bucket> plan_buckets(const Graph& g, const std::vector<OverlapInterval>& colls,
                                 const BucketOptions& opts) {
  // Compute that hides something is off limits as a bucket member (a wait or
  // start that hides others would move and break that overlap).
  std::unordered_set<NodeId> hiding_nodes;
  for (const auto& c : colls)
    hiding_nodes.insert(c.hiding.begin(), c.hiding.end());

  // A merged collective reads its members' inputs later and completes their
  // outputs earlier, which would cross an in-place write of those buffers:
  // collectives touching a storage that anything writes stay unbucketed.
  const bool any_writer =
      std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return !mutated_args(n).empty(); });
  const StorageMap storages = any_writer ? build_storage_map(g) : StorageMap{};
  std::vector<bool> written(storages.bytes.size(), false);
  for (const auto& w : storages.writes)
    for (StorageId s : w)
      written[s] = true;
  auto touches_written = [&](const OverlapInterval& iv) {
    if (!any_writer)
      return false;
    for (NodeId n : {iv.start, iv.wait})
      for (const auto* list : {&storages.reads[n], &storages.allocates[n]})
        for (StorageId s : *list)
          if (written[s])
            return true;
    return false;
  };

  // Collectives of each group in issue (start) order.
  std::map<std::string, std::vector<size_t>> by_group;
  for (size_t i = 0; i < colls.size(); ++i)
    by_group[collective_group_name(g.nodes[colls[i].start]).value_or("")].push_back(i);

  std::vector<Bucket> buckets;
  for (auto& [group, list] : by_group) {
    std::sort(list.begin(), list.end(),
              [&](size_t a, size_t b) { return colls[a].start < colls[b].start; });

    auto preserves_overlap = [&](const std::vector<size_t>& members) {
      NodeId new_start = -1, new_wait = g.size();
      for (size_t m : members) {
        new_start = std::max(new_start, colls[m].start);
        new_wait = std::min(new_wait, colls[m].wait);
      }
      if (new_start >= new_wait)
        return false;
      for (size_t m : members)
        for (NodeId h : colls[m].hiding)
          if (h <= new_start || h >= new_wait)
            return false;
      return true;
    };

    Candidate open; // no members: none open
    auto close = [&] {
      if (open.members.size() > 1)
        buckets.push_back({open.members, open.bytes});
      open = Candidate{};
    };
    for (size_t rank = 0; rank < list.size(); ++rank) {
      size_t c = list[rank];
      const OverlapInterval& iv = colls[c];
      std::optional<std::string> key;
      if (iv.schedulable && !hiding_nodes.count(iv.start) && !hiding_nodes.count(iv.wait) &&
          !touches_written(iv))
        key = bucket_key(g, iv.start);
      if (!open.members.empty() && key && *key == open.key &&
          open.bytes + iv.size_bytes <= opts.max_bucket_bytes &&
          rank - open.first_rank <= static_cast<size_t>(opts.max_coll_distance)) {
        std::vector<size_t> trial = open.members;
        trial.push_back(c);
        if (preserves_overlap(trial)) {
          open.members = std::move(trial);
          open.bytes += iv.size_bytes;
          continue;
        }
      }
      close();
      if (key && iv.size_bytes <= opts.max_bucket_bytes)
        open = Candidate{{c}, iv.size_bytes, *key, rank};
    }
    close();
  }
  std::sort(buckets.begin(), buckets.end(), [&](const Bucket& a, const Bucket& b) {
    return colls[a.members[0]].start < colls[b.members[0]].start;
  });
  return buckets;
}

} // namespace osched
