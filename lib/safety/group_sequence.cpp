#include "safety/group_sequence.h"

#include <map>

#include "ops/collective_info.h"

namespace osched {

std::vector<GroupSequence> group_sequences(const Graph& g) {
  std::map<std::string, GroupSequence> by_group;
  for (NodeId i = 0; i < g.size(); ++i) {
    const std::optional<CollectiveInfo> info = decode_collective(g, i);
    if (!info)
      continue;
    GroupSequence& s = by_group[info->group];
    if (s.issued.empty()) {
      s.group = info->group;
      s.ranks = info->ranks;
    }
    IssuedCollective c;
    c.node = i;
    c.kind = info->kind;
    c.dtype = info->dtype ? std::string(dtype_name(*info->dtype)) : "";
    c.bytes = info->input_bytes.value_or(-1);
    c.reduce_op = info->reduce_op;
    s.issued.push_back(std::move(c));
  }
  std::vector<GroupSequence> out;
  out.reserve(by_group.size());
  for (auto& [name, s] : by_group)
    out.push_back(std::move(s));
  return out;
}

std::string describe_issued(const Graph& g, const IssuedCollective& c) {
  std::string s = g.nodes[static_cast<size_t>(c.node)].name + " (" +
                  std::string(collective_kind_name(c.kind)) + ", " +
                  (c.dtype.empty() ? "unknown dtype" : c.dtype) + ", " +
                  (c.bytes < 0 ? "unknown size" : std::to_string(c.bytes) + " bytes");
  if (!c.reduce_op.empty())
    s += ", " + c.reduce_op;
  return s + ")";
}

std::vector<std::string> sequence_lines(const std::vector<GroupSequence>& seqs) {
  std::vector<std::string> out;
  out.reserve(seqs.size());
  for (const GroupSequence& s : seqs) {
    std::string line = s.group + ":";
    for (const IssuedCollective& c : s.issued) {
      line += ' ';
      line += collective_kind_name(c.kind);
      line += '/' + c.dtype + '/' + std::to_string(c.bytes) + '/' + c.reduce_op;
    }
    out.push_back(std::move(line));
  }
  return out;
}

} // namespace osched
