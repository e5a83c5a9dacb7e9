#include "ranks/plugin_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

#include "errors/error.h"

namespace osched {
namespace {

std::string executable_dir() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0)
    return {};
  std::string path(exe, static_cast<size_t>(n));
  return path.substr(0, path.find_last_of('/') + 1);
}

} // namespace

std::string plugin_path(const char* file, const char* env_var) {
  if (const char* p = std::getenv(env_var); p && *p)
    return p;
  std::string dir = executable_dir();
  if (!dir.empty()) {
    for (const std::string& candidate : {dir + file, dir + "../lib/overlap-sched/" + file})
      if (access(candidate.c_str(), R_OK) == 0)
        return candidate;
  }
  return file;
}

void* open_plugin(const std::string& path, bool global, const std::string& what) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (!handle)
    throw device_error("cannot load the " + what + " plugin: " + dlerror());
  return handle;
}

void* plugin_symbol(void* handle, const char* name, const std::string& path) {
  void* sym = dlsym(handle, name);
  if (!sym)
    throw device_error("plugin " + path + " lacks " + name);
  return sym;
}

} // namespace osched
