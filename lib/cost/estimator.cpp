#include "cost/estimator.h"
#include "errors/error.h"
#include "files/input_bytes.h"
#include "text/json_limits.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cost/flops.h"
#include "cost/nccl_model.h"
#include "ops/op_table.h"

namespace osched {

int64_t bytes_accessed(const TensorMeta& t) {
  int64_t numel = 1;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const Dim& size = t.shape[i];
    const Dim* stride = i < t.stride.size() ? &t.stride[i] : nullptr;
    if (!size.is_known() || (stride && !stride->is_known()))
      return 0; // a size only data decides: unknown, as PyTorch's estimate counts it
    if (stride && stride->value == 0)
      continue; // broadcast: one element read for the whole dim
    if (__builtin_mul_overflow(numel, size.value, &numel))
      return 0;
  }
  int64_t bytes = 0;
  return __builtin_mul_overflow(numel, static_cast<int64_t>(dtype_itemsize(t.dtype)), &bytes)
             ? 0
             : bytes;
}

double kernel_bytes(const Graph& g, NodeId id) {
  const Node& n = g.nodes[id];
  double bytes = 0;
  auto add = [&](const Value& v) {
    if (const TensorMeta* t = ref_meta(g, v))
      bytes += static_cast<double>(bytes_accessed(*t));
  };
  for (const auto& a : n.args)
    for_each_ref(a, add);
  for (const auto& kv : n.attrs().kwargs)
    for_each_ref(kv.second, add);
  for (const auto& m : n.val)
    if (m)
      bytes += static_cast<double>(bytes_accessed(*m));
  return bytes;
}

std::optional<double> AnalyticalEstimator::compute_ms(const Graph& g, NodeId id) {
  const Node& n = g.nodes[id];
  if (!is_kernel_node(n) || (model_ == CostModel::ComputeOnly && !is_compute_node(n)))
    return std::nullopt;
  const double memory_s = kernel_bytes(g, id) / (hw_.hbm_gbps * 1e9);
  double compute_s = 0;
  if (is_compute_node(n)) {
    // The tensor-core rate of the first input's dtype, at the efficiency a
    // tuned kernel reaches.
    DType dtype = DType::Float32;
    for (const auto& a : n.args)
      if (const TensorMeta* t = a.is_ref() ? ref_meta(g, a) : nullptr) {
        dtype = t->dtype;
        break;
      }
    const double efficiency = model_ == CostModel::Kernels ? hw_.matmul_efficiency : 1.0;
    compute_s = count_flops(g, id) / (hw_.peak_flops(dtype) * efficiency);
  }
  if (model_ == CostModel::ComputeOnly)
    return std::max(compute_s, memory_s) * 1e3;
  return std::max(compute_s, memory_s) * 1e3 + hw_.kernel_launch_us * 1e-3;
}

std::optional<double> AnalyticalEstimator::collective_ms(const Graph&, const CollectiveInfo& c) {
  return estimate_nccl_ms({c.kind, c.size_bytes, c.group_size, c.num_hosts(hw_.gpus_per_node)},
                          hw_);
}

std::string op_shape_key(const Graph& g, NodeId id) {
  const Node& n = g.nodes[id];
  std::string key = n.target;
  auto add = [&](const Value& v) {
    const TensorMeta* t = ref_meta(g, v);
    if (!t)
      return;
    key += "|" + std::string(dtype_name(t->dtype)) + "[";
    for (size_t i = 0; i < t->shape.size(); ++i)
      key += (i ? "," : "") + std::to_string(t->shape[i].hint_or_zero());
    key += "]";
  };
  for (const auto& a : n.args)
    for_each_ref(a, add);
  return key;
}

std::optional<double> CustomEstimates::lookup(const Graph& g, NodeId id) const {
  const Node& n = g.nodes[id];
  if (auto it = nodes.find(n.name); it != nodes.end())
    return it->second;
  if (!ops.empty()) {
    if (auto it = ops.find(op_shape_key(g, id)); it != ops.end())
      return it->second;
    if (auto it = ops.find(n.target); it != ops.end())
      return it->second;
  }
  return std::nullopt;
}

CustomEstimates load_custom_estimates(const std::string& path) {
  // "-": standard input
  return parse_custom_estimates(read_file_bytes(path, kMaxSmallFileBytes), path);
}

CustomEstimates parse_custom_estimates(const std::string& text, const std::string& path) {
  const nlohmann::json j = parse_json_limited(text, path + ": " + kMalformedJson);
  if (!j.is_object())
    throw input_error(path + ": top level must be an object");
  CustomEstimates c;
  for (const auto& [k, _] : j.items())
    if (k != "version" && k != "nodes" && k != "ops")
      throw input_error(path + ": " + k + ": unknown key (expected version, nodes, ops)");
  for (const char* section : {"nodes", "ops"}) {
    if (!j.contains(section))
      continue;
    if (!j[section].is_object())
      throw input_error(path + ": " + section + ": must be an object");
    for (const auto& [k, v] : j[section].items()) {
      if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e9)
        throw input_error(path + ": " + section + "." + k +
                          ": must be a number of ms from 0 to 1e9");
      (std::string(section) == "nodes" ? c.nodes : c.ops)[k] = v.get<double>();
    }
  }
  return c;
}

std::string_view runtime_source_name(RuntimeSource s) {
  switch (s) {
  case RuntimeSource::None:
    return "none";
  case RuntimeSource::Analytical:
    return "analytical";
  case RuntimeSource::Custom:
    return "custom";
  case RuntimeSource::Benchmark:
    return "benchmark";
  case RuntimeSource::Table:
    return "table";
  case RuntimeSource::TableExtrapolated:
    return "table_extrapolated";
  }
  return "none";
}

std::pair<double, RuntimeSource>
estimate_runtime(const Graph& g, NodeId i, const CustomEstimates* custom, RuntimeEstimator* primary,
                 RuntimeEstimator& fallback, const CollectiveTable* table) {
  const Node& n = g.nodes[i];
  const std::optional<CollectiveInfo> coll = decode_collective(g, i);
  // No kernel: inputs, the output, waits (a synchronisation), metadata reads
  // and selections. Giving them time would make the simulation and the
  // scheduler disagree on where time goes.
  if (!coll && (n.op != NodeOp::CallFunction || is_wait_node(n) || is_metadata_node(n) ||
                is_getitem_target(n.target)))
    return {0.0, RuntimeSource::None};
  if (!coll && !is_compute_node(n)) {
    // Other kernels: their memory traffic (no GPU measurement times them),
    // or the user's figure. The scheduler lets them hide collectives
    // too, as upstream does, and the simulation runs them on the compute
    // stream. Views, selections and host-only work cost nothing.
    // As upstream: once the user estimates nodes, the ones they leave out
    // are not kernels worth a model's figure.
    if (custom && !custom->empty()) {
      const std::optional<double> v = custom->lookup(g, i);
      return {v.value_or(0.0), v ? RuntimeSource::Custom : RuntimeSource::None};
    }
    if (auto v = fallback.compute_ms(g, i))
      return {*v, RuntimeSource::Analytical};
    return {0.0, RuntimeSource::None};
  }
  if (custom)
    if (auto v = custom->lookup(g, i))
      return {*v, RuntimeSource::Custom};
  std::optional<double> v;
  if (primary)
    v = coll ? primary->collective_ms(g, *coll) : primary->compute_ms(g, i);
  if (v)
    return {*v,
            primary->name() == "analytical" ? RuntimeSource::Analytical : RuntimeSource::Benchmark};
  if (coll && table) {
    bool extrapolated = false;
    if (auto t = table->time_ms(*coll, &extrapolated))
      return {*t, extrapolated ? RuntimeSource::TableExtrapolated : RuntimeSource::Table};
  }
  v = coll ? fallback.collective_ms(g, *coll) : fallback.compute_ms(g, i);
  return {v.value_or(0.0), v ? RuntimeSource::Analytical : RuntimeSource::None};
}

RuntimeTable estimate_runtimes(const Graph& g, const CustomEstimates* custom,
                               RuntimeEstimator* primary, RuntimeEstimator& fallback,
                               const CollectiveTable* table) {
  RuntimeTable t;
  t.ms.assign(g.nodes.size(), 0.0);
  t.source.assign(g.nodes.size(), RuntimeSource::None);
  for (NodeId i = 0; i < g.size(); ++i)
    std::tie(t.ms[i], t.source[i]) = estimate_runtime(g, i, custom, primary, fallback, table);
  return t;
}

} // namespace osched
