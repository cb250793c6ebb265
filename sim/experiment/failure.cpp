#include "sim/experiment/failure.hpp"

#include <new>
#include <stdexcept>

#include <fmt/format.h>

#include "models/data/data_error.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/scenario/scenario_error.hpp"

namespace pssim::experiment {
namespace {

std::string prefixed(std::string_view input, std::string_view message) {
  return input.empty() ? std::string(message) : fmt::format("{}: {}", input, message);
}

}  // namespace

Failure describe_failure(std::exception_ptr error, std::string_view input) {
  using Kind = Failure::Kind;
  try {
    std::rethrow_exception(error);
  } catch (const scenario::ScenarioError& e) {  // file:line:col for each problem
    std::string lines;
    for (const auto& d : e.diagnostics()) lines += (lines.empty() ? "" : "\n") + scenario::format_diagnostic(d);
    return {Kind::BadInput, lines, true};
  } catch (const output::OutputError& e) {  // names the path (and a lock's holder)
    return {Kind::RunFailed, e.what()};
  } catch (const models::DataError& e) {  // names the data file
    return {Kind::BadInput, prefixed(input, e.what())};
  } catch (const BuildError& e) {
    return {Kind::BadInput, prefixed(input, fmt::format("cannot build this scenario: {}", e.what()))};
  } catch (const std::invalid_argument& e) {
    return {Kind::BadInput, prefixed(input, e.what())};
  } catch (const std::domain_error& e) {  // TimeNs conversions
    return {Kind::BadInput, prefixed(input, fmt::format("a value of this scenario is beyond the simulator's range "
                                                        "({}); check the rates and sizes (throughput, bandwidth, "
                                                        "FLOPs, model size)",
                                                        e.what()))};
  } catch (const std::overflow_error& e) {  // event times
    return {Kind::BadInput, prefixed(input, fmt::format("a value of this scenario is beyond the simulator's range "
                                                        "({}); check the rates, sizes and stop conditions",
                                                        e.what()))};
  } catch (const std::bad_alloc&) {
    return {Kind::RunFailed, "out of memory: the scenario needs more memory than this machine gives (fewer workers, "
                             "a smaller model or data set, or async with fewer workers)"};
  } catch (const std::exception& e) {
    return {Kind::RunFailed, e.what()};
  } catch (...) {
    return {Kind::RunFailed, "an unknown error"};
  }
}

}  // namespace pssim::experiment
