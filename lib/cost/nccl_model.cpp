#include "cost/nccl_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace osched {
namespace {

enum Algo { kTree = 0, kRing = 1 };
enum Proto { kLL = 0, kLL128 = 1, kSimple = 2 };
enum Hw { kNvlink = 0, kPci = 1, kNet = 2 };

// Constants from NCCL's tuning.cc (ncclTunerConstantsDefaults).
constexpr double kBaseLat[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
constexpr double kHwLat[3][2][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
    {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}},
};
constexpr double kLLMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
constexpr double kPerChMaxRingLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
constexpr double kPerChMaxTreeLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChMaxTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kTreeCorrection[3][24] = {
    {1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5,
     0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6,
     0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0, 1.0},
    {0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5,
     0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9, 0.9},
};

int log2i(int64_t n) {
  int r = 0;
  while (n > 1) {
    n >>= 1;
    ++r;
  }
  return r;
}

// Time in microseconds for one (algo, proto), or a negative value when the
// combination does not apply.
double algo_time_us(const CollectiveShape& c, const HardwareSpec& hw, Algo algo, Proto proto,
                    bool size_correction) {
  const int n_nodes = std::max(1, c.num_nodes);
  const int n_ranks = c.group_size;
  const int cc = static_cast<int>(hw.generation);
  const int scale = n_nodes <= 2 ? n_nodes - 1 : 2;
  const bool ib = n_nodes > 1; // inter-node traffic goes over IB/RoCE

  if (proto == kLL128 && (n_nodes > 2 || (n_nodes > 1 && ib)))
    return -1;

  double bw = n_nodes == 1 ? hw.intra_node_gbps : hw.inter_node_gbps;
  if (n_nodes == 1 && !hw.nvlink)
    bw = std::min(bw, 24.0);
  if (ib && n_nodes > 1) {
    // NIC efficiency grows with node count; multi-rail helps big messages.
    bw *= 0.77 + 0.23 * std::min(1.0, (n_nodes - 1) / 7.0);
    if (n_nodes > 2)
      bw *= std::pow(std::max<double>(static_cast<double>(c.bytes), 5e7) / 5e7, 0.17);
  }
  double bus_bw = bw;
  const double ll_max = kLLMaxBw[n_nodes == 1 ? cc : 0][scale];
  const double nch = hw.nccl_channels;
  if (algo == kRing && proto == kLL) {
    bus_bw = std::min(ll_max, bus_bw * 0.5);
  } else if (algo == kRing && proto == kLL128) {
    bus_bw = std::min(bus_bw * (120.0 / 128.0), nch * kPerChMaxRingLL128Bw[cc][scale]);
  } else if (algo == kTree && proto == kLL) {
    bus_bw = std::min(bus_bw / 3.8, ll_max);
  } else if (algo == kTree && proto == kLL128) {
    double f = n_nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
    bus_bw = std::min(bus_bw * f, nch * kPerChMaxTreeLL128Bw[cc][scale]);
  } else if (algo == kTree && proto == kSimple && c.kind == CollectiveKind::AllReduce) {
    bus_bw = std::min(bus_bw * 0.92, nch * kPerChMaxTreeBw[cc][scale]);
  }
  if (bus_bw <= 0)
    return -1;

  int nsteps = 0;
  switch (c.kind) {
  case CollectiveKind::AllReduce:
    nsteps = 2 * (n_ranks - 1);
    break;
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::Broadcast:
    nsteps = n_ranks - 1;
    break; // ring broadcast: a pipelined chain
  case CollectiveKind::AllToAll:
    nsteps = 2 * (n_ranks - 1);
    break;
  }
  double bandwidth;
  if (algo == kTree && c.kind == CollectiveKind::AllReduce)
    bandwidth = bus_bw * 0.5;
  else if (algo == kRing)
    bandwidth = bus_bw * static_cast<double>(n_ranks) / nsteps;
  else
    bandwidth = bus_bw * 0.5;
  if (bandwidth <= 0)
    return -1;

  const int intra_hw = hw.nvlink ? kNvlink : kPci;
  double lat = kBaseLat[algo][proto];
  double intra_lat = kHwLat[intra_hw][algo][proto];
  const double inter_lat = kHwLat[kNet][algo][proto];
  double net_overhead = n_nodes > 1 ? 1.0 : 0.0;
  if (proto == kSimple && n_nodes > 1)
    net_overhead *= 3.0;
  intra_lat = std::max(intra_lat, net_overhead);
  if (algo == kRing) {
    int inter_steps =
        n_nodes == 1 ? 0 : (c.kind == CollectiveKind::AllReduce ? 2 * (n_nodes - 1) : n_nodes - 1);
    lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
  } else if (c.kind == CollectiveKind::AllReduce) {
    lat += 2 * ((n_ranks / n_nodes - 1) * intra_lat + log2i(n_nodes) * inter_lat);
  }
  if (size_correction && algo == kTree && c.kind == CollectiveKind::AllReduce) {
    int log_size = c.bytes >= 64 ? log2i(c.bytes >> 6) : 0;
    if (log_size >= 0 && log_size < 24)
      bandwidth *= kTreeCorrection[proto][log_size];
  }
  return lat + static_cast<double>(c.bytes) / (1000.0 * bandwidth);
}

} // namespace

namespace {

double fastest_ms(const CollectiveShape& c, const HardwareSpec& hw, bool size_correction) {
  if (c.group_size <= 1)
    return 0;
  double best = std::numeric_limits<double>::infinity();
  for (Algo algo : {kTree, kRing}) {
    // Tree is modelled for all-reduce only.
    if (algo == kTree && c.kind != CollectiveKind::AllReduce)
      continue;
    if (hw.nccl_algo == NcclAlgoChoice::Ring && algo != kRing)
      continue;
    if (hw.nccl_algo == NcclAlgoChoice::Tree && algo != kTree &&
        c.kind == CollectiveKind::AllReduce)
      continue;
    for (Proto proto : {kLL, kLL128, kSimple}) {
      if (hw.nccl_proto != NcclProtoChoice::Auto &&
          static_cast<int>(hw.nccl_proto) - 1 != static_cast<int>(proto))
        continue;
      double t = algo_time_us(c, hw, algo, proto, size_correction);
      if (t >= 0 && t < best)
        best = t;
    }
  }
  return std::isfinite(best) ? best / 1000.0 : 0.0;
}

} // namespace

double estimate_nccl_ms(const CollectiveShape& c, const HardwareSpec& hw) {
  return fastest_ms(c, hw, true);
}

double nccl_ms_floor(const CollectiveShape& c, const HardwareSpec& hw) {
  return fastest_ms(c, hw, false);
}

} // namespace osched
