#include "format/json_fast_reader.h"
#include "format/node_fields.h"
#include "graph/nonfinite.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <future>
#include <limits>
#include <tuple>

#include <simdjson.h>

#include "format/range_names.h"
#include "format/sized_nodes.h"
#include "text/json_limits.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace osched {
namespace {

// A node field's value (args, kwargs) sits at this level of the document:
// inside the graph, its node list and the node.
constexpr int kFieldLevel = 4;

using simdjson::SUCCESS;

// Gives up (the general reader takes over) unless `expr` succeeded.
#define OSCHED_TRY(expr)                                                                           \
  do {                                                                                             \
    if ((expr) != SUCCESS)                                                                         \
      return false;                                                                                \
  } while (0)

// ---- splitting the document ------------------------------------------------

bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Bytes that end a run of plain characters inside a compound value.
struct ByteClass {
  std::array<bool, 256> special{};
  ByteClass() {
    for (unsigned char c : {'"', '{', '}', '[', ']'})
      special[c] = true;
  }
};
const ByteClass kClass;

// The first byte at or after `i` (below `n`) that kClass marks special, or n.
// Sixteen bytes at a time where SSE2 is there (every x86-64): node text is
// mostly runs of plain bytes (indentation, digits, names).
inline size_t next_special(const char* s, size_t i, size_t n) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), lbrace = _mm_set1_epi8('{'),
                rbrace = _mm_set1_epi8('}'), lbracket = _mm_set1_epi8('['),
                rbracket = _mm_set1_epi8(']');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, lbrace)),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, rbrace), _mm_cmpeq_epi8(v, lbracket)),
                     _mm_cmpeq_epi8(v, rbracket)));
    const int mask = _mm_movemask_epi8(hit);
    if (mask != 0)
      return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < n && !kClass.special[static_cast<unsigned char>(s[i])])
    ++i;
  return i;
}

// The first '"' at or after `i` (below `n`), or n: inline, as most strings
// are short keys and names where a call to memchr costs more than the search.
inline size_t next_quote(const char* s, size_t i, size_t n) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
    if (mask != 0)
      return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < n && s[i] != '"')
    ++i;
  return i;
}

struct Splitter {
  const char* s;
  size_t n;
  size_t i = 0;

  void ws() {
    while (i < n && is_ws(s[i]))
      ++i;
  }
  // At an opening quote: past the closing one.
  bool string() {
    ++i;
    for (;;) {
      const size_t at = next_quote(s, i, n);
      if (at >= n)
        return false;
      size_t backslashes = 0;
      while (at - backslashes > i && s[at - backslashes - 1] == '\\')
        ++backslashes;
      i = at + 1;
      if (backslashes % 2 == 0)
        return true;
    }
  }
  // Past one value; its syntax is checked later by whoever parses it.
  bool value() {
    if (i >= n)
      return false;
    if (s[i] == '"')
      return string();
    if (s[i] != '{' && s[i] != '[') {
      while (i < n && !is_ws(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']')
        ++i;
      return true;
    }
    int depth = 0;
    while (i < n) {
      i = next_special(s, i, n);
      if (i >= n)
        return false;
      const char c = s[i];
      if (c == '"') {
        if (!string())
          return false;
        continue;
      }
      ++i;
      depth += c == '{' || c == '[' ? 1 : -1;
      if (depth == 0)
        return true;
    }
    return false;
  }
};

struct Split {
  size_t array_begin = 0, array_end = 0;
  std::vector<std::pair<size_t, size_t>> elements;
};

// How a scan of array elements ended.
enum class ScanEnd { ArrayEnd, ReachedStop, PassedStop, Malformed };

// Where each of four bytes sits in a 64-byte block (bit k: byte k).
struct BlockMasks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

inline BlockMasks block_masks(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                lbrace = _mm_set1_epi8('{'), rbrace = _mm_set1_epi8('}'),
                lbracket = _mm_set1_epi8('['), rbracket = _mm_set1_epi8(']');
  auto bits = [](__m128i hit, int k) {
    return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(hit))) << (16 * k);
  };
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    m.quote |= bits(_mm_cmpeq_epi8(v, quote), k);
    m.backslash |= bits(_mm_cmpeq_epi8(v, backslash), k);
    m.open |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, lbrace), _mm_cmpeq_epi8(v, lbracket)), k);
    m.close |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, rbrace), _mm_cmpeq_epi8(v, rbracket)), k);
  }
#else
  for (int k = 0; k < 64; ++k) {
    const uint64_t bit = uint64_t{1} << k;
    const char c = p[k];
    m.quote |= c == '"' ? bit : 0;
    m.backslash |= c == '\\' ? bit : 0;
    m.open |= c == '{' || c == '[' ? bit : 0;
    m.close |= c == '}' || c == ']' ? bit : 0;
  }
#endif
  return m;
}

// Bit k: the XOR of bits 0..k (inside a string: from an opening quote up to
// the byte before its closing one).
inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The array scan's state: elements are found by the nesting depth of the
// brackets outside strings, and the bytes between them are checked.
class ElementScan {
public:
  ElementScan(const char* s, size_t start, std::vector<std::pair<size_t, size_t>>& out, size_t stop)
      : s_(s), gap_begin_(start), out_(out), stop_(stop) {}

  // A bracket outside strings at `p`; returns how the scan ends, if it does.
  std::optional<ScanEnd> bracket(size_t p, bool open, size_t& resume) {
    if (open) {
      if (depth_++ > 0)
        return std::nullopt;
      // An element starts: after whitespace, a comma when one came before.
      if (!gap_ok(p, need_comma_))
        return ScanEnd::Malformed;
      if (p >= stop_) {
        resume = p;
        return p == stop_ ? ScanEnd::ReachedStop : ScanEnd::PassedStop;
      }
      begin_ = p;
      return std::nullopt;
    }
    if (depth_ == 0) { // the array's own end, after whitespace only
      if (s_[p] != ']' || !gap_ok(p, false))
        return ScanEnd::Malformed;
      resume = p + 1;
      return ScanEnd::ArrayEnd;
    }
    if (--depth_ == 0) {
      out_.emplace_back(begin_, p + 1);
      gap_begin_ = p + 1;
      need_comma_ = true;
    }
    return std::nullopt;
  }

  // Byte by byte, where a block holds a backslash (escapes).
  std::optional<ScanEnd> bytes(size_t from, size_t to, size_t& resume) {
    for (size_t p = from; p < to; ++p) {
      const char c = s_[p];
      if (in_string_) {
        if (escaped_)
          escaped_ = false;
        else if (c == '\\')
          escaped_ = true;
        else if (c == '"')
          in_string_ = false;
        continue;
      }
      if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[' || c == '}' || c == ']') {
        if (auto end = bracket(p, c == '{' || c == '[', resume))
          return end;
      }
    }
    return std::nullopt;
  }

  // A block of 64 bytes at `p`.
  std::optional<ScanEnd> block(size_t p, size_t& resume) {
    const BlockMasks m = block_masks(s_ + p);
    if (m.backslash != 0 || escaped_)
      return bytes(p, p + 64, resume);
    const uint64_t inside = prefix_xor(m.quote) ^ (in_string_ ? ~uint64_t{0} : 0);
    in_string_ = (inside >> 63) != 0;
    for (uint64_t brackets = (m.open | m.close) & ~inside; brackets != 0;
         brackets &= brackets - 1) {
      const int k = __builtin_ctzll(brackets);
      if (auto end = bracket(p + static_cast<size_t>(k), (m.open >> k) & 1, resume))
        return end;
    }
    return std::nullopt;
  }

private:
  const char* s_;
  size_t gap_begin_; // where the bytes after the last element (or the start) begin
  std::vector<std::pair<size_t, size_t>>& out_;
  size_t stop_;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false, need_comma_ = false;
  size_t begin_ = 0; // of the element being scanned

  bool gap_ok(size_t end, bool comma) const {
    bool seen_comma = false;
    for (size_t i = gap_begin_; i < end; ++i) {
      if (s_[i] == ',' && comma && !seen_comma)
        seen_comma = true;
      else if (!is_ws(s_[i]))
        return false;
    }
    return seen_comma == comma;
  }
};

// Scans the elements of an array from `sp.i` (past the '[' or a ',') into
// `out`, to the closing ']' (then past it), or until an element would start
// at or after `stop`: ReachedStop when one starts exactly there, PassedStop
// when the next one starts after it (the scan can go on from there). Only
// bracket and quote positions are visited, found 64 bytes at a time.
ScanEnd scan_elements(Splitter& sp, std::vector<std::pair<size_t, size_t>>& out, size_t stop) {
  ElementScan scan(sp.s, sp.i, out, stop);
  size_t p = sp.i;
  std::optional<ScanEnd> end;
  for (; !end && p + 64 <= sp.n; p += 64)
    end = scan.block(p, sp.i);
  if (!end)
    end = scan.bytes(p, sp.n, sp.i);
  return end ? *end : ScanEnd::Malformed;
}

// A place near `from` where an element of the node array may start: a '{'
// after a ',' and whitespace. Only a guess (it may lie in a string or a
// nested list); the scan of the first half confirms it.
size_t guess_element_start(const char* s, size_t from, size_t n) {
  for (size_t i = from; i < n; ++i) {
    if (s[i] != ',')
      continue;
    size_t j = i + 1;
    while (j < n && is_ws(s[j]))
      ++j;
    if (j < n && s[j] == '{')
      return j;
  }
  return n;
}

// The top-level "nodes" array and its elements' spans. A big array is
// scanned in two halves at once: the second from a guessed element start
// near its middle, kept only when the first half's scan arrives exactly
// there (else the first scan simply goes on alone).
std::optional<Split> split_nodes(const char* s, size_t n, size_t parallel_min_bytes) {
  Splitter sp{s, n};
  sp.ws();
  if (sp.i >= n || s[sp.i] != '{')
    return std::nullopt;
  ++sp.i;
  std::optional<Split> found;
  for (;;) {
    sp.ws();
    if (sp.i < n && s[sp.i] == '}')
      break;
    if (sp.i >= n || s[sp.i] != '"')
      return std::nullopt;
    const size_t key_begin = sp.i;
    if (!sp.string())
      return std::nullopt;
    const std::string_view key(s + key_begin, sp.i - key_begin);
    sp.ws();
    if (sp.i >= n || s[sp.i] != ':')
      return std::nullopt;
    ++sp.i;
    sp.ws();
    if (key == "\"nodes\"" && sp.i < n && s[sp.i] == '[') {
      if (found)
        return std::nullopt; // a repeated key: the general reader's error
      found.emplace();
      found->array_begin = sp.i++;
      sp.ws();
      if (sp.i < n && s[sp.i] == ']') {
        ++sp.i;
      } else {
        ScanEnd end = ScanEnd::Malformed;
        const size_t guess =
            n - sp.i >= parallel_min_bytes ? guess_element_start(s, sp.i + (n - sp.i) / 2, n) : n;
        if (guess < n) {
          std::vector<std::pair<size_t, size_t>> later;
          Splitter second{s, n, guess};
          std::future<ScanEnd> second_end = std::async(std::launch::async, [&] {
            return scan_elements(second, later, std::numeric_limits<size_t>::max());
          });
          end = scan_elements(sp, found->elements, guess);
          const ScanEnd later_end = second_end.get();
          if (end == ScanEnd::ReachedStop && later_end == ScanEnd::ArrayEnd) {
            found->elements.insert(found->elements.end(), later.begin(), later.end());
            sp.i = second.i;
            end = ScanEnd::ArrayEnd;
          } else if (end == ScanEnd::ReachedStop || end == ScanEnd::PassedStop) {
            end = scan_elements(sp, found->elements, std::numeric_limits<size_t>::max());
          }
          // Malformed or ArrayEnd before the guess: the first scan's verdict.
        } else {
          end = scan_elements(sp, found->elements, std::numeric_limits<size_t>::max());
        }
        if (end != ScanEnd::ArrayEnd)
          return std::nullopt;
      }
      found->array_end = sp.i;
    } else if (!sp.value()) {
      return std::nullopt;
    }
    sp.ws();
    if (sp.i < n && s[sp.i] == ',') {
      ++sp.i;
      continue;
    }
    if (sp.i < n && s[sp.i] == '}')
      break;
    return std::nullopt;
  }
  return found;
}

// ---- reading one node -----------------------------------------------------

using simdjson::dom::element;
using simdjson::dom::element_type;

bool int_of(element e, int64_t& out) {
  return e.type() == element_type::INT64 && e.get_int64().get(out) == SUCCESS;
}

// Into a std::string or an InternedString.
template <class Str> bool string_of(element e, Str& out) {
  std::string_view sv;
  OSCHED_TRY(e.get_string().get(sv));
  out = sv;
  return true;
}

// The DOM API (runtime-dispatched to the CPU's SIMD kernels by the library)
// on one node at a time: memory stays that of the largest node.
// Reads nodes into their slots of a vector sized up front. A reader may
// start mid-array (`defer_unknown`): a name it has not seen may then belong
// to a node before its range, so the reference is kept by name (a NodeRef
// of index -1 holding the name in `s`, a control dep of -1) and resolved by
// resolve_deferred() once the reader before it is done.
class NodeReader {
public:
  NodeReader(std::vector<Node>& nodes, const char* text, bool defer_unknown)
      : nodes_(nodes), text_(text), names_(nodes, defer_unknown) {}

  RangeNames& names() { return names_; }

  // Reads node `at` from text_[begin, end); false: give up.
  bool read(size_t begin, size_t end, NodeId at) {
    element doc;
    OSCHED_TRY(parser_.parse(text_ + begin, end - begin, false).get(doc));
    if (doc.type() != element_type::OBJECT)
      return false;
    Node& node = nodes_[static_cast<size_t>(at)];
    current_ = at;
    if (!read_fields(doc, node))
      return false;
    // Sorted as the general reader stores them (keys are unique).
    sort_kwargs(node);
    // Earlier nodes only: the name becomes visible after the node.
    return names_.add(current_);
  }

private:
  std::vector<Node>& nodes_;
  const char* text_;
  RangeNames names_;
  simdjson::dom::parser parser_;
  InternedString last_device_;
  NodeId current_ = 0;

  bool read_fields(element doc, Node& node) {
    uint32_t seen = 0;
    simdjson::dom::object obj;
    OSCHED_TRY(doc.get_object().get(obj));
    for (auto [key, field_value] : obj) {
      const element v = field_value; // a lambda cannot capture a binding (C++17)
      const int row = find_node_field(key);
      if (row < 0) // unknown fields: the general reader keeps them
        return false;
      const uint32_t bit = uint32_t{1} << row;
      if ((seen & bit) || !visit_node_field(static_cast<size_t>(row), [&](auto r) {
            return read_field(kNodeFields[decltype(r)::value], v, node);
          }))
        return false;
      seen |= bit;
    }
    const uint32_t required =
        node.op == NodeOp::CallFunction ? kRequiredCallFields : kRequiredNodeFields;
    return (seen & required) == required;
  }

  [[gnu::always_inline]] bool read_field(const NodeField& f, element v, Node& node) {
    switch (f.kind) {
    case NodeFieldKind::Name:
      if (!string_of(v, node.name) || node.name.empty())
        return false;
      names_.named(current_);
      return true;
    case NodeFieldKind::OpName: {
      std::string_view op;
      if (v.get_string().get(op) != SUCCESS)
        return false;
      const std::optional<NodeOp> parsed = parse_node_op(op);
      if (!parsed)
        return false;
      node.op = *parsed;
      return true;
    }
    case NodeFieldKind::Text:
      return string_of(v, f.text.edit(node));
    case NodeFieldKind::ValueList:
      return read_list(v, node.args, kFieldLevel);
    case NodeFieldKind::ValueMap:
      return read_kwargs(v, node);
    case NodeFieldKind::TensorMetas:
      return read_val(v, node);
    case NodeFieldKind::TextList:
      return read_strings(v, f.text_list.edit(node));
    case NodeFieldKind::Flag: {
      bool b = false;
      if (v.get_bool().get(b) != SUCCESS)
        return false;
      f.flag.edit(node) = b;
      return true;
    }
    case NodeFieldKind::MutatedArgs:
      return read_mutates(v, node);
    case NodeFieldKind::NodeNames:
      return read_control_deps(v);
    case NodeFieldKind::AnyJson: // kept as written: the general reader keeps it
      return false;
    }
    return false;
  }

  // `level`: the list's place in the document's nesting (graph 1, nodes
  // 2, node 3, a field's value 4); past the limit the general reader words
  // the error, and the recursion here stays bounded.
  bool read_list(element v, std::vector<Value>& out, int level) {
    if (v.type() != element_type::ARRAY || level > kMaxJsonDepth)
      return false;
    simdjson::dom::array arr;
    OSCHED_TRY(v.get_array().get(arr));
    out.reserve(arr.size()); // one allocation, no growth
    for (element x : arr)
      if (!read_value(x, out.emplace_back(), level + 1))
        return false;
    return true;
  }

  // `level`: where a list or object `v` would sit in the document.
  bool read_value(element v, Value& out, int level) {
    switch (v.type()) {
    case element_type::NULL_VALUE:
      return true;
    case element_type::BOOL:
      out.kind = Value::Kind::Bool;
      return v.get_bool().get(out.b) == SUCCESS;
    case element_type::INT64:
      out.kind = Value::Kind::Int;
      return v.get_int64().get(out.i) == SUCCESS;
    case element_type::DOUBLE:
      out.kind = Value::Kind::Float;
      return v.get_double().get(out.f) == SUCCESS;
    case element_type::STRING: {
      out.kind = Value::Kind::String;
      std::string_view sv;
      OSCHED_TRY(v.get_string().get(sv));
      out.set_str(std::string(sv));
      return true;
    }
    case element_type::ARRAY:
      out.kind = Value::Kind::List;
      return read_list(v, out.edit_items(), level);
    case element_type::OBJECT:
      return level <= kMaxJsonDepth && read_ref(v, out);
    default:
      return false; // above INT64_MAX: the general reader's error
    }
  }

  // {"node": NAME, "index": K} naming an earlier node, or a non-finite
  // float {"float": "inf"} (graph/nonfinite.h).
  bool read_ref(element v, Value& out) {
    std::string_view target;
    int64_t index = -1;
    bool has_node = false, has_index = false;
    simdjson::dom::object obj;
    OSCHED_TRY(v.get_object().get(obj));
    if (obj.size() == 1)
      for (auto [key, x] : obj)
        if (key == kNonFiniteKey) {
          std::string_view text;
          OSCHED_TRY(x.get_string().get(text));
          const std::optional<double> d = parse_nonfinite(text);
          if (!d)
            return false;
          out = Value::real(*d);
          return true;
        }
    for (auto [key, x] : obj) {
      if (key == "node" && !has_node) {
        OSCHED_TRY(x.get_string().get(target));
        has_node = true;
      } else if (key == "index" && !has_index) {
        if (!int_of(x, index) || index < 0 || index > std::numeric_limits<int32_t>::max())
          return false;
        has_index = true;
      } else {
        return false;
      }
    }
    return has_node && names_.ref(target, static_cast<int32_t>(index), current_, out);
  }

  bool read_kwargs(element v, Node& node) {
    if (v.type() != element_type::OBJECT)
      return false;
    simdjson::dom::object obj;
    OSCHED_TRY(v.get_object().get(obj));
    for (auto [key, x] : obj) {
      for (const auto& kv : node.attrs().kwargs)
        if (kv.first == key)
          return false; // repeated key
      auto& kv = node.edit_attrs().kwargs.emplace_back(std::string(key), Value());
      if (!read_value(x, kv.second, kFieldLevel + 1))
        return false;
    }
    return true;
  }

  static bool read_dim(element v, Dim& dim) {
    if (v.type() == element_type::OBJECT) {
      bool has_sym = false, has_hint = false;
      dim.has_hint = false;
      simdjson::dom::object obj;
      OSCHED_TRY(v.get_object().get(obj));
      for (auto [key, x] : obj) {
        if (key == "sym" && !has_sym) {
          std::string_view sym;
          OSCHED_TRY(x.get_string().get(sym));
          if (sym.empty())
            return false;
          dim.sym_id = intern_symbol(std::string(sym));
          has_sym = true;
        } else if (key == "hint" && !has_hint) {
          has_hint = true;
          if (x.type() != element_type::NULL_VALUE) {
            if (!int_of(x, dim.value))
              return false;
            dim.has_hint = true;
          }
        } else {
          return false;
        }
      }
      if (!has_sym)
        return false;
    } else if (!int_of(v, dim.value)) {
      return false;
    }
    return dim.value >= 0;
  }

  static bool read_dims(element v, DimVector& dims) {
    if (v.type() != element_type::ARRAY)
      return false;
    simdjson::dom::array arr;
    OSCHED_TRY(v.get_array().get(arr));
    dims.reserve(arr.size());
    for (element x : arr)
      if (!read_dim(x, dims.emplace_back()))
        return false;
    return true;
  }

  bool read_meta(element v, TensorMeta& t) {
    if (v.type() != element_type::OBJECT)
      return false;
    enum : uint32_t {
      kShape = 1,
      kStride = 2,
      kDtype = 4,
      kDevice = 8,
      kStorage = 16,
      kOffset = 32,
      kBytes = 64
    };
    uint32_t seen = 0;
    simdjson::dom::object obj;
    OSCHED_TRY(v.get_object().get(obj));
    for (auto [key, x] : obj) {
      uint32_t bit = 0;
      bool ok = false;
      if (key == "shape") {
        bit = kShape;
        ok = read_dims(x, t.shape);
      } else if (key == "stride") {
        bit = kStride;
        ok = read_dims(x, t.stride);
      } else if (key == "dtype") {
        bit = kDtype;
        std::string_view d;
        ok = x.get_string().get(d) == SUCCESS;
        if (ok) {
          auto parsed = parse_dtype(std::string(d));
          ok = parsed.has_value();
          if (ok)
            t.dtype = *parsed;
        }
      } else if (key == "device") {
        bit = kDevice;
        std::string_view device;
        ok = x.get_string().get(device) == SUCCESS;
        // Interning locks: the last device read is reused (most are one).
        if (ok && last_device_ != device)
          last_device_ = device;
        t.device = last_device_;
      } else if (key == "storage") {
        bit = kStorage;
        if (x.type() == element_type::STRING) {
          ok = string_of(x, t.storage.emplace());
        } else if (x.type() == element_type::INT64) {
          int64_t id = 0;
          ok = int_of(x, id);
          t.storage = std::to_string(id);
        } else {
          ok = x.type() == element_type::NULL_VALUE;
        }
      } else if (key == "storage_offset") {
        bit = kOffset;
        int64_t off = 0;
        ok = int_of(x, off) && off >= 0;
        t.storage_offset = off;
      } else if (key == "storage_bytes") {
        bit = kBytes;
        int64_t bytes = 0;
        ok = int_of(x, bytes) && bytes >= 0;
        t.storage_bytes = bytes;
      } // unknown fields: the general reader keeps them
      if (!ok || (seen & bit))
        return false;
      seen |= bit;
    }
    if (!(seen & kShape) || !(seen & kDtype))
      return false;
    if (!(seen & kStride)) {
      // Contiguous strides when the exporter left them out.
      t.stride.resize(t.shape.size());
      int64_t s = 1;
      for (size_t i = t.shape.size(); i-- > 0;) {
        t.stride[i].value = s;
        if (__builtin_mul_overflow(s, std::max<int64_t>(1, t.shape[i].hint_or_zero()), &s))
          return false;
      }
    }
    return t.stride.size() == t.shape.size();
  }

  bool read_val(element v, Node& node) {
    if (v.type() == element_type::NULL_VALUE)
      return true;
    if (v.type() == element_type::OBJECT) {
      node.val_kind = ValKind::Single;
      TensorMeta m;
      if (!read_meta(v, m))
        return false;
      node.val.push_back(m);
      return true;
    }
    if (v.type() != element_type::ARRAY)
      return false;
    node.val_kind = ValKind::List;
    simdjson::dom::array arr;
    OSCHED_TRY(v.get_array().get(arr));
    for (element x : arr) {
      if (x.type() == element_type::NULL_VALUE) {
        node.val.emplace_back();
        continue;
      }
      TensorMeta m;
      if (!read_meta(x, m))
        return false;
      node.val.push_back(m);
    }
    return true;
  }

  static bool read_strings(element v, std::optional<std::vector<std::string>>& out) {
    if (v.type() != element_type::ARRAY)
      return false;
    auto& list = out.emplace();
    simdjson::dom::array arr;
    OSCHED_TRY(v.get_array().get(arr));
    for (element x : arr)
      if (!string_of(x, list.emplace_back()))
        return false;
    return true;
  }

  static bool read_mutates(element v, Node& node) {
    if (v.type() != element_type::ARRAY)
      return false;
    node.edit_attrs().mutates.emplace();
    simdjson::dom::array arr;
    OSCHED_TRY(v.get_array().get(arr));
    for (element x : arr) {
      MutatedArg a;
      if (x.type() == element_type::INT64) {
        int64_t p = 0;
        if (!int_of(x, p) || p < 0 || p > INT32_MAX)
          return false;
        a.position = static_cast<int32_t>(p);
      } else if (x.type() == element_type::STRING) {
        std::string_view s;
        OSCHED_TRY(x.get_string().get(s));
        if (s.size() <= 6 || s.substr(0, 6) != "kwarg:")
          return false;
        a.kwarg = std::string(s.substr(6));
      } else {
        return false;
      }
      node.edit_attrs().mutates->push_back(std::move(a));
    }
    return true;
  }

  bool read_control_deps(element v) {
    if (v.type() != element_type::ARRAY)
      return false;
    simdjson::dom::array arr;
    OSCHED_TRY(v.get_array().get(arr));
    for (element x : arr) {
      std::string_view name;
      OSCHED_TRY(x.get_string().get(name));
      if (!names_.control_dep(name, current_))
        return false; // a later or unknown node: the general reader decides
    }
    return true;
  }
};

} // namespace

std::optional<FastNodes> read_nodes_fast(const char* text, size_t size, size_t capacity,
                                         size_t parallel_min_nodes,
                                         const std::function<void(size_t, size_t)>& done_with,
                                         size_t parallel_split_min_bytes) {
  if (capacity < size + simdjson::SIMDJSON_PADDING) {
    const simdjson::padded_string copy(text, size);
    return read_nodes_fast(copy.data(), size, size + simdjson::SIMDJSON_PADDING, parallel_min_nodes,
                           {}, parallel_split_min_bytes);
  }
  std::optional<Split> split = split_nodes(text, size, parallel_split_min_bytes);
  if (!split)
    return std::nullopt;
  FastNodes out;
  out.array_begin = split->array_begin;
  out.array_end = split->array_end;
  size_nodes(out.nodes, split->elements.size(), split->elements.size() >= parallel_min_nodes);
  std::optional<NameIndex> names =
      read_node_spans(split->elements, parallel_min_nodes, done_with, [&](bool defer_unknown) {
        return NodeReader(out.nodes, text, defer_unknown);
      });
  if (!names)
    return std::nullopt;
  out.names = std::move(*names);
  return out;
}

} // namespace osched
