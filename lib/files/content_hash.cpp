#include "files/content_hash.h"

#include <cstdint>
#include <cstdio>

#include <xxhash.h>

namespace osched {

std::string content_hash(std::string_view bytes) {
  const XXH64_hash_t h = XXH3_64bits(bytes.data(), bytes.size());
  char buf[32];
  std::snprintf(buf, sizeof buf, "xxh3_64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

} // namespace osched
