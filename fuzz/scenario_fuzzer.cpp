// libFuzzer target: the scenario loader, overrides, validator and translation.
//
// Input: a scenario file. If its first line starts with "#set " the rest of that line is
// also applied as a --set override. Every input must either load or fail with a
// ScenarioError (a located message); anything else (another exception, a crash, a
// sanitizer report, a timeout) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "sim/scenario/load_scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  pssim::scenario::Overrides overrides;
  if (text.rfind("#set ", 0) == 0) {
    const auto end = text.find('\n');
    overrides.assignments.emplace_back(text.substr(5, end == std::string_view::npos ? std::string_view::npos : end - 5));
  }
  try {
    const auto loaded = pssim::scenario::load_scenario_text(text, "fuzz.yaml", overrides);
    // The resolved scenario must read back to itself.
    const std::string yaml = pssim::scenario::resolved_yaml(loaded);
    const auto again = pssim::scenario::load_scenario_text(yaml, "resolved.yaml");
    if (pssim::scenario::resolved_yaml(again) != yaml) {
      std::fprintf(stderr, "resolved scenario does not read back to itself:\n%s\n", yaml.c_str());
      std::abort();
    }
  } catch (const pssim::scenario::ScenarioError& e) {
    if (e.diagnostics().empty()) std::abort();
    for (const auto& d : e.diagnostics())
      if (d.message.empty() || d.location.source.empty()) std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
