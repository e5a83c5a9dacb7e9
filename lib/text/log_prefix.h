#pragma once
// The prefixes PyTorch's logging puts before each line: an optional
// `[rankN]:` (torchrun), then a glog header (`V1204 09:12:01.500000 4242 `:
// level letter, MMDD, time, process or thread id). TORCH_LOGS output and
// TORCH_TRACE logs share them.

#include <string_view>

namespace osched {

// True when `s` is one or more decimal digits.
bool is_decimal(std::string_view s);

// `s` without a leading `[rankN]:`, and without a glog header after it;
// `glog`, when given, says whether one was there.
std::string_view strip_rank_and_glog(std::string_view s, bool* glog = nullptr);

} // namespace osched
