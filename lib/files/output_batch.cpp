#include "files/output_batch.h"

#include "errors/on_unwind.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace osched {
namespace {

// Temporaries being written, for the signal handler: fixed slots, so the
// handler touches no allocator.
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
char g_temp_paths[kSlots][kPathMax];
std::atomic<bool> g_temp_used[kSlots];

int register_temp(const std::string& path) {
  if (path.size() >= kPathMax)
    return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (g_temp_used[i].load() || !g_temp_used[i].compare_exchange_strong(expected, true))
      continue;
    std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
    return i;
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot >= 0)
    g_temp_used[slot].store(false);
}

void unlink_registered_temps() {
  for (int i = 0; i < kSlots; ++i)
    if (g_temp_used[i].load())
      ::unlink(g_temp_paths[i]);
}

extern "C" void remove_temps_and_die(int sig) {
  unlink_registered_temps();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void write_all(int fd, std::string_view piece, const std::string& label) {
  const char* p = piece.data();
  size_t left = piece.size();
  while (left > 0) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      throw output_error(label + ": write failed: " + std::strerror(errno));
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
}

// The file a path finally names: symbolic links followed, also dangling ones
// (the file is then created where the last link points).
std::string resolve_links(const std::string& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec)))
      return p.string();
    std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    if (ec)
      return p.string();
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw output_error(path + ": too many levels of symbolic links");
}

enum class Kind { Stdout, WriteThrough, Replace };

struct Target {
  Kind kind = Kind::Replace;
  std::string label; // as the user named it
  std::string file;  // what is written or replaced
  std::string temp;  // Replace: the temporary
  int slot = -1;
};

Target classify(const std::string& path) {
  Target t;
  t.label = path;
  if (path == "-") {
    t.kind = Kind::Stdout;
    return t;
  }
  t.file = resolve_links(path);
  struct stat st;
  if (::stat(t.file.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw output_error(path + ": is a directory");
    if (!S_ISREG(st.st_mode))
      t.kind = Kind::WriteThrough;
  }
  return t;
}

// Temporaries of this target left by a process that no longer exists (one
// killed with SIGKILL, or on a full disk's error path before cleanup could
// run): their names carry the writer's pid, so only dead writers' are
// removed, never a live concurrent run's.
void remove_stale_temps(const std::string& dir, const std::string& prefix) {
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d)
    return;
  const pid_t self = ::getpid();
  while (const dirent* e = ::readdir(d)) {
    std::string_view name(e->d_name);
    if (name.substr(0, prefix.size()) != prefix)
      continue;
    std::string_view rest = name.substr(prefix.size());
    size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot > 10)
      continue;
    long pid = 0;
    for (char c : rest.substr(0, dot)) {
      if (c < '0' || c > '9') {
        pid = -1;
        break;
      }
      pid = pid * 10 + (c - '0');
    }
    if (pid <= 0 || pid == self)
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH)
      ::unlink(((dir.empty() ? std::string() : dir + "/") + std::string(name)).c_str());
  }
  ::closedir(d);
}

// A temporary in the target's directory, named `.NAME.osched-tmp.PID.XXXXXX`.
// Its name stays within NAME_MAX however long the target's is.
void create_temp(Target& t, int& fd) {
  std::filesystem::path file = t.file;
  std::string base = file.filename().string();
  if (base.size() > 200)
    base.resize(200);
  std::filesystem::path dir = file.parent_path();
  const std::string prefix = "." + base + ".osched-tmp.";
  remove_stale_temps(dir.string(), prefix);
  std::string tmpl = (dir.empty() ? std::string() : dir.string() + "/") + prefix +
                     std::to_string(::getpid()) + ".XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  // A signal between creating the file and registering it would leave it
  // behind: hold the cleanup signals until it is registered.
  sigset_t cleanup_signals, previous;
  sigemptyset(&cleanup_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&cleanup_signals, sig);
  pthread_sigmask(SIG_BLOCK, &cleanup_signals, &previous);
  fd = mkstemp(name.data());
  const int create_errno = errno;
  if (fd >= 0) {
    t.temp = name.data();
    t.slot = register_temp(t.temp);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd < 0)
    throw output_error(t.label + ": cannot create temporary file: " + std::strerror(create_errno));
  // mkstemp creates 0600; give the file ordinary permissions.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
}

void discard(std::vector<Target>& targets) {
  for (Target& t : targets)
    if (!t.temp.empty()) {
      ::unlink(t.temp.c_str());
      unregister_temp(t.slot);
      t.temp.clear();
    }
}

} // namespace

void OutputBatch::add(std::string path, Producer produce) {
  outputs_.push_back({std::move(path), std::move(produce)});
}

void OutputBatch::commit() {
  std::vector<Target> targets;
  // A failure anywhere leaves no output: the temporaries go.
  const OnUnwind discard_temps([&] { discard(targets); });
  {
    for (const Output& o : outputs_)
      targets.push_back(classify(o.path));
    // 1. Temporaries for the files to replace, each complete and closed.
    for (size_t i = 0; i < targets.size(); ++i) {
      Target& t = targets[i];
      if (t.kind != Kind::Replace)
        continue;
      int fd = -1;
      create_temp(t, fd);
      {
        const OnUnwind close_fd([fd] { ::close(fd); });
        outputs_[i].produce([&](std::string_view piece) { write_all(fd, piece, t.label); });
        if (::fsync(fd) != 0 && errno != EINVAL)
          throw output_error(t.label + ": write failed: " + std::strerror(errno));
      }
      if (::close(fd) != 0)
        throw output_error(t.label + ": write failed: " + std::strerror(errno));
    }
    // 2. Streams: standard output and files that are not regular.
    for (size_t i = 0; i < targets.size(); ++i) {
      Target& t = targets[i];
      if (t.kind == Kind::Stdout) {
        outputs_[i].produce([&](std::string_view piece) {
          std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
          if (!std::cout)
            throw output_error("<stdout>: write failed");
        });
        std::cout.flush();
        if (!std::cout)
          throw output_error("<stdout>: write failed");
      } else if (t.kind == Kind::WriteThrough) {
        int fd = ::open(t.file.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0)
          throw output_error(t.label + ": cannot open: " + std::strerror(errno));
        {
          const OnUnwind close_fd([fd] { ::close(fd); });
          outputs_[i].produce([&](std::string_view piece) { write_all(fd, piece, t.label); });
        }
        if (::close(fd) != 0)
          throw output_error(t.label + ": write failed: " + std::strerror(errno));
      }
    }
    // 3. Every output is complete: rename them into place.
    for (Target& t : targets) {
      if (t.kind != Kind::Replace)
        continue;
      if (std::rename(t.temp.c_str(), t.file.c_str()) != 0)
        throw output_error(t.label + ": cannot write: " + std::strerror(errno));
      unregister_temp(t.slot);
      t.temp.clear();
    }
  }
}

bool same_output_file(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-")
    return a == b;
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  auto na = std::filesystem::weakly_canonical(std::filesystem::absolute(resolve_links(a)), ea)
                .lexically_normal();
  auto nb = std::filesystem::weakly_canonical(std::filesystem::absolute(resolve_links(b)), eb)
                .lexically_normal();
  return !ea && !eb && na == nb;
}

void remove_temporaries_now() {
  unlink_registered_temps();
}

void remove_temporaries_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = remove_temps_and_die;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    sigaction(sig, &sa, nullptr);
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  write_file_atomic_pieces(path,
                           [&](const std::function<void(std::string_view)>& emit) { emit(bytes); });
}

void write_file_atomic_pieces(
    const std::string& path,
    const std::function<void(const std::function<void(std::string_view)>&)>& produce) {
  OutputBatch batch;
  batch.add(path, produce);
  batch.commit();
}

std::string output_clash(const std::vector<NamedPath>& inputs,
                         const std::vector<NamedPath>& outputs, size_t first) {
  auto real = [](const std::string& p) { return !p.empty() && p != "-"; };
  for (size_t i = first; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (!real(out.path))
      continue;
    for (const NamedPath& in : inputs)
      if (real(in.path) && same_output_file(out.path, in.path))
        return out.flag + ": '" + out.path + "' is the input " + in.flag;
    for (size_t j = 0; j < i; ++j)
      if (real(outputs[j].path) && same_output_file(out.path, outputs[j].path))
        return out.flag + ": '" + out.path + "' is also " + outputs[j].flag;
  }
  return "";
}

} // namespace osched
