// The event timeline: `events:` entries and `events_file:` traces, their checks and
// their file:line errors.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "sim/scenario/events.hpp"
#include "sim/scenario/load_scenario.hpp"

using namespace pssim;
using namespace pssim::scenario;
namespace fs = std::filesystem;

namespace {

const char* kBase = R"(name: ev
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4}, servers: {count: 2}}
protocol: {mode: sync}
)";

std::string first_error(const std::string& text) {
  try {
    load_scenario_text(text, "s.yaml");
  } catch (const ScenarioError& e) {
    return format_diagnostic(e.diagnostics().front());
  }
  return "(no error)";
}

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& name, const std::string& text)
      : path(fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".csv")) {
    std::ofstream(path) << text;
  }
  ~TempFile() { fs::remove(path); }
};

EventFacts facts() {
  EventFacts f;
  f.workers = 4;
  f.servers = 2;
  f.scheme = "sync";
  f.switches = {"switch"};
  return f;
}

}  // namespace

TEST_CASE("every event kind round-trips through the trace file", "[scenario][events]") {
  std::vector<EventSpec> events(7);
  using K = EventSpec::Kind;
  events[0].kind = K::WorkerCrash, events[0].target = "worker-3", events[0].at = 1'500'000'000,
  events[0].recover_after = 2'000'000'000;
  events[1].kind = K::WorkerRecover, events[1].target = "worker-1", events[1].at = 2'000'000'000;
  events[2].kind = K::ServerCrash, events[2].target = "server-0", events[2].at = 2'250'000'000,
  events[2].recover_after = 5'000'000'000;
  events[3].kind = K::ServerRecover, events[3].target = "server-1", events[3].at = 3'000'000'000;
  events[4].kind = K::Link, events[4].target = "worker-0", events[4].at = 3'000'000'001,
  events[4].bandwidth = 62.5e6, events[4].latency = 1'000'000;
  events[5].kind = K::Link, events[5].target = "worker-2--switch", events[5].at = 4'000'000'000,
  events[5].bandwidth = 0.0;
  events[6].kind = K::WorkerSpeed, events[6].target = "worker-2", events[6].at = 4'000'000'000, events[6].factor = 0.25;
  std::ostringstream out;
  write_events_file(events, out);
  const TempFile file("pssim-trace", out.str());
  Timeline timeline;
  read_events_file(file.path.string(), facts(), timeline);
  REQUIRE(timeline.size() == events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    CAPTURE(i, out.str());
    const EventSpec back = timeline.entry(i);
    CHECK(back.kind == events[i].kind);
    CHECK(back.target == events[i].target);
    CHECK(back.at == events[i].at);
    CHECK(back.recover_after == events[i].recover_after);
    CHECK(back.bandwidth == events[i].bandwidth);
    CHECK(back.latency == events[i].latency);
    CHECK(back.factor == events[i].factor);
    CHECK(back.where.line == static_cast<int>(i) + 2);  // after the header
  }
}

TEST_CASE("events_file and events: give the same timeline", "[scenario][events]") {
  const TempFile file("pssim-events", "time,kind,target,value\n0.5,worker_crash,worker-1,2s\n"
                                      "1,link,server-0,500Mbps\n3,worker_speed,worker-2,0.5\n");
  const auto from_file = load_scenario_text(std::string(kBase) + "events_file: " + file.path.string() + "\n", "s.yaml");
  const auto inline_events = load_scenario_text(std::string(kBase) + R"(events:
  - {at: 500ms, kind: worker_crash, target: worker-1, recover_after: 2s}
  - {at: 1s, kind: link, target: server-0, bandwidth: 500Mbps}
  - {at: 3s, kind: worker_speed, target: worker-2, factor: 0.5}
)",
                                                "s.yaml");
  const Timeline& from_trace = *from_file.scenario.dynamics.timeline;
  const Timeline& listed = *inline_events.scenario.dynamics.timeline;
  REQUIRE(from_trace.size() == 3);
  REQUIRE(listed.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const EventSpec a = from_trace.entry(i), b = listed.entry(i);
    CHECK(a.kind == b.kind);
    CHECK(a.at == b.at);
    CHECK(a.target == b.target);
    CHECK(a.recover_after == b.recover_after);
    CHECK(a.bandwidth == b.bandwidth);
    CHECK(a.factor == b.factor);
  }
}

TEST_CASE("bad events are errors at their file and line", "[scenario][events]") {
  const std::string base(kBase);
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: worker_crash, target: worker-4}\n"),
             Catch::StartsWith("s.yaml:7:") && Catch::Contains("no such worker"));
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: worker_crash, target: worker-1}\n"
                                "  - {at: 2s, kind: worker_recover, target: worker-2}\n"),
             Catch::StartsWith("s.yaml:8:") && Catch::Contains("it has not crashed"));
  // A recovery before its crash.
  CHECK_THAT(first_error(base + "events:\n  - {at: 3s, kind: worker_crash, target: worker-1}\n"
                                "  - {at: 2s, kind: worker_recover, target: worker-1}\n"),
             Catch::StartsWith("s.yaml:8:") && Catch::Contains("it has not crashed"));
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: server_crash, target: server-2}\n"),
             Catch::StartsWith("s.yaml:7:") && Catch::Contains("no such server"));
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: link, target: worker-9, bandwidth: 1Gbps}\n"),
             Catch::StartsWith("s.yaml:7:") && Catch::Contains("no such host"));
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: link, target: worker-1}\n"),
             Catch::StartsWith("s.yaml:7:") && Catch::Contains("needs bandwidth, latency or both"));
  CHECK_THAT(first_error(base + "events:\n  - {at: 5s, until: 1s, every: 1s, kind: worker_speed, target: worker-1, "
                                "factor: 2}\n"),
             Catch::StartsWith("s.yaml:7:") && Catch::Contains("until is before"));
  CHECK_THAT(first_error(base + "events:\n  - {kind: worker_crash, target: worker-1}\n"),
             Catch::StartsWith("s.yaml:7:") && Catch::Contains("needs a time"));
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: worker_explode, target: worker-1}\n"),
             Catch::StartsWith("s.yaml:7:"));
  // A trace: a time in the past, at the file's line.
  const TempFile past("pssim-past", "time,kind,target,value\n2,worker_crash,worker-1,\n# comment\n1,worker_recover,worker-1,\n");
  CHECK_THAT(first_error(base + "events_file: " + past.path.string() + "\n"),
             Catch::StartsWith(past.path.string() + ":4:") && Catch::Contains("in the past"));
  const TempFile unknown("pssim-unknown", "time,kind,target,value\n1,worker_crash,worker-7,\n");
  CHECK_THAT(first_error(base + "events_file: " + unknown.path.string() + "\n"),
             Catch::StartsWith(unknown.path.string() + ":2:") && Catch::Contains("no such worker"));
  const TempFile orphan("pssim-orphan", "time,kind,target,value\n1,server_recover,server-1,\n");
  CHECK_THAT(first_error(base + "events_file: " + orphan.path.string() + "\n"),
             Catch::StartsWith(orphan.path.string() + ":2:") && Catch::Contains("it has not crashed"));
  CHECK_THAT(first_error(base + "events_file: /nonexistent/trace.csv\n"), Catch::Contains("cannot read"));
}

TEST_CASE("trace quirks: a byte order mark, negative times, control characters, recover_after 0, worker-01",
          "[scenario][events]") {
  const std::string base(kBase);
  const auto trace_error = [&](const std::string& name, const std::string& text) {
    const TempFile file(name, text);
    const std::string e = first_error(base + "events_file: " + file.path.string() + "\n");
    return e.substr(std::min(e.size(), file.path.string().size()));  // the file's name left out
  };
  // A UTF-8 byte order mark before the header (spreadsheets write one) is no part of it.
  const TempFile bom("pssim-bom", "\xEF\xBB\xBFtime,kind,target,value\n1,worker_speed,worker-1,0.5\n");
  const auto loaded = load_scenario_text(base + "events_file: " + bom.path.string() + "\n", "s.yaml");
  REQUIRE(loaded.scenario.dynamics.timeline->size() == 1);
  CHECK(loaded.scenario.dynamics.timeline->entry(0).factor == 0.5);
  // A negative time is said to be one, in seconds or with a unit; a recovery delay too.
  CHECK(trace_error("pssim-neg", "time,kind,target,value\n-1,worker_crash,worker-1,\n") ==
        ":2:1: error: '-1' is negative; a duration cannot be");
  CHECK(trace_error("pssim-neg-unit", "time,kind,target,value\n-2ms,worker_crash,worker-1,\n") ==
        ":2:1: error: '-2ms' is negative; a duration cannot be");
  CHECK(trace_error("pssim-neg-recover", "time,kind,target,value\n1,worker_crash,worker-1,-3\n") ==
        ":2:1: error: worker_crash: '-3' is negative; a duration cannot be");
  // A control character is named by its code and column, never printed (a NUL would cut
  // the message short).
  CHECK(trace_error("pssim-nul", std::string("time,kind,target,value\n1,worker_cr\0ash,worker-1,\n", 49)) ==
        ":2:12: error: control character 0x00 in column 12: an events file is text (time,kind,target,value)");
  // recover_after 0 is refused as in the YAML list.
  CHECK(trace_error("pssim-zero", "time,kind,target,value\n1,worker_crash,worker-1,0\n") ==
        ":2:1: error: worker_crash: recover_after = 0 is out of range: must be greater than 0s (empty: it does not "
        "come back)");
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: worker_crash, target: worker-1, recover_after: 0s}\n"),
             Catch::Contains("recover_after = 0s is out of range: must be greater than 0s"));
  // One name per worker: worker-01 is not a second name for worker-1.
  CHECK(trace_error("pssim-zeros", "time,kind,target,value\n1,worker_crash,worker-01,\n2,worker_recover,worker-1,\n") ==
        ":2:1: error: worker_crash of 'worker-01': no such worker (workers are worker-0 .. worker-3); did you mean "
        "'worker-1'?");
  CHECK_THAT(first_error(base + "events:\n  - {at: 1s, kind: server_crash, target: server-00}\n"),
             Catch::EndsWith("no such server (servers are server-0 .. server-1); did you mean 'server-0'?"));
}

TEST_CASE("server crashes under hybrid are refused at their line", "[scenario][events]") {
  const std::string hybrid = R"(name: hy
model: {kind: lstm-lm, embed_dim: 8, hidden_size: 8}
data: {kind: synthetic-text, batch_size: 2, seq_len: 4}
training: {stop: {updates: 3}}
cluster: {workers: {count: 2}, servers: {count: 1, sparse_embeddings: true}}
protocol: {mode: hybrid}
)";
  CHECK_THAT(first_error(hybrid + "events:\n  - {at: 1s, kind: server_crash, target: server-0, recover_after: 1s}\n"),
             Catch::StartsWith("s.yaml:8:") &&
                 Catch::Contains("server_crash with protocol hybrid is not modelled: a restored shard would take the "
                                 "embedding rows back to its checkpoint while the all-reduced part goes on"));
  const TempFile trace("pssim-hybrid", "time,kind,target,value\n1,server_crash,server-0,\n2,server_recover,server-0,\n");
  CHECK_THAT(first_error(hybrid + "events_file: " + trace.path.string() + "\n"),
             Catch::StartsWith(trace.path.string() + ":2:") && Catch::Contains("with protocol hybrid is not modelled"));
}

TEST_CASE("crashes a scheme cannot take are refused with its reason and the schemes that can", "[scenario][events]") {
  EventFacts f = facts();
  f.scheme = "made-up";  // what the registry says of a scheme, not its name, decides
  f.no_server_crashes = "its shards never checkpoint";
  f.server_crash_schemes = "a or b";
  const TempFile trace("pssim-capabilities", "time,kind,target,value\n1,server_crash,server-1,\n2,worker_crash,worker-1,\n");
  const auto error = [&] {
    try {
      Timeline timeline;
      read_events_file(trace.path.string(), f, timeline);
    } catch (const ScenarioError& e) {
      return format_diagnostic(e.diagnostics().front());
    }
    return std::string("(no error)");
  };
  CHECK_THAT(error(), Catch::StartsWith(trace.path.string() + ":2:") &&
                          Catch::Contains("server_crash with protocol made-up is not modelled: its shards never "
                                          "checkpoint; use a or b"));
  f.no_server_crashes.clear();
  f.no_worker_crashes = "its workers hold nothing";
  f.worker_crash_schemes = "c";
  CHECK_THAT(error(), Catch::StartsWith(trace.path.string() + ":3:") &&
                          Catch::Contains("worker_crash with protocol made-up is not modelled: its workers hold "
                                          "nothing; use c"));
  f.no_worker_crashes.clear();
  CHECK(error() == "(no error)");
}

TEST_CASE("noise: the old form keeps working, shifted-exponential takes its own keys", "[scenario][events]") {
  const auto old = load_scenario_text(R"(name: n
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4, noise: {sigma: 0.2}}}
)",
                                      "s.yaml");
  CHECK(old.scenario.cluster.workers.noise_sigma == 0.2);
  CHECK(old.scenario.cluster.workers.noise.dist == NoiseConfig::Dist::Lognormal);
  const auto exp = load_scenario_text(R"(name: n
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4, noise: {dist: shifted-exponential, shift: 1, mean: 0.5}}}
)",
                                      "s.yaml");
  CHECK(exp.scenario.cluster.workers.noise.dist == NoiseConfig::Dist::ShiftedExponential);
  CHECK(exp.scenario.cluster.workers.noise.shift == 1);
  CHECK(exp.scenario.cluster.workers.noise.mean == 0.5);
  CHECK_THAT(first_error(R"(name: n
model: {kind: synthetic, params: 1M, flops_per_sample: 1GFLOP}
training: {stop: {updates: 3}}
cluster: {workers: {count: 4, noise: {sigma: 0.2, mean: 0.5}}}
)"),
             Catch::StartsWith("s.yaml:4:") && Catch::Contains("applies to dist: shifted-exponential"));
}
