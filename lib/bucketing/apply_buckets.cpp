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
class BucketRewrite {
public:
  BucketRewrite(Graph& g, const std::vector<OverlapInterval>& colls,
                const std::vector<Bucket>& buckets, std::string_view prefix)
      : g_(g), colls_(colls), buckets_(buckets), prefix_(prefix), n_old_(g.nodes.size()),
        redirect_(n_old_, {-1, -1}), emit_list_(n_old_, -1), fate_(n_old_, kKept), converts_(g) {}

  BucketedGraph run() {
    int index = 0;
    for (const Bucket& b : buckets_)
      make_bucket(b, index++);
    sequence_nodes();
    place_nodes();
    if (!remap_references())
      restore_topological_order();
    out_.graph = std::move(g_);
    out_.graph.rebuild_index();
    rebuild_intervals();
    return std::move(out_);
  }

private:
  enum : uint8_t { kKept = 0, kMoved = 1, kRemoved = 2 }; // a removed node stays removed
  static constexpr size_t kOld = size_t{1} << 62;         // marks an old node id in an emit list

  struct Made {
    size_t start, wait;
    const Bucket* bucket;
    std::vector<std::string> member_names; // read now: their nodes' slots are reused
  };

  static size_t old_marker(NodeId v) { return kOld | static_cast<size_t>(v); }

  std::vector<size_t>& emit_at(NodeId pos) {
    if (emit_list_[pos] < 0) {
      emit_list_[pos] = static_cast<int32_t>(emit_lists_.size());
      emit_lists_.emplace_back();
    }
    return emit_lists_[emit_list_[pos]];
  }

  std::string unique(const std::string& base) {
    std::string name = base;
    for (int i = 1; g_.find(name) || created_.count(name); ++i)
      name = base + "_" + std::to_string(i);
    created_.insert(name);
    return name;
  }

  // A bucket's four new nodes (copy-in, merged start and wait, split), its
  // members and fused conversions marked removed, and where the new and the
  // moved nodes are emitted.
  void make_bucket(const Bucket& b, int index) {
    const Node& first = g_.nodes[colls_[b.members[0]].start];
    const CollectiveInfo info = *decode_collective(g_, colls_[b.members[0]].start);
    const CollectiveKind kind = info.kind;
    const int64_t group_size = info.group_size;
    std::string base =
        unique(prefix_ + std::to_string(index) + "_" + std::string(collective_kind_name(kind)));
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
    const NodeId new_start_pos = colls_[b.start_at].start, new_wait_pos = colls_[b.wait_at].wait;
    split.val_kind = ValKind::List;
    for (size_t m : b.members) {
      const OverlapInterval& iv = colls_[m];
      const Node& s = g_.nodes[iv.start];
      const Node& w = g_.nodes[iv.wait];
      in_metas.push_back(ref_meta(g_, s.args[0]));
      // A dtype conversion feeding only this all-gather fuses into the
      // bucket's copy-in (as upstream's _pre_bucket_all_gather does).
      const NodeId conv = kind == CollectiveKind::AllGather ? converts_.fusable(s.args[0]) : -1;
      if (conv >= 0) {
        inputs.edit_items().push_back(g_.nodes[conv].args[0]);
        convert_to.edit_items().push_back(
            Value::string(std::string(dtype_name(in_metas.back()->dtype))));
        fate_[conv] = kRemoved;
        fused_names.push_back(g_.nodes[conv].name);
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
      fate_[iv.start] = fate_[iv.wait] = kRemoved;
    }
    const FlatLayout flat = flat_layout(in_metas, out_metas);
    const TensorMeta* like = &flat.like;
    const int64_t in_numel = flat.in_numel, out_numel = flat.out_numel;
    size_t k_cat = fresh_.size(), k_start = k_cat + 1, k_wait = k_cat + 2, k_split = k_cat + 3;

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

    wait = g_.nodes[colls_[b.members[0]].wait];
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
      fresh_.push_back(std::move(*n));
    // Raised nodes go just before the merged start, sunk ones just after
    // the split, each in their original order.
    // A node two buckets both move goes where the first puts it (emitted
    // twice, the order would not be a permutation); the topological pass
    // below mends any input it then runs ahead of.
    std::vector<size_t>& before = emit_at(new_start_pos);
    for (NodeId v : b.hoisted) {
      if (fate_[v] != kKept)
        continue;
      fate_[v] = kMoved;
      before.push_back(old_marker(v));
    }
    before.insert(before.end(), {k_cat, k_start});
    std::vector<size_t>& after = emit_at(new_wait_pos); // `before` may move: not used below
    after.insert(after.end(), {k_wait, k_split});
    for (NodeId v : b.sunk) {
      if (fate_[v] != kKept)
        continue;
      fate_[v] = kMoved;
      after.push_back(old_marker(v));
    }
    for (size_t i = 0; i < b.members.size(); ++i) {
      redirect_[colls_[b.members[i]].start] = {static_cast<int32_t>(k_start), -1};
      redirect_[colls_[b.members[i]].wait] = {static_cast<int32_t>(k_split),
                                              static_cast<int32_t>(i)};
    }
    made_.push_back({k_start, k_wait, &b, std::move(member_names)});
  }

  // The final sequence of old and new nodes, and each one's final index.
  void sequence_nodes() {
    old_final_.assign(n_old_, -1);
    new_final_.assign(fresh_.size(), -1);
    seq_.reserve(n_old_);
    for (NodeId i = 0; i < static_cast<NodeId>(n_old_); ++i) {
      if (emit_list_[i] >= 0)
        for (size_t k : emit_lists_[emit_list_[i]]) {
          if (k & kOld) {
            NodeId v = static_cast<NodeId>(k & ~kOld);
            if (fate_[v] == kRemoved)
              continue; // a conversion fused into the bucket
            old_final_[v] = static_cast<NodeId>(seq_.size());
            seq_.push_back({false, static_cast<size_t>(v)});
            continue;
          }
          new_final_[k] = static_cast<NodeId>(seq_.size());
          seq_.push_back({true, k});
        }
      if (fate_[i] != kKept)
        continue;
      old_final_[i] = static_cast<NodeId>(seq_.size());
      seq_.push_back({false, static_cast<size_t>(i)});
    }
    std::vector<std::vector<size_t>>().swap(emit_lists_);
    std::vector<int32_t>().swap(emit_list_);
  }

  NodeId final_of(int64_t ref, int32_t& output) const {
    if (ref < 0)
      return new_final_[static_cast<size_t>(-ref - 1)];
    if (const auto& [k, out_index] = redirect_[ref]; k >= 0) {
      if (out_index >= 0)
        output = out_index;
      return new_final_[k];
    }
    return old_final_[ref];
  }

  // Each new node into a removed node's slot (or, should there be more new
  // nodes than removed ones, a slot past the end), then every node carried
  // to its position.
  void place_nodes() {
    std::vector<size_t> slot_of_new;
    slot_of_new.reserve(fresh_.size());
    for (size_t i = 0; i < n_old_ && slot_of_new.size() < fresh_.size(); ++i)
      if (fate_[i] == kRemoved)
        slot_of_new.push_back(i);
    for (size_t extra = n_old_; slot_of_new.size() < fresh_.size(); ++extra)
      slot_of_new.push_back(extra);
    const size_t n_slots = std::max(n_old_, slot_of_new.empty() ? 0 : slot_of_new.back() + 1);
    // order[i]: the slot whose node goes to position i; slots no node is
    // emitted from (removed, not reused) go past the final size.
    std::vector<NodeId> order(n_slots, -1);
    std::vector<bool> used(n_slots, false);
    for (size_t i = 0; i < seq_.size(); ++i) {
      const size_t slot = seq_[i].first ? slot_of_new[seq_[i].second] : seq_[i].second;
      order[i] = static_cast<NodeId>(slot);
      used[slot] = true;
    }
    for (size_t slot = 0, i = seq_.size(); slot < n_slots; ++slot)
      if (!used[slot])
        order[i++] = static_cast<NodeId>(slot);
    g_.nodes.resize(n_slots);
    for (size_t k = 0; k < fresh_.size(); ++k)
      g_.nodes[slot_of_new[k]] = std::move(fresh_[k]);
    std::vector<Node>().swap(fresh_);
    permute_nodes(g_.nodes, order);
    g_.nodes.resize(seq_.size());
    out_.origin.resize(seq_.size());
    for (size_t i = 0; i < seq_.size(); ++i)
      out_.origin[i] = seq_[i].first ? -1 : static_cast<NodeId>(seq_[i].second);
  }

  // References to final positions; returns whether each still points back.
  bool remap_references() {
    bool sorted = true;
    std::vector<NodeId> deps;
    for (NodeId i = 0; i < g_.size(); ++i) {
      Node& n = g_.nodes[i];
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
    return sorted;
  }

  // Moves by several buckets can leave a node ahead of an input; a stable
  // topological pass (ready nodes in emission order) puts it right after.
  void restore_topological_order() {
    const std::vector<NodeId> topo = stable_topological_order(g_);
    const std::vector<NodeId> new_index = inverse_order(topo);
    permute_nodes(g_.nodes, topo);
    remap_refs(g_.nodes, new_index);
    for (Node& n : g_.nodes)
      if (NodeAttrs* attrs = n.existing_attrs())
        std::sort(attrs->control_deps.begin(), attrs->control_deps.end());
    std::vector<NodeId> origin(topo.size());
    for (size_t j = 0; j < topo.size(); ++j)
      origin[j] = out_.origin[topo[j]];
    out_.origin = std::move(origin);
    for (std::vector<NodeId>* finals : {&old_final_, &new_final_})
      for (NodeId& f : *finals)
        if (f >= 0)
          f = new_index[f];
  }

  // Intervals in the new indices: merged buckets, then the collectives kept.
  void rebuild_intervals() {
    const Graph& ng = out_.graph;
    std::vector<bool> bucketed(colls_.size(), false);
    for (Made& m : made_) {
      OverlapInterval iv;
      iv.start = new_final_[m.start];
      iv.wait = new_final_[m.wait];
      BucketSummary summary;
      std::set<NodeId> hiding;
      for (size_t c : m.bucket->members) {
        bucketed[c] = true;
        // A hiding node the rewrite removed (a conversion its copy-in
        // performs) hides nothing any more.
        for (NodeId h : colls_[c].hiding)
          if (old_final_[h] >= 0)
            hiding.insert(old_final_[h]);
        iv.size_bytes += colls_[c].size_bytes;
        iv.estimated_ms += colls_[c].estimated_ms;
        iv.exposed_ms +=
            colls_[c].exposed_ms; // pinned (overlap_deps) only when every member was hidden
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
      out_.buckets.push_back(std::move(summary));
      out_.intervals.push_back(std::move(iv));
    }
    for (size_t c = 0; c < colls_.size(); ++c) {
      if (bucketed[c])
        continue;
      OverlapInterval iv = colls_[c];
      iv.start = old_final_[iv.start];
      if (iv.wait >= 0)
        iv.wait = old_final_[iv.wait];
      std::vector<NodeId> kept;
      for (NodeId h : iv.hiding)
        if (old_final_[h] >= 0) // not removed by the rewrite
          kept.push_back(old_final_[h]);
      iv.hiding = std::move(kept);
      out_.intervals.push_back(std::move(iv));
    }
    std::sort(out_.intervals.begin(), out_.intervals.end(),
              [](const OverlapInterval& a, const OverlapInterval& b) { return a.start < b.start; });
  }

  Graph& g_;
  const std::vector<OverlapInterval>& colls_;
  const std::vector<Bucket>& buckets_;
  const std::string prefix_;
  const size_t n_old_;
  BucketedGraph out_;
  std::vector<Node> fresh_; // new nodes; refs to old nodes use old ids, to new ones new_ref()
  // What replaces a removed old node: (new node, output index or -1); -1: kept.
  std::vector<std::pair<int32_t, int32_t>> redirect_;
  // At the old position of a removed node, these are emitted instead: new
  // nodes (ids into fresh_) and moved old nodes (old_marker).
  std::vector<int32_t> emit_list_; // index into emit_lists_
  std::vector<std::vector<size_t>> emit_lists_;
  std::vector<uint8_t> fate_;
  std::unordered_set<std::string> created_; // names given to new nodes so far
  ConvertFusion converts_;
  std::vector<Made> made_;
  std::vector<NodeId> old_final_, new_final_;
  std::vector<std::pair<bool, size_t>> seq_; // (is_new, id)
};

BucketedGraph rewrite(Graph& g, const std::vector<OverlapInterval>& colls,
                      const std::vector<Bucket>& buckets, std::string_view prefix) {
  return BucketRewrite(g, colls, buckets, prefix).run();
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
                            const std::vector<Bucket>& buckets, std::string_view prefix) {
  return rewrite(g, colls, buckets, prefix);
}

} // namespace osched
