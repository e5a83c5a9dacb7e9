// verify ORIGINAL REORDERED: is the second a legal reordering of the first?

#include <iostream>

#include "analysis/verify.h"
#include "commands.h"
#include "exit_codes.h"
#include "format/graph_file.h"
#include "text/escape.h"

namespace osched::cli {

void add_verify_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "verify", "Check that REORDERED keeps every dependency and in-place write order of ORIGINAL");
  auto orig = std::make_shared<std::string>();
  auto re = std::make_shared<std::string>();
  auto opts = std::make_shared<VerifyOptions>();
  cmd->add_option("ORIGINAL", *orig, "original graph")->required();
  cmd->add_option("REORDERED", *re, "reordered graph")->required();
  cmd->add_flag("--group-order", opts->group_order,
                "also require each process group's collectives in their original issue order "
                "(what schedule --preserve-group-order keeps)");
  cmd->add_option("--assume-pure", opts->assume_pure,
                  "TARGET[,TARGET...]: ops the check lets collectives cross (as schedule's "
                  "--assume-pure); every other op the tool cannot classify must keep its side of "
                  "every collective start and wait");
  cmd->footer(
      "Exit codes: 0 legal, 1 first violation printed, 2 unreadable input.\nExample:\n"
      "  overlap-sched verify testdata/fsdp_tiny.json /tmp/fsdp_tiny.sched.json\n"
      "  overlap-sched verify --group-order testdata/fsdp_tiny.json /tmp/fsdp_tiny.sched.json");
  cmd->callback([&exit_code, orig, re, opts] {
    exit_code = run_guarded([&] {
      Graph a = read_graph_file(*orig);
      ReadOptions lenient;
      lenient.require_topological_order = false;
      Graph b = read_graph_file(*re, GraphFormat::Auto, lenient);
      if (auto violation = verify_reordering(a, b, *opts)) {
        std::cerr << "verify: " << escape_line(*re) << ": " << escape_line(*violation) << "\n";
        return kVerifyFailed;
      }
      std::cout << "verify: ok (" << b.size() << " nodes)\n";
      return kOk;
    });
  });
}

} // namespace osched::cli
