#include "report/exposure_text.h"

#include <initializer_list>
#include <string>
#include <string_view>

namespace osched {

std::string exposure_text(const Graph& g, const CollectiveOutcome& c, const ExposureNote& n) {
  // One allocation of the exact size: a 1M-node report holds a million of
  // these. A part is a piece of text, or a node's name in quotes (nothing
  // when there is no node).
  struct Part {
    Part(const char* t) : text(t) {}
    Part(const std::string& t) : text(t) {}
    static Part quoted_name(NodeId v) {
      Part p("");
      p.node = v;
      p.is_node = true;
      return p;
    }
    std::string_view text;
    NodeId node = -1;
    bool is_node = false;
  };
  const Part at = Part::quoted_name(n.at), blocker = Part::quoted_name(n.blocker);
  std::string s;
  auto say = [&](std::initializer_list<Part> parts) {
    size_t size = 0;
    for (const Part& p : parts)
      size += !p.is_node ? p.text.size() : p.node >= 0 ? g.nodes[p.node].name.size() + 2 : 0;
    s.reserve(size);
    for (const Part& p : parts) {
      if (!p.is_node) {
        s += p.text;
      } else if (p.node >= 0) {
        s += '\'';
        s += g.nodes[p.node].name;
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
    say({"not schedulable: ", at, " reads its result without waiting on it"});
    break;
  case R::GroupTimeUsed:
    say({at, " was already used to hide other collectives of group '", c.group, "'"});
    break;
  case R::Dependency:
    say({"depends on, or is needed by, the nearby ", at});
    break;
  case R::MemoryNow:
    say({"starting it before ", at, " would exceed the peak-memory budget"});
    break;
  case R::PrefetchInFlight:
    say({"starting it before ", at,
         " would keep more than --max-in-flight-gb prefetched across the compute until its "
         "use"});
    break;
  case R::PrefetchBudget:
    say({"starting it before ", at,
         " would exceed the peak-memory budget at a compute node before its use"});
    break;
  case R::InFlightLimit:
    say({"in-flight byte limit (--max-in-flight-gb) reached"});
    break;
  case R::PathCompute:
    say({"cannot start before ", at, ": needs compute ", blocker, " first"});
    break;
  case R::PathCollective:
    say({"cannot start before ", at, ": needs collective ", blocker, " (not yet issued) first"});
    break;
  case R::PathWait:
    say({"cannot start before ", at, ": needs wait ", blocker,
         ", which would expose its collective"});
    break;
  case R::PathComm:
    say({"cannot start before ", at, ": needs ", blocker, " first"});
    break;
  case R::PathOpaque:
    say({"cannot start before ", at, ": issued after ", blocker,
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
