#include "sim/scenario/timeline.hpp"

#include <stdexcept>

namespace pssim::scenario {

using Kind = EventSpec::Kind;

void Timeline::add_listed(EventSpec e) {
  if (!trace_.empty()) throw std::logic_error("a timeline's listed events come before its trace");
  listed_.push_back(std::move(e));
}

void Timeline::add_trace_line(const EventSpec& e) {
  static_assert(sizeof(TraceEvent) <= 40, "a trace line is held in 40 bytes (see the header)");
  if (e.recurring()) throw std::invalid_argument("a trace line is a one-shot event");
  if (trace_.empty()) trace_path_ = e.where.source;
  else if (e.where.source != trace_path_) throw std::invalid_argument("a timeline holds one trace");
  TraceEvent t;
  t.at = e.at;
  t.kind = static_cast<std::uint8_t>(e.kind);
  t.line = e.where.line;
  const auto [it, added] = target_index_.try_emplace(e.target, static_cast<std::uint32_t>(targets_.size()));
  if (added) targets_.push_back(e.target);
  t.target = it->second;
  switch (e.kind) {
    case Kind::WorkerCrash:
    case Kind::ServerCrash:
      t.has_duration = e.recover_after.has_value();
      t.duration = e.recover_after.value_or(0);
      break;
    case Kind::Link:
      t.has_value = e.bandwidth.has_value();
      t.value = e.bandwidth.value_or(0);
      t.has_duration = e.latency.has_value();
      t.duration = e.latency.value_or(0);
      break;
    case Kind::WorkerSpeed:
      t.has_value = true;
      t.value = e.factor;
      break;
    case Kind::WorkerRecover:
    case Kind::ServerRecover:
      break;
  }
  trace_.push_back(t);
}

TimeNs Timeline::at(std::size_t i) const { return i < listed_.size() ? listed_[i].at : trace_.at(i - listed_.size()).at; }

EventSpec Timeline::entry(std::size_t i) const {
  if (i < listed_.size()) return listed_[i];
  const TraceEvent& t = trace_.at(i - listed_.size());
  EventSpec e;
  e.kind = static_cast<Kind>(t.kind);
  e.target = targets_[t.target];
  e.at = t.at;
  e.where = {trace_path_, t.line, 1};
  switch (e.kind) {
    case Kind::WorkerCrash:
    case Kind::ServerCrash:
      if (t.has_duration) e.recover_after = t.duration;
      break;
    case Kind::Link:
      if (t.has_value) e.bandwidth = t.value;
      if (t.has_duration) e.latency = t.duration;
      break;
    case Kind::WorkerSpeed: e.factor = t.value; break;
    case Kind::WorkerRecover:
    case Kind::ServerRecover: break;
  }
  return e;
}

}  // namespace pssim::scenario
