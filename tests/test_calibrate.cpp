// calibrate: Kineto traces -> collective table and op estimates. The traces
// here are written by hand so every expected figure is known exactly.

#include <catch2/catch.hpp>

#include <fstream>

#include "calibrate/collective_fit.h"
#include "calibrate/kineto_trace.h"
#include "calibrate/op_profile.h"
#include "cost/collective_table.h"
#include "test_support.h"

#include <zlib.h>

using namespace osched;
using namespace osched::test;

namespace {

// An all-reduce kernel of `mib` MiB of float32 on group "0" of 2 ranks.
std::string allreduce(double ts, double dur, double mib, int seq = -1) {
  const long nelems = static_cast<long>(mib * 1024 * 1024 / 4);
  std::string e = R"({"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL",)"
                  R"("pid":0,"tid":7,"ts":)" +
                  std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
                  R"(,"args":{"Collective name":"allreduce","In msg nelems":)" +
                  std::to_string(nelems) + R"(,"Out msg nelems":)" + std::to_string(nelems) +
                  R"(,"Group size":2,"dtype":"Float","Process Group Name":"0")";
  if (seq >= 0)
    e += R"(,"Seq":)" + std::to_string(seq);
  return e + "}}";
}

std::string trace(int rank, const std::vector<std::string>& events) {
  std::string t = R"({"distributedInfo":{"rank":)" + std::to_string(rank) +
                  R"(,"world_size":2},"traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i)
    t += (i ? "," : "") + events[i];
  return t + "]}";
}

// The true time of a `mib` all-reduce: 10 us + 1 us per MiB, in us.
double truth_us(double mib) {
  return 10 + mib;
}

} // namespace

TEST_CASE("calibrate: arrival skew removed across two ranks, then latency + size / bandwidth") {
  // Each instance: one rank arrives late and its kernel takes the true time;
  // the other started earlier and waited (its kernel is longer by the skew).
  // Sizes 1, 4 and 16 MiB; the late rank alternates.
  std::vector<std::string> r0, r1;
  const double sizes[] = {1, 4, 16, 4};
  for (int i = 0; i < 4; ++i) {
    const double skew = 7 + 3 * i, t = 1000.0 * i, mib = sizes[i];
    const bool r0_late = i % 2 == 0;
    r0.push_back(allreduce(t + (r0_late ? skew : 0), truth_us(mib) + (r0_late ? 0 : skew), mib));
    r1.push_back(allreduce(t + (r0_late ? 0 : skew), truth_us(mib) + (r0_late ? skew : 0), mib));
  }
  std::vector<KinetoTrace> traces = {parse_kineto_trace(trace(0, r0), "r0.json"),
                                     parse_kineto_trace(trace(1, r1), "r1.json")};
  std::string timing;
  std::vector<CollectiveSample> s = collective_samples(traces, &timing);
  REQUIRE(s.size() == 4);
  for (const CollectiveSample& x : s)
    CHECK(x.ms == Approx(truth_us(static_cast<double>(x.bytes) / (1 << 20)) / 1e3));
  CHECK(timing.find("arrival skew removed across 2 ranks (4 instances matched") == 0);
  CollectiveCalibration c = calibrate_collectives(traces);
  REQUIRE(c.table.rows.size() == 1);
  const CollectiveTableRow& row = c.table.rows[0];
  CHECK(row.group == "0");
  CHECK(row.group_size == 2);
  CHECK(row.collective == "all_reduce");
  CHECK(c.fits[0].latency_ms == Approx(0.010));
  CHECK(c.fits[0].ms_per_mib == Approx(0.001));
  CHECK(c.fits[0].rms_residual_ms == Approx(0).margin(1e-12));
  CHECK(row.points.back().first == 2048);
  CHECK(row.points.back().second == Approx(0.010 + 2.048));
  CHECK(row.extrapolated_beyond_mib == 32); // twice the largest measured

  // Without the skew removed (one rank only), the waiting kernels inflate it.
  std::vector<KinetoTrace> one = {traces[0]};
  CollectiveCalibration single = calibrate_collectives(one);
  CHECK(single.timing.find("one rank traced") == 0);
  CHECK(single.fits[0].latency_ms > 0.010);
}

TEST_CASE("calibrate: instances match by sequence number where recorded") {
  // Rank 1 lists the same two instances in the other order of start times;
  // the Seq fields still pair them.
  std::vector<KinetoTrace> traces = {
      parse_kineto_trace(trace(0, {allreduce(0, 30, 2, 5), allreduce(100, 50, 8, 6)}), "a"),
      parse_kineto_trace(trace(1, {allreduce(90, 18, 8, 6), allreduce(120, 12, 2, 5)}), "b")};
  std::vector<CollectiveSample> s = collective_samples(traces, nullptr);
  REQUIRE(s.size() == 2);
  std::map<int64_t, double> ms;
  for (const CollectiveSample& x : s)
    ms[x.bytes >> 20] = x.ms;
  CHECK(ms[2] == Approx(0.012));
  CHECK(ms[8] == Approx(0.018));
}

TEST_CASE("calibrate: the table round-trips through --collective-table's reader") {
  std::vector<KinetoTrace> traces = {
      parse_kineto_trace(trace(0, {allreduce(0, 11, 1), allreduce(100, 14, 4)}), "a")};
  CollectiveCalibration c = calibrate_collectives(traces);
  const std::string text = write_collective_table(c.table, {"a comment"}, {"a note"});
  CollectiveTable back = parse_collective_table(text, "t.table");
  REQUIRE(back.rows.size() == 1);
  CHECK(back.rows[0].extrapolated_beyond_mib == 8);
  for (size_t i = 0; i < back.rows[0].points.size(); ++i)
    CHECK(back.rows[0].points[i].second == Approx(c.table.rows[0].points[i].second).epsilon(1e-5));
  // Past the mark a lookup says so.
  CollectiveInfo info;
  info.kind = CollectiveKind::AllReduce;
  info.group = "0";
  info.group_size = 2;
  info.input_bytes = int64_t{4} << 20;
  bool extrapolated = true;
  CHECK(back.time_ms(info, &extrapolated).has_value());
  CHECK_FALSE(extrapolated);
  info.input_bytes = int64_t{64} << 20;
  CHECK(back.time_ms(info, &extrapolated).has_value());
  CHECK(extrapolated);
  CHECK_THROWS_WITH(
      parse_collective_table(text + "# extrapolated beyond 3 MiB: 9 2 all_reduce\n", "t.table"),
      Catch::Contains("t.table:") && Catch::Contains("the extrapolation mark names no row"));
}

TEST_CASE("calibrate: op estimates from shapes, CLI errors leave nothing behind") {
  TempDir tmp;
  // aten::mm with recorded inputs, launching two kernels (30 + 12 us).
  const std::string shaped =
      R"({"distributedInfo":{"rank":0,"world_size":2},"traceEvents":[)"
      R"({"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":5,"args":{"External id":7,)"
      R"("Input Dims":[[64,128],[128,32]],"Input type":["c10::BFloat16","c10::BFloat16"]}},)"
      R"({"ph":"X","cat":"kernel","name":"sm90_gemm","ts":2,"dur":30,"args":{"External id":7}},)"
      R"({"ph":"X","cat":"kernel","name":"splitk_reduce","ts":40,"dur":12,"args":{"External id":7}},)" +
      allreduce(100, 11, 1) + "]}";
  std::ofstream(tmp.file("r0.json")) << shaped;
  CliResult r = run_cli("calibrate " + tmp.file("r0.json") + " -o " + tmp.file("t.table") +
                        " --estimates " + tmp.file("e.json"));
  REQUIRE(r.exit_code == 0);
  const nlohmann::json est = nlohmann::json::parse(read_text(tmp.file("e.json")));
  CHECK(est["ops"]["aten.mm.default|bfloat16[64,128]|bfloat16[128,32]"] == Approx(0.042));
  // 2 * 64 * 128 * 32 FLOPs in 42 us against 989 TFLOPS: 0.0013%.
  const std::vector<OpClassRoofline> roof =
      roofline_fractions({read_kineto_trace(tmp.file("r0.json"))}, default_hardware("H100-SXM"));
  REQUIRE(roof.size() == 1);
  CHECK(roof[0].target == "aten.mm.default");
  CHECK(roof[0].ops == 1);
  CHECK(roof[0].median_fraction == Approx(2.0 * 64 * 128 * 32 / 42e-6 / 989e12));
  CHECK(r.err.find("aten.mm.default: 1 op(s), median 0.0% of the tensor-core peak") !=
        std::string::npos);
  CHECK(run_cli("schedule " + source_path("testdata/fsdp_tiny.json") + " -q -o " +
                tmp.file("s.json") + " --collective-table " + tmp.file("t.table") +
                " --runtime-estimates " + tmp.file("e.json"))
            .exit_code == 0);

  // Not a trace; a trace without collectives: one line, exit 2, no output.
  std::ofstream(tmp.file("bad.json")) << R"({"nodes": []})";
  std::ofstream(tmp.file("none.json")) << trace(0, {});
  for (const char* in : {"bad.json", "none.json", "missing.json"}) {
    INFO(in);
    CliResult e = run_cli("calibrate " + tmp.file(in) + " -o " + tmp.file("x.table"));
    CHECK(e.exit_code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    CHECK_FALSE(std::ifstream(tmp.file("x.table")).good());
  }
}

namespace {

// `text` gzip-compressed as one member.
std::string gzip_member(const std::string& text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

} // namespace

TEST_CASE("calibrate: a gzip trace of several members is read whole; a cut one is refused") {
  const std::string text = trace(0, {allreduce(0, truth_us(1), 1), allreduce(100, truth_us(4), 4)});
  const KinetoTrace one = parse_kineto_trace(gzip_member(text), "one.json.gz");
  // gzip -c a >x; gzip -c b >>x: one stream to gzip, which the reader once
  // stopped after the first member of and called malformed.
  const size_t half = text.size() / 2;
  const KinetoTrace two = parse_kineto_trace(
      gzip_member(text.substr(0, half)) + gzip_member(text.substr(half)), "two.json.gz");
  CHECK(two.nccl.size() == one.nccl.size());
  CHECK(one.nccl.size() == 2);
  const std::string whole = gzip_member(text);
  CHECK_THROWS_WITH(parse_kineto_trace(whole.substr(0, whole.size() / 2), "cut.json.gz"),
                    "cut.json.gz: truncated gzip data");
  std::string corrupt = whole;
  corrupt[corrupt.size() / 2] ^= 0x55;
  CHECK_THROWS_WITH(parse_kineto_trace(corrupt, "bad.json.gz"), Catch::Contains("bad.json.gz: "));
}

TEST_CASE("calibrate: no output over a trace, nor two outputs into one file") {
  TempDir tmp;
  const std::string t = tmp.file("t.json"), est = tmp.file("est.json");
  std::ofstream(t) << trace(0, {allreduce(0, truth_us(1), 1), allreduce(100, truth_us(4), 4)});
  const std::string before = read_text(t);
  CliResult r = run_cli("calibrate " + t + " -o " + t);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: -o: '" + t + "' is the input TRACE\n");
  CHECK(read_text(t) == before);
  r = run_cli("calibrate " + t + " -o " + est + " --estimates " + est);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: --estimates: '" + est + "' is also -o\n");
  r = run_cli("calibrate " + t + " -o " + tmp.file("a.table") + " --estimates " + t);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is the input TRACE") != std::string::npos);
  CHECK(tmp.entries() == 1); // nothing written
}

TEST_CASE("calibrate: a collective measured only at 0 bytes is extrapolated at every size") {
  KinetoTrace t = parse_kineto_trace(
      trace(0, {allreduce(0, 10, 0), allreduce(100, 10.5, 0), allreduce(200, 9.5, 0)}), "z.json");
  const CollectiveCalibration cal = calibrate_collectives({t});
  REQUIRE(cal.table.rows.size() == 1);
  // Once written and read back, a 1 MiB all-reduce is the fit's, not a measurement.
  const CollectiveTable back = parse_collective_table(
      write_collective_table(cal.table, {}, std::vector<std::string>(1, "")), "z.table");
  CollectiveInfo c;
  c.kind = CollectiveKind::AllReduce;
  c.group = back.rows[0].group;
  c.group_size = back.rows[0].group_size;
  c.input_bytes = 1 << 20;
  bool extrapolated = false;
  REQUIRE(back.time_ms(c, &extrapolated));
  CHECK(extrapolated);
}

TEST_CASE("calibrate: kernels found on no two ranks alike are told apart from no kernels") {
  TempDir tmp;
  const std::string r0 = tmp.file("r0.json"), r1 = tmp.file("r1.json");
  std::ofstream(r0) << trace(0, {allreduce(0, truth_us(1), 1, 1)});
  std::ofstream(r1) << trace(1, {allreduce(0, truth_us(1), 1, 2)});
  CliResult r = run_cli("calibrate " + r0 + " " + r1 + " -o " + tmp.file("t.table"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("2 NCCL collective kernel(s), but no collective found on every rank alike") !=
        std::string::npos);
  const std::string empty = tmp.file("e.json");
  std::ofstream(empty) << trace(0, {});
  r = run_cli("calibrate " + empty + " -o " + tmp.file("t.table"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no NCCL collective kernel with PyTorch's collective metadata") !=
        std::string::npos);
}

TEST_CASE("calibrate: a kernel time that is no measurement refuses the trace, naming it") {
  const std::string kernel =
      R"({"ph":"X","cat":"kernel","name":"sm90_gemm","pid":0,"tid":7,"ts":5,"dur":1e300,)"
      R"("args":{"External id":3}})";
  CHECK_THROWS_WITH(parse_kineto_trace(trace(0, {allreduce(0, 10, 1), kernel}), "k.json"),
                    "k.json: kernel 'sm90_gemm' lasts " + std::to_string(1e300) +
                        " us: not a measurement");
}
