#include "sim/cli/exit_codes.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "models/data/data_error.hpp"
#include "sim/cli/report.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/scenario/scenario_error.hpp"

namespace pssim::cli {
namespace {

std::string prefixed(std::string_view input, std::string_view message) {
  return input.empty() ? std::string(message) : fmt::format("{}: {}", input, message);
}

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
  try {
    throw;
  } catch (const scenario::ScenarioError& e) {  // file:line:col for each problem
    report(e);
    return kBadInput;
  } catch (const output::OutputError& e) {  // names the path (and a lock's holder)
    report(e.what());
    return kRunFailed;
  } catch (const models::DataError& e) {  // names the data file
    report(prefixed(input, e.what()));
    return kBadInput;
  } catch (const experiment::BuildError& e) {
    report(prefixed(input, fmt::format("cannot build this scenario: {}", e.what())));
    return kBadInput;
  } catch (const std::invalid_argument& e) {
    report(prefixed(input, e.what()));
    return kBadInput;
  } catch (const std::domain_error& e) {  // TimeNs conversions
    report(prefixed(input, fmt::format("a value of this scenario is beyond the simulator's range ({}); check the "
                                       "rates and sizes (throughput, bandwidth, FLOPs, model size)",
                                       e.what())));
    return kBadInput;
  } catch (const std::overflow_error& e) {  // event times
    report(prefixed(input, fmt::format("a value of this scenario is beyond the simulator's range ({}); check the "
                                       "rates, sizes and stop conditions",
                                       e.what())));
    return kBadInput;
  } catch (const std::bad_alloc&) {
    report("out of memory: the scenario needs more memory than this machine gives (fewer workers, a smaller "
           "model or data set, or async with fewer workers)");
    return kRunFailed;
  } catch (const std::exception& e) {
    report(e.what());
    return kRunFailed;
  } catch (...) {
    report("an unknown error");
    return kRunFailed;
  }
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
