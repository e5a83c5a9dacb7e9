#include "bucketing/bucket_planner.h"

#include <algorithm>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <unordered_set>

#include "bucketing/bucket_key.h"
#include "bucketing/written_buffers.h"
#include "ops/collective_info.h"
#include "ops/op_table.h"
#include "safety/opaque_ops.h"
#include "scheduler/ancestor_bits.h"
#include "scheduler/dependency_graph.h"

namespace osched {
namespace {

// A process group's collectives as (position, interval index), sorted.
struct GroupEvents {
  std::vector<std::pair<NodeId, size_t>> starts, waits;
};

class Planner {
public:
  // The dependency graph is built while another thread indexes the
  // collectives (their groups, keys and the in-place writes).
  Planner(const Graph& g, const std::vector<OverlapInterval>& colls, const BucketOptions& opts)
      : g_(g), colls_(colls), opts_(opts),
        indexing_(std::async(std::launch::async, [this] { index(); })),
        dg_(g, hiding_edges(colls)) {
    indexing_.get();
    other_mark_.assign(colls.size(), 0);
    latest_timeline_ancestor_ = latest_ancestors_in(dg_, timeline_of_);
    timeline_bits_.emplace(dg_, timeline_of_);
  }

  std::vector<Bucket> run();

private:
  void index();

  const Graph& g_;
  const std::vector<OverlapInterval>& colls_;
  const BucketOptions& opts_;
  // What index() finds (declared before the thread that fills them).
  std::vector<bool> is_hiding_;   // hiding nodes of any collective
  std::vector<char> timeline_of_; // collective starts and waits
  OpaquePositions opaque_;        // ops collectives keep their place around
  bool can_move_ = true;
  std::optional<WrittenBuffers> written_;
  // Per group, (position, coll) of its starts and of its waits, sorted.
  std::map<std::string, GroupEvents> group_events_;
  // Per interval, where it and the regions after its start and its wait
  // begin in its group's sorted lists (the wait's only when it has one).
  struct Ranks {
    size_t start = 0, wait = 0;   // its own entries
    size_t waits_after_start = 0; // the first wait after its start
    size_t starts_after_wait = 0; // the first start after its wait
  };
  std::vector<Ranks> ranks_;
  // group -> bucket key -> the intervals that may merge (run() sorts them by start)
  std::map<std::string, std::map<std::string, std::vector<size_t>>> by_key_;
  std::future<void> indexing_;
  DependencyGraph dg_;
  // Per node: the latest collective start or wait among its ancestors (-1:
  // none). Every ancestor query here asks about a start or a wait: the walk
  // back from the later node enters only nodes with that one at or below
  // their bound, and most queries end before a step.
  std::vector<NodeId> latest_timeline_ancestor_;
  // The same questions answered by bits, where the table fits.
  std::optional<AncestorBits> timeline_bits_;
  std::unordered_set<NodeId> claimed_; // nodes an earlier bucket moves: no second move
  // Scratch of preserves_intervals, kept between calls.
  mutable std::vector<size_t> others_, members_;
  mutable std::vector<uint32_t> other_mark_; // per interval: == other_stamp_ once in others_
  mutable uint32_t other_stamp_ = 0;
  mutable std::vector<std::pair<NodeId, NodeId>> exec_;

  void claim(const Bucket& b) {
    claimed_.insert(b.hoisted.begin(), b.hoisted.end());
    claimed_.insert(b.sunk.begin(), b.sunk.end());
  }

  bool touches_written(const OverlapInterval& iv) const {
    return written_->touched_by(iv.start, iv.wait);
  }

  // Upstream's augmented order: start -> hiding node -> wait for hidden collectives.
  static bool has_hiding_edges(const OverlapInterval& c) {
    return c.exposed_ms == 0 && c.wait >= 0;
  }
  static std::vector<std::pair<NodeId, NodeId>>
  hiding_edges(const std::vector<OverlapInterval>& colls) {
    std::vector<std::pair<NodeId, NodeId>> e;
    for (const auto& c : colls) {
      if (!has_hiding_edges(c))
        continue;
      for (NodeId h : c.hiding) {
        if (c.start < h)
          e.emplace_back(c.start, h);
        if (h < c.wait)
          e.emplace_back(h, c.wait);
      }
    }
    return e;
  }

  // Is the start or wait `a` an ancestor of `b`?
  bool timeline_ancestor(NodeId a, NodeId b) const {
    if (a < 0 || b < 0 || a >= b)
      return false;
    if (timeline_bits_->answers() && timeline_of_[static_cast<size_t>(a)])
      return timeline_bits_->is_ancestor(a, b);
    return dg_.is_ancestor_bounded(a, b, latest_timeline_ancestor_);
  }
  bool related(NodeId a, NodeId b) const {
    return timeline_ancestor(a, b) || timeline_ancestor(b, a);
  }

  bool movable(NodeId v) const {
    const Node& n = g_.nodes[v];
    return n.op == NodeOp::CallFunction && !timeline_of_[v] && !is_hiding_[v] && !is_opaque(v) &&
           !is_compute_node(n) && !is_collective_node(n) && !is_wait_node(n);
  }

  bool ancestor_conflicts(const Bucket& b, size_t cand) const {
    const OverlapInterval& c = colls_[cand];
    for (size_t m : b.members) {
      const OverlapInterval& e = colls_[m];
      if (related(e.start, c.start) || related(e.wait, c.wait))
        return true;
      // Where a hiding node has an edge to its collective's wait, a path to
      // it would have been a path to that wait, just ruled out: no walk.
      for (NodeId h : e.hiding)
        if (!(has_hiding_edges(e) && h < e.wait) && timeline_ancestor(c.wait, h))
          return true;
      for (NodeId h : c.hiding)
        if (!(has_hiding_edges(c) && h < c.wait) && timeline_ancestor(e.wait, h))
          return true;
    }
    return false;
  }

  // The nodes placing the merged start at `s` and its wait at `w` moves: the
  // ancestors of later members' starts that come after s (raised before it)
  // and the users of earlier members' waits that come before w (sunk after
  // it); false if one of them cannot move.
  bool closure(const std::vector<size_t>& members, NodeId s, NodeId w, std::vector<NodeId>& hoisted,
               std::vector<NodeId>& sunk) const {
    hoisted.clear();
    sunk.clear();
    bool ok = true;
    std::unordered_set<NodeId> member_nodes;
    for (size_t m : members)
      member_nodes.insert({colls_[m].start, colls_[m].wait});
    for (size_t m : members) {
      if (colls_[m].start <= s)
        continue;
      dg_.walk_ancestors(
          colls_[m].start, [&](NodeId v) { return ok && v > s; },
          [&](NodeId v) {
            if (member_nodes.count(v) || !movable(v))
              ok = false;
            else
              hoisted.push_back(v);
          });
    }
    for (size_t m : members) {
      if (colls_[m].wait >= w)
        continue;
      std::vector<NodeId> stack{colls_[m].wait};
      std::unordered_set<NodeId> seen;
      while (ok && !stack.empty()) {
        NodeId v = stack.back();
        stack.pop_back();
        auto [b, e] = dg_.users(v);
        for (auto p = b; p != e; ++p) {
          if (*p >= w || !seen.insert(*p).second)
            continue;
          if (member_nodes.count(*p) || !movable(*p)) {
            ok = false;
            break;
          }
          sunk.push_back(*p);
          stack.push_back(*p);
        }
      }
    }
    if (!ok)
      return false;
    if ((!hoisted.empty() || !sunk.empty()) && !can_move_)
      return false;
    for (const auto* list : {&hoisted, &sunk})
      for (NodeId v : *list)
        if (claimed_.count(v))
          return false;
    auto tidy = [](std::vector<NodeId>& v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    tidy(hoisted);
    tidy(sunk);
    // A node both raised and sunk would need to be in two places.
    for (NodeId v : hoisted)
      if (std::binary_search(sunk.begin(), sunk.end(), v))
        return false;
    return true;
  }

  // Upstream's interval rule: no hiding interval (start, hiding node) lies
  // strictly inside an execution interval (start, wait) of the same group.
  // Runs for every placement tried (millions on a 1M-node graph), so it
  // reuses scratch buffers and answers each hiding interval with a binary
  // search over the execution intervals sorted by start.
  bool preserves_intervals(const std::vector<size_t>& members, const GroupEvents& events,
                           size_t start_at, size_t wait_at) const {
    const NodeId s = colls_[start_at].start, w = colls_[wait_at].wait;
    size_t latest = start_at, earliest = wait_at; // the latest start, the earliest wait
    for (size_t m : members) {
      for (NodeId h : colls_[m].hiding)
        if (h <= s || h >= w)
          return false;
      if (colls_[m].start > colls_[latest].start)
        latest = m;
      if (colls_[m].wait < colls_[earliest].wait)
        earliest = m;
    }
    // Other collectives of the group with a start or wait in the regions the
    // placement moves across: (s, latest start) and (earliest wait, w).
    // Where each region begins in the group's lists was found once.
    others_.clear();
    auto collect = [&](const std::vector<std::pair<NodeId, size_t>>& list, size_t from, NodeId hi) {
      for (auto it = list.begin() + static_cast<std::ptrdiff_t>(from);
           it != list.end() && it->first < hi; ++it)
        if (other_mark_[it->second] != other_stamp_ &&
            std::find(members.begin(), members.end(), it->second) == members.end()) {
          other_mark_[it->second] = other_stamp_;
          others_.push_back(it->second);
        }
    };
    if (++other_stamp_ == 0) { // wrapped: no mark may look current
      std::fill(other_mark_.begin(), other_mark_.end(), 0);
      other_stamp_ = 1;
    }
    const Ranks& from_start = ranks_[start_at];
    const Ranks& from_wait = ranks_[earliest];
    collect(events.starts, from_start.start + 1, colls_[latest].start);
    collect(events.waits, from_start.waits_after_start, colls_[latest].start);
    collect(events.starts, from_wait.starts_after_wait, w);
    collect(events.waits, from_wait.wait + 1, w);
    exec_.clear();
    exec_.emplace_back(s, w);
    for (size_t o : others_) {
      const OverlapInterval& x = colls_[o];
      // The placement's own interval (s, w) holds this one's hiding interval.
      if (x.start > s)
        for (NodeId h : x.hiding)
          if (h < w)
            return false;
      exec_.emplace_back(x.start, x.wait);
    }
    // Sorted by start, each entry's second becomes the latest end among
    // intervals starting no later: (a, h) is held by one starting before a
    // iff that running maximum, just before a, exceeds h.
    std::sort(exec_.begin(), exec_.end());
    for (size_t i = 1; i < exec_.size(); ++i)
      exec_[i].second = std::max(exec_[i].second, exec_[i - 1].second);
    auto held = [&](NodeId a, NodeId h) {
      auto it = std::lower_bound(exec_.begin(), exec_.end(),
                                 std::make_pair(a, std::numeric_limits<NodeId>::min()));
      return it != exec_.begin() && std::prev(it)->second > h;
    };
    for (size_t m : members)
      for (NodeId h : colls_[m].hiding)
        if (held(s, h))
          return false;
    for (size_t o : others_)
      for (NodeId h : colls_[o].hiding)
        if (held(colls_[o].start, h))
          return false;
    return true;
  }

  bool is_opaque(NodeId v) const { return opaque_.at(v); }

  // Is there an opaque op strictly between positions a and b?
  bool crosses_opaque(NodeId a, NodeId b) const {
    return opaque_.any_in(std::min(a, b) + 1, std::max(a, b) - 1);
  }

  // Would moving the members' starts to s and waits to w cross an opaque op?
  bool moves_across_opaque(const std::vector<size_t>& members, NodeId s, NodeId w) const {
    for (size_t m : members)
      if (crosses_opaque(colls_[m].start, s) ||
          (colls_[m].wait >= 0 && crosses_opaque(colls_[m].wait, w)))
        return true;
    return false;
  }

  bool try_add(Bucket& b, size_t cand, const GroupEvents& events) const {
    if (is_hiding_[colls_[cand].start] || is_hiding_[colls_[cand].wait])
      return false;
    if (ancestor_conflicts(b, cand))
      return false;
    if (opts_.preserve_group_order) {
      // No other collective of the group issued between the members.
      NodeId lo = colls_[cand].start;
      for (size_t m : b.members)
        lo = std::min(lo, colls_[m].start);
      const auto& starts = events.starts;
      auto it = std::upper_bound(starts.begin(), starts.end(),
                                 std::make_pair(lo, std::numeric_limits<size_t>::max()));
      for (; it != starts.end() && it->first < colls_[cand].start; ++it)
        if (std::find(b.members.begin(), b.members.end(), it->second) == b.members.end())
          return false;
    }
    std::vector<size_t>& members = members_;
    members.assign(b.members.begin(), b.members.end());
    members.push_back(cand);
    const std::pair<size_t, size_t> placements[] = {
        {b.start_at, cand}, {b.start_at, b.wait_at}, {cand, cand}, {cand, b.wait_at}};
    for (auto [start_at, wait_at] : placements) {
      const NodeId s = colls_[start_at].start, w = colls_[wait_at].wait;
      if (s >= w || moves_across_opaque(members, s, w) ||
          !preserves_intervals(members, events, start_at, wait_at))
        continue;
      std::vector<NodeId> hoisted, sunk;
      if (!closure(members, s, w, hoisted, sunk))
        continue;
      b.members = members;
      b.start_at = start_at;
      b.wait_at = wait_at;
      b.hoisted = std::move(hoisted);
      b.sunk = std::move(sunk);
      return true;
    }
    return false;
  }
};

void Planner::index() {
  is_hiding_.assign(g_.nodes.size(), false);
  for (const auto& c : colls_)
    for (NodeId h : c.hiding)
      is_hiding_[h] = true;
  opaque_ = OpaquePositions(g_, parse_assume_pure(opts_.assume_pure));
  timeline_of_.assign(g_.nodes.size(), false);
  for (const auto& c : colls_) {
    timeline_of_[c.start] = true;
    if (c.wait >= 0)
      timeline_of_[c.wait] = true;
  }
  // Moving nodes across in-place writes is not modelled: with writers,
  // merged starts and waits stay where a member's already is.
  written_.emplace(g_);
  can_move_ = !written_->any();
  for (size_t i = 0; i < colls_.size(); ++i) {
    const std::optional<CollectiveInfo> info = decode_collective(g_, colls_[i].start);
    const std::string& group = info->group;
    GroupEvents& events = group_events_[group];
    events.starts.emplace_back(colls_[i].start, i);
    if (colls_[i].wait >= 0)
      events.waits.emplace_back(colls_[i].wait, i);
    if (!colls_[i].schedulable || touches_written(colls_[i]))
      continue;
    if (auto key = bucket_key(g_, colls_[i].start, info))
      by_key_[group][*key].push_back(i);
  }
  ranks_.assign(colls_.size(), Ranks{});
  for (auto& [group, events] : group_events_) {
    std::sort(events.starts.begin(), events.starts.end());
    std::sort(events.waits.begin(), events.waits.end());
    auto first_after = [](const std::vector<std::pair<NodeId, size_t>>& list, NodeId pos) {
      return static_cast<size_t>(
          std::upper_bound(list.begin(), list.end(),
                           std::make_pair(pos, std::numeric_limits<size_t>::max())) -
          list.begin());
    };
    for (size_t i = 0; i < events.starts.size(); ++i) {
      Ranks& r = ranks_[events.starts[i].second];
      r.start = i;
      r.waits_after_start = first_after(events.waits, events.starts[i].first);
    }
    for (size_t i = 0; i < events.waits.size(); ++i) {
      Ranks& r = ranks_[events.waits[i].second];
      r.wait = i;
      r.starts_after_wait = first_after(events.starts, events.waits[i].first);
    }
  }
}

std::vector<Bucket> Planner::run() {
  constexpr int kMaxConsecutiveFailures = 20;
  std::vector<Bucket> buckets;
  std::vector<bool> taken(colls_.size(), false);
  for (auto& [group, keys] : by_key_) {
    const GroupEvents& events = group_events_.at(group);
    for (auto& [key, list] : keys) {
      std::sort(list.begin(), list.end(),
                [&](size_t a, size_t b) { return colls_[a].start < colls_[b].start; });
      for (size_t i = 0; i < list.size(); ++i) {
        const size_t first = list[i];
        if (taken[first] || is_hiding_[colls_[first].start] || is_hiding_[colls_[first].wait])
          continue;
        Bucket b;
        b.members = {first};
        b.size_bytes = colls_[first].size_bytes;
        b.start_at = b.wait_at = first;
        taken[first] = true;
        int failures = 0;
        const size_t end =
            std::min(list.size(), i + 1 + static_cast<size_t>(opts_.max_coll_distance));
        for (size_t j = i + 1; j < end; ++j) {
          const size_t cand = list[j];
          // A bucket too large ends the search (upstream's proxy for memory).
          if (b.size_bytes + colls_[cand].size_bytes > opts_.max_bucket_bytes)
            break;
          if (taken[cand])
            continue;
          if (try_add(b, cand, events)) {
            b.size_bytes += colls_[cand].size_bytes;
            taken[cand] = true;
            failures = 0;
          } else if (++failures >= kMaxConsecutiveFailures) {
            break;
          }
        }
        if (b.members.size() > 1) {
          claim(b);
          buckets.push_back(std::move(b));
        }
      }
    }
  }
  std::sort(buckets.begin(), buckets.end(), [&](const Bucket& a, const Bucket& b) {
    return colls_[a.start_at].start < colls_[b.start_at].start;
  });
  return buckets;
}

} // namespace

std::vector<Bucket> plan_buckets(const Graph& g, const std::vector<OverlapInterval>& colls,
                                 const BucketOptions& opts) {
  return Planner(g, colls, opts).run();
}

} // namespace osched
