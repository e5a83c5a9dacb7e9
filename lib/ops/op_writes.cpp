#include "ops/op_writes.h"

#include <charconv>
#include <unordered_map>
#include <unordered_set>

namespace osched {
namespace {

using WriteTable = std::unordered_map<std::string_view, std::vector<SchemaWrite>>;

// The files' lines but empty ones and '#' comments, each passed to fn.
template <typename Fn> void for_each_data_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (!line.empty() && line[0] != '#')
      fn(line);
  }
}

// TARGET<TAB>INDEX:NAME[:kw],... per line.
WriteTable parse(std::string_view text) {
  WriteTable t;
  for_each_data_line(text, [&](std::string_view line) {
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      return;
    std::vector<SchemaWrite>& writes = t[line.substr(0, tab)];
    std::string_view rest = line.substr(tab + 1);
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
      SchemaWrite w;
      const size_t colon = item.find(':');
      std::from_chars(item.data(), item.data() + colon, w.index);
      w.name = item.substr(colon + 1);
      if (const size_t kw = w.name.find(':'); kw != std::string_view::npos) {
        w.keyword_only = true;
        w.name = w.name.substr(0, kw);
      }
      writes.push_back(w);
    }
  });
  return t;
}

} // namespace

bool is_schema_view(std::string_view packet) {
  static const std::unordered_set<std::string_view> views = [] {
    std::unordered_set<std::string_view> v;
    for_each_data_line(op_views_text(), [&](std::string_view line) { v.insert(line); });
    return v;
  }();
  return views.count(packet) > 0;
}

const std::vector<SchemaWrite>* schema_writes(std::string_view target) {
  static const WriteTable table = parse(op_writes_text());
  const auto it = table.find(target);
  return it == table.end() ? nullptr : &it->second;
}

} // namespace osched
