#include "sim/cli/exit_codes.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "sim/cli/report.hpp"
#include "sim/experiment/failure.hpp"

namespace pssim::cli {
namespace {

// The message is built before any signal arrives: a handler may only call
// async-signal-safe functions (write, signal, raise).
char interrupt_message[160];

extern "C" void on_interrupt(int sig) {
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, interrupt_message, std::strlen(interrupt_message));
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

int report_failure(std::string_view input) {
  const experiment::Failure f = experiment::describe_failure(std::current_exception(), input);
  if (f.diagnostics)
    fmt::print(stderr, "{}\n", f.message);
  else
    report(f.message);
  return f.kind == experiment::Failure::Kind::BadInput ? kBadInput : kRunFailed;
}

void report_interrupts() {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  fmt::format_to_n(interrupt_message, sizeof interrupt_message - 1,
                   "{}pssim: interrupted; completed results are kept, and the next run into the same directory "
                   "replaces the partial ones\n",
                   terminal ? "\r\x1b[K" : "");
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous {};
    // A signal ignored by the parent (nohup, a background job) stays ignored.
    if (::sigaction(sig, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &action, nullptr);
  }
}

}  // namespace pssim::cli
