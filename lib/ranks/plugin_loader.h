#pragma once
// Finds and opens a plugin that the executable loads only when a command
// needs it (MPI, the GPU backend), so other runs never load those libraries.

#include <string>

namespace osched {

// The path tried for `file`: $`env_var` when set, else beside the executable,
// else `../lib/overlap-sched/` from it (the layout pip installs), else the bare
// name for the loader's search path.
std::string plugin_path(const char* file, const char* env_var);

// dlopen()s `path` for good (never closed: what it made may live until exit).
// `global` exports its symbols, as OpenMPI's own components need of libmpi.
// Throws a device error naming `what` and the loader's reason.
void* open_plugin(const std::string& path, bool global, const std::string& what);

// The symbol `name` of `handle`; throws a device error when it is missing.
void* plugin_symbol(void* handle, const char* name, const std::string& path);

} // namespace osched
