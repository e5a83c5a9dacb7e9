# Library sources beyond graph model and IO (kept here so each concern lists its files).
target_sources(osched PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/cost/hardware.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/cost/flops.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/cost/nccl_model.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/cost/estimator.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/memory/storage_map.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/memory/memory_tracker.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/scheduler/dependency_graph.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/scheduler/potential_overlap.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/scheduler/overlap_scheduler.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/scheduler/simulate.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/scheduler/reorder.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/report/report.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/report/content_hash.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/pipeline/schedule_pipeline.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/bucketing/overlap_interval.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/bucketing/bucket_planner.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/bucketing/apply_buckets.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/bucketing/overlap_deps.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/benchmark/matmul_problem.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/benchmark/collective_problem.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/benchmark/rank_context.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/benchmark/synthetic_measurer.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/benchmark/gpu_loader.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/benchmark/benchmark_cache.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/benchmark/aligned_benchmark.cpp
)
