#include "fx/fx_meta.h"
#include "text/escape.h"

#include <array>
#include <cctype>
#include <limits>

namespace osched {
namespace {

struct Abbr {
  std::string_view abbr;
  DType dtype;
};

// torch/fx/graph.py's dtype_abbrs, every one.
constexpr std::array<Abbr, 28> kAbbrs = {{
    {"f64", DType::Float64},
    {"f32", DType::Float32},
    {"f16", DType::Float16},
    {"bf16", DType::BFloat16},
    {"f8e4m3fn", DType::Float8E4M3FN},
    {"f8e5m2", DType::Float8E5M2},
    {"f8e4m3fnuz", DType::Float8E4M3FNUZ},
    {"f8e5m2fnuz", DType::Float8E5M2FNUZ},
    {"i64", DType::Int64},
    {"i32", DType::Int32},
    {"i16", DType::Int16},
    {"i8", DType::Int8},
    {"u8", DType::UInt8},
    {"b8", DType::Bool},
    {"c64", DType::Complex64},
    {"c128", DType::Complex128},
    {"u16", DType::UInt16},
    {"u32", DType::UInt32},
    {"u64", DType::UInt64},
    {"c32", DType::Complex32},
    {"bc32", DType::BComplex32},
    {"f8e8m0fnu", DType::Float8E8M0FNU},
    {"f4e2m1fnx2", DType::Float4E2M1FNx2},
    {"b1x8", DType::Bits1x8},
    {"b2x4", DType::Bits2x4},
    {"b4x2", DType::Bits4x2},
    {"b8x1", DType::Bits8},
    {"b16x1", DType::Bits16},
}};

// Splits "a, b, c" at top-level commas.
std::vector<std::string> split_dims(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '[')
      ++depth;
    else if (s[i] == ')' || s[i] == ']')
      --depth;
    else if (s[i] == ',' && depth == 0) {
      out.push_back(fx_trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string last = fx_trim(s.substr(start));
  if (!last.empty() || !out.empty())
    out.push_back(last);
  return out;
}

// Index of the bracket closing the one at `open`, or npos.
size_t matching_bracket(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '[')
      ++depth;
    else if (s[i] == ']' && --depth == 0)
      return i;
  }
  return std::string_view::npos;
}

Dim symbolic(std::string name, std::optional<int64_t> hint) {
  Dim d;
  d.sym_id = intern_symbol(name);
  d.has_hint = hint.has_value();
  d.value = hint.value_or(0);
  return d;
}

} // namespace

std::optional<DType> parse_fx_dtype_abbr(std::string_view abbr) {
  for (const auto& a : kAbbrs)
    if (a.abbr == abbr)
      return a.dtype;
  return std::nullopt;
}

std::optional<DType> parse_fx_dtype_name(std::string_view name) {
  if (name.substr(0, 6) == "torch.")
    name.remove_prefix(6);
  if (name == "float" || name == "float32")
    return DType::Float32;
  if (name == "half")
    return DType::Float16;
  if (name == "double")
    return DType::Float64;
  if (name == "long")
    return DType::Int64;
  if (name == "int")
    return DType::Int32;
  return parse_dtype(name);
}

std::optional<int64_t> eval_fx_dim(const FxExpr& e, const FxSymbolHints& hints, std::string* why) {
  auto fail = [why](const char* reason) -> std::optional<int64_t> {
    if (why && why->empty())
      *why = reason;
    return std::nullopt;
  };
  switch (e.kind) {
  case FxExpr::Kind::Int:
    return e.i;
  case FxExpr::Kind::Name: {
    auto it = hints.find(e.text);
    if (it == hints.end())
      return fail("a name without a value");
    return it->second;
  }
  case FxExpr::Kind::Neg: {
    auto v = eval_fx_dim(e.items[0], hints, why);
    if (!v)
      return std::nullopt;
    if (*v == std::numeric_limits<int64_t>::min())
      return fail("integer overflow");
    return -*v;
  }
  case FxExpr::Kind::BinOp: {
    auto a = eval_fx_dim(e.items[0], hints, why);
    auto b = eval_fx_dim(e.items[1], hints, why);
    if (!a || !b)
      return std::nullopt;
    int64_t r = 0;
    if (e.text == "+")
      return __builtin_add_overflow(*a, *b, &r) ? fail("integer overflow") : r;
    if (e.text == "-")
      return __builtin_sub_overflow(*a, *b, &r) ? fail("integer overflow") : r;
    if (e.text == "*")
      return __builtin_mul_overflow(*a, *b, &r) ? fail("integer overflow") : r;
    if (*b == 0)
      return fail("division by zero");
    if (*a == std::numeric_limits<int64_t>::min() && *b == -1)
      return fail("integer overflow");
    if (e.text == "//" || e.text == "/") {
      int64_t q = *a / *b;
      if ((*a % *b != 0) && ((*a < 0) != (*b < 0)))
        --q; // Python floors
      return q;
    }
    if (e.text == "%") {
      int64_t m = *a % *b;
      if (m != 0 && ((m < 0) != (*b < 0)))
        m += *b;
      return m;
    }
    return fail("an unsupported operator");
  }
  case FxExpr::Kind::Call: {
    // sympy's Max/Min and FloorDiv/CeilDiv as they appear in printed shapes.
    std::vector<int64_t> v;
    for (const auto& item : e.items) {
      auto x = eval_fx_dim(item, hints, why);
      if (!x)
        return std::nullopt;
      v.push_back(*x);
    }
    if ((e.text == "Max" || e.text == "Min") && !v.empty()) {
      int64_t r = v[0];
      for (int64_t x : v)
        r = e.text == "Max" ? std::max(r, x) : std::min(r, x);
      return r;
    }
    if (e.text == "FloorDiv" && v.size() == 2 && v[1] > 0 && v[0] >= 0)
      return v[0] / v[1];
    if (e.text == "CeilDiv" && v.size() == 2 && v[1] > 0 && v[0] >= 0)
      return v[0] == 0 ? 0 : (v[0] - 1) / v[1] + 1;
    return fail("an unsupported function");
  }
  default:
    return fail("an unsupported expression");
  }
}

Dim fx_dim(const std::string& text, const FxSymbolHints& hints, int line) {
  std::string t = fx_trim(text);
  if (t.empty())
    throw FxSyntaxError(line, "empty dim in annotation");
  FxExpr e = parse_fx_expression(t, line);
  if (e.kind == FxExpr::Kind::Int)
    return Dim::of(e.i);
  if (e.kind == FxExpr::Kind::Float || e.kind == FxExpr::Kind::String ||
      e.kind == FxExpr::Kind::List)
    throw FxSyntaxError(line, "dim '" + t + "' is not an integer or a symbol");
  // A dim without a value for one of its names stays symbolic (unbacked);
  // one whose given hints overflow or divide by zero is an error on its
  // line, never a dim costed as 0 bytes.
  std::string why;
  std::optional<int64_t> value = eval_fx_dim(e, hints, &why);
  if (!value && (why == "integer overflow" || why == "division by zero"))
    throw FxSyntaxError(line, "dim '" + t + "' with the given hints: " + why);
  return symbolic(t, value);
}

Dim named_symbol(const std::string& name, const FxSymbolHints& hints) {
  Dim d;
  d.sym_id = intern_symbol(name);
  auto it = hints.find(name);
  d.has_hint = it != hints.end();
  d.value = d.has_hint ? it->second : 0;
  return d;
}

std::string dim_text(const Dim& d) {
  return d.is_symbolic() ? d.sym() : std::to_string(d.value);
}

namespace {
// Operands that are compound expressions get parentheses.
std::string operand(const Dim& d) {
  std::string t = dim_text(d);
  for (char c : t)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return "(" + t + ")";
  return t;
}
} // namespace

namespace {
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw FxDimOverflow();
  return r;
}
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw FxDimOverflow();
  return r;
}
} // namespace

Dim dim_mul(const Dim& a, int64_t k) {
  if (!a.is_symbolic())
    return Dim::of(checked_mul(a.value, k));
  if (k == 1)
    return a;
  std::optional<int64_t> h;
  if (a.has_hint)
    h = checked_mul(a.value, k);
  return symbolic(std::to_string(k) + "*" + operand(a), h);
}

Dim dim_div(const Dim& a, int64_t k) {
  if (!a.is_symbolic())
    return Dim::of(k && !(k == -1 && a.value == INT64_MIN) ? a.value / k : 0);
  if (k == 1)
    return a;
  std::optional<int64_t> h;
  if (a.has_hint && k && !(k == -1 && a.value == INT64_MIN))
    h = a.value / k;
  return symbolic(operand(a) + "//" + std::to_string(k), h);
}

Dim dim_add(const Dim& a, const Dim& b) {
  if (!a.is_symbolic() && !b.is_symbolic())
    return Dim::of(checked_add(a.value, b.value));
  if (!a.is_symbolic() && a.value == 0)
    return b;
  if (!b.is_symbolic() && b.value == 0)
    return a;
  std::optional<int64_t> h;
  if (a.is_known() && b.is_known())
    h = checked_add(a.value, b.value);
  return symbolic(dim_text(a) + " + " + dim_text(b), h);
}

std::optional<Dim> dim_arith(std::string_view op, const Dim& a, const Dim& b) {
  if (op == "+")
    return dim_add(a, b);
  auto concrete = [&](int64_t x, int64_t y) -> std::optional<int64_t> {
    int64_t r = 0;
    if (op == "-") {
      if (__builtin_sub_overflow(x, y, &r))
        throw FxDimOverflow();
      return r;
    }
    if (op == "*")
      return checked_mul(x, y);
    if (y == 0 || (x == INT64_MIN && y == -1))
      return std::nullopt;
    if (op == "//") {
      int64_t q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    }
    if (op == "%") {
      int64_t m = x % y;
      return (m != 0 && ((m < 0) != (y < 0))) ? m + y : m;
    }
    return std::nullopt;
  };
  if (op != "-" && op != "*" && op != "//" && op != "%")
    return std::nullopt;
  // Identities keep expressions short: x * 1, 1 * x, x // 1, x - 0.
  auto is = [](const Dim& d, int64_t v) { return !d.is_symbolic() && d.value == v; };
  if ((op == "*" && is(b, 1)) || (op == "//" && is(b, 1)) || (op == "-" && is(b, 0)))
    return a;
  if (op == "*" && is(a, 1))
    return b;
  if (!a.is_symbolic() && !b.is_symbolic()) {
    auto r = concrete(a.value, b.value);
    if (!r)
      return std::nullopt;
    return Dim::of(*r);
  }
  std::optional<int64_t> h;
  if (a.is_known() && b.is_known())
    h = concrete(a.value, b.value);
  return symbolic(operand(a) + " " + std::string(op) + " " + operand(b), h);
}

std::vector<Dim> contiguous_strides(const std::vector<Dim>& shape) {
  std::vector<Dim> stride(shape.size(), Dim::of(1));
  Dim acc = Dim::of(1);
  for (size_t i = shape.size(); i-- > 0;) {
    stride[i] = acc;
    const Dim& s = shape[i];
    if (!acc.is_symbolic() && !s.is_symbolic()) {
      int64_t v = 0;
      acc = Dim::of(__builtin_mul_overflow(acc.value, std::max<int64_t>(s.value, 1), &v)
                        ? std::numeric_limits<int64_t>::max()
                        : v);
    } else {
      std::optional<int64_t> h;
      int64_t v = 0;
      if (acc.is_known() && s.is_known() &&
          !__builtin_mul_overflow(acc.value, std::max<int64_t>(s.value, 1), &v))
        h = v;
      std::string name =
          acc.is_symbolic() || acc.value != 1 ? operand(s) + "*" + operand(acc) : dim_text(s);
      acc = symbolic(name, h);
    }
  }
  return stride;
}

FxAnnotation parse_fx_annotation(const std::string& raw, const FxSymbolHints& hints, int line,
                                 const std::string& default_device) {
  FxAnnotation out;
  std::string text = fx_trim(raw);
  if (text.substr(0, 4) == "Sym(") {
    out.is_symint = true;
    return out;
  }
  size_t open = text.find('[');
  if (open == std::string::npos)
    throw FxSyntaxError(line, "annotation '" + text + "' has no shape");
  std::string abbr = text.substr(0, open);
  auto dtype = parse_fx_dtype_abbr(abbr);
  if (!dtype)
    throw FxSyntaxError(line, "annotation '" + escape_excerpt(text) + "': unknown dtype '" +
                                  escape_excerpt(abbr) + "'");
  size_t close = matching_bracket(text, open);
  if (close == std::string::npos)
    throw FxSyntaxError(line, "annotation '" + text + "': unclosed '['");
  TensorMeta m;
  m.dtype = *dtype;
  for (const auto& d : split_dims(std::string_view(text).substr(open + 1, close - open - 1)))
    m.shape.push_back(fx_dim(d, hints, line));
  size_t rest = close + 1;
  if (rest < text.size() && text[rest] == '[') {
    size_t sclose = matching_bracket(text, rest);
    if (sclose == std::string::npos)
      throw FxSyntaxError(line, "annotation '" + text + "': unclosed '['");
    for (const auto& d : split_dims(std::string_view(text).substr(rest + 1, sclose - rest - 1)))
      m.stride.push_back(fx_dim(d, hints, line));
    if (m.stride.size() != m.shape.size())
      throw FxSyntaxError(line, "annotation '" + text + "': " + std::to_string(m.stride.size()) +
                                    " strides for " + std::to_string(m.shape.size()) + " dims");
    rest = sclose + 1;
  } else {
    m.stride = contiguous_strides(m.shape);
  }
  std::string device = fx_trim(std::string_view(text).substr(rest));
  m.device = device.empty() ? default_device : device;
  out.tensor = std::move(m);
  return out;
}

} // namespace osched
