// What building the in-memory model costs, apart from any parsing: reads a
// graph, then times a deep copy of its nodes (the same allocations and
// fresh pages a reader makes) and building their name index. Both readers,
// JSON and protobuf, pay this; it bounds how much faster than a JSON read
// a protobuf read can be. Built with the project (scripts/build.sh).
// Run: taskset -c 0 build/model_floor GRAPH  (one core, as the bench rows)

#include <chrono>
#include <cstdio>
#include <exception>
#include <vector>

#include <unistd.h>

#include "../../apps/malloc_tuning.h"
#include "format/graph_file.h"
#include "graph/graph.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: model_floor GRAPH\n");
    return 2;
  }
  osched::cli::reexec_with_malloc_tuning(argv); // as the CLI runs
  try {
    auto t = std::chrono::steady_clock::now();
    const osched::Graph g = osched::read_graph_file(argv[1]);
    const double read = seconds_since(t);
    t = std::chrono::steady_clock::now();
    auto* copy = new std::vector<osched::Node>(g.nodes); // kept: no frees timed
    const double model = seconds_since(t);
    t = std::chrono::steady_clock::now();
    osched::NameIndex index;
    index.build(*copy);
    const double names = seconds_since(t);
    std::printf("%zu nodes: read %.3f s; model copy %.3f s + name index %.3f s = %.3f s "
                "(%.0f%% of the read)\n",
                g.nodes.size(), read, model, names, model + names, 100 * (model + names) / read);
    std::fflush(stdout);
    _exit(0); // skip tearing down millions of nodes
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
