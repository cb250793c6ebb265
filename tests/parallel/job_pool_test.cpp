// The job pool: every job runs once, whatever the threads, errors are carried to wait(),
// and threads the system refuses are a clear error.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/parallel/job_pool.hpp"

using pssim::parallel::JobPool;

TEST_CASE("every job runs once and its result is there after wait, on any number of threads", "[parallel]") {
  for (unsigned threads : {1u, 2u, 4u}) {
    JobPool pool(threads);
    std::vector<int> out(64, 0);
    std::vector<std::shared_ptr<JobPool::Ticket>> tickets;
    for (int i = 0; i < 64; ++i) tickets.push_back(pool.submit([&out, i](unsigned) { out[i] += i * i; }));
    for (const auto& t : tickets) pool.wait(t);
    for (int i = 0; i < 64; ++i) CHECK(out[i] == i * i);
  }
}

TEST_CASE("an exception of a job is rethrown by wait", "[parallel]") {
  JobPool pool(2);
  auto t = pool.submit([](unsigned) { throw std::runtime_error("boom"); });
  CHECK_THROWS_WITH(pool.wait(t), "boom");
}

#if defined(__SANITIZE_ADDRESS__)
#define PSSIM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PSSIM_UNDER_ASAN 1
#endif
#endif

TEST_CASE("a pool whose threads the system refuses throws an error saying so, and nothing is left running",
          "[parallel]") {
#ifdef PSSIM_UNDER_ASAN
  WARN("skipped under AddressSanitizer: it needs more address space than the limit this test sets");
  return;
#else
  // In a child process, cap the address space a little above what is mapped now: a
  // thread's stack (8 MiB by default) no longer fits after a few. Without the fix the
  // pool's constructor unwinds past joinable std::threads and the child is killed by
  // std::terminate (SIGABRT).
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t mapped = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    const rlimit cap{mapped + (32u << 20), mapped + (32u << 20)};
    if (::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(3);
    try {
      JobPool pool(64);
      ::_exit(4);  // every thread started: the cap did not bite
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      ::_exit(what.find("cannot start 64 threads") != std::string::npos ? 0 : 5);
    } catch (...) {
      ::_exit(6);
    }
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("the child ended with status " << status << " (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                      << ")");
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
#endif
}
