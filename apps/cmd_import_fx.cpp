// import-fx FILE -o GRAPH: a printed FX graph (print_readable, TORCH_LOGS,
// TORCH_COMPILE_DEBUG, minifier repro) -> graph format.

#include <charconv>
#include <iostream>

#include "commands.h"
#include "cost/hardware.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "format/graph_file.h"
#include "format_flag.h"
#include "fx/fx_import.h"
#include "text/escape.h"
#include "text/json_limits.h"
#include "validate/validate.h"

namespace osched::cli {
namespace {

struct ImportArgs {
  std::string in;
  std::string out;
  std::string format = "auto";
  FxImportOptions opts;
  std::optional<int64_t> world_size;
  std::vector<std::string> groups;
  std::vector<std::string> hints;
  std::string hardware_file;
  std::string gpu;
  std::optional<int> gpus_per_node;
  bool quiet = false;
};

std::pair<std::string, std::string> split_assignment(const std::string& s, const char* flag) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw input_error(std::string(flag) + ": '" + escape_quoted(s) + "' is not NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

FxImportOptions resolve_options(const ImportArgs& a) {
  FxImportOptions o = a.opts;
  o.world_size = a.world_size;
  if (a.world_size && (*a.world_size < 1 || *a.world_size > kMaxWorldSize))
    throw input_error("--world-size: must be 1 to " + std::to_string(kMaxWorldSize));
  if (o.rank < 0 || (a.world_size && o.rank >= *a.world_size))
    throw input_error("--rank: must be 0 to world size - 1");
  for (const auto& g : a.groups) {
    auto [name, ranks] = split_assignment(g, "--group");
    o.groups[name] = with_context("--group " + escape_quoted(name),
                                  [&, &ranks = ranks] { return parse_rank_list(ranks); });
  }
  for (const auto& h : a.hints) {
    auto [sym, value] = split_assignment(h, "--hint");
    long long v = -1;
    const char* end = value.data() + value.size();
    const auto [stop, ec] = std::from_chars(value.data(), end, v);
    if (ec != std::errc() || stop != end || v < 0)
      throw input_error("--hint " + escape_quoted(sym) + ": '" + escape_quoted(value) +
                        "' is not a non-negative integer");
    o.hints[sym] = v;
  }
  nlohmann::json hw;
  if (!a.hardware_file.empty()) {
    // It becomes the graph's "hardware" object, at level 2 of the document.
    hw = parse_json_limited(read_file_bytes(a.hardware_file, kMaxSmallFileBytes),
                            a.hardware_file + ": " + kMalformedJson, kMaxJsonDepth - 1);
    if (!hw.is_object())
      throw input_error(a.hardware_file + ": hardware must be a JSON object");
  }
  if (!a.gpu.empty()) {
    if (!is_known_gpu(a.gpu))
      throw input_error("--gpu: unknown GPU '" + escape_excerpt(a.gpu) + "'");
    hw["gpu"] = a.gpu;
  }
  if (a.gpus_per_node) {
    if (*a.gpus_per_node < 1 || *a.gpus_per_node > 1024)
      throw input_error("--gpus-per-node: must be 1 to 1024");
    hw["gpus_per_node"] = *a.gpus_per_node;
  }
  if (!hw.is_null()) {
    with_context("hardware", [&] {
      HardwareSpec check = default_hardware(hw.value("gpu", std::string("H100-SXM")));
      apply_hardware_overrides(check, hw);
    });
  }
  o.hardware = hw;
  return o;
}

void print_summary(const std::string& in, const FxImportResult& r, bool chosen) {
  std::cerr << "import-fx: " << escape_line(in == "-" ? "<stdin>" : in) << ": " << r.graph.size()
            << " nodes, " << r.graph.process_groups.size() << " process group(s), world size "
            << r.graph.world_size << "\n";
  if (!r.trace_graphs.empty()) {
    std::cerr << "import-fx: TORCH_TRACE log, graph records by compile id:\n";
    for (size_t i = 0; i < r.trace_graphs.size(); ++i)
      std::cerr << "import-fx:   " << i << ": " << escape_line(r.trace_graphs[i])
                << (static_cast<int>(i) == r.graph_index ? "  <- taken" : "") << "\n";
  }
  if (r.graph_count > 1)
    std::cerr << "import-fx: note: took graph " << r.graph_index << " of " << r.graph_count
              << (r.graph_class.empty() ? "" : " (class " + escape_line(r.graph_class) + ")")
              << (chosen ? "" : ", the largest; --graph N picks another") << "\n";
  if (!r.unhinted_symbols.empty()) {
    std::cerr
        << "import-fx: note: " << r.unhinted_symbols.size()
        << " size(s) read from data or given without a value stay symbolic and count 0 in costs "
           "(set --hint NAME=N):";
    for (size_t i = 0; i < r.unhinted_symbols.size() && i < 5; ++i)
      std::cerr << " '" << escape_quoted(r.unhinted_symbols[i]) << "'";
    std::cerr << (r.unhinted_symbols.size() > 5 ? " ...\n" : "\n");
  }
  if (r.unknown_shapes > 0) {
    std::cerr << "import-fx: warning: " << r.unknown_shapes
              << " node(s) without shape, costed as 0:";
    for (const auto& n : r.unknown_shape_nodes)
      std::cerr << " '" << escape_quoted(n) << "'";
    if (r.unknown_shapes > static_cast<int64_t>(r.unknown_shape_nodes.size()))
      std::cerr << " ...";
    std::cerr << "\n";
  }
  for (const auto& g : r.assumed_groups) {
    const auto& ranks = r.graph.process_groups.at(g).ranks;
    std::cerr << "import-fx: note: group '" << escape_quoted(g) << "' assumed ranks "
              << ranks.front() << "-" << ranks.back() << " (set --group " << escape_line(g)
              << "=RANKS)\n";
  }
}

} // namespace

void add_import_fx_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "import-fx", "Convert a printed FX graph (print_readable, TORCH_LOGS=post_grad_graphs, "
                   "TORCH_COMPILE_DEBUG, minifier repro) to the graph format");
  auto a = std::make_shared<ImportArgs>();
  cmd->add_option("FILE", a->in, "FX text (- for stdin)")->required();
  cmd->add_option("-o,--output", a->out, "output graph (.json or .pb, - for stdout)")->required();
  cmd->add_option("--format", a->format, "output format: auto (by extension), json, pb");
  cmd->add_option("--graph", a->opts.graph_index,
                  "which forward graph of the file to import (0 = first; default: the largest)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--name", a->opts.name, "graph name (default: the file's stem)");
  cmd->add_option("--rank", a->opts.rank, "this graph's rank")->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--world-size", a->world_size, "world size (default: the largest group)");
  cmd->add_option("--group", a->groups,
                  "member ranks of a process group, NAME=RANKS (e.g. 0=0-7, tp=0,1,2,3)");
  cmd->add_option("--hint", a->hints, "value of a symbolic size, SYM=INT (e.g. s0=2048)");
  cmd->add_option("--hardware", a->hardware_file, "JSON object of hardware overrides to stamp");
  cmd->add_option("--gpu", a->gpu, "target GPU to stamp (H100-SXM, H200, A100-SXM, B200, V100)");
  cmd->add_option("--gpus-per-node", a->gpus_per_node, "GPUs per node to stamp");
  cmd->add_option("--device", a->opts.default_device,
                  "device of tensors whose annotation names none")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a->quiet, "no summary on stderr");
  cmd->footer(
      "Examples:\n"
      "  overlap-sched import-fx testdata/fx/fsdp_post_grad.py -o /tmp/fsdp.json\n"
      "  overlap-sched import-fx testdata/fx/tp_post_grad_graphs.log -o /tmp/tp.json --graph 1 "
      "--world-size 16 --group tp=0-3\n"
      "  overlap-sched import-fx testdata/fx/fsdp_tp_backward.py -o /tmp/2d.pb --world-size 4 "
      "--group tp=0,1 --group dp=0,2");
  cmd->callback([&exit_code, a] {
    exit_code = run_guarded([&] {
      const GraphFormat format = format_flag("--format", a->format);
      FxImportOptions opts = resolve_options(*a);
      std::string text = read_file_bytes(a->in);
      const FxImportResult r = import_fx_text(text, a->in == "-" ? "<stdin>" : a->in, opts);
      write_graph_file(a->out, r.graph, format);
      if (!a->quiet)
        print_summary(a->in, r, a->opts.graph_index >= 0);
      return kOk;
    });
  });
}

} // namespace osched::cli
