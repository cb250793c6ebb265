#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "sim/experiment/experiment.hpp"
#include "sim/experiment/utilization_csv.hpp"
#include "sim/net/topology_builders.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;

namespace {

struct Sink : net::MessageSink {
  void on_delivered(std::uint64_t) override {}
};

}  // namespace

TEST_CASE("link_utilization.csv lists every bin of every recorded direction", "[utilization_csv]") {
  // One 1.5 MB message at 1 GB/s from 0, bins of 1 ms, run to 2.5 ms: h0's uplink is
  // busy 100 %, 50 %, then 0 % in the last half bin (from 2 ms to 2.5 ms).
  Simulator sim;
  const net::Topology t = net::build_star({{"h0", 1e9, 1e9, 0}, {"h1", 1e9, 1e9, 0}});
  net::FlowNetwork network(sim, t);
  const auto route = t.route(t.node("h0"), t.node("h1")).resources;
  network.record_utilization(kMillisecond, {route[0], route[1]});
  Sink sink;
  network.send(t.node("h0"), t.node("h1"), 1.5e6, &sink, 0);
  sim.run_until(2'500'000);
  network.finish();
  const auto dir = std::filesystem::temp_directory_path() / ("pssim-util-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  experiment::write_link_utilization(dir / "u.csv", network);
  std::ifstream in(dir / "u.csv");
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove_all(dir);
  CHECK(text.str() ==
        "time_s,link,utilization\n"
        "0,h0 -> switch,1\n"
        "0,switch -> h1,1\n"
        "0.001,h0 -> switch,0.5\n"
        "0.001,switch -> h1,0.5\n"
        "0.002,h0 -> switch,0\n"
        "0.002,switch -> h1,0\n");
}

TEST_CASE("output.utilization_max_values bounds the series, which still covers the run", "[utilization_csv]") {
  // sharded-sync (16 workers, 8 servers: 48 link directions, all recorded), 20 rounds of
  // 168.6 ms: 3.37 s, 338 bins of 10 ms = 16,224 values. With room for 2,000 values
  // (41 bins) the bins merge 4 times: 160 ms, 22 bins.
  const auto scenario =
      scenario::load_scenario_file(std::string(PSSIM_SOURCE_DIR) + "/scenarios/timing/sharded-sync.yaml",
                                   {{"output.utilization_max_values=2000"}, {}})
          .scenario;
  experiment::Experiment e(scenario);
  const auto stats = e.run(nullptr);
  const auto& u = e.network().link_utilization();
  CHECK(u.links() == 48);
  CHECK(u.merges() == 4);
  CHECK(u.bin() == 160 * kMillisecond);
  CHECK(u.bins() * u.links() <= 2000);
  CHECK(u.bins() == static_cast<std::size_t>((stats.sim_time + u.bin() - 1) / u.bin()));
}
