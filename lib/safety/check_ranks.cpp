#include "safety/check_ranks.h"

#include <algorithm>
#include <map>
#include <optional>

#include "safety/group_sequence.h"

namespace osched {
namespace {

using json = nlohmann::json;

// One rank's view: its graph's sequences by group name.
struct RankView {
  const RankGraph* rg;
  std::map<std::string, const GroupSequence*> by_group;
  std::vector<GroupSequence> seqs;
};

json issued_json(const RankView& v, const IssuedCollective* c) {
  json j = {{"rank", v.rg->rank}, {"file", v.rg->file}};
  if (!c) {
    j["node"] = nullptr;
    return j;
  }
  j["node"] = v.rg->graph.nodes[static_cast<size_t>(c->node)].name;
  j["kind"] = collective_kind_name(c->kind);
  j["dtype"] = c->dtype;
  j["bytes"] = c->bytes;
  j["reduce_op"] = c->reduce_op;
  return j;
}

std::string issued_text(const RankView& v, const IssuedCollective* c) {
  return "rank " + std::to_string(v.rg->rank) + " (" + v.rg->file + ") " +
         (c ? "issues " + describe_issued(v.rg->graph, *c) : std::string("issues nothing more"));
}

RankCheckResult divergence(std::string problem, const std::string& group, std::string line,
                           json ranks, int64_t position = -1) {
  RankCheckResult r;
  r.consistent = false;
  r.line = std::move(line);
  r.detail = {{"consistent", false}, {"problem", std::move(problem)}, {"group", group}};
  if (position >= 0)
    r.detail["position"] = position;
  r.detail["ranks"] = std::move(ranks);
  return r;
}

std::string ranks_text(const std::vector<int64_t>& ranks) {
  std::string s = "[";
  for (size_t i = 0; i < ranks.size(); ++i)
    s += (i ? "," : "") + std::to_string(ranks[i]);
  return s + "]";
}

// The ranks of `views` that belong to `group`: its declared members present,
// or, when no graph declares any, the ranks issuing it. A declaration that
// differs between graphs, or a non-member issuing, is a divergence.
std::optional<RankCheckResult> members_of(const std::string& group,
                                          const std::vector<RankView>& views,
                                          std::vector<const RankView*>& members) {
  const RankView* declared_by = nullptr;
  for (const RankView& v : views) {
    auto it = v.by_group.find(group);
    if (it == v.by_group.end() || it->second->ranks.empty())
      continue;
    if (!declared_by) {
      declared_by = &v;
    } else if (declared_by->by_group.at(group)->ranks != it->second->ranks) {
      const auto& a = declared_by->by_group.at(group)->ranks;
      const auto& b = it->second->ranks;
      return divergence("members", group,
                        "group " + group + ": rank " + std::to_string(declared_by->rg->rank) +
                            " declares members " + ranks_text(a) + ", rank " +
                            std::to_string(v.rg->rank) + " declares " + ranks_text(b),
                        json::array({{{"rank", declared_by->rg->rank}, {"members", a}},
                                     {{"rank", v.rg->rank}, {"members", b}}}));
    }
  }
  members.clear();
  if (!declared_by) {
    for (const RankView& v : views)
      if (v.by_group.count(group))
        members.push_back(&v);
    return std::nullopt;
  }
  const std::vector<int64_t>& decl = declared_by->by_group.at(group)->ranks;
  for (const RankView& v : views) {
    const bool member = std::find(decl.begin(), decl.end(), v.rg->rank) != decl.end();
    if (member)
      members.push_back(&v);
    else if (v.by_group.count(group))
      return divergence("members", group,
                        "group " + group + ": rank " + std::to_string(v.rg->rank) +
                            " issues its collectives but is not among its members " +
                            ranks_text(decl),
                        json::array({{{"rank", v.rg->rank}, {"file", v.rg->file}}}));
  }
  return std::nullopt;
}

// The first position where a member's sequence differs from the first
// member's.
std::optional<RankCheckResult> compare_sequences(const std::string& group,
                                                 const std::vector<const RankView*>& members,
                                                 size_t& length) {
  length = 0;
  if (members.empty())
    return std::nullopt;
  auto seq_of = [&](const RankView* v) -> const std::vector<IssuedCollective>* {
    auto it = v->by_group.find(group);
    return it == v->by_group.end() ? nullptr : &it->second->issued;
  };
  static const std::vector<IssuedCollective> kNone;
  const RankView* ref = members.front();
  const std::vector<IssuedCollective>& a = seq_of(ref) ? *seq_of(ref) : kNone;
  length = a.size();
  for (size_t m = 1; m < members.size(); ++m) {
    const std::vector<IssuedCollective>& b = seq_of(members[m]) ? *seq_of(members[m]) : kNone;
    const size_t n = std::max(a.size(), b.size());
    for (size_t k = 0; k < n; ++k) {
      const IssuedCollective* x = k < a.size() ? &a[k] : nullptr;
      const IssuedCollective* y = k < b.size() ? &b[k] : nullptr;
      if (x && y && *x == *y)
        continue;
      return divergence("sequence", group,
                        "group " + group + ", collective " + std::to_string(k + 1) + ": " +
                            issued_text(*ref, x) + "; " + issued_text(*members[m], y),
                        json::array({issued_json(*ref, x), issued_json(*members[m], y)}),
                        static_cast<int64_t>(k + 1));
    }
  }
  return std::nullopt;
}

// The precedence graph over (group, index): each rank's consecutive
// collectives give an edge, labelled with the first rank that gives it.
struct Precedence {
  std::vector<std::string> group_names;
  std::vector<size_t> first_id; // per group: id of its index 0
  struct Edge {
    size_t to;
    size_t view; // the rank that gives it
    NodeId from_node, to_node;
  };
  std::vector<std::vector<Edge>> out;
};

std::optional<RankCheckResult> find_cycle(const std::vector<RankView>& views,
                                          const std::vector<std::string>& groups,
                                          const std::map<std::string, size_t>& lengths) {
  Precedence p;
  std::map<std::string, size_t> gid;
  size_t total = 0;
  for (const std::string& g : groups) {
    gid[g] = p.first_id.size();
    p.first_id.push_back(total);
    total += lengths.at(g);
  }
  p.out.resize(total);
  struct Label {
    size_t group, index;
  };
  std::vector<Label> label(total);
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t k = 0; k < lengths.at(groups[g]); ++k)
      label[p.first_id[g] + k] = {g, k};
  for (size_t r = 0; r < views.size(); ++r) {
    // The rank's collectives in graph order, as (node, id).
    std::vector<std::pair<NodeId, size_t>> order;
    for (const GroupSequence& s : views[r].seqs) {
      const size_t g = gid.at(s.group);
      for (size_t k = 0; k < s.issued.size(); ++k)
        order.emplace_back(s.issued[k].node, p.first_id[g] + k);
    }
    std::sort(order.begin(), order.end());
    for (size_t i = 1; i < order.size(); ++i) {
      auto& edges = p.out[order[i - 1].second];
      const size_t to = order[i].second;
      if (std::none_of(edges.begin(), edges.end(), [&](const auto& e) { return e.to == to; }))
        edges.push_back({to, r, order[i - 1].first, order[i].first});
    }
  }
  // Iterative depth-first search; a grey node reached again closes a cycle.
  std::vector<uint8_t> colour(total, 0);
  std::vector<std::pair<size_t, size_t>> stack; // (node, next edge)
  std::vector<const Precedence::Edge*> via(total, nullptr);
  std::vector<size_t> parent(total, SIZE_MAX);
  for (size_t s = 0; s < total; ++s) {
    if (colour[s])
      continue;
    stack.push_back({s, 0});
    colour[s] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == p.out[v].size()) {
        colour[v] = 2;
        stack.pop_back();
        continue;
      }
      const Precedence::Edge& e = p.out[v][next++];
      if (colour[e.to] == 0) {
        colour[e.to] = 1;
        parent[e.to] = v;
        via[e.to] = &e;
        stack.push_back({e.to, 0});
        continue;
      }
      if (colour[e.to] != 1)
        continue;
      // The cycle: e.to -> ... -> v -> e.to, read back along the parents.
      std::vector<std::pair<size_t, const Precedence::Edge*>> cyc{{v, &e}};
      for (size_t u = v; u != e.to; u = parent[u])
        cyc.push_back({parent[u], via[u]});
      std::reverse(cyc.begin(), cyc.end());
      auto name = [&](size_t id) {
        return groups[label[id].group] + "#" + std::to_string(label[id].index + 1);
      };
      auto node_name = [&](size_t view, NodeId n) {
        return views[view].rg->graph.nodes[static_cast<size_t>(n)].name;
      };
      // Consecutive edges of one rank read as one "issues A before B".
      std::string line = "cyclic wait across groups:";
      json ranks = json::array();
      for (size_t i = 0; i < cyc.size();) {
        size_t j = i;
        while (j + 1 < cyc.size() && cyc[j + 1].second->view == cyc[i].second->view)
          ++j;
        const size_t view = cyc[i].second->view;
        const size_t from = cyc[i].first, to = cyc[j].second->to;
        const NodeId fn = cyc[i].second->from_node, tn = cyc[j].second->to_node;
        line += std::string(i ? ";" : "") + " rank " + std::to_string(views[view].rg->rank) +
                " issues " + name(from) + " (" + node_name(view, fn) + ") before " + name(to) +
                " (" + node_name(view, tn) + ")";
        ranks.push_back({{"rank", views[view].rg->rank},
                         {"file", views[view].rg->file},
                         {"first", {{"collective", name(from)}, {"node", node_name(view, fn)}}},
                         {"then", {{"collective", name(to)}, {"node", node_name(view, tn)}}}});
        i = j + 1;
      }
      return divergence("cycle", groups[label[cyc.front().first].group], line, std::move(ranks));
    }
  }
  return std::nullopt;
}

} // namespace

RankCheckResult check_ranks(const std::vector<RankGraph>& graphs) {
  std::vector<RankView> views(graphs.size());
  std::vector<std::string> groups;
  for (size_t r = 0; r < graphs.size(); ++r) {
    views[r].rg = &graphs[r];
    views[r].seqs = group_sequences(graphs[r].graph);
  }
  for (RankView& v : views)
    for (const GroupSequence& s : v.seqs) {
      v.by_group[s.group] = &s;
      groups.push_back(s.group);
    }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  std::map<std::string, size_t> lengths;
  std::vector<const RankView*> members;
  size_t collectives = 0;
  for (const std::string& g : groups) {
    if (auto bad = members_of(g, views, members))
      return *bad;
    size_t length = 0;
    if (auto bad = compare_sequences(g, members, length))
      return *bad;
    lengths[g] = length;
    collectives += length;
  }
  if (auto bad = find_cycle(views, groups, lengths))
    return *bad;
  RankCheckResult r;
  r.ranks = graphs.size();
  r.groups = groups.size();
  r.collectives = collectives;
  r.line = "consistent: " + std::to_string(r.ranks) + " ranks, " + std::to_string(r.groups) +
           " groups, " + std::to_string(r.collectives) + " collectives";
  r.detail = {{"consistent", true},
              {"ranks", r.ranks},
              {"groups", r.groups},
              {"collectives", r.collectives}};
  return r;
}

} // namespace osched
