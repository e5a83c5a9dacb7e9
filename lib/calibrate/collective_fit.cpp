#include "calibrate/collective_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace osched {
namespace {

using RowKey = std::tuple<std::string, int64_t, CollectiveKind>; // group, size, kind

CollectiveSample sample_of(const NcclKernel& k, double ms) {
  return {k.kind, k.group, k.group_size, k.input_bytes, ms};
}

// One rank: the fastest sample of each (group, size, kind, bytes) is the
// one least delayed by other ranks' arrival.
std::vector<CollectiveSample> fastest_per_size(const std::vector<KinetoTrace>& traces) {
  std::map<std::tuple<std::string, int64_t, CollectiveKind, int64_t>, double> best;
  for (const KinetoTrace& t : traces)
    for (const NcclKernel& k : t.nccl) {
      auto key = std::make_tuple(k.group, k.group_size, k.kind, k.input_bytes);
      auto [it, fresh] = best.emplace(key, k.dur_us);
      if (!fresh)
        it->second = std::min(it->second, k.dur_us);
    }
  std::vector<CollectiveSample> out;
  for (const auto& [key, us] : best)
    out.push_back(
        {std::get<2>(key), std::get<0>(key), std::get<1>(key), std::get<3>(key), us / 1e3});
  return out;
}

} // namespace

const std::vector<double>& table_sizes_mib() {
  static const std::vector<double> sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  return sizes;
}

std::vector<CollectiveSample> collective_samples(const std::vector<KinetoTrace>& traces,
                                                 std::string* timing) {
  // Ranks: distributedInfo's, else each file its own.
  std::map<int64_t, std::vector<const KinetoTrace*>> by_rank;
  for (size_t i = 0; i < traces.size(); ++i)
    by_rank[traces[i].rank >= 0 ? traces[i].rank : -1 - static_cast<int64_t>(i)].push_back(
        &traces[i]);
  if (by_rank.size() < 2) {
    if (timing)
      *timing =
          "one rank traced: arrival skew not removed; the fastest sample of each size is used";
    return fastest_per_size(traces);
  }
  // An instance: (group, sequence number) where every kernel of the group
  // on the rank has one, else (group, its order within the group).
  using Instance = std::pair<std::string, int64_t>;
  std::map<Instance, std::vector<const NcclKernel*>> instances;
  for (const auto& [rank, files] : by_rank) {
    std::vector<const NcclKernel*> kernels;
    for (const KinetoTrace* t : files)
      for (const NcclKernel& k : t->nccl)
        kernels.push_back(&k);
    std::stable_sort(kernels.begin(), kernels.end(), [](const NcclKernel* a, const NcclKernel* b) {
      return a->start_us < b->start_us;
    });
    std::map<std::string, bool> all_seq;
    for (const NcclKernel* k : kernels) {
      auto [it, fresh] = all_seq.emplace(k->group, true);
      it->second = it->second && k->seq.has_value();
    }
    std::map<std::string, int64_t> order;
    for (const NcclKernel* k : kernels) {
      const int64_t index = order[k->group]++;
      instances[{k->group, all_seq[k->group] ? *k->seq : index}].push_back(k);
    }
  }
  std::vector<CollectiveSample> out;
  size_t matched = 0, unmatched = 0;
  for (const auto& [key, ks] : instances) {
    bool same = ks.size() >= 2;
    for (const NcclKernel* k : ks)
      same = same && k->kind == ks[0]->kind && k->input_bytes == ks[0]->input_bytes &&
             k->group_size == ks[0]->group_size;
    if (!same) {
      ++unmatched;
      continue;
    }
    // The ranks' kernels end together; the last to start waited for no one,
    // so its duration is the transfer's. Durations need no common clock.
    double us = ks[0]->dur_us;
    for (const NcclKernel* k : ks)
      us = std::min(us, k->dur_us);
    out.push_back(sample_of(*ks[0], us / 1e3));
    ++matched;
  }
  if (timing)
    *timing = "arrival skew removed across " + std::to_string(by_rank.size()) + " ranks (" +
              std::to_string(matched) + " instances matched, " + std::to_string(unmatched) +
              " not found on every rank alike and left out)";
  return out;
}

CollectiveCalibration calibrate_collectives(const std::vector<KinetoTrace>& traces) {
  CollectiveCalibration c;
  std::vector<CollectiveSample> samples = collective_samples(traces, &c.timing);
  if (samples.empty())
    throw input_error("no collective kernel with its metadata in the traces");
  std::map<RowKey, std::vector<std::pair<double, double>>> groups; // (MiB, ms)
  for (const CollectiveSample& s : samples)
    groups[{s.group, s.group_size, s.kind}].emplace_back(static_cast<double>(s.bytes) / kTableMiB,
                                                         s.ms);
  c.table.path = "calibrated";
  for (const auto& [key, pts] : groups) {
    CollectiveFit f;
    f.samples = pts.size();
    f.min_mib = f.max_mib = pts[0].first;
    double sx = 0, sy = 0;
    std::set<double> sizes;
    for (const auto& [x, y] : pts) {
      sx += x;
      sy += y;
      f.min_mib = std::min(f.min_mib, x);
      f.max_mib = std::max(f.max_mib, x);
      sizes.insert(x);
    }
    const double n = static_cast<double>(pts.size());
    const double mx = sx / n, my = sy / n;
    if (sizes.size() >= 2) {
      // Least squares y = a + b x; a negative latency or slope is refitted
      // without that term.
      double sxx = 0, sxy = 0;
      for (const auto& [x, y] : pts) {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
      }
      f.ms_per_mib = sxy / sxx;
      f.latency_ms = my - f.ms_per_mib * mx;
      if (f.ms_per_mib < 0) {
        f.ms_per_mib = 0;
        f.latency_ms = my;
      } else if (f.latency_ms < 0) {
        double num = 0, den = 0;
        for (const auto& [x, y] : pts) {
          num += x * y;
          den += x * x;
        }
        f.latency_ms = 0;
        f.ms_per_mib = num / den;
      }
    } else if (mx >= 1.0) {
      f.ms_per_mib = my / mx; // one size of 1 MiB or more: bandwidth only
    } else {
      f.latency_ms = my; // one small size: latency only
    }
    double sq = 0;
    for (const auto& [x, y] : pts) {
      const double r = y - (f.latency_ms + f.ms_per_mib * x);
      sq += r * r;
    }
    f.rms_residual_ms = std::sqrt(sq / n);
    CollectiveTableRow row;
    row.group = std::get<0>(key).empty() ? "default" : std::get<0>(key);
    row.group_size = static_cast<int>(std::get<1>(key));
    row.collective = table_collective_name(std::get<2>(key));
    for (double mib : table_sizes_mib()) {
      const double ms = f.latency_ms + f.ms_per_mib * mib;
      // A table holds times of at most 1e9 ms (its reader's limit).
      if (!std::isfinite(ms) || ms > 1e9)
        throw input_error("the fit for group " + row.group + ", size " +
                          std::to_string(row.group_size) + ", " + row.collective +
                          " gives more than 1e9 ms at " + std::to_string(static_cast<int>(mib)) +
                          " MiB: its samples are not measurements of one collective");
      row.points.emplace_back(mib, ms);
    }
    // Only empty messages measured: every size is the fit's, past one byte
    // (0 would read as "nothing said", and every size as measured).
    row.extrapolated_beyond_mib = f.max_mib > 0 ? 2 * f.max_mib : 1.0 / (1 << 20);
    c.table.rows.push_back(std::move(row));
    c.fits.push_back(f);
  }
  return c;
}

} // namespace osched
