#pragma once
// Content hash of an input file for the report: XXH3 64-bit (xxHash),
// printed as "xxh3_64:" and 16 hex digits. Identifies the input in CI diffs
// and batch stamps; it is not a security checksum. (A byte-serial hash
// costs a core for a noticeable time on million-node graphs.)

#include <string>
#include <string_view>

namespace osched {

std::string content_hash(std::string_view bytes);

} // namespace osched
