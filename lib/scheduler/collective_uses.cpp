#include "scheduler/collective_uses.h"

#include <algorithm>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched {

CollectiveUses collective_uses(const Graph& g, const UserLists& data_users, NodeId coll) {
  CollectiveUses u;
  auto classify = [&](NodeId user, auto& self, int depth) -> void {
    const Node& n = g.nodes[user];
    if (is_wait_node(n)) {
      u.waits.push_back(user);
    } else if (is_metadata_node(n)) {
      u.metadata.push_back(user);
    } else if (depth == 0 && is_getitem_target(n.target)) {
      auto [b, e] = data_users.of(user);
      for (auto p = b; p != e; ++p)
        self(*p, self, 1);
    } else if (u.other < 0 || user < u.other) {
      u.other = user;
      u.other_is_output = n.op == NodeOp::Output;
    }
  };
  auto [b, e] = data_users.of(coll);
  for (auto p = b; p != e; ++p)
    classify(*p, classify, 0);
  std::sort(u.waits.begin(), u.waits.end());
  u.waits.erase(std::unique(u.waits.begin(), u.waits.end()), u.waits.end());
  return u;
}

} // namespace osched
