#include "report/exposure_text.h"

#include <initializer_list>
#include <string_view>

namespace osched {

std::string exposure_text(const Graph& g, const CollectiveOutcome& c, const ExposureNote& n) {
  // One allocation of the exact size: a 1M-node report holds a million of
  // these. kAt and kBlocker stand for the quoted node names (told apart by
  // address, so no text can pass for them).
  static constexpr std::string_view kAt = "at", kBlocker = "blocker";
  std::string s;
  auto say = [&](std::initializer_list<std::string_view> parts) {
    // A node part is its name in quotes, or nothing when there is no node.
    auto node_of = [&](std::string_view p) {
      return p.data() == kAt.data() ? n.at : p.data() == kBlocker.data() ? n.blocker : -2;
    };
    size_t size = 0;
    for (std::string_view p : parts) {
      const NodeId v = node_of(p);
      size += v == -2 ? p.size() : v >= 0 ? g.nodes[v].name.size() + 2 : 0;
    }
    s.reserve(size);
    for (std::string_view p : parts) {
      const NodeId v = node_of(p);
      if (v == -2) {
        s += p;
      } else if (v >= 0) {
        s += '\'';
        s += g.nodes[v].name;
        s += '\'';
      }
    }
  };
  using R = ExposureReason;
  switch (n.why) {
  case R::Broadcast:
    say({"not schedulable: broadcasts stay in place (as in the upstream pass)"});
    break;
  case R::NoWait:
    say({"not schedulable: nothing waits on its result (no wait_tensor)"});
    break;
  case R::RawResultIsOutput:
    say({"not schedulable: its raw (unwaited) result is also a graph output"});
    break;
  case R::ReadWithoutWait:
    say({"not schedulable: ", kAt, " reads its result without waiting on it"});
    break;
  case R::GroupTimeUsed:
    say({kAt, " was already used to hide other collectives of group '", c.group, "'"});
    break;
  case R::Dependency:
    say({"depends on, or is needed by, the nearby ", kAt});
    break;
  case R::MemoryNow:
    say({"starting it before ", kAt, " would exceed the peak-memory budget"});
    break;
  case R::PrefetchInFlight:
    say({"starting it before ", kAt,
         " would keep more than --max-in-flight-gb prefetched across the compute until its "
         "use"});
    break;
  case R::PrefetchBudget:
    say({"starting it before ", kAt,
         " would exceed the peak-memory budget at a compute node before its use"});
    break;
  case R::InFlightLimit:
    say({"in-flight byte limit (--max-in-flight-gb) reached"});
    break;
  case R::PathCompute:
    say({"cannot start before ", kAt, ": needs compute ", kBlocker, " first"});
    break;
  case R::PathCollective:
    say({"cannot start before ", kAt, ": needs collective ", kBlocker, " (not yet issued) first"});
    break;
  case R::PathWait:
    say({"cannot start before ", kAt, ": needs wait ", kBlocker,
         ", which would expose its collective"});
    break;
  case R::PathComm:
    say({"cannot start before ", kAt, ": needs ", kBlocker, " first"});
    break;
  case R::PathOpaque:
    say({"cannot start before ", kAt, ": issued after ", kBlocker,
         ", an op the tool cannot classify, which collectives never cross"});
    break;
  case R::NoIndependentCompute:
    say({"no compute node is independent of it"});
    break;
  case R::NotScheduledInTime:
    say({"no independent compute was scheduled while it could run (not among the next "
         "max_coll_distance collectives, beyond max_compute_pre_fetch, or its inputs became "
         "ready too late)"});
    break;
  case R::KeptOriginalOrder:
    say({"kept in the original order: every reordering found passed the peak-memory budget"});
    break;
  }
  return s;
}

} // namespace osched
