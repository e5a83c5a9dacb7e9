// check-ranks G0 G1 ...: can these ranks' graphs run together without a
// collective hang? (safety/check_ranks.h says what is compared.)

#include <iostream>
#include <set>

#include "commands.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "format/graph_file.h"
#include "safety/check_ranks.h"
#include "text/escape.h"

namespace osched::cli {
namespace {

struct CheckRanksArgs {
  std::vector<std::string> graphs;
  std::string ranks_from = "auto";
  bool json = false;
};

int run(const CheckRanksArgs& a) {
  if (a.ranks_from != "auto" && a.ranks_from != "field" && a.ranks_from != "order")
    throw input_error("--ranks-from: expected auto, field or order, got '" +
                      escape_quoted(a.ranks_from) + "'");
  std::vector<RankGraph> graphs;
  graphs.reserve(a.graphs.size());
  for (const std::string& path : a.graphs) {
    ReadOptions lenient; // written graphs are read as verify reads them
    lenient.require_topological_order = false;
    Graph g = read_graph_file(path, GraphFormat::Auto, lenient);
    graphs.push_back({g.rank, path, std::move(g)});
  }
  std::set<int64_t> seen;
  const RankGraph* repeated = nullptr;
  for (const RankGraph& g : graphs)
    if (!seen.insert(g.rank).second && !repeated)
      repeated = &g;
  if (repeated && a.ranks_from == "field")
    throw input_error(escape_line(repeated->file) + ": rank " + std::to_string(repeated->rank) +
                      " is given by another graph too (--ranks-from order numbers them by "
                      "argument order)");
  // Schedule's per-rank outputs all keep their input's rank field: then
  // the argument order is the only numbering there is.
  if (a.ranks_from == "order" || (a.ranks_from == "auto" && repeated))
    for (size_t i = 0; i < graphs.size(); ++i)
      graphs[i].rank = static_cast<int64_t>(i);
  const RankCheckResult r = check_ranks(graphs);
  if (a.json)
    std::cout << r.detail.dump() << "\n";
  else
    (r.consistent ? std::cout : std::cerr) << escape_line(r.line) << "\n";
  return r.consistent ? kOk : kVerifyFailed;
}

} // namespace

void add_check_ranks_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "check-ranks",
      "Check that ranks' graphs issue every process group's collectives in one order");
  auto a = std::make_shared<CheckRanksArgs>();
  cmd->add_option("GRAPHS", a->graphs, "one graph per rank (.json/.pb)")->required();
  cmd->add_option("--ranks-from", a->ranks_from,
                  "how graphs are numbered: field (their `rank`), order (argument order) or auto "
                  "(the fields when they are distinct, else the order)")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "print the result as one JSON object on stdout");
  cmd->footer(
      "Every member of a process group must issue the same sequence of its collectives (kind, "
      "dtype, bytes, reduce op), and no two ranks may order two groups' collectives so that "
      "each waits on the other.\n"
      "Exit codes: 0 consistent, 1 first divergence printed, 2 unreadable input.\nExample:\n"
      "  overlap-sched check-ranks out.rank0.json out.rank1.json\n"
      "  overlap-sched check-ranks stage0.pb stage1.pb --json");
  cmd->callback([&exit_code, a] { exit_code = run_guarded([&] { return run(*a); }); });
}

} // namespace osched::cli
