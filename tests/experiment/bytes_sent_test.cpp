// summary.json's bytes are the bytes that crossed links: they agree with links.csv, whose
// rows leaving a host carry each message once (its first link), whatever the scheme, the
// network model, or a run stopped with messages on their way.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/experiment/run_job.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;
namespace fs = std::filesystem;

namespace {

struct Bytes {
  double sent = 0, push = 0, pull = 0;       // summary.json
  double from_workers = 0, from_servers = 0;  // links.csv: directions leaving worker / server hosts
  double eval_sent = -1;                      // metrics.csv: bytes_sent of the last evaluation
};

double summary_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\": ");
  REQUIRE(at != std::string::npos);
  return std::stod(json.substr(at + key.size() + 4));
}

Bytes run(const std::string& text, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pssim-bytes-test-" + std::to_string(::getpid())) / name;
  experiment::run_to_directory(scenario::load_scenario_text(text, name + ".yaml"), dir, {});
  Bytes b;
  std::ifstream summary(dir / "summary.json");
  const std::string json((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
  b.sent = summary_number(json, "bytes_sent");
  b.push = summary_number(json, "push_bytes");
  b.pull = summary_number(json, "pull_bytes");
  std::ifstream links(dir / "links.csv");
  std::string line;
  std::getline(links, line);  // link,capacity_Bps,bytes,...
  while (std::getline(links, line)) {
    std::stringstream row(line);
    std::string link, capacity, bytes;
    std::getline(row, link, ',');
    std::getline(row, capacity, ',');
    std::getline(row, bytes, ',');
    if (link.rfind("worker-", 0) == 0) b.from_workers += std::stod(bytes);
    if (link.rfind("server-", 0) == 0) b.from_servers += std::stod(bytes);
  }
  std::ifstream metrics(dir / "metrics.csv");
  while (std::getline(metrics, line)) {
    if (line.find(",eval,") == std::string::npos) continue;
    std::stringstream row(line);
    std::string cell;
    for (int column = 0; column <= 12; ++column) std::getline(row, cell, ',');  // bytes_sent is column 12
    b.eval_sent = std::stod(cell);
  }
  return b;
}

// 4 workers, a 100 MB model (25 M parameters), 10 Gbps NICs, no compute to speak of.
std::string job(const std::string& protocol, const std::string& servers, const std::string& stop,
                const std::string& network = "") {
  return "name: bytes\nmodel: {kind: synthetic, params: 25M, flops_per_sample: 1MFLOP}\n"
         "training: {stop: " + stop + "}\ncluster:\n  workers: {count: 4, throughput: 1TFLOPS}\n" + servers +
         "network:\n  worker_nic: {bandwidth: 10Gbps, latency: 20us}\n  server_nic: {bandwidth: 10Gbps, latency: 20us}\n" +
         network + "protocol: " + protocol + "\n";
}

}  // namespace

TEST_CASE("bytes sent: 10 sync rounds of a 100 MB model count the pulls that crossed, not the last one",
          "[outputs][bytes]") {
  // Pulls of versions 0-9 (the 10th update's answers are sent as the run stops): 4.0e9,
  // not 4.4e9; pushes: 10 x 4 x 100 MB.
  const Bytes b = run(job("{mode: sync}", "  servers: {count: 1}\n", "{updates: 10}"), "sync");
  CHECK(b.pull == 4.0e9);
  CHECK(b.push == 4.0e9);
  CHECK(b.sent == b.push + b.pull);
  CHECK(b.from_servers == b.pull);
  CHECK(b.from_workers == b.push);
}

TEST_CASE("bytes sent: a colocated shard's traffic with its own host crosses no link", "[outputs][bytes]") {
  // 4 shards on the 4 worker hosts: a quarter of every push and pull stays on its host.
  const Bytes b = run(job("{mode: sync}", "  servers: {placement: colocated}\n", "{updates: 10}"), "colocated");
  CHECK(b.from_servers == 0);
  CHECK(b.sent == Approx(b.from_workers).epsilon(1e-12));
  CHECK(b.push == Approx(10 * 4 * 3 * 25e6).epsilon(1e-12));  // 3 of 4 slices of 25 MB leave the host
  // And the ring all-reduce of the same job: every byte crosses a link.
  const Bytes ring = run(job("{mode: allreduce}", "", "{updates: 10}"), "ring");
  CHECK(ring.sent == Approx(ring.from_workers).epsilon(1e-12));
  CHECK(ring.push == Approx(10 * 4 * 3 * 25e6).epsilon(1e-12));  // 3 reduce steps of 25 MB per worker
}

TEST_CASE("bytes sent: a run stopped mid-transfer counts what has moved, under max-min and tcp",
          "[outputs][bytes]") {
  for (const std::string network : {"", "  model: tcp\n"}) {
    CAPTURE(network);
    for (const std::string stop : {"{sim_time: 130ms}", "{sim_time: 1s}"}) {
      CAPTURE(stop);
      const Bytes b = run(job("{mode: sync}", "  servers: {count: 2}\n", stop, network), "partial");
      CHECK(b.push == Approx(b.from_workers).epsilon(1e-9));
      CHECK(b.pull == Approx(b.from_servers).epsilon(1e-9));
      CHECK(b.sent == b.push + b.pull);
    }
  }
}

TEST_CASE("bytes sent: the last evaluation row counts the same bytes as the summary", "[outputs][bytes]") {
  // A tiny MLP evaluated every 100 ms; the run ends at 1 s with an evaluation.
  const Bytes b = run("name: eval\nmodel: {kind: mlp, hidden: [8]}\n"
                      "data: {kind: synthetic, batch_size: 4, train_items: 256, test_items: 32}\n"
                      "training: {stop: {sim_time: 1s}, eval: {every: 100ms}}\n"
                      "cluster: {workers: {count: 4, throughput: 10MFLOPS}}\n",
                      "eval");
  CHECK(b.eval_sent == Approx(b.sent).epsilon(1e-9));
  CHECK(b.sent == Approx(b.from_workers + b.from_servers).epsilon(1e-9));
}
