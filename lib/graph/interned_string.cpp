#include "graph/interned_string.h"

#include <mutex>
#include <unordered_set>

namespace osched {

const std::string& InternedString::intern(std::string_view s) {
  // Leaked on purpose: interned strings outlive every graph, also static ones.
  static auto* table = new std::unordered_set<std::string>();
  static auto* mu = new std::mutex();
  std::lock_guard<std::mutex> lock(*mu);
  return *table->emplace(s).first; // node-based: the address stays
}

} // namespace osched
