target_sources(overlap-sched PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/run_guarded.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/malloc_tuning.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/stdout_guard.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/cmd_basic.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/cmd_verify.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/schedule_flags.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/cmd_schedule.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/cmd_import_fx.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/cmd_diff.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/cmd_batch.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/apps/cmd_calibrate.cpp
)
target_include_directories(overlap-sched PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/apps)
