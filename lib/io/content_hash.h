#pragma once
// Content hash of an input file for the report: FNV-1a 64, printed as hex.
// Identifies the input in CI diffs; it is not a security checksum.

#include <string>

namespace osched {

std::string content_hash(const std::string& bytes);

} // namespace osched
