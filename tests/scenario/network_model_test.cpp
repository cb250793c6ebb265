// network.model, network.tcp and network.framing as a scenario gives them (translate.cpp):
// values, defaults, and located errors for bad ones.
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/load_scenario.hpp"

using namespace pssim::scenario;

namespace {

const char* kStar = R"(name: tiny
model: {kind: synthetic, params: 25M, flops_per_sample: 4GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4}}
network:
  topology: star
)";

pssim::net::NetworkModel model_of(const std::string& extra) {
  return load_scenario_text(std::string(kStar) + extra, "s.yaml").scenario.network.model;
}

std::string first_error(const std::string& extra) {
  try {
    load_scenario_text(std::string(kStar) + extra, "s.yaml");
  } catch (const ScenarioError& e) {
    return format_diagnostic(e.diagnostics().front());
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("network.framing: absent is 1 as in SimGrid's models", "[scenario][framing]") {
  CHECK(model_of("").framing == 1.0);
  CHECK(model_of("  model: tcp\n").framing == 1.0);
  // Absent stays absent in the resolved scenario (no output of an existing scenario changes).
  const auto loaded = load_scenario_text(kStar, "s.yaml");
  CHECK(loaded.resolved.at("network").find("framing") == nullptr);
}

TEST_CASE("network.framing: ethernet with an MTU or a plain factor", "[scenario][framing]") {
  CHECK(model_of("  framing: {kind: ethernet}\n").framing == 1448.0 / 1538.0);
  CHECK(model_of("  framing: {kind: ethernet, mtu: 9000}\n").framing == 8948.0 / 9038.0);
  CHECK(model_of("  framing: {kind: ethernet, mtu: 1500, header_bytes: 40}\n").framing == 1460.0 / 1538.0);
  CHECK(model_of("  framing: {kind: factor, efficiency: 0.9}\n").framing == 0.9);
  // With tcp both apply; the factors stay as given.
  const auto tcp = model_of("  model: tcp\n  tcp: {bandwidth_factor: 1}\n  framing: {kind: ethernet}\n");
  CHECK(tcp.kind == pssim::net::NetworkModel::Kind::Tcp);
  CHECK(tcp.tcp.bandwidth_factor == 1.0);
  CHECK(tcp.framing == 1448.0 / 1538.0);
}

TEST_CASE("network.framing: bad values are located errors", "[scenario][framing]") {
  CHECK(first_error("  framing: {kind: factor, efficiency: 0}\n") ==
        "s.yaml:7:39: error: network.framing.efficiency = 0 is out of range: must be greater than 0");
  CHECK(first_error("  framing: {kind: factor, efficiency: 1.2}\n") ==
        "s.yaml:7:39: error: network.framing.efficiency = 1.2 is out of range: must be at most 1");
  CHECK(first_error("  framing: {kind: factor}\n") ==
        "s.yaml:7:12: error: missing required key 'efficiency' in network.framing");
  CHECK(first_error("  framing: {kind: ethernet, mtu: 20}\n") ==
        "s.yaml:7:34: error: network.framing.mtu = 20 is out of range: must be at least 68");
  CHECK(first_error("  framing: {kind: ethernet, mtu: 1500.5}\n") ==
        "s.yaml:7:34: error: network.framing.mtu: '1500.5' is not a whole number");
  CHECK(first_error("  framing: {kind: ethernet, efficiency: 0.9}\n") ==
        "s.yaml:7:29: error: key 'efficiency' in network.framing applies only when kind is 'factor' (here it is "
        "'ethernet')");
  CHECK(first_error("  framing: {kind: wifi}\n") ==
        "s.yaml:7:19: error: network.framing.kind = 'wifi' is not one of: ethernet, factor");
  // A cross-key rule, at the key that breaks it.
  CHECK(first_error("  framing: {kind: ethernet, mtu: 100, header_bytes: 100}\n") ==
        "s.yaml:7:53: error: network.framing.header_bytes 100 leaves no payload in a packet of mtu 100 bytes: it "
        "must be below mtu");
}
