#include <catch2/catch.hpp>

#include "format/sized_nodes.h"

using namespace osched;

TEST_CASE("sized nodes: default nodes, whether or not another thread faults in the pages") {
  for (bool parallel : {false, true}) {
    INFO("parallel " << parallel);
    // Big enough (> 16 MB of nodes) for the helper thread to run.
    const size_t n = (size_t{20} << 20) / sizeof(Node);
    std::vector<Node> nodes;
    size_nodes(nodes, n, parallel);
    REQUIRE(nodes.size() == n);
    size_t odd = 0;
    for (const Node& node : nodes)
      odd += !node.name.empty() || node.op != NodeOp::CallFunction || !node.args.empty() ||
             !node.val.empty() || node.output() != nullptr || node.val_kind != ValKind::Null;
    CHECK(odd == 0);
    nodes[n - 1].name = "last";
    CHECK(nodes[n - 1].name == "last");
  }
  std::vector<Node> none;
  size_nodes(none, 0, true);
  CHECK(none.empty());
}
