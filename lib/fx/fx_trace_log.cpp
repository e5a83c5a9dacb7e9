#include "fx/fx_trace_log.h"

#include <cctype>
#include <string_view>

#include "text/json_limits.h"
#include "text/log_prefix.h"

namespace osched {
namespace {

// The JSON text of a record line: after `[rankN]:`, a level letter and
// MMDD, a time, a process id, `path:line]`, an optional `[frame/compile]`
// trace id and a space. nullopt for any other line.
std::optional<std::string_view> record_json(std::string_view s) {
  bool glog = false;
  s = strip_rank_and_glog(s, &glog);
  if (!glog)
    return std::nullopt;
  size_t brace = s.find(" {\"");
  size_t bracket = s.find("] ");
  if (brace == std::string_view::npos || bracket == std::string_view::npos || bracket > brace)
    return std::nullopt;
  return s.substr(brace + 1);
}

std::string compile_id(const nlohmann::json& meta) {
  auto number = [&](const char* key) -> std::optional<int64_t> {
    auto it = meta.find(key);
    if (it == meta.end() || !it->is_number_integer())
      return std::nullopt;
    return it->get<int64_t>();
  };
  auto frame = number("frame_id");
  auto compile = number("frame_compile_id");
  if (!frame || !compile)
    return "?";
  std::string id = std::to_string(*frame) + "/" + std::to_string(*compile);
  if (auto attempt = number("attempt"); attempt && *attempt > 0)
    id += "_" + std::to_string(*attempt);
  return id;
}

// PyTorch 2.x logs the post-grad graph as a named string artifact,
// {"artifact": {"name": "inductor_post_grad_graph", ...}}; earlier logs used
// the name as the record's key. Both are read.
std::string artifact_name(const nlohmann::json& meta) {
  auto it = meta.find("artifact");
  if (it == meta.end() || !it->is_object())
    return {};
  auto name = it->find("name");
  return name != it->end() && name->is_string() ? name->get<std::string>() : std::string();
}

constexpr std::string_view kPostGrad = "inductor_post_grad_graph";
constexpr std::string_view kAotGraphs[] = {"aot_forward_graph", "aot_backward_graph",
                                           "aot_inference_graph", "aot_joint_graph"};

} // namespace

bool looks_like_torch_trace(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (line.empty() || line[0] == '\t')
      continue;
    return record_json(line).has_value();
  }
  return false;
}

std::vector<FxTraceGraph> read_torch_trace_graphs(const std::string& text) {
  std::vector<FxTraceGraph> post_grad, aot;
  FxTraceGraph* open = nullptr; // the graph record whose payload lines follow
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (!line.empty() && line[0] == '\t') {
      if (open) {
        open->payload.append(line.substr(1));
        open->payload += '\n';
      }
      continue;
    }
    open = nullptr;
    auto json = record_json(line);
    if (!json)
      continue;
    nlohmann::json meta;
    try {
      meta = parse_json_limited(std::string(*json));
    } catch (const Error&) { // not a record of ours
      continue;
    }
    if (!meta.is_object())
      continue;
    std::vector<FxTraceGraph>* into = nullptr;
    std::string event;
    if (meta.contains(kPostGrad) || artifact_name(meta) == kPostGrad) {
      into = &post_grad;
      event = kPostGrad;
    } else {
      for (auto e : kAotGraphs)
        if (meta.contains(e)) {
          into = &aot;
          event = e;
        }
    }
    if (!into)
      continue;
    FxTraceGraph g;
    g.event = event;
    g.compile_id = compile_id(meta);
    g.line = line_no;
    into->push_back(std::move(g));
    open = &into->back();
  }
  return post_grad.empty() ? aot : post_grad;
}

} // namespace osched
