// The greedy's candidate bookkeeping: the unscheduled collectives' front
// and the ranked candidates, each against the plain computation it
// replaces (walk the list; sort all keys), over random changes.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "scheduler/ranked_candidates.h"
#include "scheduler/unscheduled_list.h"

using namespace osched;

TEST_CASE("unscheduled list: the front is always the first members, as they are erased") {
  std::mt19937 rng(7);
  for (size_t front_size : {0, 1, 3, 10, 200}) {
    const size_t n = 300;
    std::vector<bool> member(n);
    for (size_t k = 0; k < n; ++k)
      member[k] = rng() % 4 != 0;
    UnscheduledList list(member, front_size);
    std::set<int32_t> left;
    for (size_t k = 0; k < n; ++k)
      if (member[k])
        left.insert(static_cast<int32_t>(k));
    while (!left.empty()) {
      std::vector<int32_t> want;
      for (int32_t k : left)
        if (want.size() < front_size)
          want.push_back(k);
      REQUIRE(list.front() == want);
      std::vector<int32_t> walked;
      for (int32_t k = list.first(); k >= 0; k = list.next(k))
        walked.push_back(k);
      REQUIRE(walked == std::vector<int32_t>(left.begin(), left.end()));
      // Mostly near the front, as the scheduler issues them; sometimes
      // anywhere, and sometimes one already gone.
      int32_t k = static_cast<int32_t>(rng() % n);
      if (rng() % 2 == 0) {
        auto it = left.begin();
        std::advance(it, rng() % std::min<size_t>(left.size(), front_size + 2));
        k = *it;
      }
      list.erase(k);
      left.erase(k);
    }
    CHECK(list.front().empty());
    CHECK(list.first() == -1);
  }
}

TEST_CASE("ranked candidates: the same order and positions as sorting every key again") {
  std::mt19937 rng(11);
  // A key that is not monotone in the id: the order is the key's.
  auto key_of = [](NodeId s) {
    return (uint64_t{static_cast<uint32_t>(s) * 2654435761u % 97} << 32) | static_cast<uint32_t>(s);
  };
  RankedCandidates ranked;
  std::set<NodeId> current;
  for (int step = 0; step < 2000; ++step) {
    // Small changes mostly (updated in place), now and then a large one
    // (ranked again from scratch).
    const int changes = step % 50 == 0 ? 40 : static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      const NodeId s = static_cast<NodeId>(rng() % 500);
      if (!current.erase(s))
        current.insert(s);
    }
    const std::vector<NodeId> starts(current.begin(), current.end());
    ranked.update(starts, key_of);
    std::vector<std::pair<uint64_t, int32_t>> want;
    for (size_t k = 0; k < starts.size(); ++k)
      want.emplace_back(key_of(starts[k]), static_cast<int32_t>(k));
    std::sort(want.begin(), want.end());
    REQUIRE(ranked.positions().size() == want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      REQUIRE(ranked.keys()[k] == want[k].first);
      REQUIRE(ranked.positions()[k] == want[k].second);
      REQUIRE(ranked.starts()[k] == starts[static_cast<size_t>(want[k].second)]);
    }
  }
}
