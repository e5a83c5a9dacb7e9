#include "calibrate/kineto_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <new>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "files/input_bytes.h"
#include "text/escape.h"
#include "text/json_limits.h"

namespace osched {
namespace {

// Traces are tens of MB of JSON; a gzip bomb is refused past this.
constexpr size_t kMaxTraceBytes = size_t{2} << 30;

// Every gzip member in turn (a concatenation of members is one stream to
// gzip), refused once the output would pass kMaxTraceBytes: the limit is
// counted on bytes produced, and the buffer never grows past it.
std::string gunzip(const std::string& in, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) // 32: detect the gzip header
    throw input_error(path + ": cannot start decompression");
  struct End {
    z_stream& z;
    ~End() { inflateEnd(&z); }
  } end{z};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  size_t left = in.size();
  std::string out;
  char buf[1 << 16];
  while (true) {
    if (z.avail_in == 0 && left > 0) {
      z.avail_in = static_cast<uInt>(std::min<size_t>(left, 1u << 30));
      left -= z.avail_in;
    }
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && z.avail_in == 0))
      throw input_error(path + ": corrupt gzip data");
    const size_t produced = sizeof buf - z.avail_out;
    if (out.size() + produced > kMaxTraceBytes)
      throw input_error(path + ": decompresses to more than 2 GiB");
    if (out.size() + produced > out.capacity()) // grow by doubling, up to the limit
      out.reserve(std::min(kMaxTraceBytes, std::max(out.capacity() * 2, out.size() + produced)));
    out.append(buf, produced);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && left == 0)
        break;
      if (inflateReset(&z) != Z_OK) // the next member
        throw input_error(path + ": corrupt gzip data");
      continue;
    }
    if (z.avail_in == 0 && left == 0 && produced < sizeof buf)
      throw input_error(path + ": truncated gzip data");
  }
  return out;
}

std::optional<CollectiveKind> collective_of(const std::string& name) {
  auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("allreduce") || has("all_reduce"))
    return CollectiveKind::AllReduce;
  if (has("allgather") || has("all_gather"))
    return CollectiveKind::AllGather;
  if (has("reduce_scatter") || has("reducescatter"))
    return CollectiveKind::ReduceScatter;
  if (has("alltoall") || has("all_to_all"))
    return CollectiveKind::AllToAll;
  if (has("broadcast"))
    return CollectiveKind::Broadcast;
  return std::nullopt; // send/recv, barrier, gather, scatter, reduce
}

// Kineto's dtype names ("Float", "BFloat16") and C++ type names of
// `Input type` ("c10::BFloat16", "float", "long int").
std::optional<std::pair<const char*, int>> dtype_of(const std::string& t) {
  static const std::map<std::string, std::pair<const char*, int>> k = {
      {"Float", {"float32", 4}},
      {"float", {"float32", 4}},
      {"Double", {"float64", 8}},
      {"double", {"float64", 8}},
      {"Half", {"float16", 2}},
      {"c10::Half", {"float16", 2}},
      {"BFloat16", {"bfloat16", 2}},
      {"c10::BFloat16", {"bfloat16", 2}},
      {"Long", {"int64", 8}},
      {"long int", {"int64", 8}},
      {"Int", {"int32", 4}},
      {"int", {"int32", 4}},
      {"Short", {"int16", 2}},
      {"short int", {"int16", 2}},
      {"Char", {"int8", 1}},
      {"signed char", {"int8", 1}},
      {"Byte", {"uint8", 1}},
      {"unsigned char", {"uint8", 1}},
      {"Bool", {"bool", 1}},
      {"bool", {"bool", 1}},
      {"Float8_e4m3fn", {"float8_e4m3fn", 1}},
      {"c10::Float8_e4m3fn", {"float8_e4m3fn", 1}},
      {"Float8_e5m2", {"float8_e5m2", 1}},
      {"c10::Float8_e5m2", {"float8_e5m2", 1}},
  };
  auto it = k.find(t);
  if (it == k.end())
    return std::nullopt;
  return it->second;
}

std::optional<int64_t> integer(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end())
    return std::nullopt;
  if (it->is_number_integer())
    return it->get<int64_t>();
  if (it->is_string()) {
    try {
      size_t used = 0;
      const long long v = std::stoll(it->get<std::string>(), &used);
      if (used == it->get<std::string>().size())
        return v;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

// "aten::mm" -> "aten.mm.default": the trace names no overload.
std::string target_of(const std::string& op) {
  const size_t sep = op.find("::");
  if (sep == std::string::npos)
    return "";
  return op.substr(0, sep) + "." + op.substr(sep + 2) + ".default";
}

// The estimates file's op+shape key from a CPU op's recorded inputs: each
// tensor input as dtype[d0,d1], others skipped; `op` gets the inputs' sizes
// and first dtype.
std::optional<std::string> shape_key(const std::string& target, const nlohmann::json& args,
                                     ShapedOp& op) {
  auto dims = args.find("Input Dims");
  auto types = args.find("Input type");
  if (dims == args.end() || types == args.end() || !dims->is_array() || !types->is_array() ||
      dims->size() != types->size())
    return std::nullopt;
  std::string key = target;
  bool any = false;
  for (size_t i = 0; i < dims->size(); ++i) {
    const nlohmann::json& d = (*dims)[i];
    const nlohmann::json& t = (*types)[i];
    if (!t.is_string() || !d.is_array() || d.empty())
      continue; // a scalar or a non-tensor argument
    auto dt = dtype_of(t.get<std::string>());
    if (!dt)
      continue;
    key += "|" + std::string(dt->first) + "[";
    std::vector<int64_t> sizes;
    for (size_t k = 0; k < d.size(); ++k) {
      if (!d[k].is_number_integer())
        return std::nullopt;
      sizes.push_back(d[k].get<int64_t>());
      key += (k ? "," : "") + std::to_string(sizes.back());
    }
    key += "]";
    if (!any)
      op.dtype = dt->first;
    op.dims.push_back(std::move(sizes));
    any = true;
  }
  if (!any)
    return std::nullopt;
  return key;
}

} // namespace

namespace {

// One trace read event by event: each element of traceEvents is taken as
// soon as it is parsed and dropped from the document, so memory holds the
// text and what is kept of the events, never a JSON tree of the whole trace.
class TraceReader {
public:
  explicit TraceReader(KinetoTrace& t) : t_(t) {}

  // A kernel's or an op's time that is no measurement (a day or more, or
  // not a number) would reach the estimates as inf or 1e297 ms, which
  // schedule refuses: the trace is refused, naming it.
  static constexpr double kMaxUs = 86400e6;

  void take(const nlohmann::json& e) {
    if (!e.is_object() || !e.contains("cat") || !e["cat"].is_string())
      return;
    const std::string& cat = e["cat"].get_ref<const std::string&>();
    const nlohmann::json empty = nlohmann::json::object();
    const nlohmann::json& args = e.contains("args") && e["args"].is_object() ? e["args"] : empty;
    if (cat == "cpu_op") {
      if (args.contains("Input Dims"))
        take_shaped(e, args);
      return;
    }
    if (cat != "kernel" || !e.contains("name") || !e["name"].is_string() || !e.contains("ts") ||
        !e["ts"].is_number() || !e.contains("dur") || !e["dur"].is_number())
      return;
    const std::string& name = e["name"].get_ref<const std::string&>();
    const double dur = e["dur"].get<double>();
    if (name.rfind("nccl", 0) != 0) {
      if (!(dur >= 0) || !(dur <= kMaxUs))
        throw input_error(t_.path + ": kernel '" + escape_excerpt(name) + "' lasts " +
                          std::to_string(dur) + " us: not a measurement");
      if (auto ext = integer(args, "External id"))
        if ((kernel_us_[*ext] += dur) > kMaxUs)
          throw input_error(t_.path + ": the kernels of CPU op " + std::to_string(*ext) +
                            " last more than a day: not a measurement");
      return;
    }
    take_nccl(e, args, dur);
  }

  // The shaped ops whose kernels were found, once every event is read.
  void finish() {
    for (auto& [ext, op] : shaped_) {
      auto it = kernel_us_.find(ext);
      if (it == kernel_us_.end() || it->second <= 0)
        continue;
      op.gpu_us = it->second;
      t_.ops.push_back(std::move(op));
    }
    shaped_.clear();
  }

private:
  // A CPU op with its input shapes: kept as its estimate key, waiting for
  // its kernels' time (they may come later in the file).
  void take_shaped(const nlohmann::json& e, const nlohmann::json& args) {
    t_.has_shapes = true;
    auto ext = integer(args, "External id");
    if (!ext || !e.contains("name") || !e["name"].is_string())
      return;
    const std::string target = target_of(e["name"].get<std::string>());
    if (target.empty())
      return;
    ShapedOp op;
    op.target = target;
    if (auto key = shape_key(target, args, op)) {
      op.key = *key;
      shaped_.emplace_back(*ext, std::move(op));
    }
  }

  void take_nccl(const nlohmann::json& e, const nlohmann::json& args, double dur) {
    const auto cname = args.find("Collective name");
    if (cname == args.end() || !cname->is_string()) {
      ++t_.nccl_without_metadata;
      return;
    }
    auto kind = collective_of(cname->get<std::string>());
    auto nelems = integer(args, "In msg nelems");
    auto gsize = integer(args, "Group size");
    auto dtype = args.contains("dtype") && args["dtype"].is_string()
                     ? dtype_of(args["dtype"].get<std::string>())
                     : std::nullopt;
    // Sizes past any real message (2^50 elements) or group, and durations
    // past a day, are not measurements.
    if (!kind || !nelems || !gsize || !dtype || *nelems < 0 || *nelems > (int64_t{1} << 50) ||
        *gsize < 1 || *gsize > (1 << 20) || !(dur >= 0) || !(dur <= kMaxUs) ||
        !std::isfinite(e["ts"].get<double>())) {
      ++t_.nccl_without_metadata;
      return;
    }
    NcclKernel k;
    k.kind = *kind;
    if (auto g = args.find("Process Group Name"); g != args.end() && g->is_string())
      k.group = g->get<std::string>();
    // A table names groups by one word: a name it cannot hold is left out.
    bool plain = k.group.empty() || k.group[0] != '#';
    for (char ch : k.group)
      plain = plain && static_cast<unsigned char>(ch) > ' ' && ch != 0x7f;
    if (!plain) {
      ++t_.nccl_without_metadata;
      return;
    }
    k.group_size = *gsize;
    k.input_bytes = *nelems * dtype->second;
    k.seq = integer(args, "Seq");
    k.start_us = e["ts"].get<double>();
    k.dur_us = dur;
    t_.nccl.push_back(std::move(k));
  }

  KinetoTrace& t_;
  std::map<int64_t, double> kernel_us_; // GPU kernel time per launching CPU op (External id)
  std::vector<std::pair<int64_t, ShapedOp>> shaped_;
};

} // namespace

KinetoTrace parse_kineto_trace(const std::string& raw, const std::string& path) {
  const bool gz = raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f &&
                  static_cast<unsigned char>(raw[1]) == 0x8b;
  const std::string text = gz ? gunzip(raw, path) : std::string();
  KinetoTrace t;
  t.path = path;
  TraceReader reader(t);
  bool events_key = false, in_events = false, saw_events = false;
  const nlohmann::json j = parse_json_events(
      gz ? std::string_view(text) : std::string_view(raw),
      path + ": not a Kineto trace: " + kMalformedJson,
      [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (depth == 1 && event == E::key) {
          events_key = parsed == "traceEvents";
        } else if (depth == 1 && event == E::array_start) {
          in_events = events_key;
          saw_events = saw_events || events_key;
        } else if (depth == 1 && event == E::array_end) {
          in_events = false;
        } else if (in_events && depth == 2 &&
                   (event == E::object_end || event == E::array_end || event == E::value)) {
          reader.take(parsed);
          return false; // taken: dropped from the document
        }
        return true;
      });
  if (!j.is_object() || !saw_events || !j.contains("traceEvents") || !j["traceEvents"].is_array())
    throw input_error(path + ": not a Kineto trace (no traceEvents list)");
  reader.finish();
  if (auto it = j.find("deviceProperties"); it != j.end() && it->is_array() && !it->empty() &&
                                            (*it)[0].is_object() && (*it)[0].contains("name") &&
                                            (*it)[0]["name"].is_string())
    t.device_name = (*it)[0]["name"].get<std::string>();
  if (auto it = j.find("distributedInfo"); it != j.end() && it->is_object()) {
    t.rank = integer(*it, "rank").value_or(-1);
    t.world_size = integer(*it, "world_size").value_or(0);
  }
  return t;
}

KinetoTrace read_kineto_trace(const std::string& path) {
  return parse_kineto_trace(read_file_bytes(path, kMaxTraceBytes), path); // "-": standard input
}

} // namespace osched
