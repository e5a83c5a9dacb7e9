#include "scheduler/overlap_scheduler.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <queue>
#include <set>
#include <tuple>

#include <spdlog/spdlog.h>

#include "memory/memory_tracker.h"
#include "ops/collective.h"
#include "ops/target_traits.h"
#include "scheduler/descendant_query.h"
#include "scheduler/forward_range_max.h"
#include "scheduler/greedy_ranking.h"
#include "scheduler/ranked_candidates.h"
#include "scheduler/schedule_analysis.h"
#include "scheduler/unscheduled_list.h"
#include "sim/simulate.h"

namespace osched {
namespace {

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

// Compute nodes hide collectives by their runtime; other nodes only when
// the user estimated them (upstream's custom estimates for non-compute
// nodes). Collectives and waits never hide others.
std::optional<double> overlap_time_of(const ScheduleAnalysis& a, NodeId n) {
  if (a.kind[n] == NodeKind::Compute)
    return a.runtimes.ms[n];
  // Any other node with a runtime (the estimators give one only where the
  // user does) runs on the compute stream: the simulation counts it too.
  if (a.kind[n] != NodeKind::Other || !(a.runtimes.ms[n] > 0))
    return std::nullopt;
  if (is_collective_node(a.graph.nodes[n]) || is_wait_node(a.graph.nodes[n]))
    return std::nullopt;
  return a.runtimes.ms[n];
}

// The nodes the scheduler starts collectives behind: those with time to
// give, and the waits of exposed collectives.
CollectiveChains collective_chains(const ScheduleAnalysis& a) {
  std::vector<NodeId> starts;
  starts.reserve(a.collectives.size());
  for (const CollectiveOutcome& c : a.collectives)
    starts.push_back(c.start);
  std::vector<char> can_overlap(a.kind.size());
  for (NodeId v = 0; v < static_cast<NodeId>(can_overlap.size()); ++v)
    can_overlap[static_cast<size_t>(v)] =
        a.kind[v] == NodeKind::Wait || overlap_time_of(a, v).has_value();
  return build_collective_chains(a.deps, std::move(starts), can_overlap);
}

// The mechanism: a list scheduler over the ready set that, at each node
// with time to give, starts candidate collectives behind it within the
// in-flight and memory limits, and accounts what each hides. Choices are
// the ranking's; what is known before scheduling is the analysis's.
class Scheduler {
public:
  Scheduler(const ScheduleAnalysis& a, const CollectiveChains& chains, const GreedyRanking& ranking,
            const SchedulerOptions& opt, std::optional<int64_t> budget)
      : a_(a), g_(a.graph), dg_(a.deps), opt_(opt), ranking_(ranking), memory_(a.storages),
        colls_(a.collectives), ctx_{a, opt, scheduled_, colls_, memory_},
        descendants_(a.deps, chains) {
    const NodeId n = g_.size();
    budget_ = budget.value_or(memory_budget(a.original_peak, opt_));
    max_in_flight_ = gb_to_bytes(opt_.max_in_flight_gb);
    cumulative_prefetch_.emplace(std::vector<int64_t>(a.compute_nodes.size(), 0));
    projected_.emplace(a.baseline_before_compute);
    std::vector<bool> schedulable(colls_.size());
    for (size_t k = 0; k < colls_.size(); ++k)
      schedulable[k] = colls_[k].schedulable;
    // The candidates of an opportunity: the next max_coll_distance + 1.
    unscheduled_collectives_.emplace(schedulable, static_cast<size_t>(std::max<int64_t>(
                                                      int64_t{opt_.max_coll_distance} + 1, 0)));
    candidate_info_.resize(colls_.size());
    refusals_.resize(colls_.size());
    for (size_t k = 0; k < colls_.size(); ++k)
      candidate_info_[k] = {colls_[k].start, a.group_of[k], a.dom[colls_[k].start]};
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
      switch (a_.kind[node]) {
      case NodeKind::Placeholder:
        schedule(node);
        break;
      case NodeKind::CollectiveStart:
        handle_collective_start(node);
        break;
      case NodeKind::Wait:
        handle_wait(node);
        break;
      default:
        handle_compute_or_other(node);
      }
    }
    return finish();
  }

private:
  const ScheduleAnalysis& a_;
  const Graph& g_;
  const DependencyGraph& dg_;
  const SchedulerOptions& opt_;
  const GreedyRanking& ranking_;
  MemoryTracker memory_;
  std::vector<CollectiveOutcome> colls_; // the analysis's, as accounted so far
  std::vector<bool> scheduled_;
  RankingContext ctx_;
  std::vector<std::vector<NodeId>> readers_of_; // per storage, built on first use

  // Per compute index: bytes of collectives prefetched across it so far,
  // and baseline + those bytes.
  // Mutable: a query pushes pending adds down, which changes no answer.
  mutable std::optional<ForwardRangeMax> cumulative_prefetch_, projected_;
  int64_t budget_ = 0;
  int64_t max_in_flight_ = 0;

  std::priority_queue<ReadyScore, std::vector<ReadyScore>, std::greater<ReadyScore>> ready_;
  std::vector<int32_t> in_degree_;
  std::vector<NodeId> order_;
  std::optional<UnscheduledList> unscheduled_collectives_; // colls_ indices
  uint64_t issued_ = 0;            // collectives issued so far: the list's version
  std::vector<int32_t> in_flight_; // colls_ indices, in issue order
  int64_t in_flight_bytes_ = 0;
  int32_t current_compute_index_ = 0;
  double wasted_compute_ = 0;
  DescendantQuery descendants_;
  // Per candidate of one opportunity, in graph order: its start, its colls_
  // index, its group and whether it descends from the overlap node; and
  // the ranking's order of them. The loop reads these small arrays instead
  // of node-indexed tables. Sets per nesting level (placing a candidate can
  // finish an exposed wait, which hides collectives of its own), two at
  // each (schedule_collectives_for_overlap).
  struct Candidates {
    std::vector<NodeId> starts;
    std::vector<int32_t> idx, group;
    RankedCandidates ranked;
    // What `starts` were gathered under (gather()).
    uint64_t gathered_version = ~uint64_t{0};
    int32_t gathered_excluded = -2;
    int64_t gathered_until = 0;
    std::vector<char> is_descendant;
    std::vector<NodeId> path; // scratch for the candidate being placed
  };
  std::vector<std::unique_ptr<Candidates>> candidates_;
  size_t depth_ = 0;
  // Per colls_ entry, the latest notes in a ring (`newest` is the slot of
  // the latest): noted for every refused candidate at every opportunity, so
  // no allocation, pointer chase or shifting.
  struct RecentNotes {
    ExposureNote notes[3];
    uint8_t count = 0;
    uint8_t newest = 0;
    ExposureNote& nth_newest(int i) { return notes[(newest + 3 - i) % 3]; }
  };
  std::vector<RecentNotes> refusals_;
  // Per colls_ entry, what the candidate scan reads, side by side: the scan
  // walks up to max_coll_distance of them at every overlap opportunity.
  struct CandidateInfo {
    NodeId start;
    int32_t group;
    int32_t dom; // of the start
  };
  std::vector<CandidateInfo> candidate_info_;
  const bool debug_log_ = spdlog::should_log(spdlog::level::debug);

  int32_t coll(NodeId n) const { return a_.collective_of[n]; }
  int32_t group(int32_t idx) const { return a_.group_of[idx]; }
  bool is_exposed(const CollectiveOutcome& c) const { return c.exposed_ms != 0; }
  ReadyScore score(NodeId n) const { return ranking_.ready_score(ctx_, n); }

  // A storage just lost its second-to-last reader: the ranking may move its
  // last reader, if ready, up the queue.
  void promote_last_readers(NodeId scheduled) {
    if (!ranking_.scores_last_readers())
      return;
    for (StorageId s : a_.storages.reads[scheduled]) {
      if (memory_.remaining_reads(s) != 1)
        continue;
      if (readers_of_.empty()) {
        readers_of_.resize(a_.storages.bytes.size());
        for (NodeId v = 0; v < g_.size(); ++v)
          for (StorageId r : a_.storages.reads[v])
            readers_of_[r].push_back(v);
      }
      for (NodeId r : readers_of_[s])
        if (!scheduled_[r] && in_degree_[r] == 0 && ranking_.rescore_last_reader(ctx_, r))
          ready_.push(score(r));
    }
  }

  // Keeps the three most recent distinct reasons, newest first: the last
  // attempts are the ones nearest the collective's actual position.
  // The candidate scan notes tens of millions of refusals on a 1M-node
  // graph: the usual case is inline, the rest out of line.
  __attribute__((always_inline)) void note(int32_t idx, ExposureReason why, NodeId at,
                                           NodeId blocker = -1) {
    RecentNotes& r = refusals_[idx];
    const ExposureNote n{why, at, blocker};
    // The usual case, a new note over three older ones: it takes the
    // oldest's slot.
    if (!debug_log_ && r.count == 3 && !(r.notes[0] == n) && !(r.notes[1] == n) &&
        !(r.notes[2] == n)) {
      r.newest = static_cast<uint8_t>((r.newest + 1) % 3);
      ExposureNote& slot = r.notes[r.newest];
      slot.why = why;
      slot.at = at;
      slot.blocker = blocker;
      return;
    }
    note_slowly(r, idx, n);
  }

  __attribute__((noinline)) void note_slowly(RecentNotes& r, int32_t idx, const ExposureNote& n) {
    if (debug_log_)
      spdlog::debug("no overlap for {} at {}: {}", g_.nodes[colls_[idx].start].name,
                    g_.nodes[n.at].name, exposure_reason_name(n.why));
    // Shift the newer ones down over this note's old place, or over the
    // oldest when it is new (dropped once there are three).
    int pos = 0;
    while (pos < r.count && !(r.nth_newest(pos) == n))
      ++pos;
    if (pos == r.count) {
      if (r.count < 3)
        ++r.count;
      pos = r.count - 1;
    }
    for (; pos > 0; --pos)
      r.nth_newest(pos) = r.nth_newest(pos - 1);
    r.nth_newest(0) = n;
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
  // A wait can be forced only once all its inputs are placed: a pinned
  // graph's waits (overlap deps) also follow the compute that hides them.
  bool forceable(int32_t idx) const { return in_degree_[colls_[idx].wait] == 0; }
  int32_t oldest_forceable() const {
    for (int32_t idx : in_flight_)
      if (forceable(idx))
        return idx;
    return -1;
  }
  bool should_force_wait() const {
    return !in_flight_.empty() && in_flight_bytes_ >= max_in_flight_ && oldest_forceable() >= 0;
  }

  void force_oldest_wait() { handle_wait(colls_[oldest_forceable()].wait); }

  void handle_collective_start(NodeId n) {
    int32_t idx = a_.collective_of[n];
    in_flight_.push_back(idx);
    in_flight_bytes_ += colls_[idx].memory_bytes;
    unscheduled_collectives_->erase(idx);
    ++issued_;
    schedule(n);
  }

  void handle_wait(NodeId w) {
    if (scheduled_[w])
      return;
    int32_t idx = a_.collective_of[w];
    auto pos = std::find(in_flight_.begin(), in_flight_.end(), idx);
    if (pos == in_flight_.end()) {
      schedule(w);
      return;
    }
    // Waiting on a collective also waits on every earlier one of its group.
    std::vector<int32_t> earlier;
    for (auto it = in_flight_.begin(); it != pos; ++it)
      if (a_.group_of[*it] == a_.group_of[idx] && forceable(*it))
        earlier.push_back(*it);
    for (int32_t e : earlier)
      handle_wait(colls_[e].wait);
    // While the compute stream waits on an exposed collective, the other
    // groups' streams keep going: that time hides their collectives.
    auto& c = colls_[idx];
    if (c.exposed_ms > 0) {
      const int32_t group = a_.group_of[idx];
      std::vector<double> remaining = hide_in_flight(w, c.exposed_ms, group);
      schedule_collectives_for_overlap(w, remaining, group);
    }
    in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), idx));
    in_flight_bytes_ -= c.memory_bytes;
    schedule(w);
  }

  void handle_compute_or_other(NodeId n) {
    std::optional<double> runtime = overlap_time_of(a_, n);
    if (!runtime) {
      schedule(n);
      return;
    }
    const double available = *runtime * opt_.compute_overlap_multiplier;
    std::vector<double> remaining = hide_in_flight(n, available, -1);
    schedule_collectives_for_overlap(n, remaining, -1);
    schedule(n);
    if (a_.kind[n] == NodeKind::Compute)
      ++current_compute_index_;
  }

  // Each process group's stream overlaps the same time independently: the
  // time `available` is spent on the exposed in-flight collectives of each
  // group (except `excluded`), oldest first. Returns what is left per group;
  // groups without time (excluded, or no schedulable collective) get -1.
  std::vector<double> hide_in_flight(NodeId node, double available, int32_t excluded) {
    std::vector<double> remaining(a_.group_names.size(), -1.0);
    for (size_t gi = 0; gi < remaining.size(); ++gi)
      if (a_.group_has_schedulable[gi] && static_cast<int32_t>(gi) != excluded)
        remaining[gi] = available;
    for (int32_t idx : in_flight_) {
      auto& c = colls_[idx];
      if (c.exposed_ms == 0 || a_.group_of[idx] == excluded)
        continue;
      double& avail = remaining[a_.group_of[idx]];
      if (avail <= 0)
        continue;
      double amount = std::min(c.exposed_ms, avail);
      c.exposed_ms -= amount;
      avail -= amount;
      c.hiding_nodes.push_back(node);
    }
    return remaining;
  }

  bool wait_is_hidden(NodeId wait, NodeId overlap) const {
    const auto& c = colls_[a_.collective_of[wait]];
    return !is_exposed(c) &&
           std::find(c.hiding_nodes.begin(), c.hiding_nodes.end(), overlap) == c.hiding_nodes.end();
  }

  // Would prefetching this collective now push memory over the budget, or
  // the bytes prefetched across some compute node over the in-flight limit,
  // at any compute node until the one it blocks? Collectives that block no
  // compute are exempt (as upstream).
  std::optional<ExposureReason> prefetch_exceeds_memory(const CollectiveOutcome& c) const {
    const int32_t dom = a_.dom[c.start];
    if (dom == kOffComputePath)
      return std::nullopt;
    const int64_t size = c.memory_bytes;
    if (memory_.current_bytes() + size > budget_)
      return ExposureReason::MemoryNow;
    const size_t lo = static_cast<size_t>(current_compute_index_), hi = static_cast<size_t>(dom);
    if (cumulative_prefetch_->any_above(lo, hi, max_in_flight_ - size))
      return ExposureReason::PrefetchInFlight;
    if (projected_->any_above(lo, hi, budget_ - size))
      return ExposureReason::PrefetchBudget;
    return std::nullopt;
  }

  void record_prefetch(const CollectiveOutcome& c) {
    const int32_t dom = a_.dom[c.start];
    if (dom == kOffComputePath)
      return;
    cumulative_prefetch_->add(current_compute_index_, dom, c.memory_bytes);
    projected_->add(current_compute_index_, dom, c.memory_bytes);
  }

  void gather(Candidates& cs, int32_t excluded) {
    cs.starts.clear();
    cs.idx.clear();
    cs.group.clear();
    cs.gathered_version = issued_;
    cs.gathered_excluded = excluded;
    cs.gathered_until = std::numeric_limits<int64_t>::max();
    for (const int32_t idx : unscheduled_collectives_->front()) {
      const CandidateInfo& info = candidate_info_[idx];
      if (info.group == excluded)
        continue;
      if (info.dom != kOffComputePath &&
          info.dom - current_compute_index_ > opt_.max_compute_pre_fetch) {
        // In once the compute index reaches dom - max_compute_pre_fetch.
        cs.gathered_until = std::min(cs.gathered_until,
                                     static_cast<int64_t>(info.dom) - opt_.max_compute_pre_fetch);
        continue;
      }
      cs.starts.push_back(info.start);
      cs.idx.push_back(idx);
      cs.group.push_back(info.group);
    }
  }

  void schedule_collectives_for_overlap(NodeId overlap, std::vector<double>& remaining,
                                        int32_t excluded) {
    if (std::none_of(remaining.begin(), remaining.end(), [](double r) { return r > 0; }))
      return;
    // Compute nodes exclude no group, exposed waits their own: each kind
    // keeps its own set, as the two alternate and differ by a whole group.
    const size_t slot = 2 * depth_ + (excluded >= 0);
    while (candidates_.size() <= slot)
      candidates_.push_back(std::make_unique<Candidates>());
    Candidates& cs = *candidates_[slot];
    ++depth_;
    struct Leave {
      size_t& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    // The next max_coll_distance + 1 unscheduled collectives, in graph
    // order: the last opportunity's at this depth while no collective was
    // issued since, the same group is excluded and none the pre-fetch
    // distance left out has come within it.
    const bool regathered = cs.gathered_version != issued_ || cs.gathered_excluded != excluded ||
                            current_compute_index_ >= cs.gathered_until;
    if (regathered)
      gather(cs, excluded);
    // A candidate can never be an ancestor of `overlap`: everything
    // `overlap` reads is scheduled already, the candidate is not.
    descendants_.classify(overlap, cs.starts, cs.is_descendant);
    // A forced wait may still have unscheduled inputs (in-place write orders).
    const bool overlap_ready = in_degree_[overlap] == 0;
    if (regathered)
      cs.ranked.update(cs.starts, [&](NodeId s) { return ranking_.candidate_key(ctx_, s); });
    for (const int32_t at : cs.ranked.positions()) {
      const auto entry = static_cast<size_t>(at);
      const NodeId start = cs.starts[entry];
      // Only a collective issued since the gathering can be scheduled.
      if (issued_ != cs.gathered_version && scheduled_[start])
        continue;
      const int32_t idx = cs.idx[entry];
      auto& c = colls_[idx];
      double& avail = remaining[cs.group[entry]];
      if (avail <= 0) {
        note(idx, ExposureReason::GroupTimeUsed, overlap);
        continue;
      }
      if (cs.is_descendant[entry] || (!overlap_ready && dg_.is_ancestor(start, overlap))) {
        note(idx, ExposureReason::Dependency, overlap);
        continue;
      }
      if (auto why = prefetch_exceeds_memory(c)) {
        note(idx, *why, overlap);
        continue;
      }
      while (!in_flight_.empty() && max_in_flight_ - in_flight_bytes_ < c.memory_bytes &&
             forceable(in_flight_.front()) &&
             wait_is_hidden(colls_[in_flight_.front()].wait, overlap))
        force_oldest_wait();
      if (max_in_flight_ - in_flight_bytes_ < c.memory_bytes) {
        note(idx, ExposureReason::InFlightLimit, overlap);
        continue;
      }
      std::vector<NodeId>& path = cs.path;
      path.clear();
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
    std::optional<ExposureReason> why;
    NodeId blocker = -1;
    auto block = [&](ExposureReason r, NodeId v) {
      why = r;
      blocker = v;
    };
    dg_.walk_ancestors(
        target, [&](NodeId v) { return !why && !scheduled_[v]; },
        [&](NodeId v) {
          if (why)
            return;
          switch (a_.kind[v]) {
          case NodeKind::Compute:
            return block(ExposureReason::PathCompute, v);
          case NodeKind::CollectiveStart:
            return block(ExposureReason::PathCollective, v);
          case NodeKind::Wait:
            if (!wait_is_hidden(v, overlap))
              return block(ExposureReason::PathWait, v);
            break;
          default:
            // Collectives keep their place around opaque ops.
            if (a_.is_opaque[static_cast<size_t>(v)])
              return block(ExposureReason::PathOpaque, v);
            // Other communication ops run from the main loop (as upstream).
            if (target_has(g_.nodes[v].target, target_bit::kCommNamespace))
              return block(ExposureReason::PathComm, v);
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
      if (a_.kind[v] == NodeKind::Wait)
        handle_wait(v);
      else
        schedule(v);
    }
  }

  ScheduleResult finish() {
    ScheduleResult r;
    for (NodeId i = 0; i < g_.size(); ++i)
      if (a_.kind[i] == NodeKind::Placeholder)
        r.order.push_back(i);
    NodeId output = -1;
    for (NodeId v : order_) {
      if (a_.kind[v] == NodeKind::Placeholder)
        continue;
      if (a_.kind[v] == NodeKind::Output) {
        output = v;
        continue;
      }
      r.order.push_back(v);
    }
    if (output >= 0)
      r.order.push_back(output);
    r.original_peak_bytes = a_.original_peak;
    // Measured on the order as written, so the report's peak is the output's.
    r.scheduled_peak_bytes = memory_peak(a_.storages, r.order);
    r.memory_budget_bytes = budget_;
    r.wasted_compute_ms = wasted_compute_;
    for (size_t k = 0; k < refusals_.size(); ++k)
      for (int j = 0; j < refusals_[k].count; ++j)
        colls_[k].why_exposed.push_back(refusals_[k].nth_newest(j));
    for (auto& c : colls_) {
      if (!c.schedulable) {
        c.potentially_hideable = false;
        continue; // upstream's counters cover the collectives it schedules
      }
      if (c.exposed_ms > 0 && c.why_exposed.empty())
        c.why_exposed.push_back({c.potentially_hideable ? ExposureReason::NotScheduledInTime
                                                        : ExposureReason::NoIndependentCompute});
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
      c.why_exposed = {{ExposureReason::KeptOriginalOrder}};
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
  const auto started = std::chrono::steady_clock::now();
  const ScheduleAnalysis analysis(g, runtimes, options);
  const auto analysed = std::chrono::steady_clock::now();
  ScheduleResult r = schedule_overlap(analysis, options);
  r.analysis_seconds = std::chrono::duration<double>(analysed - started).count();
  return r;
}

ScheduleResult schedule_overlap(const ScheduleAnalysis& analysis, const SchedulerOptions& options) {
  const Graph& g = analysis.graph;
  const RuntimeTable& runtimes = analysis.runtimes;
  const auto analysed = std::chrono::steady_clock::now();
  const std::unique_ptr<GreedyRanking> ranking = ranking_for(options);
  const CollectiveChains chains = collective_chains(analysis);
  ScheduleResult r = Scheduler(analysis, chains, *ranking, options, std::nullopt).run();
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
    ScheduleResult again = Scheduler(analysis, chains, *ranking, options, effective).run();
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
  r.scheduling_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - analysed).count();
  return r;
}

} // namespace osched
