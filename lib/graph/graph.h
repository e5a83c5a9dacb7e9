#pragma once
// The in-memory graph: nodes in program order, addressed by index.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/boxed_optional.h"
#include "graph/meta_ref.h"
#include "graph/name_index.h"
#include "graph/tensor_meta.h"
#include "graph/value.h"

namespace osched {

using NodeId = int32_t;

enum class NodeOp : uint8_t { Placeholder, GetAttr, CallFunction, Output };

std::optional<NodeOp> parse_node_op(std::string_view s);
std::string_view node_op_name(NodeOp op);

// An argument the node writes into: a positional index, or a keyword
// argument by name (`out=`).
struct MutatedArg {
  int32_t position = -1; // -1 when `kwarg` names it
  std::string kwarg;
  bool operator==(const MutatedArg& o) const { return position == o.position && kwarg == o.kwarg; }
};

// How the node's `val` is shaped: absent/null, one tensor, or a list.
enum class ValKind : uint8_t { Null, Single, List };

// The fields most nodes leave empty, kept together behind one pointer in
// Node (a graph holds millions of nodes; six boxes of their own cost 48
// bytes a node, this costs 8).
struct NodeAttrs {
  std::vector<std::pair<std::string, Value>> kwargs; // sorted by key
  std::vector<NodeId> control_deps;
  std::optional<std::vector<std::string>> tags;
  // Arguments written in place, as the exporter states them; absent: the
  // built-in table of mutating ops decides (ops/mutation.h).
  std::optional<std::vector<MutatedArg>> mutates;
  nlohmann::json meta;  // null when absent
  nlohmann::json extra; // unknown fields (null when none)
};

// Fields are ordered so the small ones share one word.
struct Node {
  std::string name;
  InternedString target; // a few hundred distinct values per graph
  std::vector<Value> args;
  MetaList val; // one entry for Single
  NodeOp op = NodeOp::CallFunction;
  ValKind val_kind = ValKind::Null;
  std::optional<bool> is_view;

  // kwargs, control deps, tags, mutates, meta and unknown fields: read
  // through attrs() (empty ones when the node has none), changed through
  // edit_attrs(), which gives the node its own on first use.
  const NodeAttrs& attrs() const { return attrs_ ? *attrs_ : no_attrs(); }
  NodeAttrs& edit_attrs() { return attrs_ ? *attrs_ : attrs_.emplace(); }
  // The node's own attrs to change, null when it has none: for passes over
  // every node that must not give each one attrs.
  NodeAttrs* existing_attrs() { return attrs_ ? &*attrs_ : nullptr; }

  const TensorMeta* output(size_t i = 0) const { return i < val.size() ? val[i].get() : nullptr; }
  const Value* kwarg(std::string_view key) const;

private:
  BoxedOptional<NodeAttrs> attrs_;
  static const NodeAttrs& no_attrs() { // inline: read on every node by the codecs
    static const NodeAttrs none;
    return none;
  }
};

// Puts n's kwargs in key order, as every reader stores them; the first key
// given twice, or null when none is.
const std::string* sort_kwargs(Node& n);

struct ProcessGroup {
  std::vector<int64_t> ranks;
  nlohmann::json extra = nlohmann::json::object();
};

struct Graph {
  std::string format = "overlap-sched.graph";
  int64_t version = 1;
  std::string name;
  int64_t rank = 0;
  int64_t world_size = 1;
  std::map<std::string, ProcessGroup> process_groups;
  nlohmann::json hardware; // null when absent
  std::vector<Node> nodes;
  nlohmann::json extra = nlohmann::json::object();

  NodeId size() const { return static_cast<NodeId>(nodes.size()); }
  // Everything but the nodes: the start of a rewritten graph.
  Graph without_nodes() const;
  std::optional<NodeId> find(std::string_view node_name) const;
  void rebuild_index();
  // An index a reader built over exactly these nodes (NameIndex::build's
  // result, first name wins), instead of building it again.
  void adopt_index(NameIndex index) { index_ = std::move(index); }
  // Distinct names in the index as of its last build: the node count when
  // no name repeats.
  size_t indexed_names() const { return index_.size(); }
  // After the nodes were permuted (node i moved to new_index[i]).
  void remap_index(const std::vector<NodeId>& new_index);

private:
  NameIndex index_;
};

// Direct inputs of a node: data references (deduplicated, in first-use order)
// followed by control dependencies not already present.
// The nodes `n` reads (data references, then control deps), each once.
std::vector<NodeId> node_inputs(const Node& n);
std::vector<NodeId> data_inputs(const Node& n);
// The same into `out` (cleared first), for loops that reuse one buffer.
void node_inputs_into(const Node& n, std::vector<NodeId>& out);
void data_inputs_into(const Node& n, std::vector<NodeId>& out);
// `inputs` holding n's data inputs becomes node_inputs(n): its control deps
// appended, each id once.
void append_control_deps(const Node& n, std::vector<NodeId>& inputs);
// fn(NodeId) for each data reference, in order, repeats included: no
// allocation, for loops that run over every node many times.
template <typename Fn> void for_each_data_input(const Node& n, Fn&& fn) {
  auto call = [&](const Value& v) { fn(static_cast<NodeId>(v.i)); };
  for (const auto& a : n.args)
    for_each_ref(a, call);
  for (const auto& kv : n.attrs().kwargs)
    for_each_ref(kv.second, call);
}

// Users of every node (data and control), built once. CSR layout keeps it
// compact for very large graphs.
struct UserLists {
  std::vector<int64_t> offsets; // size N+1
  std::vector<NodeId> users;
  std::pair<const NodeId*, const NodeId*> of(NodeId n) const {
    return {users.data() + offsets[n], users.data() + offsets[n + 1]};
  }
  size_t count(NodeId n) const { return static_cast<size_t>(offsets[n + 1] - offsets[n]); }
};

struct InputLists {
  std::vector<int64_t> offsets;
  std::vector<NodeId> inputs;
  std::pair<const NodeId*, const NodeId*> of(NodeId n) const {
    return {inputs.data() + offsets[n], inputs.data() + offsets[n + 1]};
  }
  size_t count(NodeId n) const { return static_cast<size_t>(offsets[n + 1] - offsets[n]); }
};

InputLists build_input_lists(const Graph& g, bool include_control = true);

// Metadata of the tensor a value references (its output 0 unless the
// reference names one), or nullptr for literals and outputs without metadata.
const TensorMeta* ref_meta(const Graph& g, const Value& v);
UserLists build_user_lists(const Graph& g, const InputLists& inputs);

} // namespace osched
