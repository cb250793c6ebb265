#include "sim/collective/collective.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pssim::collective {
namespace {
constexpr double kBytesPerElement = 4.0;  // float32
}

Collective::Collective(Simulator& sim, net::Transport& transport, std::vector<net::NodeId> hosts,
                       std::unique_ptr<Algorithm> algorithm, std::int64_t elements, std::optional<double> chunk_bytes,
                       Listener& listener)
    : sim_(sim),
      transport_(transport),
      hosts_(std::move(hosts)),
      algorithm_(std::move(algorithm)),
      elements_(elements),
      listener_(listener) {
  if (!algorithm_ || algorithm_->ranks() != hosts_.size())
    throw std::invalid_argument("a collective needs an algorithm over as many ranks as hosts");
  if (elements_ < 1) throw std::invalid_argument("a collective needs a vector of at least one element");
  for (std::size_t r = 0; r < hosts_.size(); ++r) steps_.push_back(algorithm_->steps(r));
  if (chunk_bytes) {
    if (!(*chunk_bytes > 0)) throw std::invalid_argument("chunk_bytes must be positive");
    // Every step of every rank (O(ranks x steps): a ring of 1,024 has 2 M), only to find
    // the largest message.
    std::int64_t largest = 0;
    for (std::size_t r = 0; r < hosts_.size(); ++r)
      for (std::size_t s = 0; s < steps_[r]; ++s) {
        algorithm_->step(r, s, elements_, plan_);
        for (const Send& send : plan_.sends) largest = std::max(largest, send.elements);
      }
    const double lanes = std::ceil(kBytesPerElement * static_cast<double>(largest) / *chunk_bytes);
    lanes_ = static_cast<std::size_t>(std::clamp(lanes, 1.0, static_cast<double>(std::max<std::int64_t>(largest, 1))));
  }
  ranks_.resize(hosts_.size());
  for (auto& r : ranks_) r.lanes.resize(lanes_);
}

std::int64_t Collective::lane_share(std::int64_t elements, std::size_t lane) const {
  if (lanes_ == 1) return elements;  // the common case, without a division
  return segment(elements, static_cast<std::int64_t>(lanes_), static_cast<std::int64_t>(lane));
}

void Collective::contribute(std::size_t rank) {
  Rank& r = ranks_.at(rank);
  ++r.contributed;
  if (steps_[rank] == 0) {  // a lone rank holds the result at once
    listener_.on_done(rank, r.contributed);
    return;
  }
  advance(rank, 0);
}

// Runs lane `lane` of `rank` as far as it can go, then the lanes after it (each may
// have been waiting for the one before to complete a step).
void Collective::advance(std::size_t rank, std::size_t lane) {
  for (std::size_t c = lane; c < lanes_; ++c) {
    bool progressed = false;
    while (step_once(rank, c)) progressed = true;
    if (!progressed && c > lane) break;  // nothing changed here: later lanes cannot move either
  }
}

// Starts or completes the current step of one lane; true if something changed. Most
// calls find nothing to do: the checks stay small and the work is out of line.
bool Collective::step_once(std::size_t rank, std::size_t lane) {
  Rank& r = ranks_[rank];
  Lane& l = r.lanes[lane];
  if (!l.running) {
    if (r.contributed < l.round) return false;                    // its input is not ready
    if (lane > 0 && r.lanes[lane - 1].g <= l.g) return false;     // the lane before is behind
    start_step(rank, lane);
    return true;
  }
  if (l.sends_left > 0 || l.arrived < l.receives) return false;
  complete_step(rank, lane);
  return true;
}

void Collective::start_step(std::size_t rank, std::size_t lane) {
  Lane& l = ranks_[rank].lanes[lane];
  const std::int64_t round = l.round;
  algorithm_->step(rank, l.step, elements_, plan_);
  l.running = true;
  l.started = sim_.now();
  l.phase = plan_.phase;
  l.receives = plan_.receives;
  l.arrived = 0;
  l.sends_left = static_cast<std::uint32_t>(plan_.sends.size());
  // The step is posted: messages waiting for it move now, in the order they were sent;
  // the others stay, in order (compacted in place: no allocation per step).
  if (!l.waiting.empty()) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < l.waiting.size(); ++i) {
      const std::uint32_t tag = l.waiting[i];
      if (messages_[tag].to_g == l.g) transmit(tag);
      else l.waiting[kept++] = tag;
    }
    l.waiting.resize(kept);
  }
  for (const Send& send : plan_.sends) {
    const std::int64_t to_steps = static_cast<std::int64_t>(steps_[send.peer]);
    Message m{static_cast<std::uint32_t>(rank), send.peer, static_cast<std::uint32_t>(lane),
              round * to_steps + send.peer_step, plan_.phase,
              kBytesPerElement * static_cast<double>(lane_share(send.elements, lane))};
    std::uint32_t tag;
    if (!free_messages_.empty()) {
      tag = free_messages_.back();
      free_messages_.pop_back();
      messages_[tag] = m;
    } else {
      tag = static_cast<std::uint32_t>(messages_.size());
      messages_.push_back(m);
    }
    const Lane& peer = ranks_[send.peer].lanes[lane];
    if (peer.running && peer.g == m.to_g) transmit(tag);
    else ranks_[send.peer].lanes[lane].waiting.push_back(tag);
  }
}

void Collective::complete_step(std::size_t rank, std::size_t lane) {
  Rank& r = ranks_[rank];
  Lane& l = r.lanes[lane];
  const std::int64_t round = l.round;
  const std::size_t s = l.step;
  l.running = false;
  if (lane == 0) listener_.on_step(rank, round, s, l.phase, l.started, sim_.now());
  ++l.g;
  const bool round_complete = ++l.step == steps_[rank];
  if (round_complete) l.step = 0, ++l.round;
  if (round_complete && ++r.lanes_through == lanes_) {
    r.lanes_through = 0;
    listener_.on_done(rank, round);
  }
}

void Collective::transmit(std::uint32_t tag) {
  const Message& m = messages_[tag];
  listener_.on_message(m.from, m.to, m.phase, m.bytes, true);
  const auto account = m.phase == Phase::Reduce ? net::ByteAccount::Push : net::ByteAccount::Pull;
  transport_.send(hosts_[m.from], hosts_[m.to], m.bytes, this, tag, {.account = account});
}

void Collective::on_delivered(std::uint64_t tag) {
  const Message m = messages_[tag];
  free_messages_.push_back(static_cast<std::uint32_t>(tag));
  listener_.on_message(m.from, m.to, m.phase, m.bytes, false);
  --ranks_[m.from].lanes[m.lane].sends_left;
  advance(m.from, m.lane);
  ++ranks_[m.to].lanes[m.lane].arrived;  // its receiver was at this step when it left
  advance(m.to, m.lane);
}

void Collective::on_cancelled(std::uint64_t tag) {
  const Message m = messages_[tag];
  free_messages_.push_back(static_cast<std::uint32_t>(tag));
  listener_.on_message(m.from, m.to, m.phase, m.bytes, false);
}

}  // namespace pssim::collective
