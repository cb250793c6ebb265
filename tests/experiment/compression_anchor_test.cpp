// Compression inside the simulation: the shards apply exactly what the compressors decode,
// each shard's slice is its own message, and results do not depend on threads.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "models/compress/compressor.hpp"
#include "sim/experiment/experiment.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;

namespace {

// 3 workers train a small MLP (784-16-10: 12,730 parameters) on synthetic images.
std::string scenario_text(const std::string& protocol) {
  return "name: compression-anchor\nseed: 3\nmodel: {kind: mlp, hidden: [16]}\n"
         "data: {kind: synthetic, batch_size: 8, train_items: 512, test_items: 128}\n"
         "training:\n  optimizer: {kind: sgd, lr: 0.1}\n  stop: {updates: 6}\n"
         "cluster:\n  workers: {count: 3, speed: {dist: lognormal, sigma: 0.5}}\nprotocol: " +
         protocol + "\n";
}

struct Run {
  std::vector<float> params;
  protocol::Totals totals;
  double push_bytes = 0, pull_bytes = 0;  // that crossed links
};

Run run(const std::string& text, const std::vector<std::string>& overrides, unsigned threads = 1) {
  const auto loaded = scenario::load_scenario_text(text, "anchor.yaml", {overrides, {}});
  experiment::Experiment e(loaded.scenario, threads);
  e.run(nullptr);
  return {e.parameters(), e.protocol().totals(), e.network().bytes_moved(net::ByteAccount::Push),
          e.network().bytes_moved(net::ByteAccount::Pull)};
}

}  // namespace

TEST_CASE("top-k keeping every value, with error feedback, is exactly uncompressed training", "[anchor][compression]") {
  const std::string text = scenario_text("{mode: sync}");
  const auto plain = run(text, {});
  CHECK(run(text, {"compression.push={kind: topk, ratio: 1, error_feedback: true}"}).params == plain.params);
  CHECK(run(text, {"compression.push={kind: fp16}"}).params != plain.params);  // the comparison can fail
  CHECK(run(text, {"compression.push={kind: topk, ratio: 10%}"}).params != plain.params);
}

TEST_CASE("compression composes with sharding: each shard compresses its own slice", "[anchor][compression]") {
  const std::string text = scenario_text("{mode: sync}");
  // fp16 rounds each element on its own: cutting the vector into slices, contiguous or
  // by layer (several ranges per shard), changes nothing.
  const std::string fp16 = "compression.push={kind: fp16, error_feedback: true}";
  const auto one = run(text, {fp16});
  CHECK(run(text, {fp16, "cluster.servers={count: 3}"}).params == one.params);
  CHECK(run(text, {fp16, "cluster.servers={count: 2, partition: layer}"}).params == one.params);

  // Top-k: every push carries k = 10% of its own shard's slice; the bytes on the wire are
  // those of the per-shard encodings.
  const auto sharded = run(text, {"compression.push={kind: topk, ratio: 10%}", "cluster.servers={count: 3}"});
  models::CompressorSpec topk;
  topk.kind = models::CompressorKind::topk;
  topk.ratio = 0.1;
  const models::Compressor c(topk);
  const double per_gradient = static_cast<double>(*c.fixed_size(4244) + *c.fixed_size(4243) + *c.fixed_size(4243));
  CHECK(sharded.totals.gradients_applied == 6 * 3 * 3);
  CHECK(sharded.push_bytes == 6 * 3 * per_gradient);
  const auto unsharded = run(text, {"compression.push={kind: topk, ratio: 10%}"});
  CHECK(unsharded.push_bytes == 6 * 3 * static_cast<double>(*c.fixed_size(12730)));
  CHECK(sharded.params != unsharded.params);  // three top-10% selections are not one
}

TEST_CASE("pull deltas with error feedback track the shards", "[anchor][compression]") {
  // Top-k keeping everything: every delta arrives whole, so each worker's copy equals the
  // shard's slice up to the rounding of copy + (slice - copy).
  const std::string text = scenario_text("{mode: sync}");
  const auto plain = run(text, {});
  const auto pulled = run(text, {"compression.pull={kind: topk, ratio: 1, error_feedback: true}"});
  REQUIRE(pulled.params.size() == plain.params.size());
  for (std::size_t i = 0; i < plain.params.size(); ++i)
    REQUIRE(pulled.params[i] == Approx(plain.params[i]).margin(1e-5));
  // 4 bytes per parameter for version 0, then each topk message: 9 bytes of header, the
  // bitmap (cheaper than 14-bit indices here) and 4 bytes per value. The answers to the
  // 6th update are sent as the run stops: they never cross a link.
  const double bitmap = (12730 + 7) / 8;
  CHECK(pulled.pull_bytes == 3 * 4 * 12730 + 5 * 3 * (9 + bitmap + 4 * 12730));
}

TEST_CASE("compressed runs are bit-identical for any number of threads", "[anchor][compression]") {
  const std::string text = scenario_text("{mode: async}");
  const std::vector<std::string> both = {"compression.push={kind: topk, ratio: 5%, error_feedback: true}",
                                         "compression.pull={kind: qsgd, levels: 255}", "cluster.servers={count: 2}"};
  const auto one = run(text, both, 1);
  CHECK(run(text, both, 2).params == one.params);
  CHECK(run(text, both, 4).params == one.params);
}
