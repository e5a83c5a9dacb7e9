#include "pipeline/schedule_options.h"
#include "errors/error.h"
#include "text/json_limits.h"

#include <climits>
#include <sstream>

#include "cost/hardware.h"
#include "errors/error.h"
#include "ops/op_barrier.h"
#include "text/escape.h"

namespace osched {
namespace {

std::string fmt_number(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

std::string check_gpu(const ScheduleConfig& c) {
  if (c.gpu.empty() || is_known_gpu(c.gpu))
    return "";
  return "unknown GPU '" + escape_excerpt(c.gpu) +
         "' (known: names containing A100, V100, H100, H200, B100, B200 or GB200)";
}

std::string check_gpus_per_node(const ScheduleConfig& c) {
  if (!c.gpus_per_node || (*c.gpus_per_node >= 1 && *c.gpus_per_node <= 1024))
    return "";
  return "must be from 1 to 1024, got " + std::to_string(*c.gpus_per_node);
}

// Names of call targets: no blanks inside a name, no empty names.
std::string check_assume_pure(const ScheduleConfig& c) {
  for (const std::string& item : split_target_list(c.scheduler.assume_pure)) {
    if (item.empty())
      return "expected TARGET[,TARGET...], got an empty name in '" +
             escape_quoted(c.scheduler.assume_pure) + "'";
    if (item.find_first_of(" \t\n") != std::string::npos)
      return "'" + escape_quoted(item) + "' is not a call target";
  }
  return "";
}

template <typename T>
OptionSpec row(std::string_view flag, std::string_view key, std::string_view help,
               OptionFieldRef<T> field) {
  OptionSpec s;
  s.flag = flag;
  s.key = key;
  s.help = help;
  s.field = field;
  return s;
}

// A number's allowed values: [lo, hi], or (lo, hi] when lo_open.
struct Range {
  double lo, hi;
  bool lo_open;
};

OptionSpec number(std::string_view flag, std::string_view key, std::string_view help,
                  OptionFieldRef<double> field, Range range) {
  OptionSpec s = row(flag, key, help, field);
  s.lo = range.lo;
  s.hi = range.hi;
  s.lo_open = range.lo_open;
  return s;
}

// Counts: >= 0 (the config reader keeps them within 32 bits).
OptionSpec count(std::string_view flag, std::string_view key, std::string_view help,
                 OptionFieldRef<int> field) {
  OptionSpec s = row(flag, key, help, field);
  s.lo = 0;
  s.hi = INT_MAX;
  return s;
}

// An enum member of ScheduleConfig and the table of its names.
template <auto Member, const auto& Names> ChoiceField choice_field() {
  return {[](const ScheduleConfig& c) { return choice_name(Names, c.*Member); },
          [](ScheduleConfig& c, std::string_view word) {
            for (const auto& n : Names)
              if (n.name == word) {
                c.*Member = n.value;
                return true;
              }
            return false;
          }};
}

template <auto Member, const auto& Names>
OptionSpec choice(std::string_view flag, std::string_view key, std::string_view help,
                  std::vector<std::string_view> order) {
  OptionSpec s;
  s.flag = flag;
  s.key = key;
  s.help = help;
  s.field = choice_field<Member, Names>();
  s.choices = std::move(order);
  return s;
}

std::vector<OptionSpec> build_table() {
  using C = ScheduleConfig;
  std::vector<OptionSpec> t;
  t.push_back(number("--max-in-flight-gb", "max_in_flight_gb", "max GB of collectives in flight",
                     [](C& c) -> double& { return c.scheduler.max_in_flight_gb; }, {0, 1e9, true}));
  t.push_back(count("--max-compute-pre-fetch", "max_compute_pre_fetch",
                    "max compute nodes a collective may be started ahead of its use",
                    [](C& c) -> int& { return c.scheduler.max_compute_pre_fetch; }));
  t.push_back(number("--compute-overlap-multiplier", "compute_overlap_multiplier",
                     "scale of compute time available to hide collectives",
                     [](C& c) -> double& { return c.scheduler.compute_overlap_multiplier; },
                     {0, 1e6, false}));
  t.push_back(count("--max-coll-distance", "max_coll_distance",
                    "how many of the next unscheduled collectives each compute node may start",
                    [](C& c) -> int& { return c.scheduler.max_coll_distance; }));
  t.push_back(row<bool>("--preserve-group-order", "preserve_group_order",
                        "never change a process group's collective issue order (not upstream; "
                        "hang-safe even if ranks could decide differently)",
                        [](C& c) -> bool& { return c.scheduler.preserve_group_order; }));
  t.push_back(row<std::string>(
      "--assume-pure", "assume_pure",
      "TARGET[,TARGET...]: ops to treat as pure although the tool cannot classify them "
      "(\"mylib.f\" or \"mylib.f.default\"); every other unknown op, and every "
      "communication op that is not a recognised collective, keeps its place among collectives",
      [](C& c) -> std::string& { return c.scheduler.assume_pure; }));
  t.back().check = check_assume_pure;
  t.push_back(
      row<bool>("--release-memory-early", "release_memory_early",
                "run nodes that free more than they allocate as soon as they are ready (not "
                "upstream; lowers the peak)",
                [](C& c) -> bool& { return c.scheduler.release_memory_early; }));
  t.push_back(number("--max-memory-increase-gb", "max_memory_increase_gb",
                     "peak memory may grow by max(this, ratio x baseline peak)",
                     [](C& c) -> double& { return c.scheduler.max_memory_increase_gb; },
                     {0, 1e9, false}));
  t.push_back(number(
      "--max-memory-increase-ratio", "max_memory_increase_ratio", "see --max-memory-increase-gb",
      [](C& c) -> double& { return c.scheduler.max_memory_increase_ratio; }, {0, 1e6, false}));
  t.push_back(choice<&C::policy, kPolicyNames>(
      "--policy", "policy",
      "improved (the default: upstream's greedy, then a bounded local search that keeps a move "
      "only if the simulated step shortens within the memory budget) or upstream (PyTorch's "
      "greedy alone, for parity)",
      {"upstream", "improved"}));
  t.push_back(count("--policy-time-ms", "policy_time_ms",
                    "work budget of the improved policy, in milliseconds of the reference machine "
                    "(counted as trial simulations, so runs are reproducible)",
                    [](C& c) -> int& { return c.policy_time_ms; }));
  t.push_back(choice<&C::collective_estimator, kCollectiveEstimatorNames>(
      "--collective-estimator", "collective_estimator",
      "analytical or benchmark (NCCL on local GPUs, under mpirun)", {"analytical", "benchmark"}));
  t.push_back(row<bool>("--benchmark-compute", "benchmark_compute", "benchmark matmuls with cuBLAS",
                        [](C& c) -> bool& { return c.benchmark_compute; }));
  t.push_back(
      row<std::string>("--benchmark-cache", "benchmark_cache",
                       "JSON cache of aligned benchmark medians, read and updated (by rank 0)",
                       [](C& c) -> std::string& { return c.benchmark_cache; }));
  t.back().benchmark_only = true;
  t.push_back(choice<&C::benchmark_backend, kBenchmarkBackendNames>(
      "--benchmark-backend", "benchmark_backend",
      "gpu (cuBLAS/NCCL) or synthetic (per-rank CPU model, for testing alignment)",
      {"gpu", "synthetic"}));
  t.back().benchmark_only = true;
  t.push_back(
      row<std::string>("--runtime-estimates", "runtime_estimates",
                       "JSON of user estimates in ms (by node name or op), taking precedence",
                       [](C& c) -> std::string& { return c.runtime_estimates; }));
  t.push_back(row<std::string>(
      "--collective-table", "collective_table",
      "measured collective times (autoparallel's colls*.table format), after user estimates",
      [](C& c) -> std::string& { return c.collective_table; }));
  t.push_back(choice<&C::cost_model, kCostModelNames>(
      "--cost-model", "cost_model",
      "kernels (every kernel: matmul and attention by roofline at matmul_efficiency, the rest by "
      "bytes / HBM bandwidth, plus a launch) or compute-only (matmul and attention at peak, "
      "others 0: the PyTorch pass this tool ports)",
      {"kernels", "compute-only"}));
  t.push_back(row<bool>("--fusion", "fusion",
                        "cost each chain of pointwise, reduction and view ops as one fused "
                        "kernel (bytes entering and leaving it), as Inductor generates",
                        [](C& c) -> bool& { return c.fusion; }));
  t.push_back(row<std::string>(
      "--gpu", "", "target GPU for the analytical model (H100-SXM, H200, A100-SXM, B200, V100)",
      [](C& c) -> std::string& { return c.gpu; }));
  t.back().check = check_gpu;
  t.back().echo = false; // the report echoes the resolved hardware
  t.push_back(row<std::optional<int>>("--gpus-per-node", "", "GPUs per node of the target machine",
                                      [](C& c) -> std::optional<int>& { return c.gpus_per_node; }));
  t.back().check = check_gpus_per_node;
  t.back().echo = false;
  t.push_back(row<nlohmann::json>("", "hardware",
                                  "hardware fields over the graph's own (graph-format.md)",
                                  [](C& c) -> nlohmann::json& { return c.hardware_overrides; }));
  t.back().echo = false;
  t.push_back(row<bool>("--collective-bucketing", "collective_bucketing",
                        "merge collectives the schedule overlaps with the same compute",
                        [](C& c) -> bool& { return c.collective_bucketing; }));
  t.push_back(number("--bucket-max-gb", "bucket_max_gb", "max bytes of one bucket, in GB",
                     [](C& c) -> double& { return c.bucket_max_gb; }, {0, 1e9, true}));
  t.push_back(choice<&C::pre_bucketing, kPreBucketingNames>(
      "--pre-bucketing", "pre_bucketing",
      "auto (the default: with --collective-bucketing, FSDP-style all-gathers of one parameter "
      "and reduce-scatters flowing to the output are also merged before scheduling, up to the "
      "size that saturates their group's bandwidth, and kept when the written graph's step is "
      "shorter) or off",
      {"auto", "off"}));
  t.push_back(
      row<bool>("--insert-overlap-deps", "insert_overlap_deps",
                "write control_deps that pin each hidden collective around its hiding compute",
                [](C& c) -> bool& { return c.insert_overlap_deps; }));
  return t;
}

} // namespace

const std::vector<OptionSpec>& schedule_options() {
  static const std::vector<OptionSpec> table = build_table();
  return table;
}

ScheduleConfigDraft apply_schedule_config(const std::string& text, const std::string& path,
                                          ScheduleConfigDraft draft,
                                          const std::function<bool(std::string_view flag)>& given) {
  ScheduleConfig& cfg = draft.values;
  const nlohmann::json j = parse_json_limited(text, path + ": " + kMalformedJson);
  if (!j.is_object())
    throw input_error(path + ": config must be a JSON object");
  for (const auto& item : j.items()) {
    const std::string key = item.key();
    const nlohmann::json& v = item.value();
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : schedule_options())
      if (!s.key.empty() && s.key == key)
        spec = &s;
    if (!spec)
      throw input_error(path + ": " + key + ": unknown option");
    auto fail = [&](const char* why) { throw input_error(path + ": " + key + ": " + why); };
    auto int32_of = [&](const nlohmann::json& n) {
      if (!n.is_number_integer() || n.get<int64_t>() < INT32_MIN || n.get<int64_t>() > INT32_MAX ||
          (n.is_number_unsigned() && n.get<uint64_t>() > INT32_MAX))
        fail("must be an integer that fits in 32 bits");
      return static_cast<int>(n.get<int64_t>());
    };
    const bool keep = !spec->flag.empty() && given && given(spec->flag);
    std::visit(OptionVisitor{
                   [&](OptionFieldRef<double> f) {
                     if (!v.is_number())
                       fail("must be a number");
                     if (!keep)
                       f(cfg) = v.get<double>(); // ranges: finish_schedule_config
                   },
                   [&](OptionFieldRef<int> f) {
                     if (!keep)
                       f(cfg) = int32_of(v);
                   },
                   [&](OptionFieldRef<std::optional<int>> f) {
                     if (!keep)
                       f(cfg) = int32_of(v);
                   },
                   [&](OptionFieldRef<bool> f) {
                     if (!v.is_boolean())
                       fail("must be true or false");
                     if (!keep)
                       f(cfg) = v.get<bool>();
                   },
                   [&](OptionFieldRef<std::string> f) {
                     if (!v.is_string())
                       fail("must be a string");
                     if (!keep)
                       f(cfg) = v.get<std::string>();
                   },
                   [&](ChoiceField) {
                     if (!v.is_string())
                       fail("must be a string");
                     if (!keep)
                       draft.choices[key] = v.get<std::string>();
                   },
                   [&](OptionFieldRef<nlohmann::json> f) {
                     // Checked here too, so a bad value is blamed on this
                     // file and not on the graph it is later applied over.
                     with_context(path, [&] {
                       HardwareSpec probe = default_hardware();
                       apply_hardware_overrides(probe, v);
                     });
                     if (!keep)
                       f(cfg) = v;
                   },
               },
               spec->field);
  }
  return draft;
}

namespace {

// Sets the draft's choices and checks every value, in table order.
ScheduleConfig checked(const ScheduleConfig& given_cfg,
                       const std::map<std::string, std::string, std::less<>>& choices) {
  ScheduleConfig cfg = given_cfg; // the accessors hand out references to a copy
  for (const OptionSpec& s : schedule_options()) {
    const std::string name(s.flag.empty() ? s.key : s.flag);
    auto fail = [&](const std::string& why) { throw input_error(name + ": " + why); };
    if (const auto* f = std::get_if<OptionFieldRef<double>>(&s.field)) {
      const double v = (*f)(cfg);
      if (!(s.lo_open ? v > s.lo : v >= s.lo) || !(v <= s.hi))
        fail(std::string("must be ") + (s.lo_open ? "> " : ">= ") + fmt_number(s.lo) +
             " and <= " + fmt_number(s.hi) + ", got " + fmt_number(v));
    } else if (const auto* f = std::get_if<OptionFieldRef<int>>(&s.field)) {
      if ((*f)(cfg) < s.lo)
        fail("must be >= " + fmt_number(s.lo));
    } else if (const auto* f = std::get_if<ChoiceField>(&s.field)) {
      const auto given = choices.find(s.key);
      if (given != choices.end() && !f->set(cfg, given->second)) {
        std::string expected;
        for (size_t i = 0; i < s.choices.size(); ++i)
          expected += (i == 0                      ? ""
                       : i + 1 == s.choices.size() ? " or "
                                                   : ", ") +
                      std::string(s.choices[i]);
        fail("expected " + expected + ", got '" + escape_quoted(given->second) + "'");
      }
    }
    if (s.check)
      if (std::string why = s.check(cfg); !why.empty())
        fail(why);
  }
  return cfg;
}

} // namespace

ScheduleConfig finish_schedule_config(const ScheduleConfigDraft& draft) {
  return checked(draft.values, draft.choices);
}

void check_schedule_options(const ScheduleConfig& cfg) {
  (void)checked(cfg, {});
}

nlohmann::json schedule_options_echo(const ScheduleConfig& given_cfg) {
  ScheduleConfig cfg = given_cfg; // the accessors hand out references to a copy
  nlohmann::json out = nlohmann::json::object();
  const bool benchmarking = cfg.benchmarking();
  for (const OptionSpec& s : schedule_options()) {
    if (!s.echo)
      continue;
    const std::string key(s.key);
    if (s.benchmark_only && !benchmarking) {
      out[key] = "";
      continue;
    }
    std::visit(OptionVisitor{[&](OptionFieldRef<std::optional<int>> f) {
                               if (f(cfg))
                                 out[key] = *f(cfg);
                             },
                             [&](ChoiceField f) { out[key] = std::string(f.get(cfg)); },
                             [&](auto f) { out[key] = f(cfg); }},
               s.field);
  }
  return out;
}

} // namespace osched
