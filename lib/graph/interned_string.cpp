#include "graph/interned_string.h"

#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace osched {

const InternedString::Entry& InternedString::intern(std::string_view s) {
  // A per-thread direct-mapped cache answers repeats without the lock: a
  // graph's targets and devices take a few hundred distinct values, read
  // millions of times, on several reader threads at once.
  constexpr size_t kSlots = 1024;
  thread_local const Entry* cache[kSlots] = {};
  size_t h = std::hash<std::string_view>{}(s);
  const Entry*& slot = cache[h & (kSlots - 1)];
  if (slot && slot->text == s)
    return *slot;
  // Leaked on purpose: interned strings outlive every graph, also static
  // ones. A deque never moves its elements, so entries keep their address.
  static auto* entries = new std::deque<Entry>();
  static auto* index = new std::unordered_map<std::string_view, const Entry*>();
  static auto* mu = new std::mutex();
  std::lock_guard<std::mutex> lock(*mu);
  auto it = index->find(s);
  if (it == index->end()) {
    Entry& e = entries->emplace_back();
    e.text = std::string(s);
    it = index->emplace(e.text, &e).first;
  }
  slot = it->second;
  return *slot;
}

} // namespace osched
