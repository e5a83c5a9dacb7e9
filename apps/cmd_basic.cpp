// validate, convert, stats: the commands that read one graph.

#include <iostream>

#include "analysis/stats.h"
#include "commands.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "format/graph_file.h"
#include "format_flag.h"
#include "text/escape.h"

namespace osched::cli {
namespace {} // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("validate", "Check a graph file; exit 2 with one error line if invalid");
  auto path = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("auto");
  cmd->add_option("GRAPH", *path, "graph file (.json or .pb, - for stdin)")->required();
  cmd->add_option("--format", *format, "input format: auto, json, pb");
  cmd->footer("Example:\n  overlap-sched validate testdata/fsdp_tiny.json");
  cmd->callback([&exit_code, path, format] {
    exit_code = run_guarded([&] {
      Graph g = read_graph_file(*path, format_flag("--format", *format));
      std::cout << (*path == "-" ? "<stdin>" : escape_line(*path)) << ": ok (" << g.size()
                << " nodes)\n";
      return kOk;
    });
  });
}

void add_convert_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("convert", "Convert between JSON and protobuf (canonical output)");
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto in_format = std::make_shared<std::string>("auto");
  auto out_format = std::make_shared<std::string>("auto");
  cmd->add_option("IN", *in, "input graph (- for stdin)")->required();
  cmd->add_option("OUT", *out, "output graph (- for stdout)")->required();
  cmd->add_option("--from", *in_format, "input format: auto, json, pb");
  cmd->add_option("--to", *out_format, "output format: auto (by extension), json, pb");
  cmd->footer("Examples:\n  overlap-sched convert testdata/fsdp_tiny.json /tmp/fsdp_tiny.pb\n"
              "  overlap-sched convert /tmp/fsdp_tiny.pb -");
  cmd->callback([&exit_code, in, out, in_format, out_format] {
    exit_code = run_guarded([&] {
      Graph g = read_graph_file(*in, format_flag("--format", *in_format));
      write_graph_file(*out, g, format_flag("--format", *out_format));
      return kOk;
    });
  });
}

void add_stats_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("stats", "Print node, compute and collective counts of a graph");
  auto path = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  cmd->add_option("GRAPH", *path, "graph file (- for stdin)")->required();
  cmd->add_flag("--json", *json_out, "print JSON instead of text");
  cmd->footer("Example:\n  overlap-sched stats testdata/tp_two_groups.json");
  cmd->callback([&exit_code, path, json_out] {
    exit_code = run_guarded([&] {
      Graph g = read_graph_file(*path);
      GraphStats s = compute_stats(g);
      if (*json_out)
        std::cout << stats_to_json(s).dump(2) << "\n";
      else
        std::cout << stats_to_text(s);
      return kOk;
    });
  });
}

} // namespace osched::cli
