#include "sim/experiment/trace_recorder.hpp"

#include <fmt/format.h>

#include "sim/output/json_writer.hpp"

namespace pssim::experiment {
namespace {

constexpr int kWorkers = 1, kServers = 2, kLinks = 3, kTraining = 4, kSteps = 5, kEvents = 6;

double micros(TimeNs t) { return static_cast<double>(t) / 1000.0; }

const char* state_name(protocol::WorkerState s) {
  switch (s) {
    case protocol::WorkerState::Computing: return "computing";
    case protocol::WorkerState::Pushing: return "pushing";
    case protocol::WorkerState::Pulling: return "pulling";
    case protocol::WorkerState::Blocked: return "blocked";
    case protocol::WorkerState::Down: return "down";
  }
  return "?";
}

std::string metadata(const char* what, int pid, std::int64_t tid, const std::string& name) {
  return fmt::format(R"({{"ph":"M","name":"{}","pid":{},"tid":{},"args":{{"name":{}}}}})", what, pid, tid,
                     output::json_quote(name));
}

}  // namespace

TraceRecorder::TraceRecorder(const std::filesystem::path& dir, const net::Topology& topology, std::size_t workers,
                             std::size_t shards, const std::vector<net::ResourceId>& links)
    : file_(dir / "trace.json"), topology_(topology), watched_(topology.resource_count(), false) {
  file_.write(R"({"displayTimeUnit":"ms","traceEvents":[)");
  event(metadata("process_name", kWorkers, 0, "workers"));
  event(metadata("process_name", kServers, 0, "servers"));
  event(metadata("process_name", kLinks, 0, "links (active flows)"));
  event(metadata("process_name", kTraining, 0, "training"));
  for (std::size_t w = 0; w < workers; ++w)
    event(metadata("thread_name", kWorkers, static_cast<std::int64_t>(w), fmt::format("worker {}", w)));
  for (std::size_t s = 0; s < shards; ++s)
    event(metadata("thread_name", kServers, static_cast<std::int64_t>(s), fmt::format("shard {}", s)));
  for (net::ResourceId r : links) watched_[r] = true;
}

void TraceRecorder::event(const std::string& json) {
  if (!first_) buffer_ += ",\n";
  first_ = false;
  buffer_ += json;
  if (buffer_.size() > (1 << 20)) {
    file_.write(buffer_);
    buffer_.clear();
  }
}

void TraceRecorder::on_worker_state(std::int64_t worker, protocol::WorkerState state, TimeNs start, TimeNs end) {
  event(fmt::format(R"({{"ph":"X","name":"{}","cat":"worker","pid":{},"tid":{},"ts":{},"dur":{}}})", state_name(state),
                    kWorkers, worker, micros(start), micros(end - start)));
}

void TraceRecorder::on_apply(std::int64_t shard, TimeNs start, TimeNs end) {
  event(fmt::format(R"({{"ph":"X","name":"apply","cat":"server","pid":{},"tid":{},"ts":{},"dur":{}}})", kServers,
                    shard, micros(start), micros(end - start)));
}

void TraceRecorder::on_round(const protocol::RoundRecord& r) {
  event(fmt::format(R"({{"ph":"i","s":"p","name":"round {}","pid":{},"tid":0,"ts":{}}})", r.round, kTraining,
                    micros(r.end)));
}

void TraceRecorder::on_eval(const protocol::EvalRecord& e) {
  event(fmt::format(R"({{"ph":"i","s":"p","name":"eval","pid":{},"tid":0,"ts":{},"args":{{"test_accuracy":{},"test_loss":{}}}}})",
                    kTraining, micros(e.time), e.test_accuracy, e.test_loss));
}

void TraceRecorder::on_event(const protocol::EventRecord& e) {
  // Named on first use, so that traces of runs without events do not change.
  if (!events_named_) event(metadata("process_name", kEvents, 0, "events"));
  events_named_ = true;
  const std::string name = e.target.empty() ? e.kind : e.kind + " " + e.target;
  event(fmt::format(R"({{"ph":"i","s":"g","name":{},"cat":"dynamics","pid":{},"tid":0,"ts":{},"args":{{"note":{}}}}})",
                    output::json_quote(name), kEvents, micros(e.time), output::json_quote(e.note)));
}

void TraceRecorder::on_collective_step(std::int64_t worker, std::int64_t round, std::int64_t step,
                                       protocol::CollectivePhase phase, TimeNs start, TimeNs end) {
  // Named on first use, so that traces of schemes without collectives do not change.
  if (step_track_.empty()) event(metadata("process_name", kSteps, 0, "collective steps"));
  const auto w = static_cast<std::size_t>(worker);
  if (step_track_.size() <= w) step_track_.resize(w + 1, false);
  if (!step_track_[w]) {
    step_track_[w] = true;
    event(metadata("thread_name", kSteps, worker, fmt::format("worker {}", worker)));
  }
  event(fmt::format(R"({{"ph":"X","name":"{} {}","cat":"collective","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"round":{}}}}})",
                    phase == protocol::CollectivePhase::Reduce ? "reduce" : "gather", step, kSteps, worker,
                    micros(start), micros(end - start), round));
}

void TraceRecorder::on_flow_count(net::ResourceId r, std::size_t flows, TimeNs now) {
  if (!watched_[r]) return;
  event(fmt::format(R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{{"flows":{}}}}})",
                    output::json_quote(topology_.resource_name(r)), kLinks, micros(now), flows));
}

void TraceRecorder::commit() {
  buffer_ += "\n]}\n";
  file_.write(buffer_);
  buffer_.clear();
  file_.commit();
}

}  // namespace pssim::experiment
