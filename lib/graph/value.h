#pragma once
// Argument values of a node: a small tagged tree whose leaves may reference
// other nodes by index.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace osched {

struct Value {
  enum class Kind : uint8_t { Null, Bool, Int, Float, String, List, NodeRef };

  // 24 bytes (a graph holds millions of values): the small fields share one
  // word, the number another, and a string or the list items sit behind the
  // third (null when there are none).
  Kind kind = Kind::Null;
  bool b = false;
  int32_t ref_output = -1; // NodeRef: output index, -1 when the reference has none
  union {
    int64_t i = 0; // Int payload; for NodeRef, the referenced node index
    double f;      // Float payload
  };

  Value() = default;
  Value(const Value& o) : kind(o.kind), b(o.b), ref_output(o.ref_output), i(o.i) { copy_box(o); }
  Value(Value&& o) noexcept : kind(o.kind), b(o.b), ref_output(o.ref_output), i(o.i), box_(o.box_) {
    o.box_ = 0;
  }
  Value& operator=(const Value& o) {
    if (this != &o)
      *this = Value(o);
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      free_box();
      kind = o.kind;
      b = o.b;
      ref_output = o.ref_output;
      i = o.i;
      box_ = std::exchange(o.box_, 0);
    }
    return *this;
  }
  ~Value() {
    if (box_ != 0)
      free_box();
  }

  // String: its text; a NodeRef a reader has not resolved yet: the name it
  // waits for. Empty otherwise.
  const std::string& str() const;
  void set_str(std::string s);
  // List: its items (empty otherwise).
  const std::vector<Value>& items() const;
  std::vector<Value>& edit_items(); // the list to change, created on first use

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
    x.set_str(std::move(v));
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

private:
  // A std::string* or, with the low bit set, a std::vector<Value>*; 0: none.
  uintptr_t box_ = 0;
  static constexpr uintptr_t kListBit = 1;

  void copy_box(const Value& o);
  void free_box();
};

inline const std::string& Value::str() const {
  static const std::string kEmpty;
  return box_ == 0 || (box_ & kListBit) ? kEmpty : *reinterpret_cast<const std::string*>(box_);
}

inline const std::vector<Value>& Value::items() const {
  static const std::vector<Value> kEmpty;
  return box_ & kListBit ? *reinterpret_cast<const std::vector<Value>*>(box_ & ~kListBit) : kEmpty;
}

inline std::vector<Value>& Value::edit_items() {
  if (!(box_ & kListBit)) {
    free_box();
    box_ = reinterpret_cast<uintptr_t>(new std::vector<Value>()) | kListBit;
  }
  return *reinterpret_cast<std::vector<Value>*>(box_ & ~kListBit);
}

// Calls fn(const Value&) on every node reference inside v, depth first.
template <typename Fn> void for_each_ref(const Value& v, Fn&& fn) {
  if (v.kind == Value::Kind::NodeRef) {
    fn(v);
  } else if (v.kind == Value::Kind::List) {
    for (const auto& item : v.items())
      for_each_ref(item, fn);
  }
}

template <typename Fn> void for_each_ref_mut(Value& v, Fn&& fn) {
  if (v.kind == Value::Kind::NodeRef) {
    fn(v);
  } else if (v.kind == Value::Kind::List && !v.items().empty()) {
    for (auto& item : v.edit_items())
      for_each_ref_mut(item, fn);
  }
}

} // namespace osched
