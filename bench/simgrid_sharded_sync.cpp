// SimGrid side of the comparison: the workload of sharded_sync_workload.hpp written with
// SimGrid's s4u API, on a star zone with one split-duplex link per host. Run it with the
// pure max-min model (bench/compare_simgrid.sh passes the flags):
//   --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0
// Prints one line per round ("round <r> <end s>") and the run's figures.
// Usage: simgrid_sharded_sync <workers> <rounds> equal|uneven [--cfg=...]...
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

#include "bench/sharded_sync_workload.hpp"

namespace sg4 = simgrid::s4u;
using namespace pssim::bench;

namespace {

int g_workers = 0, g_rounds = 0;
bool g_uneven = false;
std::vector<double> g_round_end;  // per round: when the last server had its N gradients
int g_token = 0;                  // payload of every message (only sizes matter)

void server(int k) {
  sg4::Mailbox* inbox = sg4::Mailbox::by_name("server-" + std::to_string(k));
  inbox->set_receiver(sg4::Actor::self());
  for (int r = 0; r < g_rounds; ++r) {
    for (int i = 0; i < g_workers; ++i)
      sg4::Mailbox::by_name("worker-" + std::to_string(i))->put_init(&g_token, static_cast<uint64_t>(kShardBytes))->detach();
    for (int i = 0; i < g_workers; ++i) inbox->get<int>();
    g_round_end[static_cast<std::size_t>(r)] = std::max(g_round_end[static_cast<std::size_t>(r)], sg4::Engine::get_clock());
  }
  inbox->set_receiver(nullptr);
}

void worker(int i) {
  sg4::Mailbox* inbox = sg4::Mailbox::by_name("worker-" + std::to_string(i));
  inbox->set_receiver(sg4::Actor::self());
  for (int r = 0; r < g_rounds; ++r) {
    for (int k = 0; k < kServers; ++k) inbox->get<int>();
    sg4::this_actor::sleep_for(compute_seconds(i, g_workers, g_uneven));
    for (int k = 0; k < kServers; ++k)
      sg4::Mailbox::by_name("server-" + std::to_string(k))->put_init(&g_token, static_cast<uint64_t>(kShardBytes))->detach();
  }
  inbox->set_receiver(nullptr);
}

sg4::Host* add_host(sg4::NetZone* zone, const std::string& name, double bandwidth) {
  sg4::Host* host = zone->create_host(name, 1e9)->seal();
  const auto* link = zone->create_split_duplex_link(name + "-nic", bandwidth)->set_latency(kLatencySeconds)->seal();
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
  return host;
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);  // consumes --cfg=... arguments
  if (argc != 4 || parse_workload(argv[3]) < 0) {
    std::fprintf(stderr, "usage: %s <workers> <rounds> equal|uneven [--cfg=...]\n", argv[0]);
    return 2;
  }
  g_workers = std::atoi(argv[1]);
  g_rounds = std::atoi(argv[2]);
  g_uneven = parse_workload(argv[3]) == 1;
  if (g_workers < 1 || g_rounds < 1) return 2;
  g_round_end.assign(static_cast<std::size_t>(g_rounds), 0.0);

  const auto start = std::chrono::steady_clock::now();
  auto* zone = sg4::create_star_zone("star");
  std::vector<sg4::Host*> workers, servers;
  for (int i = 0; i < g_workers; ++i) workers.push_back(add_host(zone, "worker-" + std::to_string(i), kWorkerBandwidth));
  for (int k = 0; k < kServers; ++k) servers.push_back(add_host(zone, "server-" + std::to_string(k), kServerBandwidth));
  zone->seal();
  for (int k = 0; k < kServers; ++k) sg4::Actor::create("server", servers[static_cast<std::size_t>(k)], server, k);
  for (int i = 0; i < g_workers; ++i) sg4::Actor::create("worker", workers[static_cast<std::size_t>(i)], worker, i);
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int r = 0; r < g_rounds; ++r) std::printf("round %d %.17g\n", r, g_round_end[static_cast<std::size_t>(r)]);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("wall_s %.6f\npeak_rss_bytes %llu\n", wall, static_cast<unsigned long long>(usage.ru_maxrss) * 1024ULL);
  return 0;
}
