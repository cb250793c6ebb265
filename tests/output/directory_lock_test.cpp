// One writer per directory: locks between processes and within one (each lock has its
// own open file, so two in one process exclude each other as two processes would).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/output/directory_lock.hpp"

namespace fs = std::filesystem;
using pssim::output::DirectoryInUse;
using pssim::output::DirectoryLock;
using Mode = DirectoryLock::Mode;

namespace {

fs::path fresh_dir() {
  static std::atomic<int> counter{0};
  const fs::path dir =
      fs::temp_directory_path() / ("pssim-lock-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string pid_text(pid_t pid) { return "PID " + std::to_string(pid) + " on "; }

}  // namespace

TEST_CASE("an exclusive lock keeps every other writer out and names its holder", "[output][lock]") {
  const fs::path dir = fresh_dir();
  {
    const DirectoryLock held(dir, Mode::exclusive, "pssim run of demo");
    CHECK(held.unsupported().empty());
    CHECK(fs::exists(dir / DirectoryLock::kFileName));
    for (Mode mode : {Mode::exclusive, Mode::shared}) {
      CHECK_THROWS_AS(DirectoryLock(dir, mode, "second"), DirectoryInUse);
      CHECK_THROWS_WITH(DirectoryLock(dir, mode, "second"),
                        Catch::Contains("output directory " + dir.string() + " is in use by another pssim (" +
                                        pid_text(::getpid())) &&
                            Catch::Contains(": pssim run of demo)"));
    }
  }
  // Released: the file is gone and the next writer gets in.
  CHECK_FALSE(fs::exists(dir / DirectoryLock::kFileName));
  const DirectoryLock next(dir, Mode::exclusive, "next");
  CHECK(fs::exists(dir / DirectoryLock::kFileName));
}

TEST_CASE("shared locks coexist and keep an exclusive writer out until the last is gone", "[output][lock]") {
  const fs::path dir = fresh_dir();
  auto first = std::make_unique<DirectoryLock>(dir, Mode::shared, "shard 1/2");
  auto second = std::make_unique<DirectoryLock>(dir, Mode::shared, "shard 2/2");
  CHECK_THROWS_WITH(DirectoryLock(dir, Mode::exclusive, "merge"),
                    Catch::Contains("shard 1/2") && Catch::Contains("shard 2/2"));
  first.reset();  // one shard done: the other still holds the directory
  CHECK(fs::exists(dir / DirectoryLock::kFileName));
  CHECK_THROWS_AS(DirectoryLock(dir, Mode::exclusive, "merge"), DirectoryInUse);
  second.reset();
  CHECK_FALSE(fs::exists(dir / DirectoryLock::kFileName));
  const DirectoryLock merge(dir, Mode::exclusive, "merge");
}

TEST_CASE("the lock dies with its process, even by SIGKILL", "[output][lock]") {
  const fs::path dir = fresh_dir();
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // holds the lock until killed
    const DirectoryLock held(dir, Mode::exclusive, "doomed");
    [[maybe_unused]] const ssize_t n = ::write(ready[1], "x", 1);
    for (;;) ::pause();
  }
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  CHECK_THROWS_WITH(DirectoryLock(dir, Mode::exclusive, "waiting"), Catch::Contains(pid_text(child)));
  ::kill(child, SIGKILL);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  ::close(ready[0]);
  ::close(ready[1]);
  // The killed holder's file is still there, unlocked: the next writer takes it over.
  CHECK(fs::exists(dir / DirectoryLock::kFileName));
  {
    const DirectoryLock next(dir, Mode::exclusive, "after the kill");
    CHECK_THROWS_WITH(DirectoryLock(dir, Mode::shared, "x"),
                      Catch::Contains("after the kill") && !Catch::Contains(pid_text(child)));
  }
  CHECK_FALSE(fs::exists(dir / DirectoryLock::kFileName));
}

TEST_CASE("a shard that has ended is not named as a holder", "[output][lock]") {
  const fs::path dir = fresh_dir();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // a shard that ends without releasing (its line stays in the file)
    new DirectoryLock(dir, Mode::shared, "ended shard");
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  const DirectoryLock running(dir, Mode::shared, "running shard");
  CHECK_THROWS_WITH(DirectoryLock(dir, Mode::exclusive, "merge"),
                    Catch::Contains("running shard") && !Catch::Contains("ended shard"));
}

TEST_CASE("a directory that cannot hold a lock file is an OutputError", "[output][lock]") {
  const fs::path dir = fresh_dir() / "missing";
  CHECK_THROWS_WITH(DirectoryLock(dir, Mode::exclusive, "x"), Catch::Contains("cannot create the lock file"));
}
