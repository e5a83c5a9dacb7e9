// The GPU backend, built as a plugin (libosched_gpu.so) that the tool loads
// only when asked to benchmark, so ordinary runs never load CUDA, cuBLAS or
// NCCL: cuBLAS matmuls and NCCL collectives on real device buffers, timed with
// CUDA events after warm-up; the median run counts. It uses no symbol of the
// tool's library (only its headers' interfaces), see gpu_loader.cpp.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/collective_plan.h"
#include "benchmark/gemm_plan.h"
#include "benchmark/measurer.h"
#include "errors/error.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

namespace osched {

namespace {

void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw device_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(rc));
}

void check_blas(cublasStatus_t rc, const char* what) {
  if (rc != CUBLAS_STATUS_SUCCESS)
    throw device_error(std::string("cuBLAS error in ") + what + ": status " +
                       std::to_string(static_cast<int>(rc)));
}

void check_nccl(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess)
    throw device_error(std::string("NCCL error in ") + what + ": " + ncclGetErrorString(rc));
}

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    check_cuda(cudaMalloc(&ptr, std::max<size_t>(bytes, 256)), "cudaMalloc");
    // Non-zero, finite bit patterns for every dtype (0x3c3c... is 1.05 in fp16/bf16-ish range).
    check_cuda(cudaMemset(ptr, 0x3c, std::max<size_t>(bytes, 256)), "cudaMemset");
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct EventPair {
  cudaEvent_t start{}, stop{};
  EventPair() {
    check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  float elapsed_ms() {
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms;
  }
};

size_t itemsize(DType d) {
  switch (d) {
  case DType::Float32:
    return 4;
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  default:
    return 4;
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

cudaDataType_t blas_type(DType d) {
  switch (d) {
  case DType::Float16:
    return CUDA_R_16F;
  case DType::BFloat16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

// NCCL's type for a dtype and its element size; other dtypes move as bytes,
// and a reduction over them is timed as bfloat16.
ncclDataType_t nccl_type(DType d, bool reduces, int64_t& elem_bytes) {
  switch (d) {
  case DType::Float32:
    elem_bytes = 4;
    return ncclFloat32;
  case DType::Float16:
    elem_bytes = 2;
    return ncclFloat16;
  case DType::BFloat16:
    elem_bytes = 2;
    return ncclBfloat16;
  case DType::Float64:
    elem_bytes = 8;
    return ncclFloat64;
  case DType::Int32:
    elem_bytes = 4;
    return ncclInt32;
  case DType::Int64:
    elem_bytes = 8;
    return ncclInt64;
  default:
    break;
  }
  if (reduces) {
    elem_bytes = 2;
    return ncclBfloat16;
  }
  elem_bytes = 1;
  return ncclInt8;
}

class GpuMeasurer : public Measurer {
public:
  GpuMeasurer(RankContext& ctx, MeasureOptions opts) : ctx_(ctx), opts_(opts) {
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0)
      throw device_error(std::string("no usable CUDA GPU (cudaGetDeviceCount: ") +
                         (rc == cudaSuccess ? "0 devices" : cudaGetErrorString(rc)) +
                         "); GPU benchmarking needs one GPU per rank");
    device_ = ctx.local_rank() % count;
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    name_ = prop.name;
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check_blas(cublasCreate(&blas_), "cublasCreate");
    check_blas(cublasSetStream(blas_, stream_), "cublasSetStream");
  }
  ~GpuMeasurer() override {
    if (comm_)
      ncclCommDestroy(comm_);
    if (blas_)
      cublasDestroy(blas_);
    if (stream_)
      cudaStreamDestroy(stream_);
  }

  std::string device_name() const override { return name_; }

  void prepare_collectives() override {
    if (ctx_.size() < 2)
      throw device_error("collective benchmarking needs at least 2 ranks: launch with mpirun -np N "
                         "(one rank per GPU)");
    // NCCL cannot put two ranks on one GPU; say so instead of failing inside NCCL.
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    // Never throw between here and the communicator: the other ranks would be
    // left waiting in a collective call.
    char bus[64] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device_) != cudaSuccess)
      std::snprintf(bus, sizeof(bus), "%d", device_);
    std::vector<std::string> where = ctx_.allgather_strings(std::string(host) + " GPU " + bus);
    for (size_t i = 0; i < where.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (where[i] == where[j])
          throw device_error(
              "ranks " + std::to_string(j) + " and " + std::to_string(i) + " share " + where[i] +
              "; NCCL needs one GPU per rank (launch at most as many ranks per host as GPUs)");
    std::string id_bytes; // stays empty when rank 0 cannot create the id
    ncclResult_t id_rc = ncclSuccess;
    if (ctx_.rank() == 0) {
      ncclUniqueId id;
      id_rc = ncclGetUniqueId(&id);
      if (id_rc == ncclSuccess)
        id_bytes.assign(reinterpret_cast<const char*>(&id), sizeof(id));
    }
    ctx_.broadcast(id_bytes, 0);
    if (id_bytes.size() != sizeof(ncclUniqueId)) {
      check_nccl(id_rc, "ncclGetUniqueId");
      throw device_error("rank 0 could not create the NCCL unique id");
    }
    ncclUniqueId id;
    std::copy(id_bytes.begin(), id_bytes.end(), reinterpret_cast<char*>(&id));
    check_nccl(ncclCommInitRank(&comm_, ctx_.size(), id, ctx_.rank()), "ncclCommInitRank");
  }

  double matmul_ms(const MatmulProblem& p) override {
    if (p.m == 0 || p.n == 0 || p.k == 0 || p.batch == 0)
      return 0.0;
    const size_t item = itemsize(p.dtype);
    const GemmPlan plan = plan_gemm(p);
    DeviceBuffer a(plan.second.elements * item), b(plan.first.elements * item),
        c(plan.c_elements * item);
    const float alpha = 1.0f;
    const float beta = plan.accumulate ? 1.0f : 0.0f;
    const cudaDataType_t t = blas_type(p.dtype);
    const auto op = [](const GemmOperandPlan& o) {
      return o.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
    };
    auto run = [&] {
      if (plan.batched) {
        check_blas(cublasGemmStridedBatchedEx(
                       blas_, op(plan.first), op(plan.second), static_cast<int>(plan.rows),
                       static_cast<int>(plan.cols), static_cast<int>(plan.inner), &alpha, b.ptr, t,
                       static_cast<int>(plan.first.ld), plan.first.batch_stride, a.ptr, t,
                       static_cast<int>(plan.second.ld), plan.second.batch_stride, &beta, c.ptr, t,
                       static_cast<int>(plan.ldc), plan.stride_c, static_cast<int>(plan.batch),
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmStridedBatchedEx");
      } else {
        check_blas(cublasGemmEx(blas_, op(plan.first), op(plan.second), static_cast<int>(plan.rows),
                                static_cast<int>(plan.cols), static_cast<int>(plan.inner), &alpha,
                                b.ptr, t, static_cast<int>(plan.first.ld), a.ptr, t,
                                static_cast<int>(plan.second.ld), &beta, c.ptr, t,
                                static_cast<int>(plan.ldc), CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx");
      }
    };
    for (int i = 0; i < opts_.warmup_runs; ++i)
      run();
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    std::vector<double> times;
    EventPair ev;
    for (int i = 0; i < opts_.matmul_runs; ++i) {
      check_cuda(cudaEventRecord(ev.start, stream_), "cudaEventRecord");
      run();
      check_cuda(cudaEventRecord(ev.stop, stream_), "cudaEventRecord");
      times.push_back(ev.elapsed_ms());
    }
    return median(times);
  }

  double collective_ms(const CollectiveProblem& p) override {
    if (!comm_)
      throw device_error("NCCL communicator not initialized");
    const int n = ctx_.size();
    const bool reduces =
        p.kind == CollectiveKind::AllReduce || p.kind == CollectiveKind::ReduceScatter;
    int64_t elem_bytes = 1;
    const ncclDataType_t t = nccl_type(p.dtype, reduces, elem_bytes);
    const CollectivePlan plan = plan_collective(p.kind, p.input_bytes, elem_bytes, n);
    // Allocation can fail on one rank only (memory); all ranks learn of it
    // before any of them enters NCCL, where the others would wait forever.
    std::unique_ptr<DeviceBuffer> send_buf, recv_buf;
    std::string error;
    try {
      send_buf = std::make_unique<DeviceBuffer>(static_cast<size_t>(plan.send_bytes));
      recv_buf = std::make_unique<DeviceBuffer>(static_cast<size_t>(plan.recv_bytes));
    } catch (const Error& e) { // kind Device: the buffers' allocation
      error = e.what();
    }
    std::vector<std::string> errors = ctx_.allgather_strings(error);
    for (size_t r = 0; r < errors.size(); ++r)
      if (!errors[r].empty())
        throw device_error(static_cast<int>(r) == ctx_.rank()
                               ? errors[r]
                               : "rank " + std::to_string(r) + ": " + errors[r]);
    DeviceBuffer& send = *send_buf;
    DeviceBuffer& recv = *recv_buf;
    auto run = [&] {
      switch (p.kind) {
      case CollectiveKind::AllGather:
        check_nccl(ncclAllGather(send.ptr, recv.ptr, static_cast<size_t>(plan.nccl_count), t, comm_,
                                 stream_),
                   "ncclAllGather");
        break;
      case CollectiveKind::ReduceScatter:
        check_nccl(ncclReduceScatter(send.ptr, recv.ptr, static_cast<size_t>(plan.nccl_count), t,
                                     ncclSum, comm_, stream_),
                   "ncclReduceScatter");
        break;
      case CollectiveKind::AllReduce:
        check_nccl(ncclAllReduce(send.ptr, recv.ptr, static_cast<size_t>(plan.nccl_count), t,
                                 ncclSum, comm_, stream_),
                   "ncclAllReduce");
        break;
      case CollectiveKind::AllToAll: {
        const size_t chunk = static_cast<size_t>(plan.chunk);
        const size_t chunk_bytes = chunk * static_cast<size_t>(plan.elem_bytes);
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        for (int peer = 0; peer < n; ++peer) {
          check_nccl(ncclSend(static_cast<char*>(send.ptr) + peer * chunk_bytes, chunk, t, peer,
                              comm_, stream_),
                     "ncclSend");
          check_nccl(ncclRecv(static_cast<char*>(recv.ptr) + peer * chunk_bytes, chunk, t, peer,
                              comm_, stream_),
                     "ncclRecv");
        }
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
      }
      case CollectiveKind::Broadcast:
        check_nccl(ncclBroadcast(send.ptr, recv.ptr, static_cast<size_t>(plan.nccl_count), t, 0,
                                 comm_, stream_),
                   "ncclBroadcast");
        break;
      }
    };
    for (int i = 0; i < 2; ++i)
      run();
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    std::vector<double> times;
    EventPair ev;
    for (int i = 0; i < opts_.collective_runs; ++i) {
      ctx_.barrier(); // start together, so the time is the collective's, not the skew
      check_cuda(cudaEventRecord(ev.start, stream_), "cudaEventRecord");
      run();
      check_cuda(cudaEventRecord(ev.stop, stream_), "cudaEventRecord");
      times.push_back(ev.elapsed_ms());
    }
    return median(times);
  }

private:
  RankContext& ctx_;
  MeasureOptions opts_;
  int device_ = 0;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  ncclComm_t comm_ = nullptr;
};

} // namespace

} // namespace osched

// The plugin's one entry point. Returns nullptr with a message on failure.
extern "C" __attribute__((visibility("default"))) osched::Measurer*
osched_gpu_plugin_create(osched::RankContext* ctx, const osched::MeasureOptions* opts, char* error,
                         size_t error_len) {
  try {
    return new osched::GpuMeasurer(*ctx, *opts);
  } catch (const std::exception& e) {
    std::snprintf(error, error_len, "%s", e.what());
    return nullptr;
  }
}
