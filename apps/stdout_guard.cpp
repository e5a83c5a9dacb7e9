#include "stdout_guard.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <streambuf>

#include <fcntl.h>
#include <unistd.h>

namespace osched::cli {
namespace {

class FdBuf : public std::streambuf {
public:
  void mark_closed() { closed_ = true; }
  const std::string& error() const { return error_; }

protected:
  int overflow(int c) override {
    if (c == traits_type::eof())
      return sync() == 0 ? 0 : traits_type::eof();
    char ch = static_cast<char>(c);
    return put(&ch, 1) ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    return put(s, static_cast<size_t>(n)) ? n : 0;
  }
  int sync() override { return error_.empty() ? 0 : -1; }

private:
  bool put(const char* p, size_t left) {
    if (!error_.empty())
      return false;
    if (closed_) {
      error_ = "standard output is closed";
      return false;
    }
    while (left > 0) {
      ssize_t w = ::write(1, p, left);
      if (w < 0) {
        if (errno == EINTR)
          continue;
        error_ = std::strerror(errno);
        return false;
      }
      p += w;
      left -= static_cast<size_t>(w);
    }
    return true;
  }
  std::string error_;
  bool closed_ = false;
};

FdBuf g_stdout;

} // namespace

void guard_standard_streams() {
  bool stdout_closed = false;
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1)
      continue;
    int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);
      ::close(null_fd);
    }
    if (fd == 1)
      stdout_closed = true;
  }
  // A closed pipe is a write error (exit 4), not death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  if (stdout_closed)
    g_stdout.mark_closed();
  std::cout.rdbuf(&g_stdout);
}

std::string stdout_error() {
  std::cout.flush();
  return g_stdout.error();
}

} // namespace osched::cli
