#pragma once
// Argument values of a node: a small tagged tree whose leaves may reference
// other nodes by index.

#include <cstdint>
#include <string>
#include <vector>

#include "graph/boxed_string.h"
#include "graph/boxed_vector.h"

namespace osched {

struct Value {
  enum class Kind : uint8_t { Null, Bool, Int, Float, String, List, NodeRef };

  // The small fields share one word (graphs hold millions of values).
  Kind kind = Kind::Null;
  bool b = false;
  int32_t ref_output = -1; // NodeRef: output index, -1 when the reference has none
  int64_t i = 0;           // Int payload; for NodeRef, the referenced node index
  double f = 0;
  BoxedString s;           // usually empty: one pointer in place
  BoxedVector<Value> list; // likewise

  static Value null() { return {}; }
  static Value boolean(bool v) {
    Value x;
    x.kind = Kind::Bool;
    x.b = v;
    return x;
  }
  static Value integer(int64_t v) {
    Value x;
    x.kind = Kind::Int;
    x.i = v;
    return x;
  }
  static Value real(double v) {
    Value x;
    x.kind = Kind::Float;
    x.f = v;
    return x;
  }
  static Value string(std::string v) {
    Value x;
    x.kind = Kind::String;
    x.s = std::move(v);
    return x;
  }
  static Value node_ref(int64_t node, int32_t output = -1) {
    Value x;
    x.kind = Kind::NodeRef;
    x.i = node;
    x.ref_output = output;
    return x;
  }

  bool is_ref() const { return kind == Kind::NodeRef; }
};

// Calls fn(const Value&) on every node reference inside v, depth first.
template <typename Fn> void for_each_ref(const Value& v, Fn&& fn) {
  if (v.kind == Value::Kind::NodeRef) {
    fn(v);
  } else if (v.kind == Value::Kind::List) {
    for (const auto& item : v.list)
      for_each_ref(item, fn);
  }
}

template <typename Fn> void for_each_ref_mut(Value& v, Fn&& fn) {
  if (v.kind == Value::Kind::NodeRef) {
    fn(v);
  } else if (v.kind == Value::Kind::List) {
    for (auto& item : v.list)
      for_each_ref_mut(item, fn);
  }
}

} // namespace osched
