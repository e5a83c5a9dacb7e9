#pragma once
// Content hash of an input file for the report: FNV-1a 64, printed as hex.
// Identifies the input in CI diffs; it is not a security checksum.

#include <string>
#include <string_view>

namespace osched {

std::string content_hash(std::string_view bytes);

} // namespace osched
