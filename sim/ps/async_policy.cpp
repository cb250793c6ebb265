#include "sim/ps/async_policy.hpp"

namespace pssim::ps {

void AsyncPolicy::attached(std::size_t shards, std::size_t) { queues_.assign(shards, {}); }

void AsyncPolicy::on_push(Shard& s, const Message& m) {
  report({now(), m.worker, m.shard, m.clock, m.version, true});
  queues_[s.index].waiting.push_back({m.worker, m.version, m.gradient, m.computed_on});
  if (!s.applying) begin_apply(s);
}

void AsyncPolicy::begin_update(Shard& s, double& gradients, double& answers) {
  Queue& q = queues_[s.index];
  q.applying = std::move(q.waiting.front());
  q.waiting.pop_front();
  gradients = 1;
  answers = 1;
}

std::int64_t AsyncPolicy::apply(Shard& s, protocol::UpdateRecord& u) {
  Pending& a = queues_[s.index].applying;
  const std::int64_t tau = version(s) - a.used;
  std::int64_t samples = 0;
  record_staleness(tau);
  if (a.gradient) {
    note_loss(a.gradient);
    store()->apply_one(s.index, static_cast<std::size_t>(a.worker), a.gradient, tau, a.computed_on);
    u.train_loss = a.gradient->loss;
    samples = a.gradient->samples;
  }
  next_version(s);
  u.worker = a.worker;
  u.gradients = 1;
  u.staleness_mean = static_cast<double>(tau);
  u.staleness_max = tau;
  a.gradient.reset();
  a.computed_on.reset();
  return samples;
}

// The worker waits for an answer to every push: a lost one is answered with the current
// slice (a worker that already holds it does not count it twice).
void AsyncPolicy::on_lost_push(Shard& s, const Message& m) { send_pulls(s, {static_cast<std::size_t>(m.worker)}); }

// Gradients queued for the lost state are dropped with it.
void AsyncPolicy::restored(Shard& s) {
  Queue& q = queues_[s.index];
  q.waiting.clear();
}

void AsyncPolicy::after_update(Shard& s) {
  Queue& q = queues_[s.index];
  send_pulls(s, {static_cast<std::size_t>(q.applying.worker)});
  if (!q.waiting.empty()) begin_apply(s);
}

}  // namespace pssim::ps
