#include "pipeline/batch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "errors/error.h"
#include "files/content_hash.h"
#include "files/output_batch.h"
#include "pipeline/prepare_input.h"
#include "pipeline/schedule_options.h"
#include "pipeline/schedule_pipeline.h"
#include "report/report_json.h"
#include "text/escape.h"
#include "validate/graph_error.h"

namespace fs = std::filesystem;

namespace osched {
namespace {

bool is_graph_file(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".json" || ext == ".pb";
}

// Outputs this tool wrote: never inputs of a later batch.
bool is_batch_output(const std::string& name) {
  auto ends = [&](const char* s) {
    const std::string suffix(s);
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".report.json") || ends(".osched-stamp.json") || name == "summary.jsonl";
}

bool inside(const fs::path& p, const fs::path& dir) {
  if (dir.empty())
    return false;
  auto rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

} // namespace

std::vector<BatchItem> collect_batch_inputs(const std::vector<std::string>& inputs,
                                            const std::string& list_file,
                                            const std::string& out_dir) {
  std::vector<std::string> paths = inputs;
  if (!list_file.empty()) {
    std::ifstream in(list_file);
    if (!in)
      throw input_error(list_file + ": cannot open list file");
    for (std::string line; std::getline(in, line);) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
        line.pop_back();
      if (!line.empty() && line[0] != '#')
        paths.push_back(line);
    }
  }
  const fs::path out = fs::weakly_canonical(out_dir);
  std::map<std::string, BatchItem> by_rel;
  auto add = [&](const fs::path& file, const std::string& rel) {
    if (inside(fs::weakly_canonical(file), out) || is_batch_output(file.filename().string()))
      return;
    auto [it, fresh] = by_rel.emplace(rel, BatchItem{file.string(), rel});
    if (!fresh && fs::weakly_canonical(it->second.input) != fs::weakly_canonical(file))
      throw input_error("batch: '" + file.string() + "' and '" + it->second.input +
                        "' would both write " + rel);
  };
  for (const std::string& p : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st))
      throw input_error(p + ": no such file or directory");
    if (fs::is_directory(st)) {
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (it->is_regular_file() && is_graph_file(it->path()))
          add(it->path(), it->path().lexically_relative(p).generic_string());
      }
      if (ec)
        throw input_error(p + ": " + ec.message());
    } else {
      add(fs::path(p), fs::path(p).filename().string());
    }
  }
  std::vector<BatchItem> items;
  for (auto& [rel, item] : by_rel)
    items.push_back(std::move(item));
  return items;
}

BatchPaths batch_paths(const BatchItem& item, const std::string& out_dir, GraphFormat out_format) {
  fs::path rel(item.rel);
  const std::string in_ext = rel.extension().string();
  fs::path stem = fs::path(out_dir) / rel.parent_path() / rel.stem();
  const std::string ext = out_format == GraphFormat::Proto  ? ".pb"
                          : out_format == GraphFormat::Json ? ".json"
                                                            : in_ext;
  BatchPaths p;
  p.graph = stem.string() + ext;
  p.report = stem.string() + ".report.json";
  p.stamp = stem.string() + ".osched-stamp.json";
  return p;
}

std::string batch_options_fingerprint(const ScheduleConfig& cfg) {
  nlohmann::json j = schedule_options_echo(cfg);
  j["tool"] = OSCHED_VERSION;
  // The contents of the files the options name, not just their paths.
  for (const auto& [key, path] :
       {std::pair<const char*, const std::string&>{"estimates_hash", cfg.runtime_estimates},
        {"collective_table_hash", cfg.collective_table}}) {
    if (path.empty() || path == "none")
      continue;
    try {
      j[key] = content_hash(read_file_bytes(path));
    } catch (const std::exception&) {
      j[key] = "unreadable";
    }
  }
  return content_hash(j.dump());
}

BatchResult run_batch_item(const BatchItem& item, const BatchPaths& paths, const BatchOptions& opts,
                           const std::string& fingerprint) {
  const auto t0 = std::chrono::steady_clock::now();
  BatchResult r;
  r.input = item.input;
  auto fill_from = [&](const nlohmann::json& rep) {
    r.nodes = rep.at("input").at("nodes").get<int64_t>();
    r.step_ms_before = rep.at("simulation").at("step_ms_before").get<double>();
    r.step_ms_after = rep.at("simulation").at("step_ms_after").get<double>();
    r.exposed_ms_after = rep.at("simulation").at("exposed_comm_ms_after").get<double>();
    r.peak_bytes = rep.at("memory").at("scheduled_peak_bytes").get<int64_t>();
  };
  try {
    const InputBytes bytes = InputBytes::read(item.input);
    const std::string input_hash = content_hash(bytes.view());
    const nlohmann::json stamp = {
        {"input_hash", input_hash}, {"options", fingerprint}, {"tool", OSCHED_VERSION}};
    if (!opts.force && fs::exists(paths.graph) && fs::exists(paths.report) &&
        fs::exists(paths.stamp)) {
      nlohmann::json old = nlohmann::json::parse(read_file_bytes(paths.stamp), nullptr, false);
      if (!old.is_discarded() && old == stamp) {
        nlohmann::json rep = nlohmann::json::parse(read_file_bytes(paths.report), nullptr, false);
        if (!rep.is_discarded()) {
          fill_from(rep);
          r.status = "skipped";
          r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          return r;
        }
      }
    }
    // The stamp's hash is the report's: the input is hashed once.
    ScheduleOutput out = run_schedule(
        prepare_input(bytes, {item.input, GraphFormat::Auto, input_hash}, opts.cfg, opts.costs),
        opts.cfg);
    std::error_code ec;
    fs::create_directories(fs::path(paths.graph).parent_path(), ec);
    if (ec)
      throw output_error(fs::path(paths.graph).parent_path().string() +
                         ": cannot create directory: " + ec.message());
    const std::string stamp_text = stamp.dump(2) + "\n";
    OutputBatch batch;
    add_graph_output(batch, paths.graph, out.graph, opts.out_format);
    batch.add(paths.report, [&](const Emit& emit) { write_report_json(out.report, emit); });
    batch.add(paths.stamp, [&](const Emit& emit) { emit(stamp_text); });
    batch.commit();
    // From the report itself (not a JSON tree of it, which for a big graph
    // would hold every collective once more).
    const ScheduleReport& rep = out.report;
    r.nodes = rep.input.nodes;
    r.step_ms_before = rep.simulation.step_ms_before;
    r.step_ms_after = rep.simulation.step_ms_after;
    r.exposed_ms_after = rep.simulation.exposed_comm_ms_after;
    r.peak_bytes = rep.memory.scheduled_peak_bytes;
    r.status = "ok";
  } catch (const Error& e) {
    r.status = "failed";
    r.output_failed = e.kind() == ErrorKind::Output;
    r.error = escape_line(e.what());
  } catch (const std::exception& e) {
    r.status = "failed";
    r.error = escape_line(e.what()); // one line, whatever the input held
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {
// A path as the summaries show it: as it is when it is UTF-8 (JSON and CSV
// readers expect that), else with \xNN escapes for the bytes that are not.
std::string shown_path(const std::string& path) {
  return invalid_utf8_offset(path) == std::string::npos ? path : escape_line(path);
}
} // namespace

nlohmann::json batch_result_json(const BatchResult& r) {
  nlohmann::json j = {{"input", shown_path(r.input)}, {"status", r.status}};
  if (r.status == "failed") {
    j["error"] = r.error;
    if (r.output_failed)
      j["output_failed"] = true;
    return j;
  }
  j["nodes"] = r.nodes;
  j["step_ms_before"] = r.step_ms_before;
  j["step_ms_after"] = r.step_ms_after;
  j["exposed_ms_after"] = r.exposed_ms_after;
  j["peak_bytes"] = r.peak_bytes;
  return j;
}

BatchResult batch_result_from_json(const nlohmann::json& j) {
  BatchResult r;
  r.input = j.at("input").get<std::string>();
  r.status = j.at("status").get<std::string>();
  r.error = j.value("error", "");
  r.output_failed = j.value("output_failed", false);
  r.nodes = j.value("nodes", int64_t{0});
  r.step_ms_before = j.value("step_ms_before", 0.0);
  r.step_ms_after = j.value("step_ms_after", 0.0);
  r.exposed_ms_after = j.value("exposed_ms_after", 0.0);
  r.peak_bytes = j.value("peak_bytes", int64_t{0});
  r.seconds = j.value("seconds", 0.0);
  return r;
}

std::string batch_csv_header() {
  return "input,status,nodes,step_ms_before,step_ms_after,exposed_ms_after,peak_bytes,error\n";
}

std::string batch_csv_row(const BatchResult& r) {
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s)
      q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  char nums[160];
  std::snprintf(nums, sizeof nums, "%lld,%.6f,%.6f,%.6f,%lld", static_cast<long long>(r.nodes),
                r.step_ms_before, r.step_ms_after, r.exposed_ms_after,
                static_cast<long long>(r.peak_bytes));
  return quoted(shown_path(r.input)) + "," + r.status + "," + nums + "," + quoted(r.error) + "\n";
}

} // namespace osched
