#include "pipeline/rank_agreement.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "errors/error.h"
#include "files/content_hash.h"
#include "pipeline/schedule_options.h"
#include "safety/group_sequence.h"

namespace osched {
namespace {

using Items = std::vector<std::pair<std::string, std::string>>; // (what, hash)

// A double as text that reads back to the same value.
std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string joined(const Items& items) {
  std::string s;
  for (const auto& [what, hash] : items)
    s += what + '\t' + hash + '\n';
  return s;
}

// The first line of `theirs` that differs from `ours`: its label.
std::string first_difference(const std::string& ours, const std::string& theirs) {
  size_t a = 0, b = 0;
  while (a < ours.size() || b < theirs.size()) {
    const size_t ea = std::min(ours.find('\n', a), ours.size());
    const size_t eb = std::min(theirs.find('\n', b), theirs.size());
    const std::string la = ours.substr(a, ea - a), lb = theirs.substr(b, eb - b);
    if (la != lb) {
      const std::string& l = lb.empty() ? la : lb;
      return l.substr(0, l.find('\t'));
    }
    a = ea + 1;
    b = eb + 1;
  }
  return "";
}

// Every rank's `local`; the first rank whose text differs from rank 0's,
// with the label of its first differing line, or (-1, "").
std::pair<int, std::string> first_divergence(RankContext& ctx, const std::string& local) {
  const std::vector<std::string> all = ctx.allgather_strings(local);
  for (size_t r = 1; r < all.size(); ++r)
    if (all[r] != all[0])
      return {static_cast<int>(r), first_difference(all[0], all[r])};
  return {-1, ""};
}

} // namespace

void agree_on_cost_inputs(RankContext& ctx, const ScheduleConfig& cfg, const ScheduleInput& in) {
  Items items;
  // Cost files by what was read from them, every number exact: what the
  // schedule is computed from, with no second read of the files.
  if (const CollectiveTable* t = in.collective_table()) {
    std::string text;
    for (const CollectiveTableRow& r : t->rows) {
      text += r.group + ' ' + std::to_string(r.group_size) + ' ' + r.collective + ' ' +
              exact(r.extrapolated_beyond_mib);
      for (const auto& [mib, ms] : r.points)
        text += ' ' + exact(mib) + '=' + exact(ms);
      text += ';';
    }
    for (const auto& [from, to] : t->group_mapping)
      text += from + '=' + to + ';';
    items.emplace_back("collective table " + t->path, content_hash(text));
  }
  if (const CustomEstimates* e = in.estimates()) {
    std::string text;
    for (const auto* m : {&e->nodes, &e->ops}) {
      for (const auto& [name, ms] : *m)
        text += name + '=' + exact(ms) + ';';
      text += '|';
    }
    items.emplace_back("runtime estimates " + cfg.runtime_estimates, content_hash(text));
  }
  items.emplace_back("hardware", content_hash(in.hardware.to_json().dump()));
  items.emplace_back("options", content_hash(schedule_options_echo(cfg).dump()));
  const auto [rank, what] = first_divergence(ctx, joined(items));
  if (rank >= 0)
    throw input_error("rank " + std::to_string(rank) + "'s " + what +
                      " differs from rank 0's: every rank must schedule from the same costs, "
                      "or ranks may issue collectives in different orders (nothing written)");
}

void agree_on_written_orders(RankContext& ctx, const Graph& written) {
  Items items;
  const std::vector<GroupSequence> seqs = group_sequences(written);
  const std::vector<std::string> lines = sequence_lines(seqs);
  for (size_t i = 0; i < seqs.size(); ++i)
    items.emplace_back("group " + seqs[i].group, content_hash(lines[i]));
  const auto [rank, what] = first_divergence(ctx, joined(items));
  if (rank >= 0)
    throw input_error("rank " + std::to_string(rank) + "'s written graph issues " +
                      (what.empty() ? std::string("its collectives") : what + "'s collectives") +
                      " in another sequence than rank 0's: the ranks would hang (nothing written)");
}

} // namespace osched
