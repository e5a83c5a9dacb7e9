#include "scheduler/overlap_scheduler.h"

#include "graph/collective_info.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <tuple>

#include <spdlog/spdlog.h>

#include "graph/op_table.h"
#include "memory/memory_tracker.h"
#include "memory/write_order.h"
#include "scheduler/collective_uses.h"
#include "scheduler/dependency_graph.h"
#include "scheduler/potential_overlap.h"
#include "scheduler/range_max.h"
#include "scheduler/simulate.h"

namespace osched {
namespace {

constexpr int32_t kOffComputePath = std::numeric_limits<int32_t>::max();

enum class Kind : uint8_t { Placeholder, Compute, CollectiveStart, Wait, Other, Output };

using Score = std::tuple<int32_t, int32_t, NodeId>;

// Upstream's counters: exposed = nothing hid it at all; bad_exposed = exposed
// though some compute node is independent of it.
void count_outcome(ScheduleResult& r, const CollectiveOutcome& c) {
  if (c.exposed_ms == c.estimated_ms) {
    ++r.exposed;
    if (c.potentially_hideable)
      ++r.bad_exposed;
  }
  if (c.potentially_hideable) {
    ++r.potentially_hidden;
    r.hideable_exposed_ms += c.exposed_ms;
  }
  r.total_exposed_ms += c.exposed_ms;
  r.potential_exposed_ms += c.estimated_ms;
}

// Edges beyond data and control: in-place write orders, the later waits of
// a coalesced collective after its first one, and with preserve_group_order
// each group's issue order.
std::vector<std::pair<NodeId, NodeId>> scheduler_edges(const Graph& g, const StorageMap& storages,
                                                       const UserLists& data_users,
                                                       bool group_order) {
  std::vector<std::pair<NodeId, NodeId>> edges;
  if (group_order)
    edges = group_order_edges(g);
  for (const WriteOrderEdge& e : write_order_edges(g, storages))
    edges.emplace_back(e.before, e.after);
  for (NodeId i = 0; i < g.size(); ++i) {
    if (!is_collective_node(g.nodes[i]))
      continue;
    CollectiveUses u = collective_uses(g, data_users, i);
    for (size_t k = 1; k < u.waits.size(); ++k)
      edges.emplace_back(u.waits[0], u.waits[k]);
  }
  return edges;
}

class Scheduler {
public:
  Scheduler(const Graph& g, const RuntimeTable& rt, const SchedulerOptions& opt,
            std::optional<int64_t> budget)
      : g_(g), rt_(rt), opt_(opt), storages_(build_storage_map(g)),
        data_users_(build_user_lists(g, build_input_lists(g, false))),
        dg_(g, scheduler_edges(g, storages_, data_users_, opt.preserve_group_order)),
        memory_(storages_) {
    const NodeId n = g.size();
    kind_.resize(n, Kind::Other);
    info_of_.assign(n, -1);
    for (NodeId i = 0; i < n; ++i) {
      const Node& node = g.nodes[i];
      if (node.op == NodeOp::Placeholder || node.op == NodeOp::GetAttr)
        kind_[i] = Kind::Placeholder;
      else if (node.op == NodeOp::Output)
        kind_[i] = Kind::Output;
      else if (is_compute_node(node))
        kind_[i] = Kind::Compute;
    }
    identify_collectives();
    compute_domination();
    compute_baseline_memory();
    budget_ = budget.value_or(memory_budget(original_peak_, opt_));
    max_in_flight_ = gb_to_bytes(opt_.max_in_flight_gb);
    cumulative_prefetch_.emplace(std::vector<int64_t>(compute_nodes_.size(), 0));
    projected_.emplace(baseline_before_compute_);

    std::vector<NodeId> starts;
    for (const auto& c : colls_)
      if (c.schedulable)
        starts.push_back(c.start);
    PotentialOverlap potential(dg_, compute_nodes_);
    auto hideable = potential.find_hiding(starts);
    size_t k = 0;
    for (auto& c : colls_)
      if (c.schedulable)
        c.potentially_hideable = hideable[k++] >= 0;

    in_degree_.resize(n);
    scheduled_.assign(n, false);
    for (NodeId i = 0; i < n; ++i) {
      in_degree_[i] = dg_.num_inputs(i);
      if (in_degree_[i] == 0)
        ready_.push(score(i));
    }
  }

  ScheduleResult run() {
    while (!ready_.empty()) {
      if (should_force_wait()) {
        force_oldest_wait();
        continue;
      }
      NodeId node = std::get<2>(ready_.top());
      ready_.pop();
      if (scheduled_[node])
        continue;
      switch (kind_[node]) {
      case Kind::Placeholder:
        schedule(node);
        break;
      case Kind::CollectiveStart:
        handle_collective_start(node);
        break;
      case Kind::Wait:
        handle_wait(node);
        break;
      default:
        handle_compute_or_other(node);
      }
    }
    return finish();
  }

private:
  const Graph& g_;
  const RuntimeTable& rt_;
  const SchedulerOptions& opt_;
  StorageMap storages_;
  UserLists data_users_;
  DependencyGraph dg_;
  MemoryTracker memory_;
  std::vector<std::vector<NodeId>> readers_of_; // per storage, built on first use

  std::vector<Kind> kind_;
  std::vector<int32_t> info_of_; // node -> index in colls_ (start and wait)
  std::vector<CollectiveOutcome> colls_;
  std::vector<int32_t> group_of_; // per colls_ entry
  std::vector<std::string> group_names_;
  std::vector<bool> group_has_schedulable_; // the groups overlap time is accounted for
  std::vector<int32_t> dom_;
  std::vector<NodeId> compute_nodes_;
  // Per compute index k: the most memory in the original order from after
  // compute k-1 through compute k (upstream's "memory before compute k").
  std::vector<int64_t> baseline_before_compute_;
  // Per compute index: bytes of collectives prefetched across it so far,
  // and baseline + those bytes.
  std::optional<RangeAddMax> cumulative_prefetch_, projected_;
  int64_t original_peak_ = 0;
  int64_t budget_ = 0;
  int64_t max_in_flight_ = 0;

  std::priority_queue<Score, std::vector<Score>, std::greater<Score>> ready_;
  std::vector<int32_t> in_degree_;
  std::vector<bool> scheduled_;
  std::vector<NodeId> order_;
  std::set<NodeId> unscheduled_collectives_;
  std::vector<int32_t> in_flight_; // colls_ indices, in issue order
  int64_t in_flight_bytes_ = 0;
  int32_t current_compute_index_ = 0;
  double wasted_compute_ = 0;
  std::vector<uint32_t> desc_mark_; // mark_descendants
  uint32_t desc_stamp_ = 0;
  std::vector<NodeId> desc_stack_;

  void identify_collectives() {
    std::map<std::string, int32_t> group_ids;
    for (NodeId i = 0; i < g_.size(); ++i) {
      const std::optional<CollectiveInfo> info = decode_collective(g_, i);
      if (!info)
        continue;
      CollectiveOutcome c;
      c.start = i;
      c.kind = info->kind;
      c.group = info->group;
      c.size_bytes = info->size_bytes;
      c.memory_bytes = info->memory_bytes;
      c.estimated_ms = c.exposed_ms = rt_.ms[i];
      // Schedulable: waited on, and otherwise read only for metadata.
      CollectiveUses uses = collective_uses(g_, data_users_, i);
      const NodeId wait = uses.waits.empty() ? -1 : uses.waits.front();
      if (c.kind == CollectiveKind::Broadcast)
        c.why_exposed.push_back(
            "not schedulable: broadcasts stay in place (as in the upstream pass)");
      else if (wait < 0)
        c.why_exposed.push_back("not schedulable: nothing waits on its result (no wait_tensor)");
      else if (uses.other_is_output)
        c.why_exposed.push_back(
            "not schedulable: its raw (unwaited) result is also a graph output");
      else if (uses.other >= 0)
        c.why_exposed.push_back("not schedulable: '" + g_.nodes[uses.other].name +
                                "' reads its result without waiting on it");
      c.schedulable = c.why_exposed.empty();
      if (c.schedulable) {
        c.wait = wait;
        kind_[i] = Kind::CollectiveStart;
        kind_[wait] = Kind::Wait;
      }
      auto [it, _] = group_ids.emplace(c.group, static_cast<int32_t>(group_ids.size()));
      group_of_.push_back(it->second);
      int32_t idx = static_cast<int32_t>(colls_.size());
      info_of_[i] = idx;
      if (c.schedulable) {
        info_of_[wait] = idx;
        unscheduled_collectives_.insert(i);
      }
      colls_.push_back(std::move(c));
    }
    group_names_.resize(group_ids.size());
    for (const auto& [name, id] : group_ids)
      group_names_[id] = name;
    group_has_schedulable_.assign(group_ids.size(), false);
    for (size_t k = 0; k < colls_.size(); ++k)
      if (colls_[k].schedulable)
        group_has_schedulable_[group_of_[k]] = true;
  }

  void compute_domination() {
    const NodeId n = g_.size();
    std::vector<int32_t> compute_ordinal(n, -1);
    for (NodeId i = 0; i < n; ++i)
      if (kind_[i] == Kind::Compute) {
        compute_ordinal[i] = static_cast<int32_t>(compute_nodes_.size());
        compute_nodes_.push_back(i);
      }
    dom_.assign(n, kOffComputePath);
    for (NodeId i = n - 1; i >= 0; --i) {
      if (compute_ordinal[i] >= 0) {
        dom_[i] = compute_ordinal[i];
        continue;
      }
      auto [b, e] = dg_.users(i);
      for (auto p = b; p != e; ++p)
        dom_[i] = std::min(dom_[i], dom_[*p]);
    }
  }

  // Upstream measures memory after each node's frees: the original peak and
  // the per-compute baseline the prefetch check projects onto.
  void compute_baseline_memory() {
    std::vector<NodeId> order(g_.size());
    for (NodeId i = 0; i < g_.size(); ++i)
      order[i] = i;
    MemoryProfile p = memory_profile(storages_, order);
    original_peak_ = p.peak;
    baseline_before_compute_.reserve(compute_nodes_.size());
    int64_t since_last_compute = 0;
    for (NodeId i = 0; i < g_.size(); ++i) {
      since_last_compute = std::max(since_last_compute, p.after_node[i]);
      if (kind_[i] == Kind::Compute) {
        baseline_before_compute_.push_back(since_last_compute);
        since_last_compute = p.after_node[i];
      }
    }
  }

  bool is_exposed(const CollectiveOutcome& c) const { return c.exposed_ms != 0; }

  // --release-memory-early: nodes off the compute and communication streams
  // that release more memory than they allocate (metadata reads of a
  // buffer, a last view, a reduction of a big activation) run as soon as
  // they are ready; deferring them to the compute they feed only keeps
  // buffers alive.
  bool frees_for_free(NodeId n) const {
    if (!opt_.release_memory_early)
      return false;
    if (kind_[n] != Kind::Other || is_collective_node(g_.nodes[n]) || is_wait_node(g_.nodes[n]))
      return false;
    if (is_metadata_node(g_.nodes[n]))
      return true;
    return memory_.bytes_freed_by(n) > memory_.allocation_of(n);
  }

  // A storage just lost its second-to-last reader: its last reader, if
  // ready and free, moves to the front.
  void promote_last_readers(NodeId scheduled) {
    if (!opt_.release_memory_early)
      return;
    for (StorageId s : storages_.reads[scheduled]) {
      if (memory_.remaining_reads(s) != 1)
        continue;
      if (readers_of_.empty()) {
        readers_of_.resize(storages_.bytes.size());
        for (NodeId v = 0; v < g_.size(); ++v)
          for (StorageId r : storages_.reads[v])
            readers_of_[r].push_back(v);
      }
      for (NodeId r : readers_of_[s])
        if (!scheduled_[r] && in_degree_[r] == 0 && frees_for_free(r))
          ready_.push(score(r));
    }
  }

  // (compute index it blocks, local priority, original position): exposed
  // waits go last and the cheap chains into an unscheduled collective first
  // among the nodes that block the same compute.
  Score score(NodeId n) const {
    if (frees_for_free(n))
      return {-1, 0, n};
    int32_t local = 0;
    if (kind_[n] == Kind::Wait) {
      local = is_exposed(colls_[info_of_[n]]) ? 1 : 0;
    } else if (in_overlappable_collective_unary_chain(n)) {
      local = -1;
    }
    return {dom_[n], local, n};
  }

  bool in_overlappable_collective_unary_chain(NodeId curr) const {
    while (true) {
      if (dg_.num_users(curr) != 1)
        return false;
      NodeId user = *dg_.users(curr).first;
      if (dg_.num_inputs(user) != 1)
        return false;
      if (kind_[user] == Kind::CollectiveStart && !scheduled_[user])
        return true;
      if (!is_cheap_node(g_.nodes[user]))
        return false;
      curr = user;
    }
  }

  // Why a collective was not started at some node, recorded cheaply (this
  // runs for every refused candidate) and rendered once at the end.
  enum class Refusal : uint8_t {
    GroupTimeUsed,
    Dependency,
    MemoryNow,
    PrefetchInFlight,
    PrefetchBudget,
    InFlightLimit,
    PathCompute,
    PathCollective,
    PathWait,
    PathComm
  };
  struct RefusalNote {
    Refusal why;
    NodeId at;      // the node it could have overlapped
    NodeId blocker; // the node in its way, for path refusals
    bool operator==(const RefusalNote& o) const {
      return why == o.why && at == o.at && blocker == o.blocker;
    }
  };
  std::vector<std::vector<RefusalNote>> refusals_; // per colls_ entry, newest first

  // Keeps the three most recent distinct reasons, newest first: the last
  // attempts are the ones nearest the collective's actual position.
  void note(int32_t idx, Refusal why, NodeId at, NodeId blocker = -1) {
    if (refusals_.empty())
      refusals_.resize(colls_.size());
    auto& list = refusals_[idx];
    const RefusalNote n{why, at, blocker};
    auto it = std::find(list.begin(), list.end(), n);
    if (it != list.end())
      list.erase(it);
    list.insert(list.begin(), n);
    if (list.size() > 3)
      list.pop_back();
    if (spdlog::should_log(spdlog::level::debug))
      spdlog::debug("no overlap for {}: {}", g_.nodes[colls_[idx].start].name,
                    render(colls_[idx], n));
  }

  std::string render(const CollectiveOutcome& c, const RefusalNote& n) const {
    const std::string at = "'" + g_.nodes[n.at].name + "'";
    const std::string blocker = n.blocker >= 0 ? "'" + g_.nodes[n.blocker].name + "'" : "";
    switch (n.why) {
    case Refusal::GroupTimeUsed:
      return at + " was already used to hide other collectives of group '" + c.group + "'";
    case Refusal::Dependency:
      return "depends on, or is needed by, the nearby " + at;
    case Refusal::MemoryNow:
      return "starting it before " + at + " would exceed the peak-memory budget";
    case Refusal::PrefetchInFlight:
      return "starting it before " + at +
             " would keep more than --max-in-flight-gb prefetched across the compute until its use";
    case Refusal::PrefetchBudget:
      return "starting it before " + at +
             " would exceed the peak-memory budget at a compute node before its use";
    case Refusal::InFlightLimit:
      return "in-flight byte limit (--max-in-flight-gb) reached";
    case Refusal::PathCompute:
      return "cannot start before " + at + ": needs compute " + blocker + " first";
    case Refusal::PathCollective:
      return "cannot start before " + at + ": needs collective " + blocker +
             " (not yet issued) first";
    case Refusal::PathWait:
      return "cannot start before " + at + ": needs wait " + blocker +
             ", which would expose its collective";
    case Refusal::PathComm:
      return "cannot start before " + at + ": needs " + blocker + " first";
    }
    return "";
  }

  void schedule(NodeId n) {
    scheduled_[n] = true;
    order_.push_back(n);
    memory_.schedule(n);
    auto [b, e] = dg_.users(n);
    for (auto p = b; p != e; ++p)
      if (--in_degree_[*p] == 0)
        ready_.push(score(*p));
    promote_last_readers(n);
  }

  // Upstream forces waits only for the in-flight byte limit; the memory
  // budget is checked where collectives are prefetched.
  bool should_force_wait() const {
    return !in_flight_.empty() && in_flight_bytes_ >= max_in_flight_;
  }

  void force_oldest_wait() { handle_wait(colls_[in_flight_.front()].wait); }

  void handle_collective_start(NodeId n) {
    int32_t idx = info_of_[n];
    in_flight_.push_back(idx);
    in_flight_bytes_ += colls_[idx].memory_bytes;
    unscheduled_collectives_.erase(n);
    schedule(n);
  }

  void handle_wait(NodeId w) {
    if (scheduled_[w])
      return;
    int32_t idx = info_of_[w];
    auto pos = std::find(in_flight_.begin(), in_flight_.end(), idx);
    if (pos == in_flight_.end()) {
      schedule(w);
      return;
    }
    // Waiting on a collective also waits on every earlier one of its group.
    std::vector<int32_t> earlier;
    for (auto it = in_flight_.begin(); it != pos; ++it)
      if (group_of_[*it] == group_of_[idx])
        earlier.push_back(*it);
    for (int32_t e : earlier)
      handle_wait(colls_[e].wait);
    // While the compute stream waits on an exposed collective, the other
    // groups' streams keep going: that time hides their collectives.
    auto& c = colls_[idx];
    if (c.exposed_ms > 0) {
      const int32_t group = group_of_[idx];
      std::vector<double> remaining = hide_in_flight(w, c.exposed_ms, group);
      schedule_collectives_for_overlap(w, remaining, group);
    }
    in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), idx));
    in_flight_bytes_ -= c.memory_bytes;
    schedule(w);
  }

  // Compute nodes hide collectives by their runtime; other nodes only when
  // the user estimated them (upstream's custom estimates for non-compute
  // nodes). Collectives and waits never hide others.
  std::optional<double> overlap_time_of(NodeId n) const {
    if (kind_[n] == Kind::Compute)
      return rt_.ms[n];
    if (kind_[n] != Kind::Other || rt_.source[n] != RuntimeSource::Custom)
      return std::nullopt;
    if (is_collective_node(g_.nodes[n]) || is_wait_node(g_.nodes[n]))
      return std::nullopt;
    return rt_.ms[n];
  }

  void handle_compute_or_other(NodeId n) {
    std::optional<double> runtime = overlap_time_of(n);
    if (!runtime) {
      schedule(n);
      return;
    }
    const double available = *runtime * opt_.compute_overlap_multiplier;
    std::vector<double> remaining = hide_in_flight(n, available, -1);
    schedule_collectives_for_overlap(n, remaining, -1);
    schedule(n);
    if (kind_[n] == Kind::Compute)
      ++current_compute_index_;
  }

  // Each process group's stream overlaps the same time independently: the
  // time `available` is spent on the exposed in-flight collectives of each
  // group (except `excluded`), oldest first. Returns what is left per group;
  // groups without time (excluded, or no schedulable collective) get -1.
  std::vector<double> hide_in_flight(NodeId node, double available, int32_t excluded) {
    std::vector<double> remaining(group_names_.size(), -1.0);
    for (size_t gi = 0; gi < remaining.size(); ++gi)
      if (group_has_schedulable_[gi] && static_cast<int32_t>(gi) != excluded)
        remaining[gi] = available;
    for (int32_t idx : in_flight_) {
      auto& c = colls_[idx];
      if (c.exposed_ms == 0 || group_of_[idx] == excluded)
        continue;
      double& avail = remaining[group_of_[idx]];
      if (avail <= 0)
        continue;
      double amount = std::min(c.exposed_ms, avail);
      c.exposed_ms -= amount;
      avail -= amount;
      c.hiding_nodes.push_back(node);
    }
    return remaining;
  }

  // Marks the descendants of `overlap` up to position `bound` (one forward
  // walk per overlap opportunity, not one per candidate). A candidate can
  // never be an ancestor of `overlap`: everything `overlap` reads is
  // scheduled already, the candidate is not.
  void mark_descendants(NodeId overlap, NodeId bound) {
    if (desc_mark_.empty())
      desc_mark_.assign(g_.nodes.size(), 0);
    ++desc_stamp_;
    std::vector<NodeId>& stack = desc_stack_;
    stack.assign(1, overlap);
    while (!stack.empty()) {
      NodeId v = stack.back();
      stack.pop_back();
      auto [b, e] = dg_.users(v);
      for (auto p = b; p != e; ++p)
        if (*p <= bound && desc_mark_[*p] != desc_stamp_) {
          desc_mark_[*p] = desc_stamp_;
          stack.push_back(*p);
        }
    }
  }
  bool is_descendant_marked(NodeId v) const { return desc_mark_[v] == desc_stamp_; }

  bool wait_is_hidden(NodeId wait, NodeId overlap) const {
    const auto& c = colls_[info_of_[wait]];
    return !is_exposed(c) &&
           std::find(c.hiding_nodes.begin(), c.hiding_nodes.end(), overlap) == c.hiding_nodes.end();
  }

  // Would prefetching this collective now push memory over the budget, or
  // the bytes prefetched across some compute node over the in-flight limit,
  // at any compute node until the one it blocks? Collectives that block no
  // compute are exempt (as upstream).
  std::optional<Refusal> prefetch_exceeds_memory(const CollectiveOutcome& c) const {
    const int32_t dom = dom_[c.start];
    if (dom == kOffComputePath)
      return std::nullopt;
    const int64_t size = c.memory_bytes;
    if (memory_.current_bytes() + size > budget_)
      return Refusal::MemoryNow;
    const size_t lo = static_cast<size_t>(current_compute_index_), hi = static_cast<size_t>(dom);
    if (cumulative_prefetch_->max(lo, hi) > max_in_flight_ - size)
      return Refusal::PrefetchInFlight;
    if (projected_->max(lo, hi) > budget_ - size)
      return Refusal::PrefetchBudget;
    return std::nullopt;
  }

  void record_prefetch(const CollectiveOutcome& c) {
    const int32_t dom = dom_[c.start];
    if (dom == kOffComputePath)
      return;
    cumulative_prefetch_->add(current_compute_index_, dom, c.memory_bytes);
    projected_->add(current_compute_index_, dom, c.memory_bytes);
  }

  void schedule_collectives_for_overlap(NodeId overlap, std::vector<double>& remaining,
                                        int32_t excluded) {
    if (std::none_of(remaining.begin(), remaining.end(), [](double r) { return r > 0; }))
      return;
    // The next max_coll_distance + 1 unscheduled collectives, in graph order.
    std::vector<NodeId> candidates;
    int i = 0;
    for (NodeId start : unscheduled_collectives_) {
      if (i++ > opt_.max_coll_distance)
        break;
      const int32_t idx = info_of_[start];
      if (group_of_[idx] == excluded)
        continue;
      if (dom_[start] != kOffComputePath &&
          dom_[start] - current_compute_index_ > opt_.max_compute_pre_fetch)
        continue;
      candidates.push_back(start);
    }
    if (!candidates.empty())
      mark_descendants(overlap, *std::max_element(candidates.begin(), candidates.end()));
    // A forced wait may still have unscheduled inputs (in-place write orders).
    const bool overlap_ready = in_degree_[overlap] == 0;
    // Reduce-scatters first (they release memory), then by the compute they block.
    std::sort(candidates.begin(), candidates.end(), [&](NodeId a, NodeId b) {
      bool rs_a = colls_[info_of_[a]].kind == CollectiveKind::ReduceScatter;
      bool rs_b = colls_[info_of_[b]].kind == CollectiveKind::ReduceScatter;
      return std::make_tuple(!rs_a, dom_[a], a) < std::make_tuple(!rs_b, dom_[b], b);
    });
    for (NodeId start : candidates) {
      if (scheduled_[start])
        continue;
      int32_t idx = info_of_[start];
      auto& c = colls_[idx];
      double& avail = remaining[group_of_[idx]];
      if (avail <= 0) {
        note(idx, Refusal::GroupTimeUsed, overlap);
        continue;
      }
      if (is_descendant_marked(start) || (!overlap_ready && dg_.is_ancestor(start, overlap))) {
        note(idx, Refusal::Dependency, overlap);
        continue;
      }
      if (auto why = prefetch_exceeds_memory(c)) {
        note(idx, *why, overlap);
        continue;
      }
      while (!in_flight_.empty() && max_in_flight_ - in_flight_bytes_ < c.memory_bytes &&
             wait_is_hidden(colls_[in_flight_.front()].wait, overlap))
        force_oldest_wait();
      if (max_in_flight_ - in_flight_bytes_ < c.memory_bytes) {
        note(idx, Refusal::InFlightLimit, overlap);
        continue;
      }
      std::vector<NodeId> path;
      if (!find_schedulable_path(start, overlap, path, idx))
        continue;
      spdlog::debug("overlapping {} with {}", g_.nodes[start].name, g_.nodes[overlap].name);
      schedule_path(path);
      handle_collective_start(start);
      record_prefetch(c);
      double amount = std::min(avail, c.exposed_ms);
      c.exposed_ms -= amount;
      c.hiding_nodes.push_back(overlap);
      avail -= amount;
      double left = 0;
      for (double r : remaining)
        left += std::max(r, 0.0);
      if (left == 0)
        break;
    }
    double least = std::numeric_limits<double>::infinity();
    for (double r : remaining)
      if (r >= 0)
        least = std::min(least, r);
    if (least != std::numeric_limits<double>::infinity())
      wasted_compute_ += least;
  }

  // The unscheduled ancestors of `target`, if all can run now: no compute,
  // no unscheduled collective, and only waits whose collectives are already
  // hidden by something other than `overlap` (a wait that still needs
  // hiding, or that `overlap` hides, would be exposed by moving it here).
  bool find_schedulable_path(NodeId target, NodeId overlap, std::vector<NodeId>& path,
                             int32_t idx) {
    std::optional<Refusal> why;
    NodeId blocker = -1;
    auto block = [&](Refusal r, NodeId v) {
      why = r;
      blocker = v;
    };
    dg_.walk_ancestors(
        target, [&](NodeId v) { return !why && !scheduled_[v]; },
        [&](NodeId v) {
          if (why)
            return;
          switch (kind_[v]) {
          case Kind::Compute:
            return block(Refusal::PathCompute, v);
          case Kind::CollectiveStart:
            return block(Refusal::PathCollective, v);
          case Kind::Wait:
            if (!wait_is_hidden(v, overlap))
              return block(Refusal::PathWait, v);
            break;
          default:
            // Other communication ops run from the main loop (as upstream).
            if (g_.nodes[v].target.find("c10") != std::string::npos ||
                g_.nodes[v].target.find("_dtensor") != std::string::npos)
              return block(Refusal::PathComm, v);
          }
          path.push_back(v);
        });
    if (why) {
      note(idx, *why, overlap, blocker);
      path.clear();
      return false;
    }
    return true;
  }

  void schedule_path(std::vector<NodeId>& path) {
    std::sort(path.begin(), path.end());
    for (NodeId v : path) {
      if (scheduled_[v])
        continue; // forced by an earlier wait
      if (kind_[v] == Kind::Wait)
        handle_wait(v);
      else
        schedule(v);
    }
  }

  ScheduleResult finish() {
    ScheduleResult r;
    for (NodeId i = 0; i < g_.size(); ++i)
      if (kind_[i] == Kind::Placeholder)
        r.order.push_back(i);
    NodeId output = -1;
    for (NodeId v : order_) {
      if (kind_[v] == Kind::Placeholder)
        continue;
      if (kind_[v] == Kind::Output) {
        output = v;
        continue;
      }
      r.order.push_back(v);
    }
    if (output >= 0)
      r.order.push_back(output);
    r.original_peak_bytes = original_peak_;
    // Measured on the order as written, so the report's peak is the output's.
    r.scheduled_peak_bytes = memory_profile(storages_, r.order).peak;
    r.memory_budget_bytes = budget_;
    r.wasted_compute_ms = wasted_compute_;
    for (size_t k = 0; k < refusals_.size(); ++k)
      for (const RefusalNote& n : refusals_[k])
        colls_[k].why_exposed.push_back(render(colls_[k], n));
    for (auto& c : colls_) {
      if (!c.schedulable) {
        c.potentially_hideable = false;
        continue; // upstream's counters cover the collectives it schedules
      }
      if (c.exposed_ms > 0 && c.why_exposed.empty()) {
        if (!c.potentially_hideable)
          c.why_exposed.push_back("no compute node is independent of it");
        else
          c.why_exposed.push_back(
              "no independent compute was scheduled while it could run (not among the next "
              "max_coll_distance collectives, beyond max_compute_pre_fetch, or its inputs became "
              "ready too "
              "late)");
      }
      count_outcome(r, c);
    }
    r.collectives = std::move(colls_);
    return r;
  }
};
} // namespace

namespace {

// The original order as the result: what the tool falls back to when no
// reordering it finds stays within the memory budget.
ScheduleResult original_order_result(const Graph& g, const RuntimeTable& rt, ScheduleResult r) {
  r.order.resize(g.nodes.size());
  for (NodeId i = 0; i < g.size(); ++i)
    r.order[i] = i;
  r.scheduled_peak_bytes = r.original_peak_bytes;
  r.kept_original_order = true;
  SimulationResult sim = simulate_step(g, rt, r.order);
  r.exposed = r.bad_exposed = r.potentially_hidden = 0;
  r.total_exposed_ms = r.hideable_exposed_ms = r.potential_exposed_ms = 0;
  double hidden = 0;
  for (auto& c : r.collectives) {
    c.hiding_nodes.clear();
    c.exposed_ms = sim.collective_exposed_ms[c.start];
    hidden += c.estimated_ms - c.exposed_ms;
    if (!c.schedulable)
      continue;
    if (c.exposed_ms > 0)
      c.why_exposed = {
          "kept in the original order: every reordering found passed the peak-memory budget"};
    count_outcome(r, c);
  }
  r.wasted_compute_ms = std::max(0.0, sim.compute_ms - hidden);
  return r;
}

} // namespace

int64_t memory_budget(int64_t original_peak, const SchedulerOptions& opt) {
  return original_peak + std::max(gb_to_bytes(opt.max_memory_increase_gb),
                                  static_cast<int64_t>(opt.max_memory_increase_ratio *
                                                       static_cast<double>(original_peak)));
}

ScheduleResult schedule_overlap(const Graph& g, const RuntimeTable& runtimes,
                                const SchedulerOptions& options) {
  ScheduleResult r = Scheduler(g, runtimes, options, std::nullopt).run();
  const int64_t budget = r.memory_budget_bytes;
  // The budget is a guarantee. The scheduler checks it where it prefetches;
  // reorderings elsewhere can still pass it, so the order is measured and,
  // if over, scheduled again against a budget lowered by the overshoot.
  int64_t effective = budget;
  for (int attempt = 1;
       r.scheduled_peak_bytes > budget && r.original_peak_bytes <= budget && attempt <= 3;
       ++attempt) {
    effective -= r.scheduled_peak_bytes - budget;
    spdlog::debug("peak {} over the budget {}: rescheduling against {}", r.scheduled_peak_bytes,
                  budget, effective);
    ScheduleResult again = Scheduler(g, runtimes, options, effective).run();
    again.memory_budget_bytes = budget;
    again.budget_retries = attempt;
    // A lower budget only curbs prefetching; when that does not lower the
    // peak, the overshoot comes from elsewhere and more tries are wasted.
    const bool improved = again.scheduled_peak_bytes < r.scheduled_peak_bytes;
    r = std::move(again);
    if (!improved)
      break;
  }
  if (r.scheduled_peak_bytes > budget && r.original_peak_bytes <= budget)
    r = original_order_result(g, runtimes, std::move(r));
  return r;
}

} // namespace osched
