// calibrate TRACE... -o TABLE [--estimates EST.json]: PyTorch profiler
// traces -> a measured collective table (--collective-table) and per-op
// compute estimates (--runtime-estimates).

#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "calibrate/collective_fit.h"
#include "calibrate/op_profile.h"
#include "commands.h"
#include "cost/hardware.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "files/output_batch.h"
#include "format/graph_file.h"
#include "text/escape.h"

namespace osched::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> traces;
  std::string out;
  std::string estimates;
  bool quiet = false;
};

std::string fmt(double v, const char* f = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

int run(const CalibrateArgs& a) {
  // Nothing written over a trace, nor the table and the estimates into one file.
  std::vector<NamedPath> inputs;
  for (const std::string& t : a.traces)
    inputs.push_back({"TRACE", t});
  if (std::string clash = output_clash(inputs, {{"-o", a.out}, {"--estimates", a.estimates}});
      !clash.empty())
    throw input_error(clash);
  std::vector<KinetoTrace> traces;
  int64_t untagged = 0;
  for (const std::string& path : a.traces) {
    traces.push_back(read_kineto_trace(path));
    untagged += traces.back().nccl_without_metadata;
  }
  CollectiveCalibration cal;
  const std::string which = a.traces.size() == 1 ? a.traces[0] : std::string("the traces");
  size_t with_metadata = 0;
  for (const KinetoTrace& t : traces)
    with_metadata += t.nccl.size();
  try {
    cal = calibrate_collectives(traces);
  } catch (const Error& e) {
    // Three causes, three messages: no usable kernel, kernels that match
    // across no ranks, a fit that is not one collective's.
    if (with_metadata == 0)
      throw input_error(
          which +
          ": no NCCL collective kernel with PyTorch's collective metadata ('Collective name', "
          "'In msg nelems', 'Group size', 'dtype')" +
          (untagged > 0 ? " (" + std::to_string(untagged) +
                              " NCCL kernel(s) without it: send/recv, or a PyTorch before 2.1)"
                        : ""));
    if (cal.fits.empty() && std::string(e.what()).rfind("no collective kernel", 0) == 0)
      throw input_error(which + ": " + std::to_string(with_metadata) +
                        " NCCL collective kernel(s), but no collective found on every rank alike "
                        "(by sequence number, or group, kind and size in order): are these "
                        "traces of the same steps?");
    throw input_error(which + ": " + e.what());
  }
  std::vector<std::string> header = {
      "calibrated by overlap-sched from " + std::to_string(traces.size()) +
          " trace(s): " + cal.timing,
      "each row: latency + size / bandwidth, least squares over the samples; sizes past "
      "twice the largest measured are the fit's (marked below)"};
  std::vector<std::string> notes;
  for (const CollectiveFit& f : cal.fits)
    notes.push_back(std::to_string(f.samples) + " samples, " + fmt(f.min_mib, "%.3g") + "-" +
                    fmt(f.max_mib, "%.3g") + " MiB measured, latency " + fmt(f.latency_ms, "%.4f") +
                    " ms, " +
                    (f.ms_per_mib > 0 ? fmt(1.048576 / f.ms_per_mib, "%.1f") + " GB/s"
                                      : std::string("no bandwidth term")) +
                    ", rms residual " + fmt(f.rms_residual_ms, "%.4f") + " ms");
  const std::string table_text = write_collective_table(cal.table, header, notes);
  bool any_shapes = false;
  for (const KinetoTrace& t : traces)
    any_shapes = any_shapes || t.has_shapes;
  const std::map<std::string, double> op_ms = op_median_ms(traces);
  const nlohmann::json est = {{"version", 1}, {"ops", op_ms}};
  OutputBatch batch;
  batch.add(a.out, [&](const Emit& emit) { emit(table_text); });
  if (!a.estimates.empty() && any_shapes)
    batch.add(a.estimates, [&](const Emit& emit) { emit(est.dump(1) + "\n"); });
  batch.commit();
  if (!a.quiet) {
    std::cerr << "calibrate: " << cal.timing << "\n";
    for (size_t i = 0; i < cal.table.rows.size(); ++i) {
      const CollectiveTableRow& r = cal.table.rows[i];
      std::cerr << "calibrate: " << escape_line(r.group) << " " << r.group_size << " "
                << r.collective << ": " << notes[i] << "; extrapolated past "
                << fmt(r.extrapolated_beyond_mib, "%.3g") << " MiB\n";
    }
    if (untagged > 0)
      std::cerr << "calibrate: note: " << untagged
                << " NCCL kernel(s) without collective metadata left out\n";
    // Against the profiled GPU's peak where it is one the tool knows.
    std::string device;
    for (const KinetoTrace& t : traces)
      if (device.empty())
        device = t.device_name;
    const HardwareSpec hw = default_hardware(is_known_gpu(device) ? device : "H100-SXM");
    for (const OpClassRoofline& r : roofline_fractions(traces, hw))
      std::cerr << "calibrate: " << r.target << ": " << r.ops << " op(s), median "
                << fmt(100 * r.median_fraction, "%.1f") << "% of the tensor-core peak ("
                << escape_line(is_known_gpu(device) ? device : "H100-SXM assumed") << ")\n";
    if (!a.estimates.empty())
      std::cerr << (any_shapes ? "calibrate: " + std::to_string(op_ms.size()) +
                                     " op+shape estimate(s) written to " + escape_line(a.estimates)
                               : "calibrate: note: no CPU op recorded its input shapes "
                                 "(profile with record_shapes=True): no compute estimates written")
                << "\n";
  }
  return kOk;
}

} // namespace

void add_calibrate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "calibrate", "Turn PyTorch profiler (Kineto) traces into a measured collective table "
                   "(--collective-table) and per-op compute estimates (--runtime-estimates)");
  auto a = std::make_shared<CalibrateArgs>();
  cmd->add_option("TRACE", a->traces, "Kineto trace, .json or .json.gz, one per rank")->required();
  cmd->add_option("-o,--output", a->out, "collective table to write")->required();
  cmd->add_option("--estimates", a->estimates,
                  "runtime estimates to write from ops profiled with record_shapes=True");
  cmd->add_flag("-q,--quiet", a->quiet, "no summary on stderr");
  cmd->footer("Example:\n"
              "  overlap-sched calibrate rank0.json.gz rank1.json.gz -o my.table --estimates "
              "my.est.json\n"
              "  overlap-sched schedule graph.json -o out.json --collective-table my.table "
              "--runtime-estimates my.est.json");
  cmd->callback([&exit_code, a] { exit_code = run_guarded([&] { return run(*a); }); });
}

} // namespace osched::cli
