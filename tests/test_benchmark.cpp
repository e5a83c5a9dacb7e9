// Benchmark estimator pieces: problem keys, power-of-two sizing and
// interpolation, the cache, alignment bookkeeping, and the CLI's device errors.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "benchmark/aligned_benchmark.h"
#include "benchmark/benchmark_cache.h"
#include "benchmark/collective_plan.h"
#include "benchmark/collective_problem.h"
#include "benchmark/gemm_plan.h"
#include "benchmark/matmul_problem.h"
#include "benchmark/measurer.h"
#include "cost/nccl_model.h"
#include "errors/error.h"
#include "format/graph_file.h"
#include "format/json_io.h"
#include "ranks/rank_context.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

Graph tiny() {
  return read_graph_file(source_path("testdata/fsdp_tiny.json"), GraphFormat::Json);
}

// Counts calls; returns fixed values so tests can predict every estimate.
// Counts what it measures into counts the test owns: the measurer itself is
// destroyed inside run_aligned_benchmarks.
struct MeasureCounts {
  int matmuls = 0, collectives = 0;
};

class CountingMeasurer : public Measurer {
public:
  explicit CountingMeasurer(MeasureCounts& counts) : counts_(counts) {}
  std::string device_name() const override { return "test-gpu"; }
  double matmul_ms(const MatmulProblem& p) override {
    ++counts_.matmuls;
    return static_cast<double>(p.m) / 1000.0;
  }
  double collective_ms(const CollectiveProblem& p) override {
    ++counts_.collectives;
    return static_cast<double>(p.input_bytes) / 1e6;
  }

private:
  MeasureCounts& counts_;
};

} // namespace

TEST_CASE("power-of-two measurement sizes and interpolation") {
  CHECK(pow2_floor(1) == 1);
  CHECK(pow2_floor(1000) == 512);
  CHECK(pow2_ceil(1000) == 1024);
  CHECK(pow2_ceil(1024) == 1024);
  CHECK(measurement_sizes(1024) == std::vector<int64_t>{1024});
  CHECK(measurement_sizes(3000) == std::vector<int64_t>{2048, 4096});

  std::vector<std::pair<int64_t, double>> pts{{1024, 1.0}, {2048, 2.0}, {4096, 3.0}};
  CHECK(*interpolate_ms(pts, 1536) == Approx(1.5));
  CHECK(*interpolate_ms(pts, 3072) == Approx(2.5));
  CHECK(*interpolate_ms(pts, 2048) == Approx(2.0));
  CHECK(*interpolate_ms(pts, 8192) == Approx(5.0));          // extrapolated from the last two
  CHECK(*interpolate_ms(pts, 0) == Approx(0.0));             // never below zero
  CHECK(*interpolate_ms({{1000, 2.0}}, 500) == Approx(1.0)); // one point: through the origin
  CHECK_FALSE(interpolate_ms({}, 10).has_value());
}

TEST_CASE("matmul problems carry shapes, strides and dtype; unbacked dims are not benchmarked") {
  Graph g = tiny();
  auto p = matmul_problem(g, *g.find("fwd_mm0"));
  REQUIRE(p);
  CHECK(p->key() == "aten.mm.default|float32|[32,128]/[128,1]|[128,128]/[1,128]");
  CHECK(p->m == 32);
  CHECK(p->k == 128);
  CHECK(p->n == 128);
  CHECK_FALSE(matmul_problem(g, *g.find("fwd_relu0")));

  // The same mm with an unbacked (hint-less) symbolic dim.
  nlohmann::json j = nlohmann::json::parse(read_text(source_path("testdata/fsdp_tiny.json")));
  for (auto& n : j["nodes"])
    if (n["name"] == "x")
      n["val"]["shape"][0] = {{"sym", "u0"}};
  Graph u = graph_from_json(j);
  CHECK_FALSE(matmul_problem(u, *u.find("fwd_mm0")));
  // fp8 matmuls fall back to the roofline.
  for (auto& n : j["nodes"])
    if (n["name"] == "x")
      n["val"] = {{"shape", {32, 128}}, {"stride", {128, 1}}, {"dtype", "float8_e4m3fn"}};
  Graph f = graph_from_json(j);
  CHECK_FALSE(matmul_problem(f, *f.find("fwd_mm0")));
}

TEST_CASE("collective input bytes and series keys") {
  Graph g = tiny();
  auto in = decode_collective(g, *g.find("ag0"));
  REQUIRE(in);
  CHECK(*in->input_bytes == 32 * 128 * 4);
  CHECK(*in->dtype == DType::Float32);
  CollectiveProblem p{CollectiveKind::AllGather, DType::Float32, 16384, 4};
  CHECK(p.key() == "all_gather|float32|ranks=4|bytes=16384");
  CHECK(collective_model_bytes(CollectiveKind::AllGather, 100, 4) == 500);
  CHECK(collective_model_bytes(CollectiveKind::ReduceScatter, 400, 4) == 500);
}

TEST_CASE("benchmark cache: missing is empty, malformed is rejected, text round-trips") {
  TempDir tmp;
  CHECK(load_benchmark_cache(tmp.file("none.json")).entries.empty());
  std::ofstream(tmp.file("bad.json")) << "{\"format\": \"x\"}";
  CHECK_THROWS_AS(load_benchmark_cache(tmp.file("bad.json")), Error);
  std::ofstream(tmp.file("neg.json"))
      << R"({"format":"overlap-sched.benchmark-cache","version":1,"entries":{"k":-1}})";
  CHECK_THROWS_WITH(load_benchmark_cache(tmp.file("neg.json")), Catch::Contains("entries.k"));
  BenchmarkCache c;
  c.entries["compute|gpu|k"] = 0.25;
  std::ofstream(tmp.file("ok.json")) << benchmark_cache_text(c);
  CHECK(load_benchmark_cache(tmp.file("ok.json")).entries == c.entries);
}

TEST_CASE("aligned benchmarks on one rank: every key measured once, then served from the cache") {
  Graph g = tiny();
  HardwareSpec hw = default_hardware();
  auto ctx = make_single_rank_context();
  MeasureCounts counts;
  MeasureCounts* counter = &counts;
  auto factory = [&]() -> std::unique_ptr<Measurer> {
    return std::make_unique<CountingMeasurer>(counts);
  };
  BenchmarkOptions opts;
  opts.compute = true;
  opts.collectives = true;
  BenchmarkTable t = run_aligned_benchmarks(g, opts, hw, *ctx, factory);
  // fsdp_tiny has 3 distinct mm problems, and all-gather / reduce-scatter inputs of pow2 sizes.
  CHECK(counter->matmuls == 3);
  CHECK(counter->collectives == 2);
  CHECK(t.measured == 5);
  CHECK(t.cache.entries.count(
            "compute|test-gpu|aten.mm.default|float32|[32,128]/[128,1]|[128,128]/[1,128]") == 1);

  BenchmarkEstimator est(t, hw);
  CHECK(*est.compute_ms(g, *g.find("fwd_mm0")) == Approx(0.032));
  CHECK_FALSE(est.compute_ms(g, *g.find("fwd_relu0")));
  // One rank measured, the group has 4: scaled by the NCCL model's ratio.
  const CollectiveInfo ag = *decode_collective(g, *g.find("ag0"));
  double model4 = estimate_nccl_ms({CollectiveKind::AllGather, ag.size_bytes, 4, 1}, hw);
  double model1 =
      estimate_nccl_ms({CollectiveKind::AllGather,
                        collective_model_bytes(CollectiveKind::AllGather, 16384, 1), 1, 1},
                       hw);
  double measured = 16384 / 1e6;
  if (model1 > 0)
    CHECK(*est.collective_ms(g, ag) == Approx(measured * model4 / model1));
  else
    CHECK(*est.collective_ms(g, ag) == Approx(measured));

  opts.cache = &t.cache;
  counts = MeasureCounts{};
  BenchmarkTable again = run_aligned_benchmarks(g, opts, hw, *ctx, factory);
  CHECK(counter->matmuls == 0);
  CHECK(counter->collectives == 0);
  CHECK(again.cache_hits == 5);
  CHECK(again.compute == t.compute);
}

TEST_CASE("collective estimates interpolate between measured powers of two") {
  Graph g = tiny();
  BenchmarkTable t;
  t.nranks = 4; // the graph's group size: no scaling
  t.collectives["all_gather|float32|ranks=4"] = {{8192, 1.0}, {32768, 3.0}};
  BenchmarkEstimator est(t, default_hardware());
  CHECK(*est.collective_ms(g, *decode_collective(g, *g.find("ag0"))) ==
        Approx(1.0 + 2.0 * (16384 - 8192) / (32768.0 - 8192)));
  CHECK_FALSE(est.collective_ms(
      g, *decode_collective(g, *g.find("rs0")))); // no reduce-scatter series measured
}

TEST_CASE("lower median as torch.median takes it") {
  CHECK(lower_median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(lower_median({4.0, 1.0, 3.0, 2.0}) == 2.0);
}

TEST_CASE("benchmarking without a GPU or MPI launcher: one line, exit 3, no output") {
  TempDir tmp;
  std::string in = source_path("testdata/fsdp_tiny.json");
  // Hide any GPU this machine may have, so the no-device path runs everywhere.
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  CliResult r = run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --report " +
                        tmp.file("r.json") + " --benchmark-compute");
  unsetenv("CUDA_VISIBLE_DEVICES");
  CHECK(r.exit_code == 3);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(tmp.entries() == 0);

  r = run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --collective-estimator benchmark");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("mpirun") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(tmp.entries() == 0);

  // A missing GPU plugin (or a build without CUDA) is a device error too.
  setenv("OSCHED_GPU_PLUGIN", "/nonexistent/libosched_gpu.so", 1);
  r = run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --benchmark-compute");
  unsetenv("OSCHED_GPU_PLUGIN");
  CHECK(r.exit_code == 3);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(tmp.entries() == 0);

  r = run_cli("schedule " + in + " -o " + tmp.file("o.json") +
              " --benchmark-compute --benchmark-backend tpu");
  CHECK(r.exit_code == 2);
}

TEST_CASE("synthetic backend on one rank schedules with its measurements") {
  TempDir tmp;
  std::string in = source_path("testdata/fsdp_tiny.json");
  CliResult r =
      run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --report " + tmp.file("r.json") +
              " --benchmark-compute --benchmark-backend synthetic -q");
  REQUIRE(r.exit_code == 0);
  auto rep = nlohmann::json::parse(read_text(tmp.file("r.json")));
  CHECK(rep["benchmark"]["ranks"] == 1);
  CHECK(rep["benchmark"]["compute"].size() == 3);
  CHECK(rep["config"]["benchmark_backend"] == "synthetic");
  CHECK(run_cli("verify " + in + " " + tmp.file("o.json")).exit_code == 0);
}

namespace {

MatmulOperand operand(std::vector<int64_t> shape, std::vector<int64_t> stride) {
  return {shape, stride};
}

// Runs the plan the way cuBLAS reads it (column-major, op flags, leading
// dimensions, batch strides) and compares with C = A B computed straight
// from the row-major strided operands.
void check_plan_against_reference(const MatmulProblem& p) {
  GemmPlan plan = plan_gemm(p);
  std::vector<double> a(plan.second.elements), b(plan.first.elements);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<double>((i * 37) % 101) / 10.0;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<double>((i * 53) % 97) / 10.0;
  const bool batched = p.batch > 1 || p.op == MatmulOp::Bmm;
  const size_t o = batched ? 1 : 0;
  for (int64_t bt = 0; bt < p.batch; ++bt) {
    const double* first = b.data() + bt * plan.first.batch_stride;
    const double* second = a.data() + bt * plan.second.batch_stride;
    for (int64_t r = 0; r < p.m; ++r)
      for (int64_t c = 0; c < p.n; ++c) {
        double ref = 0, blas = 0;
        for (int64_t l = 0; l < p.k; ++l) {
          int64_t ai =
              (batched ? bt * p.a.stride[0] : 0) + r * p.a.stride[o] + l * p.a.stride[o + 1];
          int64_t bi =
              (batched ? bt * p.b.stride[0] : 0) + l * p.b.stride[o] + c * p.b.stride[o + 1];
          ref += a[static_cast<size_t>(ai)] * b[static_cast<size_t>(bi)];
          // C^T(i = c, j = r) = sum_l op(first)(c, l) * op(second)(l, r)
          double f =
              plan.first.transpose ? first[l + c * plan.first.ld] : first[c + l * plan.first.ld];
          double s = plan.second.transpose ? second[r + l * plan.second.ld]
                                           : second[l + r * plan.second.ld];
          blas += f * s;
        }
        INFO("batch " << bt << " row " << r << " col " << c);
        REQUIRE(blas == Approx(ref));
      }
  }
}

} // namespace

TEST_CASE("cuBLAS call plans read row-major and transposed operands correctly") {
  MatmulProblem p;
  p.dtype = DType::BFloat16;
  p.m = 5;
  p.k = 7;
  p.n = 3;
  SECTION("contiguous") {
    p.a = operand({5, 7}, {7, 1});
    p.b = operand({7, 3}, {3, 1});
    check_plan_against_reference(p);
    CHECK_FALSE(plan_gemm(p).first.transpose);
  }
  SECTION("transposed weight (x @ w.t())") {
    p.a = operand({5, 7}, {7, 1});
    p.b = operand({7, 3}, {1, 7});
    check_plan_against_reference(p);
    CHECK(plan_gemm(p).first.transpose);
  }
  SECTION("transposed activation and padded rows") {
    p.a = operand({5, 7}, {1, 5});
    p.b = operand({7, 3}, {8, 1});
    check_plan_against_reference(p);
    CHECK(plan_gemm(p).second.transpose);
    CHECK(plan_gemm(p).first.ld == 8);
  }
  SECTION("addmm accumulates") {
    p.op = MatmulOp::Addmm;
    p.a = operand({5, 7}, {7, 1});
    p.b = operand({7, 3}, {3, 1});
    CHECK(plan_gemm(p).accumulate);
  }
  SECTION("bmm with a per-batch transposed operand") {
    p.op = MatmulOp::Bmm;
    p.batch = 4;
    p.a = operand({4, 5, 7}, {35, 7, 1});
    p.b = operand({4, 7, 3}, {21, 1, 7});
    check_plan_against_reference(p);
    GemmPlan g = plan_gemm(p);
    CHECK(g.batched);
    CHECK(g.first.batch_stride == 21);
    CHECK(g.stride_c == 15);
  }
  SECTION("other strides are timed as contiguous, with buffers that cover them") {
    p.a = operand({5, 7}, {14, 2});
    p.b = operand({7, 3}, {3, 1});
    GemmPlan g = plan_gemm(p);
    CHECK_FALSE(g.second.transpose);
    CHECK(g.second.ld == 7);
    CHECK(g.second.elements >= operand_span(p.a));
  }
}

TEST_CASE("NCCL benchmark plans keep every call inside its buffers") {
  for (CollectiveKind kind :
       {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce,
        CollectiveKind::AllToAll, CollectiveKind::Broadcast})
    for (int64_t bytes : {1, 2, 3, 1000, 4096, 1 << 20})
      for (int64_t elem : {1, 2, 4, 8})
        for (int n : {2, 3, 8}) {
          CollectivePlan p = plan_collective(kind, bytes, elem, n);
          INFO(collective_kind_name(kind)
               << " bytes=" << bytes << " elem=" << elem << " ranks=" << n);
          CHECK(p.count % n == 0);
          CHECK(p.count >= n);
          CHECK(p.send_bytes == p.count * elem);
          switch (kind) {
          case CollectiveKind::AllGather: // reads count, writes count * n
            CHECK(p.nccl_count * elem <= p.send_bytes);
            CHECK(p.nccl_count * elem * n <= p.recv_bytes);
            break;
          case CollectiveKind::ReduceScatter: // reads count * n, writes count
            CHECK(p.nccl_count * n * elem <= p.send_bytes);
            CHECK(p.nccl_count * elem <= p.recv_bytes);
            CHECK(p.nccl_count >= 1);
            break;
          case CollectiveKind::AllReduce:
          case CollectiveKind::Broadcast: // in and out of the same count
            CHECK(p.nccl_count * elem <= std::min(p.send_bytes, p.recv_bytes));
            break;
          case CollectiveKind::AllToAll: // n chunks each way
            CHECK(p.chunk * n * elem <= std::min(p.send_bytes, p.recv_bytes));
            CHECK(p.chunk >= 1);
            break;
          }
          // Never far from the requested size.
          if (bytes >= elem * n)
            CHECK(p.send_bytes <= bytes + elem * n);
        }
}
