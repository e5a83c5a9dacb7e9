#include "bucketing/apply_buckets.h"

#include <algorithm>
#include <queue>
#include <set>
#include <unordered_set>

#include "ops/collective_info.h"
#include "scheduler/reorder.h"

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
    l.edit_items().push_back(Value::integer(x));
  return l;
}

nlohmann::json tool_meta(const char* key, const nlohmann::json& value) {
  return {{"overlap_sched", {{key, value}}}};
}

} // namespace

namespace {

// The positions of g's nodes in a topological order that takes, of the
// nodes ready, the earliest first (a cycle cannot arise: merges keep a DAG,
// bucket_planner.h).
std::vector<NodeId> stable_topological_order(const Graph& g) {
  const InputLists inputs = build_input_lists(g);
  const UserLists users = build_user_lists(g, inputs);
  std::vector<int32_t> missing(g.nodes.size());
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<NodeId>> ready;
  for (NodeId i = 0; i < g.size(); ++i)
    if ((missing[i] = static_cast<int32_t>(inputs.count(i))) == 0)
      ready.push(i);
  std::vector<NodeId> order;
  order.reserve(g.nodes.size());
  while (!ready.empty()) {
    const NodeId i = ready.top();
    ready.pop();
    order.push_back(i);
    auto [b, e] = users.of(i);
    for (auto p = b; p != e; ++p)
      if (--missing[*p] == 0)
        ready.push(*p);
  }
  return order;
}

// Rewrites `g` in place: the new nodes take the slots of the removed ones
// (a bucket of k members removes 2k nodes and adds 4, so they fit), then
// one permutation puts every node at its final position. No second array
// of nodes is made: on a 1M-node graph that copy was most of the pass.
BucketedGraph rewrite(Graph& g, const std::vector<OverlapInterval>& colls,
                      const std::vector<Bucket>& buckets) {
  const size_t n_old = g.nodes.size();
  BucketedGraph out;
  std::vector<Node> fresh; // new nodes; refs to old nodes use old ids, to new ones new_ref()
  // What replaces a removed old node: (new node, output index or -1); -1: kept.
  std::vector<std::pair<int32_t, int32_t>> redirect(n_old, {-1, -1});
  // At the old position of a removed node, these are emitted instead: new
  // nodes (ids into `fresh`) and moved old nodes (old_marker).
  std::vector<int32_t> emit_list(n_old, -1); // index into emit_lists
  std::vector<std::vector<size_t>> emit_lists;
  auto emit_at = [&](NodeId pos) -> std::vector<size_t>& {
    if (emit_list[pos] < 0) {
      emit_list[pos] = static_cast<int32_t>(emit_lists.size());
      emit_lists.emplace_back();
    }
    return emit_lists[emit_list[pos]];
  };
  enum : uint8_t { kKept = 0, kMoved = 1, kRemoved = 2 }; // a removed node stays removed
  std::vector<uint8_t> fate(n_old, kKept);
  const size_t kOld = size_t{1} << 62; // marks an old node id in an emit list
  auto old_marker = [&](NodeId v) { return kOld | static_cast<size_t>(v); };
  std::unordered_set<std::string> created; // names given to new nodes so far
  auto unique = [&](const std::string& base) {
    std::string name = base;
    for (int i = 1; g.find(name) || created.count(name); ++i)
      name = base + "_" + std::to_string(i);
    created.insert(name);
    return name;
  };

  ConvertFusion converts(g);

  struct Made {
    size_t start, wait;
    const Bucket* bucket;
    std::vector<std::string> member_names; // read now: their nodes' slots are reused
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
    std::vector<std::string> member_names;
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
      const NodeId conv = kind == CollectiveKind::AllGather ? converts.fusable(s.args[0]) : -1;
      if (conv >= 0) {
        inputs.edit_items().push_back(g.nodes[conv].args[0]);
        convert_to.edit_items().push_back(
            Value::string(std::string(dtype_name(in_metas.back()->dtype))));
        fate[conv] = kRemoved;
        fused_names.push_back(g.nodes[conv].name);
        ++converts_fused;
      } else {
        inputs.edit_items().push_back(s.args[0]);
        convert_to.edit_items().push_back(Value::null());
      }
      const TensorMeta* o = w.output();
      out_metas.push_back(o);
      out_numels.push_back(o ? o->numel() : 0);
      split.val.push_back(o ? MetaRef(*o) : MetaRef());
      start_names.push_back(s.name);
      wait_names.push_back(w.name);
      member_names.push_back(s.name);
      start_deps.insert(s.attrs().control_deps.begin(), s.attrs().control_deps.end());
      wait_deps.insert(w.attrs().control_deps.begin(), w.attrs().control_deps.end());
      fate[iv.start] = fate[iv.wait] = kRemoved;
    }
    const FlatLayout flat = flat_layout(in_metas, out_metas);
    const TensorMeta* like = &flat.like;
    const int64_t in_numel = flat.in_numel, out_numel = flat.out_numel;
    size_t k_cat = fresh.size(), k_start = k_cat + 1, k_wait = k_cat + 2, k_split = k_cat + 3;

    cat.name = unique(base + "_cat");
    cat.target = "overlap_sched.bucket_cat.default";
    cat.args = {inputs};
    NodeAttrs& cat_attrs = cat.edit_attrs();
    cat_attrs.kwargs = {{"group_size", Value::integer(group_size)},
                        {"layout", Value::string(layout)}};
    if (converts_fused > 0)
      cat_attrs.kwargs.emplace_back("convert_to", convert_to);
    cat.val_kind = ValKind::Single;
    cat.val = {flat_meta(in_numel, *like)};
    cat_attrs.meta = tool_meta("created", "bucket_cat");
    if (converts_fused > 0)
      cat_attrs.meta["overlap_sched"]["replaces"] = fused_names; // the conversions it performs

    start = first;
    start.name = base;
    start.args[0] = Value::node_ref(new_ref(k_cat));
    start.val_kind = ValKind::Single;
    start.val = {flat_meta(out_numel, *like)};
    NodeAttrs& start_attrs = start.edit_attrs();
    start_attrs.control_deps.assign(start_deps.begin(), start_deps.end());
    start_attrs.meta = tool_meta("replaces", start_names);
    start_attrs.tags.reset();
    start.is_view.reset();

    wait = g.nodes[colls[b.members[0]].wait];
    wait.name = unique(base + "_wait");
    wait.args = {Value::node_ref(new_ref(k_start))};
    wait.val_kind = ValKind::Single;
    wait.val = {flat_meta(out_numel, *like)};
    NodeAttrs& wait_attrs = wait.edit_attrs();
    wait_attrs.kwargs.clear();
    wait_attrs.control_deps.assign(wait_deps.begin(), wait_deps.end());
    wait_attrs.meta = tool_meta("replaces", wait_names);
    wait_attrs.tags.reset();
    wait.is_view.reset();

    split.name = unique(base + "_split");
    split.target = "overlap_sched.bucket_split.default";
    split.args = {Value::node_ref(new_ref(k_wait)), int_list_value(out_numels)};
    NodeAttrs& split_attrs = split.edit_attrs();
    split_attrs.kwargs = {{"group_size", Value::integer(group_size)},
                          {"layout", Value::string(layout)}};
    split_attrs.meta = tool_meta("created", "bucket_split");

    for (Node* n : {&cat, &start, &wait, &split})
      fresh.push_back(std::move(*n));
    // Raised nodes go just before the merged start, sunk ones just after
    // the split, each in their original order.
    // A node two buckets both move goes where the first puts it (emitted
    // twice, the order would not be a permutation); the topological pass
    // below mends any input it then runs ahead of.
    std::vector<size_t>& before = emit_at(new_start_pos);
    for (NodeId v : b.hoisted) {
      if (fate[v] != kKept)
        continue;
      fate[v] = kMoved;
      before.push_back(old_marker(v));
    }
    before.insert(before.end(), {k_cat, k_start});
    std::vector<size_t>& after = emit_at(new_wait_pos); // `before` may move: not used below
    after.insert(after.end(), {k_wait, k_split});
    for (NodeId v : b.sunk) {
      if (fate[v] != kKept)
        continue;
      fate[v] = kMoved;
      after.push_back(old_marker(v));
    }
    for (size_t i = 0; i < b.members.size(); ++i) {
      redirect[colls[b.members[i]].start] = {static_cast<int32_t>(k_start), -1};
      redirect[colls[b.members[i]].wait] = {static_cast<int32_t>(k_split), static_cast<int32_t>(i)};
    }
    made.push_back({k_start, k_wait, &b, std::move(member_names)});
  }

  // Final order and indices.
  std::vector<NodeId> old_final(n_old, -1);
  std::vector<NodeId> new_final(fresh.size(), -1);
  std::vector<std::pair<bool, size_t>> seq; // (is_new, id)
  seq.reserve(n_old);
  for (NodeId i = 0; i < static_cast<NodeId>(n_old); ++i) {
    if (emit_list[i] >= 0)
      for (size_t k : emit_lists[emit_list[i]]) {
        if (k & kOld) {
          NodeId v = static_cast<NodeId>(k & ~kOld);
          if (fate[v] == kRemoved)
            continue; // a conversion fused into the bucket
          old_final[v] = static_cast<NodeId>(seq.size());
          seq.push_back({false, static_cast<size_t>(v)});
          continue;
        }
        new_final[k] = static_cast<NodeId>(seq.size());
        seq.push_back({true, k});
      }
    if (fate[i] != kKept)
      continue;
    old_final[i] = static_cast<NodeId>(seq.size());
    seq.push_back({false, static_cast<size_t>(i)});
  }
  std::vector<std::vector<size_t>>().swap(emit_lists);
  std::vector<int32_t>().swap(emit_list);
  auto final_of = [&](int64_t ref, int32_t& output) -> NodeId {
    if (ref < 0)
      return new_final[static_cast<size_t>(-ref - 1)];
    if (const auto& [k, out_index] = redirect[ref]; k >= 0) {
      if (out_index >= 0)
        output = out_index;
      return new_final[k];
    }
    return old_final[ref];
  };
  // Each new node takes a removed node's slot (or, should there be more new
  // nodes than removed ones, a slot past the end).
  std::vector<size_t> slot_of_new;
  slot_of_new.reserve(fresh.size());
  for (size_t i = 0; i < n_old && slot_of_new.size() < fresh.size(); ++i)
    if (fate[i] == kRemoved)
      slot_of_new.push_back(i);
  for (size_t extra = n_old; slot_of_new.size() < fresh.size(); ++extra)
    slot_of_new.push_back(extra);
  const size_t n_slots = std::max(n_old, slot_of_new.empty() ? 0 : slot_of_new.back() + 1);
  // order[i]: the slot whose node goes to position i; slots no node is
  // emitted from (removed, not reused) go past the final size.
  std::vector<NodeId> order(n_slots, -1);
  std::vector<bool> used(n_slots, false);
  for (size_t i = 0; i < seq.size(); ++i) {
    const size_t slot = seq[i].first ? slot_of_new[seq[i].second] : seq[i].second;
    order[i] = static_cast<NodeId>(slot);
    used[slot] = true;
  }
  for (size_t slot = 0, i = seq.size(); slot < n_slots; ++slot)
    if (!used[slot])
      order[i++] = static_cast<NodeId>(slot);
  // The new nodes into their slots, then each node carried to its position.
  g.nodes.resize(n_slots);
  for (size_t k = 0; k < fresh.size(); ++k)
    g.nodes[slot_of_new[k]] = std::move(fresh[k]);
  std::vector<Node>().swap(fresh);
  permute_nodes(g.nodes, order);
  g.nodes.resize(seq.size());
  out.origin.resize(seq.size());
  for (size_t i = 0; i < seq.size(); ++i)
    out.origin[i] = seq[i].first ? -1 : static_cast<NodeId>(seq[i].second);

  // References to final positions; whether each still points back.
  bool sorted = true;
  std::vector<NodeId> deps;
  for (NodeId i = 0; i < g.size(); ++i) {
    Node& n = g.nodes[i];
    auto remap = [&](Value& v) {
      v.i = final_of(v.i, v.ref_output);
      sorted &= v.i < i;
    };
    for (auto& a : n.args)
      for_each_ref_mut(a, remap);
    if (NodeAttrs* at = n.existing_attrs())
      for (auto& kv : at->kwargs)
        for_each_ref_mut(kv.second, remap);
    if (n.attrs().control_deps.empty())
      continue;
    deps.clear();
    for (NodeId d : n.attrs().control_deps) {
      int32_t ignored = -1;
      deps.push_back(final_of(d, ignored));
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    sorted &= deps.back() < i;
    n.edit_attrs().control_deps.assign(deps.begin(), deps.end());
  }
  // Moves by several buckets can leave a node ahead of an input; a stable
  // topological pass (ready nodes in emission order) puts it right after.
  if (!sorted) {
    const std::vector<NodeId> topo = stable_topological_order(g);
    const std::vector<NodeId> new_index = inverse_order(topo);
    permute_nodes(g.nodes, topo);
    remap_refs(g.nodes, new_index);
    for (Node& n : g.nodes)
      if (NodeAttrs* attrs = n.existing_attrs())
        std::sort(attrs->control_deps.begin(), attrs->control_deps.end());
    std::vector<NodeId> origin(topo.size());
    for (size_t j = 0; j < topo.size(); ++j)
      origin[j] = out.origin[topo[j]];
    out.origin = std::move(origin);
    for (std::vector<NodeId>* finals : {&old_final, &new_final})
      for (NodeId& f : *finals)
        if (f >= 0)
          f = new_index[f];
  }
  out.graph = std::move(g);
  Graph& ng = out.graph;
  ng.rebuild_index();

  // Intervals in the new indices: merged buckets, then the collectives kept.
  std::vector<bool> bucketed(colls.size(), false);
  for (Made& m : made) {
    OverlapInterval iv;
    iv.start = new_final[m.start];
    iv.wait = new_final[m.wait];
    BucketSummary summary;
    std::set<NodeId> hiding;
    for (size_t c : m.bucket->members) {
      bucketed[c] = true;
      // A hiding node the rewrite removed (a conversion its copy-in
      // performs) hides nothing any more.
      for (NodeId h : colls[c].hiding)
        if (old_final[h] >= 0)
          hiding.insert(old_final[h]);
      iv.size_bytes += colls[c].size_bytes;
      iv.estimated_ms += colls[c].estimated_ms;
      iv.exposed_ms +=
          colls[c].exposed_ms; // pinned (overlap_deps) only when every member was hidden
    }
    summary.members = std::move(m.member_names);
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
    if (bucketed[c])
      continue;
    OverlapInterval iv = colls[c];
    iv.start = old_final[iv.start];
    if (iv.wait >= 0)
      iv.wait = old_final[iv.wait];
    std::vector<NodeId> kept;
    for (NodeId h : iv.hiding)
      if (old_final[h] >= 0) // not removed by the rewrite
        kept.push_back(old_final[h]);
    iv.hiding = std::move(kept);
    out.intervals.push_back(std::move(iv));
  }
  std::sort(out.intervals.begin(), out.intervals.end(),
            [](const OverlapInterval& a, const OverlapInterval& b) { return a.start < b.start; });
  return out;
}

} // namespace

NodeId ConvertFusion::fusable(const Value& in) {
  if (!in.is_ref() || in.ref_output >= 0)
    return -1;
  const Node& c = g_.nodes[in.i];
  if (c.target != "prims.convert_element_type.default" || c.args.empty() || !c.args[0].is_ref() ||
      !c.attrs().control_deps.empty())
    return -1;
  if (uses_.empty()) {
    uses_.assign(g_.nodes.size(), 0);
    std::vector<NodeId> inputs;
    for (const Node& n : g_.nodes) {
      data_inputs_into(n, inputs);
      for (NodeId d : inputs)
        ++uses_[d];
      for (NodeId d : n.attrs().control_deps)
        ++uses_[d];
    }
  }
  return uses_[in.i] == 1 ? static_cast<NodeId>(in.i) : -1;
}

MergedBucketGraph merged_bucket_graph(const Graph& g, const std::vector<OverlapInterval>& colls,
                                      const Bucket& bucket, ConvertFusion& converts) {
  const Node& first = g.nodes[colls[bucket.members[0]].start];
  const CollectiveKind kind = decode_collective(g, colls[bucket.members[0]].start)->kind;
  MergedBucketGraph m;
  m.graph = g.without_nodes();
  std::vector<const TensorMeta*> ins, outs;
  Value cat_inputs;
  cat_inputs.kind = Value::Kind::List;
  // The copy-in reads each member's input, or what a fused conversion reads.
  for (size_t k : bucket.members) {
    const Node& s = g.nodes[colls[k].start];
    ins.push_back(ref_meta(g, s.args[0]));
    outs.push_back(g.nodes[colls[k].wait].output());
    const NodeId conv = kind == CollectiveKind::AllGather ? converts.fusable(s.args[0]) : -1;
    if (conv >= 0)
      m.removed.push_back(conv);
    const TensorMeta* read = conv >= 0 ? ref_meta(g, g.nodes[conv].args[0]) : ins.back();
    Node in;
    in.name = "bucket_input_" + std::to_string(m.graph.nodes.size());
    in.op = NodeOp::Placeholder;
    in.target = in.name;
    if (read) {
      in.val_kind = ValKind::Single;
      in.val = {*read};
    }
    cat_inputs.edit_items().push_back(Value::node_ref(static_cast<NodeId>(m.graph.nodes.size())));
    m.graph.nodes.push_back(std::move(in));
  }
  const FlatLayout flat = flat_layout(ins, outs);
  const TensorMeta* like = &flat.like;
  Node cat;
  cat.name = "bucket_cat";
  cat.op = NodeOp::CallFunction;
  cat.target = "overlap_sched.bucket_cat.default";
  cat.args = {cat_inputs};
  cat.val_kind = ValKind::Single;
  cat.val = {flat_meta(flat.in_numel, *like)};
  m.cat = static_cast<NodeId>(m.graph.nodes.size());
  m.graph.nodes.push_back(std::move(cat));
  Node start = first;
  start.args[0] = Value::node_ref(m.cat);
  if (NodeAttrs* attrs = start.existing_attrs()) {
    auto& kwargs = attrs->kwargs;
    kwargs.erase(std::remove_if(kwargs.begin(), kwargs.end(),
                                [](const auto& kv) { return kv.second.is_ref(); }),
                 kwargs.end());
    attrs->control_deps.clear();
  }
  start.val_kind = ValKind::Single;
  start.val = {flat_meta(flat.out_numel, *like)};
  m.start = static_cast<NodeId>(m.graph.nodes.size());
  m.graph.nodes.push_back(std::move(start));
  Node wait = g.nodes[colls[bucket.members[0]].wait];
  wait.args = {Value::node_ref(m.start)};
  if (NodeAttrs* attrs = wait.existing_attrs()) {
    attrs->kwargs.clear();
    attrs->control_deps.clear();
  }
  wait.val_kind = ValKind::Single;
  wait.val = {flat_meta(flat.out_numel, *like)};
  const NodeId wait_id = static_cast<NodeId>(m.graph.nodes.size());
  m.graph.nodes.push_back(std::move(wait));
  Node split;
  split.name = "bucket_split";
  split.op = NodeOp::CallFunction;
  split.target = "overlap_sched.bucket_split.default";
  split.args = {Value::node_ref(wait_id)};
  split.val_kind = ValKind::List;
  for (const TensorMeta* o : outs)
    split.val.push_back(o ? MetaRef(*o) : MetaRef());
  m.split = static_cast<NodeId>(m.graph.nodes.size());
  m.graph.nodes.push_back(std::move(split));
  Node out;
  out.name = "output";
  out.op = NodeOp::Output;
  out.target = "output";
  out.args = {Value::node_ref(m.split)};
  m.graph.nodes.push_back(std::move(out));
  m.graph.rebuild_index();
  return m;
}

BucketedGraph apply_buckets(Graph g, const std::vector<OverlapInterval>& colls,
                            const std::vector<Bucket>& buckets) {
  return rewrite(g, colls, buckets);
}

} // namespace osched
