#include "bucketing/pre_bucket.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "bucketing/bucket_key.h"
#include "bucketing/written_buffers.h"
#include "ops/collective.h"
#include "safety/opaque_ops.h"
#include "scheduler/collective_uses.h"

namespace osched {
namespace {

// Nodes a classifying walk may visit: a parameter's chain to its gather,
// or a result's chain to the output, is a handful of views and casts.
constexpr size_t kWalkLimit = 64;

// Upstream's bucket measure: the larger of input and output bytes.
int64_t measure(const CollectiveInfo& c) {
  const int64_t in = *c.input_bytes;
  return c.kind == CollectiveKind::AllGather ? in * c.group_size : in;
}

// The same collective with `in` input bytes per rank.
CollectiveInfo at_input(const CollectiveInfo& c, int64_t in) {
  CollectiveInfo s = c;
  const double f = static_cast<double>(in) / static_cast<double>(*c.input_bytes);
  s.input_bytes = in;
  s.size_bytes = static_cast<int64_t>(std::llround(static_cast<double>(c.size_bytes) * f));
  s.memory_bytes = static_cast<int64_t>(std::llround(static_cast<double>(c.memory_bytes) * f));
  return s;
}

// The smallest measure at which the call spends target_efficiency of its
// time transferring at the asymptotic rate.
int64_t saturation_cap(const CollectiveInfo& c, const CollectiveTime& time,
                       const PreBucketOptions& o) {
  const double in_per_measure =
      c.kind == CollectiveKind::AllGather ? 1.0 / static_cast<double>(c.group_size) : 1.0;
  const int64_t big = int64_t{1} << 30;
  const double rate =
      (time(at_input(c, 2 * big)) - time(at_input(c, big))) / static_cast<double>(big);
  int64_t cap = o.floor_bytes;
  if (std::isfinite(rate) && rate > 0) {
    cap = o.ceiling_bytes;
    for (double m = static_cast<double>(o.floor_bytes); m < static_cast<double>(o.ceiling_bytes);
         m *= 1.25) {
      const int64_t in = std::max<int64_t>(1, static_cast<int64_t>(m * in_per_measure));
      const double t = time(at_input(c, in));
      if (std::isfinite(t) && t > 0 && rate * static_cast<double>(in) >= o.target_efficiency * t) {
        cap = static_cast<int64_t>(m);
        break;
      }
    }
  }
  return std::max<int64_t>(1, std::min(cap, o.max_bucket_bytes));
}

class PrePlanner {
public:
  PrePlanner(const Graph& g, const PreBucketOptions& opts, const CollectiveTime& time)
      : g_(g), opts_(opts), time_(time), inputs_(build_input_lists(g)),
        users_(build_user_lists(g, inputs_)), seen_(g.nodes.size(), 0) {}

  PreBucketPlan run() {
    find_candidates();
    if (plan_.collectives.empty())
      return std::move(plan_);
    opaque_ = OpaquePositions(g_, parse_assume_pure(opts_.assume_pure));
    cut_runs();
    return std::move(plan_);
  }

private:
  struct Candidate {
    CollectiveInfo info;
    std::string key;
    int64_t measure = 0;
    size_t issued = 0; // its start's index in its group's issue order
  };

  const Graph& g_;
  const PreBucketOptions& opts_;
  const CollectiveTime& time_;
  const InputLists inputs_;
  const UserLists users_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
  std::vector<NodeId> stack_;
  std::vector<Candidate> candidates_; // parallel to plan_.collectives
  OpaquePositions opaque_;
  std::map<std::pair<std::string, int>, int64_t> caps_;
  PreBucketPlan plan_;

  void next_stamp() {
    if (++stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      stamp_ = 1;
    }
  }

  // All ancestors within the walk limit, one graph input, no collective.
  bool gathers_one_parameter(NodeId start) {
    next_stamp();
    stack_.clear();
    stack_.push_back(start);
    size_t visited = 0, placeholders = 0;
    while (!stack_.empty()) {
      const NodeId v = stack_.back();
      stack_.pop_back();
      auto [b, e] = inputs_.of(v);
      for (auto p = b; p != e; ++p) {
        if (seen_[*p] == stamp_)
          continue;
        seen_[*p] = stamp_;
        const Node& n = g_.nodes[*p];
        if (++visited > kWalkLimit || is_collective_node(n) || is_wait_node(n))
          return false;
        if (n.op == NodeOp::Placeholder && ++placeholders > 1)
          return false;
        stack_.push_back(*p);
      }
    }
    return placeholders == 1;
  }

  // Every path from the wait reaches the output through one-input nodes.
  bool flows_to_output(NodeId wait) {
    next_stamp();
    stack_.clear();
    stack_.push_back(wait);
    size_t visited = 0;
    bool any_user = false;
    while (!stack_.empty()) {
      const NodeId v = stack_.back();
      stack_.pop_back();
      auto [b, e] = users_.of(v);
      for (auto p = b; p != e; ++p) {
        any_user = true;
        if (seen_[*p] == stamp_)
          continue;
        seen_[*p] = stamp_;
        const Node& n = g_.nodes[*p];
        if (n.op == NodeOp::Output)
          continue;
        auto [ib, ie] = inputs_.of(*p);
        if (++visited > kWalkLimit || is_collective_node(n) || is_wait_node(n) ||
            std::any_of(ib, ie, [&](NodeId x) { return x != v; }))
          return false;
        stack_.push_back(*p);
      }
    }
    return any_user;
  }

  void find_candidates() {
    const InputLists data_inputs = build_input_lists(g_, false);
    const UserLists data_users = build_user_lists(g_, data_inputs);
    const WrittenBuffers written(g_);
    struct Found {
      NodeId start, wait;
      CollectiveInfo info;
      std::string key;
      size_t issued;
    };
    std::vector<Found> found;
    std::map<std::string, bool> fsdp_group; // groups with a parameter gather
    std::map<std::string, size_t> issued;   // per group, collectives started so far
    for (NodeId v = 0; v < g_.size(); ++v) {
      if (!is_collective_node(g_.nodes[v]))
        continue;
      std::optional<CollectiveInfo> info = decode_collective(g_, v);
      if (!info)
        continue;
      const size_t index = issued[info->group]++;
      std::optional<std::string> key = bucket_key(g_, v, info);
      if (!key || *info->input_bytes <= 0) // sizes below scale by the input
        continue;
      const CollectiveUses uses = collective_uses(g_, data_users, v);
      if (uses.waits.size() != 1 || uses.other >= 0)
        continue;
      const NodeId wait = uses.waits[0];
      // Pinned ones (control_deps) stay: the merged wait would wait on what
      // another member's users run after, a cycle.
      if (written.touched_by(v, wait) || !g_.nodes[v].attrs().control_deps.empty() ||
          !g_.nodes[wait].attrs().control_deps.empty())
        continue;
      if (info->kind == CollectiveKind::AllGather) {
        if (!gathers_one_parameter(v))
          continue;
        fsdp_group[info->group] = true;
      } else if (!flows_to_output(wait)) {
        continue;
      }
      found.push_back({v, wait, std::move(*info), std::move(*key), index});
    }
    if (fsdp_group.empty()) // no FSDP-style group: nothing is pre-bucketed (as upstream)
      return;
    for (Found& f : found) {
      if (f.info.kind == CollectiveKind::AllReduce && !fsdp_group.count(f.info.group))
        continue;
      OverlapInterval iv;
      iv.start = f.start;
      iv.wait = f.wait;
      iv.size_bytes = f.info.size_bytes;
      plan_.collectives.push_back(std::move(iv));
      const int64_t m = measure(f.info);
      candidates_.push_back({std::move(f.info), std::move(f.key), m, f.issued});
    }
  }

  int64_t cap_of(const CollectiveInfo& c) {
    auto [it, fresh] = caps_.try_emplace({c.group, static_cast<int>(c.kind)}, 0);
    if (fresh) {
      it->second = saturation_cap(c, time_, opts_);
      plan_.caps.push_back({c.group, std::string(collective_kind_name(c.kind)), it->second});
    }
    return it->second;
  }

  void cut_runs() {
    std::vector<size_t> by_wait(plan_.collectives.size());
    for (size_t i = 0; i < by_wait.size(); ++i)
      by_wait[i] = i;
    std::sort(by_wait.begin(), by_wait.end(), [&](size_t a, size_t b) {
      return plan_.collectives[a].wait < plan_.collectives[b].wait;
    });
    // Per kind, the open bucket: its members, key, measure, bytes and span.
    struct Open {
      std::vector<size_t> members;
      std::string key;
      int64_t measure = 0, bytes = 0;
      NodeId lo = 0, hi = 0;
      size_t last_issued = 0;
    };
    std::map<int, Open> open;
    for (size_t i : by_wait) {
      const Candidate& c = candidates_[i];
      const OverlapInterval& iv = plan_.collectives[i];
      Open& o = open[static_cast<int>(c.info.kind)];
      const int64_t cap = cap_of(c.info);
      const bool joins = !o.members.empty() && o.key == c.key && o.measure + c.measure <= cap &&
                         o.bytes + iv.size_bytes <= opts_.max_bucket_bytes &&
                         // no opaque op from the first start to the last wait
                         !opaque_.any_in(std::min(o.lo, iv.start), std::max(o.hi, iv.wait)) &&
                         (!opts_.preserve_group_order || c.issued == o.last_issued + 1);
      if (!joins) {
        close(o.members);
        o = Open{{}, c.key, 0, 0, iv.start, iv.wait, c.issued};
      }
      o.members.push_back(i);
      o.measure += c.measure;
      o.bytes += iv.size_bytes;
      o.lo = std::min(o.lo, iv.start);
      o.hi = std::max(o.hi, iv.wait);
      o.last_issued = c.issued;
    }
    for (auto& [kind, o] : open)
      close(o.members);
    std::sort(plan_.buckets.begin(), plan_.buckets.end(), [&](const Bucket& a, const Bucket& b) {
      return plan_.collectives[a.start_at].start < plan_.collectives[b.start_at].start;
    });
  }

  // A bucket of two or more: its merged start where its last member
  // started, its wait where its first member was waited on (the rewrite
  // puts the wait after the start where they cross).
  void close(std::vector<size_t> members) {
    if (members.size() < 2)
      return;
    const auto& cs = plan_.collectives;
    std::sort(members.begin(), members.end(),
              [&](size_t a, size_t b) { return cs[a].start < cs[b].start; });
    Bucket b;
    b.members = members;
    b.start_at = members.back();
    b.wait_at = *std::min_element(members.begin(), members.end(),
                                  [&](size_t a, size_t c) { return cs[a].wait < cs[c].wait; });
    for (size_t m : members)
      b.size_bytes += cs[m].size_bytes;
    plan_.buckets.push_back(std::move(b));
  }
};

} // namespace

PreBucketPlan plan_pre_buckets(const Graph& g, const PreBucketOptions& opts,
                               const CollectiveTime& time) {
  return PrePlanner(g, opts, time).run();
}

} // namespace osched
