// DirectoryLock: one writer per output directory, across processes (and machines that
// share the file system).
//
// An advisory flock(2) on <dir>/.pssim.lock, taken without waiting. Exclusive for a run,
// a sweep, a merge, a sweep point; shared for the shards of one sweep, which write
// disjoint points of one directory at once (each point then takes its own exclusive lock).
// A second writer gets DirectoryInUse, whose message names the holders: PID, host and
// what each is doing, as each wrote it into the lock file (one line per holder; lines of
// processes of this host that have ended are left out).
//
// The kernel releases the lock when its process ends, however it ends (even SIGKILL), so
// a kill never leaves a directory locked. The lock file is removed when its last holder
// releases it (a killed holder leaves an unlocked file, taken over by the next writer); a
// taker checks that the file it locked is still the one in the directory, so removal
// never lets two writers in. On a file system without locks (ENOLCK, e.g. NFS without
// lockd) the lock is not held and unsupported() says why.
#pragma once

#include <filesystem>
#include <string>

#include "sim/output/atomic_file.hpp"

namespace pssim::output {

/// The directory is locked by another writer. The message names the directory and the
/// holder.
class DirectoryInUse : public OutputError {
 public:
  using OutputError::OutputError;
};

class DirectoryLock {
 public:
  enum class Mode { exclusive, shared };

  /// Locks `dir` (which must exist) for `what` (e.g. "pssim run", "shard 2/3 of sweep s"),
  /// recorded with this process's PID and host. Throws DirectoryInUse when another writer
  /// holds it, OutputError when the lock file cannot be created.
  DirectoryLock(const std::filesystem::path& dir, Mode mode, const std::string& what);
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  /// Releases the lock; removes the lock file when no one else holds it.
  ~DirectoryLock();

  /// Empty when the lock is held; otherwise why the file system could not lock.
  const std::string& unsupported() const { return unsupported_; }

  /// The name of the lock file in a locked directory.
  static constexpr const char* kFileName = ".pssim.lock";

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::string unsupported_;
};

}  // namespace pssim::output
