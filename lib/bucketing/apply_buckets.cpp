#include "bucketing/apply_buckets.h"

#include <algorithm>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "graph/collective_info.h"

namespace osched {
namespace {

// New nodes refer to each other with negative ids until final indices exist.
int64_t new_ref(size_t k) {
  return -static_cast<int64_t>(k) - 1;
}

TensorMeta flat_meta(int64_t numel, const TensorMeta& like) {
  TensorMeta t;
  t.shape = {Dim::of(numel)};
  t.stride = {Dim::of(1)};
  t.dtype = like.dtype;
  t.device = like.device;
  return t;
}

// The flat buffer of a bucket: its members' dtype, or bytes when their
// dtypes differ (an all-gather bucket across dtypes, as upstream's).
struct FlatLayout {
  TensorMeta like;
  int64_t in_numel = 0, out_numel = 0;
};
FlatLayout flat_layout(const std::vector<const TensorMeta*>& ins,
                       const std::vector<const TensorMeta*>& outs) {
  FlatLayout f;
  f.like = *ins.front();
  bool mixed = false;
  for (const TensorMeta* t : ins)
    mixed |= t->dtype != f.like.dtype;
  if (mixed)
    f.like.dtype = DType::UInt8;
  auto count = [&](const TensorMeta* t) {
    return mixed ? t->numel() * dtype_itemsize(t->dtype) : t->numel();
  };
  for (const TensorMeta* t : ins)
    f.in_numel += count(t);
  for (const TensorMeta* t : outs)
    if (t)
      f.out_numel += count(t);
  return f;
}

Value int_list_value(const std::vector<int64_t>& v) {
  Value l;
  l.kind = Value::Kind::List;
  for (int64_t x : v)
    l.list.push_back(Value::integer(x));
  return l;
}

nlohmann::json tool_meta(const char* key, const nlohmann::json& value) {
  return {{"overlap_sched", {{key, value}}}};
}

} // namespace

namespace {

// `movable`, when given, is `g`: its kept nodes are moved, not copied.
BucketedGraph rewrite(const Graph& g, Graph* movable, const std::vector<OverlapInterval>& colls,
                      const std::vector<Bucket>& buckets) {
  BucketedGraph out;
  std::vector<Node> fresh; // new nodes; refs to old nodes use old ids, to new ones new_ref()
  // What replaces a removed old node: (new node, output index or -1).
  std::unordered_map<NodeId, std::pair<size_t, int64_t>> redirect;
  // At the old position of a removed node, these are emitted instead: new
  // nodes (ids into `fresh`) and moved old nodes (old_marker).
  std::unordered_map<NodeId, std::vector<size_t>> emit_at;
  std::unordered_set<NodeId> removed, moved;
  const size_t kOld = size_t{1} << 62; // marks an old node id in emit_at
  auto old_marker = [&](NodeId v) { return kOld | static_cast<size_t>(v); };
  std::unordered_set<std::string> created; // names given to new nodes so far
  auto unique = [&](const std::string& base) {
    std::string name = base;
    for (int i = 1; g.find(name) || created.count(name); ++i)
      name = base + "_" + std::to_string(i);
    created.insert(name);
    return name;
  };

  // Data users per node, counted once: a conversion fuses only when the
  // all-gather is its sole user.
  std::vector<int32_t> uses;
  auto fusable_convert = [&](const Value& in) -> NodeId {
    if (!in.is_ref() || in.ref_output >= 0)
      return -1;
    const Node& c = g.nodes[in.i];
    if (c.target != "prims.convert_element_type.default" || c.args.empty() || !c.args[0].is_ref() ||
        !c.control_deps.empty())
      return -1;
    if (uses.empty()) {
      uses.assign(g.nodes.size(), 0);
      for (const Node& n : g.nodes) {
        for (NodeId d : data_inputs(n))
          ++uses[d];
        for (NodeId d : n.control_deps)
          ++uses[d];
      }
    }
    return uses[in.i] == 1 ? static_cast<NodeId>(in.i) : -1;
  };

  struct Made {
    size_t start, wait;
    const Bucket* bucket;
  };
  std::vector<Made> made;

  int index = 0;
  for (const Bucket& b : buckets) {
    const Node& first = g.nodes[colls[b.members[0]].start];
    const CollectiveInfo info = *decode_collective(g, colls[b.members[0]].start);
    const CollectiveKind kind = info.kind;
    const int64_t group_size = info.group_size;
    std::string base =
        unique("bucket" + std::to_string(index++) + "_" + std::string(collective_kind_name(kind)));
    const char* layout = kind == CollectiveKind::AllReduce ? "flat" : "rank_interleaved";

    Node cat, start, wait, split;
    Value inputs, convert_to;
    inputs.kind = convert_to.kind = Value::Kind::List;
    int converts_fused = 0;
    nlohmann::json fused_names = nlohmann::json::array();
    std::vector<int64_t> out_numels;
    std::vector<const TensorMeta*> in_metas, out_metas;
    nlohmann::json start_names = nlohmann::json::array(), wait_names = nlohmann::json::array();
    std::set<NodeId> start_deps, wait_deps;
    const NodeId new_start_pos = colls[b.start_at].start, new_wait_pos = colls[b.wait_at].wait;
    split.val_kind = ValKind::List;
    for (size_t m : b.members) {
      const OverlapInterval& iv = colls[m];
      const Node& s = g.nodes[iv.start];
      const Node& w = g.nodes[iv.wait];
      in_metas.push_back(ref_meta(g, s.args[0]));
      // A dtype conversion feeding only this all-gather fuses into the
      // bucket's copy-in (as upstream's _pre_bucket_all_gather does).
      const NodeId conv = kind == CollectiveKind::AllGather ? fusable_convert(s.args[0]) : -1;
      if (conv >= 0) {
        inputs.list.push_back(g.nodes[conv].args[0]);
        convert_to.list.push_back(Value::string(std::string(dtype_name(in_metas.back()->dtype))));
        removed.insert(conv);
        fused_names.push_back(g.nodes[conv].name);
        ++converts_fused;
      } else {
        inputs.list.push_back(s.args[0]);
        convert_to.list.push_back(Value::null());
      }
      const TensorMeta* o = w.output();
      out_metas.push_back(o);
      out_numels.push_back(o ? o->numel() : 0);
      split.val.push_back(o ? std::optional<TensorMeta>(*o) : std::nullopt);
      start_names.push_back(s.name);
      wait_names.push_back(w.name);
      start_deps.insert(s.control_deps.begin(), s.control_deps.end());
      wait_deps.insert(w.control_deps.begin(), w.control_deps.end());
      removed.insert(iv.start);
      removed.insert(iv.wait);
    }
    const FlatLayout flat = flat_layout(in_metas, out_metas);
    const TensorMeta* like = &flat.like;
    const int64_t in_numel = flat.in_numel, out_numel = flat.out_numel;
    size_t k_cat = fresh.size(), k_start = k_cat + 1, k_wait = k_cat + 2, k_split = k_cat + 3;

    cat.name = unique(base + "_cat");
    cat.target = "overlap_sched.bucket_cat.default";
    cat.args = {inputs};
    cat.kwargs = {{"group_size", Value::integer(group_size)}, {"layout", Value::string(layout)}};
    if (converts_fused > 0)
      cat.kwargs.emplace_back("convert_to", convert_to);
    cat.val_kind = ValKind::Single;
    cat.val = {flat_meta(in_numel, *like)};
    cat.meta = tool_meta("created", "bucket_cat");
    if (converts_fused > 0)
      cat.meta["overlap_sched"]["replaces"] = fused_names; // the conversions it performs

    start = first;
    start.name = base;
    start.args[0] = Value::node_ref(new_ref(k_cat));
    start.val_kind = ValKind::Single;
    start.val = {flat_meta(out_numel, *like)};
    start.control_deps.assign(start_deps.begin(), start_deps.end());
    start.meta = tool_meta("replaces", start_names);
    start.tags.reset();
    start.is_view.reset();

    wait = g.nodes[colls[b.members[0]].wait];
    wait.name = unique(base + "_wait");
    wait.args = {Value::node_ref(new_ref(k_start))};
    wait.kwargs.clear();
    wait.val_kind = ValKind::Single;
    wait.val = {flat_meta(out_numel, *like)};
    wait.control_deps.assign(wait_deps.begin(), wait_deps.end());
    wait.meta = tool_meta("replaces", wait_names);
    wait.tags.reset();
    wait.is_view.reset();

    split.name = unique(base + "_split");
    split.target = "overlap_sched.bucket_split.default";
    split.args = {Value::node_ref(new_ref(k_wait)), int_list_value(out_numels)};
    split.kwargs = {{"group_size", Value::integer(group_size)}, {"layout", Value::string(layout)}};
    split.meta = tool_meta("created", "bucket_split");

    for (Node* n : {&cat, &start, &wait, &split})
      fresh.push_back(std::move(*n));
    // Raised nodes go just before the merged start, sunk ones just after
    // the split, each in their original order.
    auto& before = emit_at[new_start_pos];
    for (NodeId v : b.hoisted) {
      moved.insert(v);
      before.push_back(old_marker(v));
    }
    before.insert(before.end(), {k_cat, k_start});
    auto& after = emit_at[new_wait_pos];
    after.insert(after.end(), {k_wait, k_split});
    for (NodeId v : b.sunk) {
      moved.insert(v);
      after.push_back(old_marker(v));
    }
    for (size_t i = 0; i < b.members.size(); ++i) {
      redirect[colls[b.members[i]].start] = {k_start, -1};
      redirect[colls[b.members[i]].wait] = {k_split, static_cast<int64_t>(i)};
    }
    made.push_back({k_start, k_wait, &b});
  }

  // Final order and indices.
  std::vector<NodeId> old_final(g.nodes.size(), -1);
  std::vector<NodeId> new_final(fresh.size(), -1);
  std::vector<std::pair<bool, size_t>> seq; // (is_new, id)
  for (NodeId i = 0; i < g.size(); ++i) {
    if (auto it = emit_at.find(i); it != emit_at.end())
      for (size_t k : it->second) {
        if (k & kOld) {
          NodeId v = static_cast<NodeId>(k & ~kOld);
          if (removed.count(v))
            continue; // a conversion fused into the bucket
          old_final[v] = static_cast<NodeId>(seq.size());
          seq.push_back({false, static_cast<size_t>(v)});
          continue;
        }
        new_final[k] = static_cast<NodeId>(seq.size());
        seq.push_back({true, k});
      }
    if (removed.count(i) || moved.count(i))
      continue;
    old_final[i] = static_cast<NodeId>(seq.size());
    seq.push_back({false, static_cast<size_t>(i)});
  }
  auto final_of = [&](int64_t ref, int32_t& output) -> NodeId {
    if (ref < 0)
      return new_final[static_cast<size_t>(-ref - 1)];
    if (auto it = redirect.find(static_cast<NodeId>(ref)); it != redirect.end()) {
      if (it->second.second >= 0)
        output = static_cast<int32_t>(it->second.second);
      return new_final[it->second.first];
    }
    return old_final[ref];
  };

  // Moves by several buckets can leave a node ahead of an input; a stable
  // topological pass (ready nodes in emission order) puts it right after.
  {
    auto node_of = [&](const std::pair<bool, size_t>& e) -> const Node& {
      return e.first ? fresh[e.second] : (movable ? movable->nodes[e.second] : g.nodes[e.second]);
    };
    std::vector<std::vector<NodeId>> deps(seq.size());
    bool sorted = true;
    for (size_t i = 0; i < seq.size(); ++i) {
      const Node& n = node_of(seq[i]);
      auto add = [&](int64_t ref) {
        int32_t ignored = -1;
        NodeId d = final_of(ref, ignored);
        deps[i].push_back(d);
        if (d >= static_cast<NodeId>(i))
          sorted = false;
      };
      for (const auto& a : n.args)
        for_each_ref(a, [&](const Value& v) { add(v.i); });
      for (const auto& kv : n.kwargs)
        for_each_ref(kv.second, [&](const Value& v) { add(v.i); });
      for (NodeId d : n.control_deps)
        add(d);
    }
    if (!sorted) {
      std::vector<std::vector<NodeId>> users(seq.size());
      std::vector<int32_t> missing(seq.size(), 0);
      for (size_t i = 0; i < seq.size(); ++i) {
        std::sort(deps[i].begin(), deps[i].end());
        deps[i].erase(std::unique(deps[i].begin(), deps[i].end()), deps[i].end());
        for (NodeId d : deps[i]) {
          users[d].push_back(static_cast<NodeId>(i));
          ++missing[i];
        }
      }
      std::priority_queue<NodeId, std::vector<NodeId>, std::greater<NodeId>> ready;
      for (size_t i = 0; i < seq.size(); ++i)
        if (missing[i] == 0)
          ready.push(static_cast<NodeId>(i));
      std::vector<std::pair<bool, size_t>> order;
      order.reserve(seq.size());
      while (!ready.empty()) {
        NodeId i = ready.top();
        ready.pop();
        order.push_back(seq[i]);
        for (NodeId u : users[i])
          if (--missing[u] == 0)
            ready.push(u);
      }
      seq = std::move(order); // a cycle cannot arise: merges keep a DAG (bucket_planner.h)
      for (size_t i = 0; i < seq.size(); ++i)
        (seq[i].first ? new_final[seq[i].second] : old_final[seq[i].second]) =
            static_cast<NodeId>(i);
    }
  }

  Graph& ng = out.graph;
  ng = g.without_nodes();
  ng.nodes.reserve(seq.size());
  for (auto [is_new, id] : seq) {
    Node n = is_new ? std::move(fresh[id]) : movable ? std::move(movable->nodes[id]) : g.nodes[id];
    auto remap = [&](Value& v) { v.i = final_of(v.i, v.ref_output); };
    for (auto& a : n.args)
      for_each_ref_mut(a, remap);
    for (auto& kv : n.kwargs)
      for_each_ref_mut(kv.second, remap);
    std::set<NodeId> deps;
    for (NodeId d : n.control_deps) {
      int32_t ignored = -1;
      deps.insert(final_of(d, ignored));
    }
    n.control_deps.assign(deps.begin(), deps.end());
    ng.nodes.push_back(std::move(n));
  }
  ng.rebuild_index();

  // Intervals in the new indices: merged buckets, then the collectives kept.
  std::unordered_set<size_t> bucketed;
  for (const Made& m : made) {
    OverlapInterval iv;
    iv.start = new_final[m.start];
    iv.wait = new_final[m.wait];
    BucketSummary summary;
    std::set<NodeId> hiding;
    for (size_t c : m.bucket->members) {
      bucketed.insert(c);
      summary.members.push_back(g.nodes[colls[c].start].name);
      for (NodeId h : colls[c].hiding)
        hiding.insert(old_final[h]);
      iv.size_bytes += colls[c].size_bytes;
      iv.estimated_ms += colls[c].estimated_ms;
      iv.exposed_ms +=
          colls[c].exposed_ms; // pinned (overlap_deps) only when every member was hidden
    }
    iv.hiding.assign(hiding.begin(), hiding.end());
    const Node& s = ng.nodes[iv.start];
    const CollectiveInfo merged = *decode_collective(ng, iv.start);
    summary.name = s.name;
    summary.kind = std::string(collective_kind_name(merged.kind));
    summary.group = merged.group;
    summary.dtype = std::string(dtype_name(s.output()->dtype));
    summary.size_bytes = iv.size_bytes;
    for (NodeId h : iv.hiding)
      summary.hiding_nodes.push_back(ng.nodes[h].name);
    out.buckets.push_back(std::move(summary));
    out.intervals.push_back(std::move(iv));
  }
  for (size_t c = 0; c < colls.size(); ++c) {
    if (bucketed.count(c))
      continue;
    OverlapInterval iv = colls[c];
    iv.start = old_final[iv.start];
    if (iv.wait >= 0)
      iv.wait = old_final[iv.wait];
    for (NodeId& h : iv.hiding)
      h = old_final[h];
    out.intervals.push_back(std::move(iv));
  }
  std::sort(out.intervals.begin(), out.intervals.end(),
            [](const OverlapInterval& a, const OverlapInterval& b) { return a.start < b.start; });
  return out;
}

} // namespace

Graph merged_collective_graph(const Graph& g, const std::vector<OverlapInterval>& colls,
                              const Bucket& bucket) {
  const Node& first = g.nodes[colls[bucket.members[0]].start];
  std::vector<const TensorMeta*> ins, outs;
  for (size_t m : bucket.members) {
    ins.push_back(ref_meta(g, g.nodes[colls[m].start].args[0]));
    outs.push_back(g.nodes[colls[m].wait].output());
  }
  const FlatLayout flat = flat_layout(ins, outs);
  const TensorMeta* like = &flat.like;
  const int64_t in_numel = flat.in_numel, out_numel = flat.out_numel;
  Graph mini = g.without_nodes();
  Node in;
  in.name = "bucket_input";
  in.op = NodeOp::Placeholder;
  in.target = in.name;
  in.val_kind = ValKind::Single;
  in.val = {flat_meta(in_numel, *like)};
  Node start = first;
  start.args[0] = Value::node_ref(0);
  start.kwargs.erase(std::remove_if(start.kwargs.begin(), start.kwargs.end(),
                                    [](const auto& kv) { return kv.second.is_ref(); }),
                     start.kwargs.end());
  start.control_deps.clear();
  start.val_kind = ValKind::Single;
  start.val = {flat_meta(out_numel, *like)};
  Node out;
  out.name = "output";
  out.op = NodeOp::Output;
  out.target = "output";
  out.args = {Value::node_ref(1)};
  mini.nodes = {std::move(in), std::move(start), std::move(out)};
  mini.rebuild_index();
  return mini;
}

BucketedGraph apply_buckets(Graph g, const std::vector<OverlapInterval>& colls,
                            const std::vector<Bucket>& buckets) {
  BucketedGraph out = rewrite(g, &g, colls, buckets);
  std::vector<Node>().swap(g.nodes); // the moved-from shells
  return out;
}

} // namespace osched
