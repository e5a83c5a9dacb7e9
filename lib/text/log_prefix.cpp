#include "text/log_prefix.h"

#include <cctype>

namespace osched {

bool is_decimal(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

std::string_view strip_rank_and_glog(std::string_view s, bool* glog) {
  if (glog)
    *glog = false;
  if (s.size() > 5 && s.substr(0, 5) == "[rank") {
    size_t close = s.find("]:");
    if (close != std::string_view::npos && is_decimal(s.substr(5, close - 5)))
      s.remove_prefix(close + 2);
  }
  // A level letter, MMDD, a time, an id.
  if (s.size() > 6 && std::string_view("VIWEDC").find(s[0]) != std::string_view::npos &&
      is_decimal(s.substr(1, 4)) && s[5] == ' ') {
    size_t p = 6;
    while (p < s.size() && s[p] != ' ')
      ++p; // time
    while (p < s.size() && s[p] == ' ')
      ++p;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])))
      ++p; // id
    if (p < s.size() && s[p] == ' ') {
      s.remove_prefix(p + 1);
      if (glog)
        *glog = true;
    }
  }
  return s;
}

} // namespace osched
