#include "cost/hardware.h"
#include "errors/error.h"
#include "text/escape.h"

#include <cmath>

#include <stdexcept>

namespace osched {

HardwareSpec default_hardware(const std::string& gpu) {
  HardwareSpec hw;
  hw.gpu = gpu;
  auto has = [&](const char* s) { return gpu.find(s) != std::string::npos; };
  if (has("A100")) {
    hw.generation = GpuGeneration::Ampere;
    hw.peak_tflops = {
        {"float16", 312}, {"bfloat16", 312}, {"float32", 156}, {"float64", 19.5}, {"int8", 624}};
    hw.hbm_gbps = 2039;
    hw.intra_node_gbps = 240;
    hw.inter_node_gbps = 25;
    hw.nccl_channels = 8;
  } else if (has("V100")) {
    hw.generation = GpuGeneration::Volta;
    hw.peak_tflops = {{"float16", 125}, {"bfloat16", 125}, {"float32", 15.7}, {"float64", 7.8}};
    hw.hbm_gbps = 900;
    hw.intra_node_gbps = 120;
    hw.inter_node_gbps = 12;
    hw.nccl_channels = 2;
  } else if (has("B200") || has("B100") || has("GB200")) {
    hw.generation = GpuGeneration::Blackwell;
    hw.peak_tflops = {{"float16", 2250}, {"bfloat16", 2250},      {"float32", 1100},
                      {"float64", 40},   {"float8_e4m3fn", 4500}, {"float8_e5m2", 4500}};
    hw.hbm_gbps = 8000;
    hw.intra_node_gbps = 720;
    hw.inter_node_gbps = 50;
    hw.nccl_channels = 32;
  } else {
    // Hopper (H100-SXM, H200): dense tensor-core peaks; float32 as TF32.
    hw.generation = GpuGeneration::Hopper;
    hw.peak_tflops = {{"float16", 989}, {"bfloat16", 989},       {"float32", 494},
                      {"float64", 67},  {"float8_e4m3fn", 1979}, {"float8_e5m2", 1979},
                      {"int8", 1979}};
    hw.hbm_gbps = has("H200") ? 4800 : 3350;
    hw.intra_node_gbps = 370;
    hw.inter_node_gbps = 50;
    hw.nccl_channels = 16;
  }
  return hw;
}

bool is_known_gpu(const std::string& name) {
  for (const char* token : {"A100", "V100", "B100", "B200", "GB200", "H100", "H200"})
    if (name.find(token) != std::string::npos)
      return true;
  return false;
}

double HardwareSpec::peak_flops(DType d) const {
  auto it = peak_tflops.find(std::string(dtype_name(d)));
  if (it != peak_tflops.end())
    return it->second * 1e12;
  auto f32 = peak_tflops.find("float32");
  return (f32 != peak_tflops.end() ? f32->second : 100.0) * 1e12;
}

namespace {

double positive(const nlohmann::json& v, const std::string& field) {
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()) ||
      v.get<double>() > 1e9)
    throw input_error(field + ": must be a positive number (at most 1e9)");
  return v.get<double>();
}

} // namespace

void apply_hardware_overrides(HardwareSpec& hw, const nlohmann::json& o) {
  if (o.is_null())
    return;
  if (!o.is_object())
    throw input_error("hardware: must be an object");
  if (o.contains("gpu")) {
    if (!o["gpu"].is_string())
      throw input_error("hardware.gpu: must be a string");
    if (!is_known_gpu(o["gpu"].get<std::string>()))
      throw input_error("hardware.gpu: unknown GPU '" +
                        escape_excerpt(o["gpu"].get<std::string>()) +
                        "' (known: names containing A100, V100, H100, H200, B100, B200 or GB200)");
    int gpn = hw.gpus_per_node;
    hw = default_hardware(o["gpu"].get<std::string>());
    hw.gpus_per_node = gpn;
  }
  if (o.contains("gpus_per_node")) {
    if (!o["gpus_per_node"].is_number_integer() || o["gpus_per_node"].get<int64_t>() < 1 ||
        o["gpus_per_node"].get<int64_t>() > 1024)
      throw input_error("hardware.gpus_per_node: must be an integer from 1 to 1024");
    hw.gpus_per_node = o["gpus_per_node"].get<int>();
  }
  if (o.contains("peak_tflops")) {
    if (!o["peak_tflops"].is_object())
      throw input_error("hardware.peak_tflops: must be an object");
    for (const auto& [k, v] : o["peak_tflops"].items()) {
      if (!parse_dtype(k))
        throw input_error("hardware.peak_tflops." + escape_excerpt(k) + ": unknown dtype");
      hw.peak_tflops[k] = positive(v, "hardware.peak_tflops." + k);
    }
  }
  if (o.contains("hbm_gbps"))
    hw.hbm_gbps = positive(o["hbm_gbps"], "hardware.hbm_gbps");
  if (o.contains("intra_node_gbps"))
    hw.intra_node_gbps = positive(o["intra_node_gbps"], "hardware.intra_node_gbps");
  if (o.contains("inter_node_gbps"))
    hw.inter_node_gbps = positive(o["inter_node_gbps"], "hardware.inter_node_gbps");
  if (o.contains("matmul_efficiency")) {
    hw.matmul_efficiency = positive(o["matmul_efficiency"], "hardware.matmul_efficiency");
    if (hw.matmul_efficiency > 1)
      throw input_error("hardware.matmul_efficiency: must be at most 1");
  }
  if (o.contains("kernel_launch_us")) {
    const auto& v = o["kernel_launch_us"];
    if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e6)
      throw input_error("hardware.kernel_launch_us: must be a number from 0 to 1e6");
    hw.kernel_launch_us = v.get<double>();
  }
  if (o.contains("nvlink")) {
    if (!o["nvlink"].is_boolean())
      throw input_error("hardware.nvlink: must be a boolean");
    hw.nvlink = o["nvlink"].get<bool>();
  }
  if (o.contains("nccl_algo")) {
    std::string a = o["nccl_algo"].is_string() ? o["nccl_algo"].get<std::string>() : "";
    if (a == "auto")
      hw.nccl_algo = NcclAlgoChoice::Auto;
    else if (a == "ring")
      hw.nccl_algo = NcclAlgoChoice::Ring;
    else if (a == "tree")
      hw.nccl_algo = NcclAlgoChoice::Tree;
    else
      throw input_error("hardware.nccl_algo: expected auto, ring or tree");
  }
  if (o.contains("nccl_proto")) {
    std::string p = o["nccl_proto"].is_string() ? o["nccl_proto"].get<std::string>() : "";
    if (p == "auto")
      hw.nccl_proto = NcclProtoChoice::Auto;
    else if (p == "LL")
      hw.nccl_proto = NcclProtoChoice::LL;
    else if (p == "LL128")
      hw.nccl_proto = NcclProtoChoice::LL128;
    else if (p == "Simple")
      hw.nccl_proto = NcclProtoChoice::Simple;
    else
      throw input_error("hardware.nccl_proto: expected auto, LL, LL128 or Simple");
  }
}

nlohmann::json HardwareSpec::to_json() const {
  static const char* algo[] = {"auto", "ring", "tree"};
  static const char* proto[] = {"auto", "LL", "LL128", "Simple"};
  return {{"gpu", gpu},
          {"gpus_per_node", gpus_per_node},
          {"peak_tflops", peak_tflops},
          {"hbm_gbps", hbm_gbps},
          {"intra_node_gbps", intra_node_gbps},
          {"inter_node_gbps", inter_node_gbps},
          {"nvlink", nvlink},
          {"nccl_channels", nccl_channels},
          {"nccl_algo", algo[static_cast<int>(nccl_algo)]},
          {"nccl_proto", proto[static_cast<int>(nccl_proto)]},
          {"matmul_efficiency", matmul_efficiency},
          {"kernel_launch_us", kernel_launch_us}};
}

} // namespace osched
