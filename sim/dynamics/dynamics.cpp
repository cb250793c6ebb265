#include "sim/dynamics/dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <fmt/format.h>

namespace pssim::dynamics {
namespace {

using scenario::EventSpec;
using Kind = EventSpec::Kind;
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
const scenario::Timeline kNoEvents;  // the timeline of a scenario without events

std::size_t index_of(const std::string& target) { return static_cast<std::size_t>(std::stoll(target.substr(7))); }

TimeNs exponential_ns(RandomEngine& engine, double mean_seconds) {
  boost::random::exponential_distribution<double> exp(1.0 / mean_seconds);  // rate = 1 / mean
  return std::max<TimeNs>(1, seconds_to_ns(exp(engine)));
}

}  // namespace

Dynamics::Dynamics(Simulator& sim, net::FlowNetwork& network, net::Topology& topology,
                   protocol::TrainingProtocol& protocol, const scenario::Scenario& scenario,
                   std::vector<net::NodeId> workers, std::vector<net::NodeId> servers, protocol::Observer* observer)
    : sim_(sim),
      network_(network),
      topology_(topology),
      protocol_(protocol),
      scenario_(scenario),
      timeline_(scenario.dynamics.timeline ? *scenario.dynamics.timeline : kNoEvents),
      workers_(std::move(workers)),
      servers_(std::move(servers)),
      observer_(observer) {
  const std::size_t n = workers_.size();
  worker_up_.assign(n, true);
  server_up_.assign(servers_.size(), true);
  server_down_since_.assign(servers_.size(), 0);
  event_factor_.assign(n, 1.0);
  markov_factor_.assign(n, 1.0);
  server_recoveries_pending_.assign(servers_.size(), 0);
  for (std::size_t i = 0; i < timeline_.size(); ++i) {
    const EventSpec e = timeline_.entry(i);
    if (e.kind == Kind::Link && !link_of_target_.count(e.target)) link_of_target_.emplace(e.target, link_of(e));
    if (e.kind == Kind::WorkerRecover && e.recurring()) recurring_recoveries_ = true;
    if (e.rate) poisson_.emplace(i, sim_.random().stream("events", i));
    if (!e.recurring()) one_shot_order_.push_back(static_cast<std::uint32_t>(i));
  }
  // One-shot entries fire by time, then in the order written (start() schedules them in
  // that order, so equal times keep it): the k-th to fire is one_shot_order_[k].
  std::stable_sort(one_shot_order_.begin(), one_shot_order_.end(),
                   [this](std::uint32_t a, std::uint32_t b) { return timeline_.at(a) < timeline_.at(b); });
  if (scenario.cluster.workers.speed.dist == scenario::SpeedConfig::Dist::Markov)
    for (std::size_t w = 0; w < n; ++w) markov_.push_back(sim_.random().stream("markov", w));
}

// A host's NIC link, or the link between the two nodes of "a--b".
net::LinkId Dynamics::link_of(const EventSpec& e) const {
  const auto sep = e.target.find("--");
  const auto host = [&](const std::string& name) -> net::NodeId {
    if (name.rfind("worker-", 0) == 0 && index_of(name) < workers_.size()) return workers_[index_of(name)];
    if (name.rfind("server-", 0) == 0 && index_of(name) < servers_.size()) return servers_[index_of(name)];
    if (!topology_.has_node(name)) throw scenario::ScenarioError(e.where, fmt::format("no node named '{}'", name));
    return topology_.node(name);
  };
  if (sep == std::string::npos) return topology_.access_link(host(e.target));
  const std::string a = topology_.node_name(host(e.target.substr(0, sep)));
  const std::string b = topology_.node_name(host(e.target.substr(sep + 2)));
  for (net::LinkId l = 0; l < topology_.link_count(); ++l) {
    const std::string name = topology_.resource_name(2 * l);
    if (name == a + " -> " + b || name == b + " -> " + a) return l;
  }
  throw scenario::ScenarioError(e.where, fmt::format("no link joins '{}' and '{}'", a, b));
}

void Dynamics::start() {
  for (std::size_t i = 0; i < timeline_.size(); ++i) {
    const EventSpec e = timeline_.entry(i);
    if (!e.recurring()) {
      if (e.kind == Kind::WorkerRecover) ++scheduled_recoveries_;
      count_pending(e, false, +1);
      ++pending_;
      sim_.schedule_at(e.at, [this] { fire_next_one_shot(); });
      continue;
    }
    TimeNs at = e.at;
    if (e.rate) at += exponential_ns(poisson_.at(i), 1.0 / *e.rate);
    if (e.until && at > *e.until) continue;
    count_pending(e, false, +1);
    schedule(at, Firing::What::Recurring, i);
  }
  const auto& speed = scenario_.cluster.workers.speed;
  for (std::size_t w = 0; w < markov_.size(); ++w) {
    // The stationary state: slow with probability mean_slow / (mean_slow + mean_normal).
    const double slow_share = to_seconds(speed.mean_slow) / to_seconds(speed.mean_slow + speed.mean_normal);
    boost::random::bernoulli_distribution<double> slow(slow_share);
    if (slow(markov_[w])) {
      markov_factor_[w] = 1.0 / speed.slowdown;
      set_speed(w);
    }
  }
  for (std::size_t w = 0; w < markov_.size(); ++w) {
    const double mean = to_seconds(markov_factor_[w] < 1 ? speed.mean_slow : speed.mean_normal);
    schedule(after(exponential_ns(markov_[w], mean)), Firing::What::MarkovFlip, w);
  }
}

void Dynamics::markov_flip(std::size_t w) {
  const auto& speed = scenario_.cluster.workers.speed;
  const bool slow = markov_factor_[w] == 1.0;  // normal now: it turns slow
  markov_factor_[w] = slow ? 1.0 / speed.slowdown : 1.0;
  set_speed(w);
  report(slow ? "straggler_slow" : "straggler_normal", fmt::format("worker-{}", w), markov_factor_[w]);
  schedule(after(exponential_ns(markov_[w], to_seconds(slow ? speed.mean_slow : speed.mean_normal))),
           Firing::What::MarkovFlip, w);
}

TimeNs Dynamics::after(TimeNs delay) const {
  if (delay > kTimeMax - sim_.now()) throw std::overflow_error("event time beyond the simulator's range");
  return sim_.now() + delay;
}

void Dynamics::schedule(TimeNs at, Firing::What what, std::size_t index) {
  ++pending_;
  Firing* f;
  if (free_firings_.empty()) {
    f = &firings_.emplace_back();
  } else {
    f = free_firings_.back();
    free_firings_.pop_back();
  }
  *f = {this, what, index};
  sim_.schedule_at(at, [f] { f->dynamics->fire(f); });
}

void Dynamics::fire(Firing* f) {
  const Firing firing = *f;
  free_firings_.push_back(f);  // free before anything schedules again
  --pending_;
  switch (firing.what) {
    case Firing::What::MarkovFlip: markov_flip(firing.index); return;
    case Firing::What::Recovery: {
      const EventSpec crash = timeline_.entry(firing.index);
      count_pending(crash, true, -1);
      recover(crash);
      return;
    }
    case Firing::What::Recurring: fire_entry(firing.index); return;
  }
}

void Dynamics::fire_next_one_shot() {
  --pending_;
  fire_entry(one_shot_order_.at(next_one_shot_++));
}

void Dynamics::fire_entry(std::size_t spec) {
  const EventSpec e = timeline_.entry(spec);
  count_pending(e, false, -1);
  if (e.kind == Kind::WorkerRecover && !e.recurring()) --scheduled_recoveries_;
  apply(e, spec);
  if (!e.recurring()) return;
  const TimeNs next = after(e.every ? *e.every : exponential_ns(poisson_.at(spec), 1.0 / *e.rate));
  if (e.until && next > *e.until) return;
  count_pending(e, false, +1);
  schedule(next, Firing::What::Recurring, spec);
}

void Dynamics::count_pending(const EventSpec& e, bool recovery, int delta) {
  if (e.kind == Kind::ServerRecover || (recovery && e.kind == Kind::ServerCrash))
    server_recoveries_pending_[index_of(e.target)] += delta;
  if (e.kind == Kind::Link && e.bandwidth && *e.bandwidth > 0) link_restores_pending_[link_of_target_.at(e.target)] += delta;
}

void Dynamics::apply(const EventSpec& e, std::size_t spec) {
  switch (e.kind) {
    case Kind::WorkerCrash: {
      const std::size_t w = index_of(e.target);
      const bool was_up = worker_up_[w];
      worker_event(w, false, e, "worker_crash");
      if (was_up && e.recover_after) {
        ++scheduled_recoveries_;
        schedule(after(*e.recover_after), Firing::What::Recovery, spec);
      }
      check_stalled();
      break;
    }
    case Kind::WorkerRecover: worker_event(index_of(e.target), true, e, "worker_recover"); break;
    case Kind::ServerCrash: {
      const std::size_t j = index_of(e.target);
      const bool was_up = server_up_[j];
      server_event(j, false, e, "server_crash");
      if (was_up && e.recover_after) {
        count_pending(e, true, +1);
        schedule(after(*e.recover_after), Firing::What::Recovery, spec);
      }
      break;
    }
    case Kind::ServerRecover: server_event(index_of(e.target), true, e, "server_recover"); break;
    case Kind::Link: {
      const net::LinkId l = link_of_target_.at(e.target);
      if (e.bandwidth) {
        network_.set_capacity(2 * l, *e.bandwidth);
        network_.set_capacity(2 * l + 1, *e.bandwidth);
        // The last bandwidth event of a link decides whether it is failed.
        if (*e.bandwidth == 0) failed_links_[l] = spec;
        else failed_links_.erase(l);
      }
      if (e.latency) topology_.set_latency(l, *e.latency);
      std::string note = e.bandwidth && *e.bandwidth == 0 ? "failed: its flows stall" : "";
      if (e.latency) note += fmt::format("{}latency {} s", note.empty() ? "" : "; ", to_seconds(*e.latency));
      report("link", e.target, e.bandwidth ? *e.bandwidth : kNoValue, note);
      break;
    }
    case Kind::WorkerSpeed: {
      const std::size_t w = index_of(e.target);
      event_factor_[w] = e.factor;
      set_speed(w);
      report("worker_speed", e.target, e.factor);
      break;
    }
  }
}

void Dynamics::recover(const EventSpec& crash) {
  if (crash.kind == Kind::WorkerCrash) {
    --scheduled_recoveries_;
    worker_event(index_of(crash.target), true, crash, "worker_recover");
  } else {
    server_event(index_of(crash.target), true, crash, "server_recover");
  }
}

bool Dynamics::change_state(std::vector<bool>& is_up, std::size_t i, bool up, const EventSpec& e,
                            const char* kind) {
  const double value = !up && e.recover_after ? to_seconds(*e.recover_after) : kNoValue;
  if (is_up[i] == up) {
    report(kind, e.target, value, up ? "ignored: it is up" : "ignored: it is down already");
    return false;
  }
  is_up[i] = up;
  report(kind, e.target, value);
  return true;
}

void Dynamics::worker_event(std::size_t w, bool up, const EventSpec& e, const char* kind) {
  if (!change_state(worker_up_, w, up, e, kind)) return;
  if (up) protocol_.worker_up(w);
  else protocol_.worker_down(w);
}

void Dynamics::server_event(std::size_t j, bool up, const EventSpec& e, const char* kind) {
  if (!change_state(server_up_, j, up, e, kind)) return;
  if (up) {
    server_downtime_ += sim_.now() - server_down_since_[j];
    protocol_.server_up(servers_[j]);
  } else {
    server_down_since_[j] = sim_.now();
    protocol_.server_down(servers_[j]);
  }
}

void Dynamics::set_speed(std::size_t w) { protocol_.set_worker_speed(w, event_factor_[w] * markov_factor_[w]); }

void Dynamics::report(const char* kind, const std::string& target, double value, std::string note) {
  if (observer_) observer_->on_event({sim_.now(), kind, target, value, std::move(note)});
}

void Dynamics::check_stalled() {
  if (!protocol_.no_live_workers() || scheduled_recoveries_ > 0 || recurring_recoveries_) return;
  stalled_ = true;
  report("no_live_workers", "", kNoValue, "every worker is down and none can come back: the run stops");
}

std::string Dynamics::report_no_progress() {
  std::vector<std::size_t> failing(failed_links_.size());  // the entries that failed them, as written
  std::transform(failed_links_.begin(), failed_links_.end(), failing.begin(), [](const auto& f) { return f.second; });
  std::sort(failing.begin(), failing.end());
  std::string what;
  const auto add = [&what](const std::string& s) { what += (what.empty() ? "" : ", ") + s; };
  for (std::size_t spec : failing) add(fmt::format("link {} failed", timeline_.entry(spec).target));
  for (std::size_t j = 0; j < servers_.size(); ++j)
    if (!server_up_[j]) add(fmt::format("server-{} down", j));
  if (!what.empty()) report("no_progress", "", kNoValue, what + ": nothing can move and nothing is scheduled to change");
  return what;
}

bool Dynamics::stuck(std::size_t sim_pending, std::size_t other_timers) const {
  if (sim_pending != pending_ + other_timers) return false;  // something is in flight or computing
  bool broken = false;
  for (const auto& [link, spec] : failed_links_) {
    broken = true;
    if (const auto it = link_restores_pending_.find(link); it != link_restores_pending_.end() && it->second > 0)
      return false;  // a pending event brings the link back
  }
  for (std::size_t j = 0; j < servers_.size(); ++j) {
    if (server_up_[j]) continue;
    broken = true;
    if (server_recoveries_pending_[j] > 0) return false;
  }
  return broken;
}

double Dynamics::server_downtime_s() const {
  TimeNs total = server_downtime_;
  for (std::size_t j = 0; j < servers_.size(); ++j)
    if (!server_up_[j]) total += sim_.now() - server_down_since_[j];
  return to_seconds(total);
}

}  // namespace pssim::dynamics
