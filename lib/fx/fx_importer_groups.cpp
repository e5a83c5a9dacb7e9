// The importer's process groups: each collective's group named and sized
// from the repro's get_pg_config(), the options, or the ranks it lists.
#include "fx/fx_importer.h"
#include "graph/nonfinite.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>

#include "errors/error.h"
#include "fx/fx_shape_infer.h"
#include "fx/fx_text.h"
#include "fx/fx_trace_log.h"
#include "ops/collective.h"
#include "ops/op_table.h"
#include "text/escape.h"
#include "text/json_limits.h"
#include "validate/graph_error.h"
#include "validate/validate.h"

namespace osched::fx_importer {

void Importer::assign_groups() {
  struct GroupUse {
    std::optional<int64_t> size;
    int line = 0;
    std::string node;
  };
  std::map<std::string, GroupUse> uses;
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    const Node& n = g_.nodes[i];
    auto sig = collective_signature(n.target);
    if (!sig || sig->group_name_pos < 0)
      continue;
    auto name = collective_group_name(n);
    if (!name)
      fail(lines_[i], "node '" + escape_quoted(n.name) + "': collective without a group_name");
    GroupUse& u = uses[*name];
    if (u.node.empty()) {
      u.node = n.name;
      u.line = lines_[i];
    }
    std::optional<int64_t> size = collective_group_size_arg(n);
    // all_to_all_single names no size, but its split lists have one entry per rank.
    if (!size && sig->kind == CollectiveKind::AllToAll && n.args.size() > 1 &&
        n.args[1].kind == Value::Kind::List && !n.args[1].items().empty())
      size = static_cast<int64_t>(n.args[1].items().size());
    if (auto pg = pg_sizes_.find(*name); pg != pg_sizes_.end()) {
      if (size && *size != pg->second)
        fail(lines_[i], "node '" + escape_quoted(n.name) + "': group '" + escape_quoted(*name) +
                            "' has size " + std::to_string(*size) + " here but " +
                            std::to_string(pg->second) + " in get_pg_config()");
      size = pg->second;
    }
    if (auto s = size) {
      if (u.size && *u.size != *s)
        fail(lines_[i], "node '" + escape_quoted(n.name) + "': group '" + escape_quoted(*name) +
                            "' has size " + std::to_string(*s) + " here and " +
                            std::to_string(*u.size) + " at node '" + escape_quoted(u.node) + "'");
      u.size = *s;
    }
  }
  int64_t world = 1;
  for (const auto& [name, ranks] : opts_.groups)
    for (int64_t r : ranks)
      world = std::max(world, r + 1);
  for (const auto& [name, u] : uses)
    if (u.size)
      world = std::max(world, *u.size);
  if (opts_.world_size)
    world = *opts_.world_size;
  g_.world_size = world;
  for (const auto& [name, u] : uses) {
    std::vector<int64_t> ranks;
    auto given = opts_.groups.find(name);
    if (given != opts_.groups.end()) {
      ranks = given->second;
      if (u.size && static_cast<int64_t>(ranks.size()) != *u.size)
        fail(u.line, "node '" + escape_quoted(u.node) + "': group '" + escape_quoted(name) +
                         "' has group_size " + std::to_string(*u.size) + " but --group gives " +
                         std::to_string(ranks.size()) + " ranks");
    } else {
      int64_t size = u.size.value_or(0);
      if (!u.size) {
        if (!opts_.world_size)
          fail(u.line, "node '" + escape_quoted(u.node) + "': group '" + escape_quoted(name) +
                           "' states no group_size; pass --group " + name +
                           "=RANKS or --world-size");
        size = world;
      }
      if (size <= 0 || size > kMaxWorldSize)
        fail(u.line, "node '" + escape_quoted(u.node) + "': group size " + std::to_string(size) +
                         " out of range");
      int64_t base = size >= world ? 0 : (opts_.rank / size) * size;
      for (int64_t r = 0; r < size; ++r)
        ranks.push_back(base + r);
      if (size < world) // a whole-world group needs no assumption
        result_.assumed_groups.push_back(name);
    }
    g_.process_groups[name].ranks = std::move(ranks);
  }
  for (const auto& [name, ranks] : opts_.groups)
    if (!uses.count(name))
      g_.process_groups[name].ranks = ranks;
}

} // namespace osched::fx_importer
