#include "graph/interned_string.h"

#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace osched {

namespace {

// One lock's share of the interned strings: the entries (a deque never
// moves its elements, so entries keep their address) and an open-addressing
// index of them by hash (a miss costs one probe run, not a chain walk).
struct InternShard {
  struct Slot {
    size_t hash = 0;
    const InternedString::Entry* entry = nullptr;
  };
  std::mutex mu;
  std::deque<InternedString::Entry> entries;
  std::vector<Slot> slots = std::vector<Slot>(64);

  const InternedString::Entry& find_or_add(std::string_view s, size_t h) {
    size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots[i];
      if (!slot.entry)
        break;
      if (slot.hash == h && slot.entry->text == s)
        return *slot.entry;
    }
    InternedString::Entry& e = entries.emplace_back();
    e.text = std::string(s);
    if (2 * entries.size() > slots.size())
      grow();
    mask = slots.size() - 1;
    size_t i = h & mask;
    while (slots[i].entry)
      i = (i + 1) & mask;
    slots[i] = {h, &e};
    return e;
  }

  void grow() {
    std::vector<Slot> bigger(2 * slots.size());
    const size_t mask = bigger.size() - 1;
    for (const Slot& slot : slots) {
      if (!slot.entry)
        continue;
      size_t i = slot.hash & mask;
      while (bigger[i].entry)
        i = (i + 1) & mask;
      bigger[i] = slot;
    }
    slots.swap(bigger);
  }
};

} // namespace

const InternedString::Entry& InternedString::intern(std::string_view s) {
  // A per-thread direct-mapped cache answers repeats without the lock: a
  // graph's targets and devices take a few hundred distinct values, read
  // millions of times, on several reader threads at once.
  constexpr size_t kSlots = 1024;
  thread_local const Entry* cache[kSlots] = {};
  const size_t h = std::hash<std::string_view>{}(s);
  const Entry*& slot = cache[h & (kSlots - 1)];
  if (slot && slot->text == s)
    return *slot;
  // Sharded by hash: placeholders' targets are their unique names, so a
  // graph can bring hundreds of thousands of misses, which two reader
  // threads would otherwise queue for on one lock. Leaked on purpose:
  // interned strings outlive every graph, also static ones.
  constexpr size_t kShards = 16;
  static auto* shards = new InternShard[kShards];
  InternShard& shard = shards[(h >> 32) % kShards];
  std::lock_guard<std::mutex> lock(shard.mu);
  slot = &shard.find_or_add(s, h);
  return *slot;
}

} // namespace osched
