#pragma once
// Runtime estimates of compute nodes and collectives. The scheduler consumes
// one RuntimeTable; how it was filled (analytical models, user estimates,
// GPU benchmarks aligned across ranks) is decided before scheduling.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/collective_table.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "ops/collective_info.h"

namespace osched {

// The pluggable part: the analytical models and the GPU benchmark estimator
// implement this. nullopt means "no estimate here, fall back".
class RuntimeEstimator {
public:
  virtual ~RuntimeEstimator() = default;
  virtual std::string name() const = 0;
  virtual std::optional<double> compute_ms(const Graph& g, NodeId n) = 0;
  // `c` is node c.node, decoded once by estimate_runtimes.
  virtual std::optional<double> collective_ms(const Graph& g, const CollectiveInfo& c) = 0;
};

// Which kernels the model costs: every kernel (the default), or only the
// matmul and attention ops at their peak rate with no launch cost, as the
// PyTorch pass this tool ports did (other nodes 0 unless the user estimates
// them): for parity with upstream's tests and published traces.
enum class CostModel : uint8_t { Kernels, ComputeOnly };

// Every kernel by roofline: the larger of its FLOPs at the tensor-core
// rate times matmul_efficiency (matmul and attention) and its bytes read
// and written at HBM bandwidth, plus a launch overhead
// (docs/cost-models.md); the NCCL model for collectives.
class AnalyticalEstimator : public RuntimeEstimator {
public:
  explicit AnalyticalEstimator(HardwareSpec hw, CostModel model = CostModel::Kernels)
      : hw_(std::move(hw)), model_(model) {}
  std::string name() const override { return "analytical"; }
  std::optional<double> compute_ms(const Graph& g, NodeId n) override;
  std::optional<double> collective_ms(const Graph& g, const CollectiveInfo& c) override;
  const HardwareSpec& hardware() const { return hw_; }

private:
  HardwareSpec hw_;
  CostModel model_;
};

// User-supplied estimates (--runtime-estimates FILE.json):
//   {"version": 1, "nodes": {"mm_3": 0.42}, "ops": {"aten.mm.default": 1.0,
//    "aten.mm.default|bfloat16[8192,4096]|bfloat16[4096,4096]": 0.61}}
// A node name wins over an op+shape key, which wins over a bare target.
struct CustomEstimates {
  std::map<std::string, double> nodes;
  std::map<std::string, double> ops;
  std::optional<double> lookup(const Graph& g, NodeId n) const;
  bool empty() const { return nodes.empty() && ops.empty(); }
};

// Throws input_error("FILE: field: reason").
CustomEstimates load_custom_estimates(const std::string& path);
// The same on the file's text; `path` names it in errors.
CustomEstimates parse_custom_estimates(const std::string& text, const std::string& path);

// Bytes a kernel moves for tensor `t`: its elements, counting one along a
// broadcast (stride 0) dim; 0 when a size has no value.
int64_t bytes_accessed(const TensorMeta& t);
// Bytes node `id` reads (every tensor argument) and writes (every output).
double kernel_bytes(const Graph& g, NodeId id);

// "TARGET|dtype[d0,d1]|..." over the node's tensor inputs in argument order.
std::string op_shape_key(const Graph& g, NodeId n);

// Table: a measured collective table's value; TableExtrapolated: past the
// sizes a calibrated table was measured at (its fit).
enum class RuntimeSource : uint8_t {
  None,
  Analytical,
  Custom,
  Benchmark,
  Table,
  TableExtrapolated
};
std::string_view runtime_source_name(RuntimeSource s);

struct RuntimeTable {
  std::vector<double> ms;            // per node; 0 for nodes that are neither
  std::vector<RuntimeSource> source; // where each estimate came from
};

// Custom estimates first, then `primary`, then `fallback` (analytical).
RuntimeTable estimate_runtimes(const Graph& g, const CustomEstimates* custom,
                               RuntimeEstimator* primary, RuntimeEstimator& fallback,
                               const CollectiveTable* table = nullptr);

// The same for node `n` alone: it depends only on the node and the tensors
// it reads, so a node that reads the same tensors elsewhere has the same.
// `table`, when given, costs the collectives it has a row for, after user
// estimates and measurements and before the models.
std::pair<double, RuntimeSource>
estimate_runtime(const Graph& g, NodeId n, const CustomEstimates* custom, RuntimeEstimator* primary,
                 RuntimeEstimator& fallback, const CollectiveTable* table = nullptr);

} // namespace osched
