#include "pipeline/prepare_input.h"

#include <filesystem>
#include <future>

#include "errors/error.h"
#include "files/content_hash.h"

namespace osched {
namespace {

// The table file a graph names, as written (import-fx records a repro's
// get_colls_estimations_file() and group mapping); nullopt when it names
// none, or the graph came from standard input.
std::optional<std::string> recorded_table_file(const Graph& g, const std::string& input) {
  auto it = g.extra.find("collective_table");
  if (it == g.extra.end() || !it->is_object() || !it->contains("file") ||
      !(*it)["file"].is_string() || input == "-")
    return std::nullopt;
  return (*it)["file"].get<std::string>();
}

// Whether --collective-table names the very file the graph records: its
// group mapping then still applies. A malformed record names no file here;
// it is an error only where the recorded table is read.
bool names_recorded_table(const Graph& g, const std::string& input, const std::string& named) {
  if (named.empty() || named == "none")
    return false;
  const std::optional<std::string> name = recorded_table_file(g, input);
  std::error_code ec;
  return name && !name->empty() &&
         std::filesystem::equivalent(std::filesystem::path(input).parent_path() / *name, named,
                                     ec) &&
         !ec;
}

// The table a graph names, with its group mapping, when that file sits
// beside the input; nullopt otherwise.
std::optional<CollectiveTable> recorded_collective_table(const Graph& g, const std::string& input) {
  const std::optional<std::string> name = recorded_table_file(g, input);
  if (!name)
    return std::nullopt;
  if (name->empty() || *name == "." || *name == ".." || name->find('/') != std::string::npos)
    throw input_error(input + ": collective_table.file: must be a file name");
  const std::string path = (std::filesystem::path(input).parent_path() / *name).string();
  if (!std::filesystem::exists(path))
    return std::nullopt;
  const nlohmann::json& recorded = *g.extra.find("collective_table");
  CollectiveTable t = load_collective_table(path);
  if (recorded.contains("group_mapping")) {
    const nlohmann::json& m = recorded["group_mapping"];
    if (!m.is_object())
      throw input_error(input + ": collective_table.group_mapping: must be an object");
    for (const auto& [from, to] : m.items()) {
      if (!to.is_string())
        throw input_error(input + ": collective_table.group_mapping." + from +
                          ": must be a group name");
      t.group_mapping[from] = to.get<std::string>();
    }
  }
  return t;
}

} // namespace

std::shared_ptr<const CostFiles> load_cost_files(const ScheduleConfig& cfg) {
  auto files = std::make_shared<CostFiles>();
  if (!cfg.runtime_estimates.empty())
    files->estimates = load_custom_estimates(cfg.runtime_estimates);
  if (!cfg.collective_table.empty() && cfg.collective_table != "none")
    files->collective_table = load_collective_table(cfg.collective_table);
  return files;
}

HardwareSpec resolve_hardware(const Graph& g, const ScheduleConfig& cfg,
                              std::string_view measured_gpu) {
  nlohmann::json overrides = cfg.hardware_overrides;
  std::string gpu = cfg.gpu;
  if (gpu.empty() && !cfg.gpus_per_node && overrides.is_null() && g.hardware.is_null())
    gpu = measured_gpu;
  // The flags join the config's fields, so `gpu` sets the base that the
  // other fields then adjust, wherever each came from.
  if ((overrides.is_null() || overrides.is_object()) && (!gpu.empty() || cfg.gpus_per_node)) {
    if (!gpu.empty())
      overrides["gpu"] = gpu;
    if (cfg.gpus_per_node)
      overrides["gpus_per_node"] = *cfg.gpus_per_node;
  }
  HardwareSpec hw = default_hardware();
  apply_hardware_overrides(hw, g.hardware);
  apply_hardware_overrides(hw, overrides);
  return hw;
}

ScheduleInput prepare_input(const InputBytes& bytes, const InputSource& source,
                            const ScheduleConfig& cfg, std::shared_ptr<const CostFiles> costs) {
  const std::string& path = source.path;
  // The report's input hash on the second core while the graph is parsed.
  std::future<std::string> hash;
  if (source.known_hash.empty())
    hash = std::async(std::launch::async, [&bytes] { return content_hash(bytes.view()); });
  Graph g = parse_graph_bytes(bytes, path, source.format);
  std::optional<CollectiveTable> recorded;
  // Its errors name the input or the table already.
  if (cfg.collective_table.empty() || names_recorded_table(g, path, cfg.collective_table))
    recorded = recorded_collective_table(g, path);
  ScheduleInput in = with_context(path, [&] {
    return prepare_graph(std::move(g), hash.valid() ? hash.get() : source.known_hash, cfg,
                         std::move(costs));
  });
  in.recorded_table = std::move(recorded);
  return in;
}

ScheduleInput prepare_graph(Graph g, std::string input_hash, const ScheduleConfig& cfg,
                            std::shared_ptr<const CostFiles> costs) {
  ScheduleInput in;
  in.hardware = resolve_hardware(g, cfg);
  in.input_hash = std::move(input_hash);
  in.graph = std::move(g);
  in.costs = std::move(costs);
  return in;
}

} // namespace osched
