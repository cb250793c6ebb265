#include "sim/output/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace pssim::output {
namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

// One line per holder: "PID <pid> on <host>: <what>".
std::string record(const std::string& what) {
  return fmt::format("PID {} on {}{}{}\n", ::getpid(), host_name(), what.empty() ? "" : ": ", what);
}

// False only for a holder known to have ended: a process of this host that no longer
// exists (a killed shard's line stays in the file until the file is removed).
bool may_be_alive(const std::string& line, const std::string& host) {
  long pid = 0;
  char on_host[256] = {};
  if (std::sscanf(line.c_str(), "PID %ld on %255[^:]", &pid, on_host) != 2 || pid <= 0) return true;
  return on_host != host || ::kill(pid_t(pid), 0) == 0 || errno != ESRCH;
}

// The holders named in the lock file, at most three.
std::string read_holders(int fd) {
  char buffer[16384];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer, 0);
  const std::string text(buffer, n > 0 ? std::size_t(n) : 0);
  const std::string host = host_name();
  std::string holders;
  int listed = 0;
  for (std::size_t start = 0, end; start < text.size() && listed < 3; start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string::npos) break;  // a line being written
    const std::string line = text.substr(start, end - start);
    if (line.empty() || !may_be_alive(line, host)) continue;
    holders += (listed++ ? "; " : "") + line;
  }
  return holders;
}

// True when `fd` is still the file at `path` (not removed and replaced by its last holder).
bool is_current(int fd, const std::filesystem::path& path) {
  struct stat held {}, named {};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

DirectoryLock::DirectoryLock(const std::filesystem::path& dir, Mode mode, const std::string& what)
    : path_(dir / kFileName) {
  const int operation = (mode == Mode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
  // A holder that is releasing makes a taker fail for an instant: a few short retries.
  constexpr int kAttempts = 4;
  for (int attempt = 1;; ++attempt) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw OutputError(fmt::format("cannot create the lock file {}: {}", path_.string(), std::strerror(errno)));
    if (::flock(fd_, operation) == 0) {
      if (is_current(fd_, path_)) break;
      ::close(fd_);  // locked a file its last holder had just removed: lock the new one
      continue;
    }
    const int error = errno;
    if (error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS) {
      unsupported_ = fmt::format("the file system of {} does not support locks ({})", dir.string(),
                                 std::strerror(error));
      ::close(fd_);
      fd_ = -1;
      return;
    }
    const std::string holder = read_holders(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error != EWOULDBLOCK)
      throw OutputError(fmt::format("cannot lock {}: {}", path_.string(), std::strerror(error)));
    if (attempt < kAttempts) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    throw DirectoryInUse(fmt::format("output directory {} is in use by another pssim ({}); wait for it to finish "
                                     "or write elsewhere (-o)",
                                     dir.string(), holder.empty() ? "a process that is starting" : holder));
  }
  // Who holds the lock, for a second writer's message: an exclusive holder is alone (the
  // lines of earlier holders go); shared holders each add a line. Failing to write it is
  // no error: it only makes that message less precise.
  if (mode == Mode::exclusive) {
    [[maybe_unused]] const int truncated = ::ftruncate(fd_, 0);
  }
  const std::string text = record(what);
  [[maybe_unused]] const ssize_t written = ::write(fd_, text.data(), text.size());
}

DirectoryLock::~DirectoryLock() {
  if (fd_ < 0) return;
  // Holding the lock exclusively proves that no one else holds it: only then is the file
  // removed. (For a shared holder a failed conversion drops its hold, as release does.)
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace pssim::output
