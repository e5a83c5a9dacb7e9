#include <iostream>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "exit_codes.h"
#include "io/escape.h"
#include "io/graph_error.h"
#include "io/graph_file.h"
#include "run_errors.h"

namespace osched::cli {

int run_guarded(const std::function<int()>& fn) {
  try {
    return fn();
  } catch (const GraphError& e) {
    std::cerr << "error: " << escape_line(e.what()) << "\n";
    return kBadInput;
  } catch (const InputError& e) {
    std::cerr << "error: " << escape_line(e.what()) << "\n";
    return kBadInput;
  } catch (const IoError& e) {
    std::cerr << "error: " << escape_line(e.what()) << "\n";
    return kBadInput;
  } catch (const OutputError& e) {
    std::cerr << "error: " << escape_line(e.what()) << "\n";
    return kOutputError;
  } catch (const DeviceError& e) {
    std::cerr << "error: " << escape_line(e.what()) << "\n";
    return kDeviceError;
  } catch (const std::exception& e) {
    std::cerr << "error: internal: " << escape_line(e.what()) << "\n";
    return kBadInput;
  }
}

} // namespace osched::cli
