#include "graph/interned_string.h"

#include <functional>
#include <mutex>
#include <unordered_set>

namespace osched {

const std::string& InternedString::intern(std::string_view s) {
  // A per-thread direct-mapped cache answers repeats without the lock: a
  // graph's targets and devices take a few hundred distinct values, read
  // millions of times, on several reader threads at once.
  constexpr size_t kSlots = 1024;
  thread_local const std::string* cache[kSlots] = {};
  size_t h = std::hash<std::string_view>{}(s);
  const std::string*& slot = cache[h & (kSlots - 1)];
  if (slot && *slot == s)
    return *slot;
  // Leaked on purpose: interned strings outlive every graph, also static ones.
  static auto* table = new std::unordered_set<std::string>();
  static auto* mu = new std::mutex();
  std::lock_guard<std::mutex> lock(*mu);
  slot = &*table->emplace(s).first; // node-based: the address stays
  return *slot;
}

} // namespace osched
