#include "format/json_io.h"
#include "graph/nonfinite.h"
#include "text/chunked_render.h"
#include "text/json_limits.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "format/json_fast_reader.h"
#include "format/json_node_writer.h"
#include "format/node_fields.h"
#include "validate/graph_error.h"
#include "validate/validate.h"

namespace osched {
namespace {

using json = nlohmann::json;

const std::unordered_set<std::string> kTopKeys = {
    "format", "version", "name", "rank", "world_size", "process_groups", "hardware", "nodes"};
const std::unordered_set<std::string> kMetaKeys = {
    "shape", "stride", "dtype", "device", "storage", "storage_offset", "storage_bytes"};

std::string type_name(const json& j) {
  return j.type_name();
}

// Converts JSON to the model one node at a time, so a huge graph never
// exists as a whole JSON document: add_node() as nodes are parsed, then
// finish() with the top-level object. Errors are kept (the first one wins)
// and thrown by finish(), after the top-level fields are checked, so their
// precedence does not depend on key order in the file.
class Reader {
public:
  explicit Reader(ReadOptions opts) : opts_(opts) {}

  void add_node(const json& n) {
    const size_t i = count_++;
    if (error_)
      return; // names are still collected for the error's wording
    std::string label = "#" + std::to_string(i);
    try {
      if (!n.is_object())
        throw GraphError(label, "", "node must be a JSON object");
      if (!n.contains("name") || !n["name"].is_string())
        throw GraphError(label, "name", "missing or not a string");
      std::string name = n["name"].get<std::string>();
      if (name.empty())
        throw GraphError(label, "name", "must not be empty");
      if (!all_names_.emplace(name, static_cast<NodeId>(i)).second)
        throw GraphError(name, "name", "duplicate node name");
      current_ = static_cast<NodeId>(i);
      nodes_.push_back(read_node(n));
    } catch (const GraphError& e) {
      error_ = e;
      collect_names_only_ = true;
    }
  }

  const ReadOptions& options() const { return opts_; }
  void reserve(size_t nodes) { nodes_.reserve(nodes); }
  // Nodes the fast path read (json_fast_reader.h), in place of add_node().
  void adopt(std::vector<Node> nodes, std::optional<NameIndex> names = std::nullopt) {
    count_ = nodes.size();
    nodes_ = std::move(nodes);
    names_ = std::move(names);
  }

  // Only names are needed from the rest of the nodes once an error is known.
  bool wants_names_only() const { return collect_names_only_; }
  void add_name_only(const json& n) {
    ++count_;
    if (n.is_object() && n.contains("name") && n["name"].is_string())
      later_names_.insert(n["name"].get<std::string>());
  }

  Graph finish(const json& doc) {
    if (!doc.is_object())
      throw GraphError("", "", "top level must be a JSON object");
    Graph g;
    g.format = req_string(doc, "format", "");
    if (g.format != "overlap-sched.graph")
      throw GraphError("", "format", "expected \"overlap-sched.graph\", got \"" + g.format + "\"");
    g.version = req_int(doc, "version", "");
    if (g.version != 1)
      throw GraphError("", "version",
                       "unsupported version " + std::to_string(g.version) +
                           " (this tool reads version 1)");
    if (doc.contains("name"))
      g.name = req_string(doc, "name", "");
    if (doc.contains("rank"))
      g.rank = req_int(doc, "rank", "");
    if (doc.contains("world_size"))
      g.world_size = req_int(doc, "world_size", "");
    if (doc.contains("process_groups"))
      read_groups(doc["process_groups"], g);
    if (doc.contains("hardware")) {
      if (!doc["hardware"].is_object() && !doc["hardware"].is_null())
        throw GraphError("", "hardware", "must be an object");
      g.hardware = doc["hardware"];
    }
    if (!doc.contains("nodes"))
      throw GraphError("", "nodes", "missing");
    if (!doc["nodes"].is_array())
      throw GraphError("", "nodes", "must be an array");
    for (const auto& [k, v] : doc.items())
      if (!kTopKeys.count(k))
        g.extra[k] = v;

    if (error_) {
      // A reference to a name not seen yet: a later node, or none at all.
      if (!pending_target_.empty() &&
          (later_names_.count(pending_target_) || all_names_.count(pending_target_)))
        throw GraphError(error_->node(), error_->field(),
                         "references node '" + pending_target_ + "' that does not come earlier");
      throw *error_;
    }
    // Forward references (allowed without require_topological_order).
    for (auto& [node, name] : pending_control_) {
      auto it = all_names_.find(name);
      if (it == all_names_.end())
        throw GraphError(nodes_[node].name, "control_deps",
                         "references unknown node '" + name + "'");
      nodes_[node].edit_attrs().control_deps.push_back(it->second);
    }
    for (NodeId node : pending_data_) {
      auto resolve = [&](Value& v) {
        if (v.i >= 0)
          return;
        auto it = all_names_.find(v.str());
        if (it == all_names_.end())
          throw GraphError(nodes_[node].name, "args", "references unknown node '" + v.str() + "'");
        v.i = it->second;
        v.set_str({});
      };
      for (auto& a : nodes_[node].args)
        for_each_ref_mut(a, resolve);
      if (NodeAttrs* at = nodes_[node].existing_attrs())
        for (auto& kv : at->kwargs)
          for_each_ref_mut(kv.second, resolve);
    }
    g.nodes = std::move(nodes_);
    if (names_)
      g.adopt_index(std::move(*names_));
    else
      g.rebuild_index();
    return g;
  }

private:
  ReadOptions opts_;
  std::optional<NameIndex> names_; // of adopted nodes, when their reader built one
  std::unordered_map<std::string, NodeId> all_names_; // names of the nodes read so far
  std::unordered_set<std::string> later_names_;       // names seen after the first error
  std::vector<Node> nodes_;
  size_t count_ = 0;
  std::optional<GraphError> error_;
  bool collect_names_only_ = false;
  std::string pending_target_; // the unknown name error_ refers to, if any
  std::vector<std::pair<NodeId, std::string>> pending_control_;
  std::vector<NodeId> pending_data_;
  NodeId current_ = 0;
  std::string node_name_;

  static std::string req_string(const json& o, const char* key, const std::string& node) {
    if (!o.contains(key))
      throw GraphError(node, key, "missing");
    if (!o[key].is_string())
      throw GraphError(node, key, "must be a string, got " + type_name(o[key]));
    return o[key].get<std::string>();
  }
  static int64_t as_int(const json& v, const std::string& node, const std::string& field) {
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        throw GraphError(node, field, "integer out of range");
      return v.get<int64_t>();
    }
    throw GraphError(node, field, "must be an integer, got " + type_name(v));
  }
  static int64_t req_int(const json& o, const char* key, const std::string& node) {
    if (!o.contains(key))
      throw GraphError(node, key, "missing");
    return as_int(o[key], node, key);
  }

  void read_groups(const json& pg, Graph& g) {
    if (!pg.is_object())
      throw GraphError("", "process_groups", "must be an object");
    for (const auto& [name, grp] : pg.items()) {
      std::string f = "process_groups." + name;
      if (!grp.is_object())
        throw GraphError("", f, "must be an object");
      if (!grp.contains("ranks") || !grp["ranks"].is_array())
        throw GraphError("", f + ".ranks", "missing or not an array");
      ProcessGroup p;
      for (size_t i = 0; i < grp["ranks"].size(); ++i) {
        int64_t r = as_int(grp["ranks"][i], "", f + ".ranks[" + std::to_string(i) + "]");
        if (r < 0)
          throw GraphError("", f + ".ranks[" + std::to_string(i) + "]", "negative rank");
        p.ranks.push_back(r);
      }
      if (p.ranks.empty())
        throw GraphError("", f + ".ranks", "must not be empty");
      for (const auto& [k, v] : grp.items())
        if (k != "ranks")
          p.extra[k] = v;
      g.process_groups.emplace(name, std::move(p));
    }
  }

  Value read_value(const json& v, const std::string& field) {
    switch (v.type()) {
    case json::value_t::null:
      return Value::null();
    case json::value_t::boolean:
      return Value::boolean(v.get<bool>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return Value::integer(as_int(v, node_name_, field));
    case json::value_t::number_float:
      return Value::real(v.get<double>());
    case json::value_t::string:
      return Value::string(v.get<std::string>());
    case json::value_t::array: {
      Value list;
      list.kind = Value::Kind::List;
      for (size_t i = 0; i < v.size(); ++i)
        list.edit_items().push_back(read_value(v[i], field + "[" + std::to_string(i) + "]"));
      return list;
    }
    case json::value_t::object: {
      if (v.size() == 1 && v.contains(kNonFiniteKey)) {
        const json& f = v[std::string(kNonFiniteKey)];
        std::optional<double> d =
            f.is_string() ? parse_nonfinite(f.get<std::string>()) : std::nullopt;
        if (!d)
          throw GraphError(node_name_, field,
                           "a float object must be {\"float\": \"inf\"}, "
                           "\"-inf\" or \"nan\"");
        return Value::real(*d);
      }
      if (!v.contains("node") || !v["node"].is_string())
        throw GraphError(node_name_, field,
                         "an object value must be a node reference {\"node\": NAME} or a "
                         "non-finite float {\"float\": \"inf\"}");
      for (const auto& [k, _] : v.items())
        if (k != "node" && k != "index")
          throw GraphError(node_name_, field, "unexpected key '" + k + "' in node reference");
      std::string target = v["node"].get<std::string>();
      int64_t index = -1;
      if (v.contains("index")) {
        index = as_int(v["index"], node_name_, field + ".index");
        if (index < 0 || index > std::numeric_limits<int32_t>::max())
          throw GraphError(node_name_, field + ".index",
                           index < 0 ? "must be >= 0" : "must be below 2^31");
      }
      auto it = all_names_.find(target);
      if (it == all_names_.end()) {
        if (opts_.require_topological_order) {
          pending_target_ = target; // finish() words it once all names are known
          throw GraphError(node_name_, field, "references unknown node '" + target + "'");
        }
        if (pending_data_.empty() || pending_data_.back() != current_)
          pending_data_.push_back(current_);
        Value ref = Value::node_ref(-1, static_cast<int32_t>(index));
        ref.set_str(target);
        return ref;
      }
      if (opts_.require_topological_order && it->second >= current_)
        throw GraphError(node_name_, field,
                         "references node '" + target + "' that does not come earlier");
      return Value::node_ref(it->second, static_cast<int32_t>(index));
    }
    default:
      throw GraphError(node_name_, field, "unsupported value type");
    }
  }

  Dim read_dim(const json& d, const std::string& field) {
    Dim dim;
    if (d.is_number_integer()) {
      dim.value = as_int(d, node_name_, field);
    } else if (d.is_object()) {
      if (!d.contains("sym") || !d["sym"].is_string() || d["sym"].get<std::string>().empty())
        throw GraphError(node_name_, field + ".sym", "missing or not a non-empty string");
      dim.sym_id = intern_symbol(d["sym"].get<std::string>());
      if (d.contains("hint") && !d["hint"].is_null()) {
        dim.value = as_int(d["hint"], node_name_, field + ".hint");
      } else {
        dim.has_hint = false;
      }
    } else {
      throw GraphError(node_name_, field, "a dim must be an integer or {\"sym\", \"hint\"}");
    }
    if (dim.value < 0)
      throw GraphError(node_name_, field, "negative dimension " + std::to_string(dim.value));
    return dim;
  }

  TensorMeta read_meta(const json& m, const std::string& field) {
    if (!m.is_object())
      throw GraphError(node_name_, field, "must be an object or null");
    TensorMeta t;
    for (const char* key : {"shape", "stride"}) {
      if (!m.contains(key)) {
        if (std::string(key) == "shape")
          throw GraphError(node_name_, field + ".shape", "missing");
        continue;
      }
      if (!m[key].is_array())
        throw GraphError(node_name_, field + "." + key, "must be an array");
      auto& dims = std::string(key) == "shape" ? t.shape : t.stride;
      for (size_t i = 0; i < m[key].size(); ++i)
        dims.push_back(read_dim(m[key][i], field + "." + key + "[" + std::to_string(i) + "]"));
    }
    if (!m.contains("stride")) {
      // Contiguous strides when the exporter left them out.
      t.stride.resize(t.shape.size());
      int64_t s = 1;
      for (size_t i = t.shape.size(); i-- > 0;) {
        t.stride[i].value = s;
        if (__builtin_mul_overflow(s, std::max<int64_t>(1, t.shape[i].hint_or_zero()), &s))
          throw GraphError(node_name_, field + ".shape", "element count overflows int64");
      }
    }
    if (t.stride.size() != t.shape.size())
      throw GraphError(node_name_, field + ".stride",
                       "has " + std::to_string(t.stride.size()) + " dims but shape has " +
                           std::to_string(t.shape.size()));
    std::string dt = req_string(m, "dtype", node_name_);
    auto d = parse_dtype(dt);
    if (!d)
      throw GraphError(node_name_, field + ".dtype", "unknown dtype '" + escape_excerpt(dt) + "'");
    t.dtype = *d;
    if (m.contains("device")) {
      if (!m["device"].is_string())
        throw GraphError(node_name_, field + ".device", "must be a string");
      t.device = m["device"].get<std::string>();
    }
    if (m.contains("storage") && !m["storage"].is_null()) {
      if (m["storage"].is_string())
        t.storage = m["storage"].get<std::string>();
      else if (m["storage"].is_number_integer())
        t.storage = std::to_string(m["storage"].get<int64_t>());
      else
        throw GraphError(node_name_, field + ".storage", "must be a string or integer id");
    }
    // Checked before they are stored: a negative count would read as absent.
    if (m.contains("storage_offset")) {
      const int64_t offset = as_int(m["storage_offset"], node_name_, field + ".storage_offset");
      if (offset < 0)
        throw GraphError(node_name_, field + ".storage_offset", "negative");
      t.storage_offset = offset;
    }
    if (m.contains("storage_bytes")) {
      const int64_t bytes = as_int(m["storage_bytes"], node_name_, field + ".storage_bytes");
      if (bytes < 0)
        throw GraphError(node_name_, field + ".storage_bytes", "negative");
      t.storage_bytes = bytes;
    }
    for (const auto& [k, v] : m.items())
      if (!kMetaKeys.count(k))
        t.extra[k] = v;
    return t;
  }

  std::vector<MutatedArg> read_mutates(const json& m, const std::string& key) {
    const char* form = "must be an array of argument positions and \"kwarg:NAME\" strings";
    if (!m.is_array())
      throw GraphError(node_name_, key, form);
    std::vector<MutatedArg> out;
    for (size_t i = 0; i < m.size(); ++i) {
      const std::string field = key + "[" + std::to_string(i) + "]";
      MutatedArg a;
      if (m[i].is_number_integer()) {
        int64_t p = as_int(m[i], node_name_, field);
        if (p < 0 || p > INT32_MAX)
          throw GraphError(node_name_, field, "argument position out of range");
        a.position = static_cast<int32_t>(p);
      } else if (m[i].is_string() && m[i].get<std::string>().rfind("kwarg:", 0) == 0 &&
                 m[i].get<std::string>().size() > 6) {
        a.kwarg = m[i].get<std::string>().substr(6);
      } else {
        throw GraphError(node_name_, field, form);
      }
      out.push_back(std::move(a));
    }
    return out;
  }

  Node read_node(const json& n) {
    Node node;
    node.name = n["name"].get<std::string>();
    node_name_ = node.name;
    for (const NodeField& f : kNodeFields) {
      const std::string key(f.key);
      const auto it = n.find(key);
      if (it != n.end())
        read_field(f, key, *it, node);
      else if (f.presence == NodeFieldPresence::Required ||
               (f.presence == NodeFieldPresence::RequiredForCall &&
                node.op == NodeOp::CallFunction))
        throw GraphError(node_name_, key, "missing");
    }
    for (const auto& [k, v] : n.items())
      if (find_node_field(k) < 0)
        node.edit_attrs().extra[k] = v;
    return node;
  }

  void read_field(const NodeField& f, const std::string& key, const json& v, Node& node) {
    switch (f.kind) {
    case NodeFieldKind::Name: // read by add_node
      return;
    case NodeFieldKind::OpName: {
      if (!v.is_string())
        throw GraphError(node_name_, key, "must be a string, got " + type_name(v));
      auto parsed = parse_node_op(v.get<std::string>());
      if (!parsed)
        throw GraphError(node_name_, key, "unknown op '" + v.get<std::string>() + "'");
      node.op = *parsed;
      return;
    }
    case NodeFieldKind::Text:
      if (!v.is_string())
        throw GraphError(node_name_, key, "must be a string");
      f.text.edit(node) = v.get<std::string>();
      return;
    case NodeFieldKind::ValueList:
      if (!v.is_array())
        throw GraphError(node_name_, key, "must be an array");
      for (size_t i = 0; i < v.size(); ++i)
        node.args.push_back(read_value(v[i], key + "[" + std::to_string(i) + "]"));
      return;
    case NodeFieldKind::ValueMap:
      if (!v.is_object())
        throw GraphError(node_name_, key, "must be an object");
      for (const auto& [k, x] : v.items())
        node.edit_attrs().kwargs.emplace_back(k, read_value(x, key + "." + k));
      return;
    case NodeFieldKind::TensorMetas:
      if (v.is_array()) {
        node.val_kind = ValKind::List;
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i].is_null())
            node.val.emplace_back(std::nullopt);
          else
            node.val.emplace_back(read_meta(v[i], key + "[" + std::to_string(i) + "]"));
        }
      } else if (!v.is_null()) {
        node.val_kind = ValKind::Single;
        node.val.emplace_back(read_meta(v, key));
      }
      return;
    case NodeFieldKind::TextList: {
      const char* form = "must be an array of strings";
      if (!v.is_array())
        throw GraphError(node_name_, key, form);
      auto& list = f.text_list.edit(node).emplace();
      for (const auto& t : v) {
        if (!t.is_string())
          throw GraphError(node_name_, key, form);
        list.push_back(t.get<std::string>());
      }
      return;
    }
    case NodeFieldKind::Flag:
      if (!v.is_boolean())
        throw GraphError(node_name_, key, "must be a boolean");
      f.flag.edit(node) = v.get<bool>();
      return;
    case NodeFieldKind::MutatedArgs:
      node.edit_attrs().mutates = read_mutates(v, key);
      return;
    case NodeFieldKind::NodeNames: {
      const char* form = "must be an array of node names";
      if (!v.is_array())
        throw GraphError(node_name_, key, form);
      for (const auto& d : v) {
        if (!d.is_string())
          throw GraphError(node_name_, key, form);
        auto it = all_names_.find(d.get<std::string>());
        if (it == all_names_.end()) // a later node, or an unknown one: finish() decides
          pending_control_.emplace_back(current_, d.get<std::string>());
        else
          node.edit_attrs().control_deps.push_back(it->second);
      }
      return;
    }
    case NodeFieldKind::AnyJson:
      if (!v.is_null())
        f.any_json.edit(node) = v;
      return;
    }
  }
};

json value_to_json(const Value& v, const Graph& g) {
  switch (v.kind) {
  case Value::Kind::Null:
    return nullptr;
  case Value::Kind::Bool:
    return v.b;
  case Value::Kind::Int:
    return v.i;
  case Value::Kind::Float:
    if (!std::isfinite(v.f))
      return {{std::string(kNonFiniteKey), std::string(nonfinite_name(v.f))}};
    return v.f;
  case Value::Kind::String:
    return v.str();
  case Value::Kind::List: {
    json a = json::array();
    for (const auto& item : v.items())
      a.push_back(value_to_json(item, g));
    return a;
  }
  case Value::Kind::NodeRef: {
    json r = {{"node", g.nodes[v.i].name}};
    if (v.ref_output >= 0)
      r["index"] = v.ref_output;
    return r;
  }
  }
  return nullptr;
}

json dim_to_json(const Dim& d) {
  if (!d.is_symbolic())
    return d.value;
  json j = {{"sym", d.sym()}};
  if (d.has_hint)
    j["hint"] = d.value;
  return j;
}

json meta_to_json(const TensorMeta& t) {
  json j = t.extra;
  json shape = json::array(), stride = json::array();
  for (const auto& d : t.shape)
    shape.push_back(dim_to_json(d));
  for (const auto& d : t.stride)
    stride.push_back(dim_to_json(d));
  j["shape"] = shape;
  j["stride"] = stride;
  j["dtype"] = std::string(dtype_name(t.dtype));
  j["device"] = t.device.str();
  if (t.storage)
    j["storage"] = *t.storage;
  if (t.storage_offset)
    j["storage_offset"] = *t.storage_offset;
  if (t.storage_bytes)
    j["storage_bytes"] = *t.storage_bytes;
  return j;
}

json field_json(const NodeField& f, const Node& n, const Graph& g) {
  const NodeAttrs& attrs = n.attrs();
  switch (f.kind) {
  case NodeFieldKind::Name:
    return n.name;
  case NodeFieldKind::OpName:
    return std::string(node_op_name(n.op));
  case NodeFieldKind::Text:
    return std::string(f.text.get(n));
  case NodeFieldKind::ValueList: {
    json args = json::array();
    for (const auto& a : n.args)
      args.push_back(value_to_json(a, g));
    return args;
  }
  case NodeFieldKind::ValueMap: {
    json kwargs = json::object();
    for (const auto& [k, v] : attrs.kwargs)
      kwargs[k] = value_to_json(v, g);
    return kwargs;
  }
  case NodeFieldKind::TensorMetas:
    if (n.val_kind == ValKind::Single)
      return n.val.empty() || !n.val[0] ? json() : meta_to_json(*n.val[0]);
    if (n.val_kind == ValKind::List) {
      json a = json::array();
      for (const auto& m : n.val)
        a.push_back(m ? meta_to_json(*m) : json());
      return a;
    }
    return nullptr;
  case NodeFieldKind::TextList:
    return *f.text_list.get(n);
  case NodeFieldKind::Flag:
    return *f.flag.get(n);
  case NodeFieldKind::MutatedArgs: {
    json m = json::array();
    for (const auto& a : *attrs.mutates) {
      if (a.position >= 0)
        m.push_back(a.position);
      else
        m.push_back("kwarg:" + a.kwarg);
    }
    return m;
  }
  case NodeFieldKind::NodeNames: {
    json deps = json::array();
    for (NodeId d : attrs.control_deps)
      deps.push_back(g.nodes[d].name);
    return deps;
  }
  case NodeFieldKind::AnyJson:
    return f.any_json.get(n);
  }
  return nullptr;
}

json node_json(const Node& n, const Graph& g) {
  json j = n.attrs().extra;
  for (const NodeField& f : kNodeFields)
    if (node_field_written(f, n))
      j[std::string(f.key)] = field_json(f, n, g);
  return j;
}

} // namespace

json node_to_json(const Node& n, const Graph& g) {
  return node_json(n, g);
}

struct JsonGraphBuilder::Impl : Reader {
  using Reader::Reader;
};

JsonGraphBuilder::JsonGraphBuilder(const ReadOptions& opts) : impl_(std::make_unique<Impl>(opts)) {}
JsonGraphBuilder::~JsonGraphBuilder() = default;

void JsonGraphBuilder::add_node(const json& node) {
  impl_->wants_names_only() ? impl_->add_name_only(node) : impl_->add_node(node);
}

void JsonGraphBuilder::adopt_nodes(std::vector<Node> nodes, std::optional<NameIndex> names) {
  impl_->adopt(std::move(nodes), std::move(names));
}

Graph JsonGraphBuilder::finish(const json& top_level) {
  Graph g = impl_->finish(top_level);
  validate_graph(g, impl_->options().require_topological_order);
  return g;
}

Graph JsonGraphBuilder::assemble(const json& top_level) {
  return impl_->finish(top_level);
}

Graph graph_from_json(const json& doc, const ReadOptions& opts) {
  Reader reader(opts);
  if (doc.is_object() && doc.contains("nodes") && doc["nodes"].is_array())
    for (const auto& n : doc["nodes"])
      reader.wants_names_only() ? reader.add_name_only(n) : reader.add_node(n);
  Graph g = reader.finish(doc);
  validate_graph(g, opts.require_topological_order);
  return g;
}

namespace {

// Parses the document with nlohmann, handing each node to `reader` as soon as
// it is parsed and dropping it from the document, so memory holds the
// model, not a JSON tree of the whole graph. Returns the rest.
json parse_document(std::string_view text, Reader& reader) {
  bool in_nodes = false;
  bool nodes_key = false;
  // Values are walked recursively later (conversion, destruction): the
  // nesting bound keeps hostile input from overflowing the stack.
  auto keep = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key) {
      nodes_key = parsed == "nodes";
    } else if (depth == 1 && event == json::parse_event_t::array_start) {
      in_nodes = nodes_key;
    } else if (depth == 1 && event == json::parse_event_t::array_end) {
      in_nodes = false;
    } else if (in_nodes && depth == 2 &&
               (event == json::parse_event_t::object_end ||
                event == json::parse_event_t::array_end || event == json::parse_event_t::value)) {
      reader.wants_names_only() ? reader.add_name_only(parsed) : reader.add_node(parsed);
      return false; // drop it from the document
    }
    return true;
  };
  json doc = parse_json_events(text, kMalformedJson, keep);
  return doc;
}

// The fast path: nodes through simdjson, the header (the document with an
// empty node array) through nlohmann. A failure to read leaves the text to
// the general reader, which words the error; a graph read but invalid is
// not read again (the general reader builds the same graph), so a huge bad
// name costs one read, not two.
std::optional<Graph> read_fast(const InputBytes& bytes, const ReadOptions& opts) {
  if (!opts.require_topological_order)
    return std::nullopt; // forward references are the general reader's
  std::optional<Graph> g;
  try {
    std::optional<FastNodes> fast =
        read_nodes_fast(bytes.data(), bytes.size(), bytes.readable(), kParallelReadMinNodes,
                        [&bytes](size_t begin, size_t end) { bytes.done_with(begin, end); });
    if (!fast)
      return std::nullopt;
    const std::string_view text = bytes.view();
    std::string header(text.substr(0, fast->array_begin));
    header += "[]";
    header.append(text.substr(fast->array_end));
    Reader reader(opts);
    json doc = parse_document(header, reader);
    reader.adopt(std::move(fast->nodes), std::move(fast->names));
    g = reader.finish(doc);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  validate_graph(*g, opts.require_topological_order);
  return g;
}

} // namespace

Graph graph_from_json_text(const std::string& text, const ReadOptions& opts) {
  return graph_from_json_bytes(InputBytes::borrow(text), opts);
}

Graph graph_from_json_bytes(const InputBytes& bytes, const ReadOptions& opts) {
  if (std::optional<Graph> g = read_fast(bytes, opts))
    return std::move(*g);
  return graph_from_json_text_general(bytes.view(), opts);
}

Graph graph_from_json_text_general(std::string_view text, const ReadOptions& opts) {
  Reader reader(opts);
  // Every node has one "op" key: counting them estimates the node count, so
  // the node array is usually allocated once instead of growing by doubling.
  size_t ops = 0;
  for (size_t p = text.find("\"op\""); p != std::string_view::npos; p = text.find("\"op\"", p + 4))
    ++ops;
  // Capped, so text full of "op" strings cannot make it reserve absurdly.
  reader.reserve(std::min(ops, text.size() / 100));
  json doc = parse_document(text, reader);
  Graph g = reader.finish(doc);
  validate_graph(g, opts.require_topological_order);
  return g;
}

// Every top-level field but the nodes.
json graph_header_to_json(const Graph& g) {
  json j = g.extra;
  j["format"] = g.format;
  j["version"] = g.version;
  j["name"] = g.name;
  j["rank"] = g.rank;
  j["world_size"] = g.world_size;
  json pgs = json::object();
  for (const auto& [name, pg] : g.process_groups) {
    json p = pg.extra;
    p["ranks"] = pg.ranks;
    pgs[name] = p;
  }
  j["process_groups"] = pgs;
  if (!g.hardware.is_null())
    j["hardware"] = g.hardware;
  return j;
}

json graph_to_json(const Graph& g) {
  json j = graph_header_to_json(g);
  json nodes = json::array();
  for (const auto& n : g.nodes)
    nodes.push_back(node_to_json(n, g));
  j["nodes"] = std::move(nodes);
  return j;
}

std::string canonical_json(const json& j) {
  return j.dump();
}

void write_graph_json(const Graph& g, const std::function<void(std::string_view)>& emit) {
  json doc = graph_header_to_json(g);
  doc["nodes"] = nullptr; // its place among the sorted keys
  std::string out = "{\n";
  bool first = true;
  for (const auto& [k, v] : doc.items()) {
    if (!first)
      out += ",\n";
    first = false;
    out += "  " + json(k).dump() + ": ";
    if (k == "nodes") {
      out += "[";
      emit(out);
      out.clear();
      render_in_order(
          g.nodes.size(), kNodesPerChunk, kParallelWriteMinNodes,
          [&g](size_t begin, size_t end, std::string& text) {
            for (size_t i = begin; i < end; ++i) {
              text += i ? ",\n    " : "\n    ";
              append_node_json(text, g.nodes[i], g);
            }
          },
          emit);
      out += g.nodes.empty() ? "]" : "\n  ]";
    } else {
      out += v.dump();
    }
  }
  out += "\n}\n";
  emit(out);
}

std::string graph_to_json_text(const Graph& g) {
  std::string text;
  write_graph_json(g, [&](std::string_view piece) { text.append(piece); });
  return text;
}

} // namespace osched
