// Dynamics: the scenario's event timeline played against the resource layer and the
// protocol, as SimGrid's profiles drive its resources.
//
// Each event of `events:` / `events_file:` fires at its time (recurring ones every
// period, Poisson ones after exponential gaps drawn from their own stream ("events", i)
// for entry i): a link event changes the network's capacities at once (both directions;
// the flows crossing it are re-solved) or the topology's latency (messages sent from then
// on); a worker_speed event and the Markov on/off stragglers (speed: {dist: markov}, one
// stream ("markov", w) per worker) set the worker's dynamic speed factor (their product);
// crashes and recoveries go to the protocol, which cancels the host's messages and
// computations and counts only live members. Every event is reported to the observer as
// it happens (events.csv), with a note when it changed nothing (a crash of a host already
// down, a recovery of one that is up).
//
// When every worker is down and no recovery is scheduled or possible (no recurring or
// Poisson recovery), progress is impossible: stalled() turns true and the run stops.
// A link failed for good or a server host that never comes back stop progress too: the
// run then runs out of events, and the experiment stops it as `no_progress`.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/topology.hpp"
#include "sim/protocol/observer.hpp"
#include "sim/protocol/training_protocol.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::dynamics {

class Dynamics {
 public:
  /// `workers` and `servers`: the hosts of worker i and server j. Link targets are
  /// resolved now: throws scenario::ScenarioError at the event for a link that does not
  /// exist. Everything referenced must outlive this object.
  Dynamics(Simulator& sim, net::FlowNetwork& network, net::Topology& topology, protocol::TrainingProtocol& protocol,
           const scenario::Scenario& scenario, std::vector<net::NodeId> workers, std::vector<net::NodeId> servers,
           protocol::Observer* observer);
  Dynamics(const Dynamics&) = delete;
  Dynamics& operator=(const Dynamics&) = delete;

  /// Schedules the timeline (call once, when the run starts).
  void start();
  /// Every worker is down and none can come back.
  bool stalled() const { return stalled_; }
  /// Seconds each server host was down, summed (up to now).
  double server_downtime_s() const;
  /// The run ran out of events before a stop condition: what the timeline left broken
  /// (failed links, server hosts down), reported as a `no_progress` event; empty when
  /// nothing is (then the stall is not the timeline's doing).
  std::string report_no_progress();
  /// True when the run can never progress again: every pending event of the simulation
  /// is a timer (`sim_pending` = the timeline's own + `other_timers`, e.g. periodic
  /// checkpoints and evaluations: nothing in flight, nothing computing), the timeline
  /// left something broken (a failed link, a server down), and no pending event of the
  /// timeline can repair it. Without this, those timers would run the clock forever.
  bool stuck(std::size_t sim_pending, std::size_t other_timers) const;

 private:
  // Memory: the timeline is the scenario's (not copied); a one-shot entry costs its event
  // in the queue and 4 bytes of firing order; recurring firings, automatic recoveries and
  // Markov flips take a Firing from a pool while they are pending.
  struct Firing {
    Dynamics* dynamics;  // the event captures the firing alone
    enum class What : std::uint8_t { Recurring, Recovery, MarkovFlip } what;
    std::size_t index;  // the timeline's entry; a Markov flip: the worker
  };
  /// now + delay; throws std::overflow_error beyond the simulator's range (as
  /// Simulator::schedule_after does).
  TimeNs after(TimeNs delay) const;
  void schedule(TimeNs at, Firing::What what, std::size_t index);
  void fire(Firing* f);
  void fire_next_one_shot();
  void fire_entry(std::size_t spec);
  void apply(const scenario::EventSpec& e, std::size_t spec);
  void recover(const scenario::EventSpec& crash);
  /// Sets is_up[i] to `up` and reports the event; false (reported as ignored) when it
  /// already was.
  bool change_state(std::vector<bool>& is_up, std::size_t i, bool up, const scenario::EventSpec& e,
                    const char* kind);
  void worker_event(std::size_t w, bool up, const scenario::EventSpec& e, const char* kind);
  void server_event(std::size_t j, bool up, const scenario::EventSpec& e, const char* kind);
  void set_speed(std::size_t w);
  void markov_flip(std::size_t w);
  void report(const char* kind, const std::string& target, double value, std::string note = {});
  void check_stalled();
  net::LinkId link_of(const scenario::EventSpec& e) const;
  /// A firing of entry e becomes pending (+1) or fires (-1): what stuck() counts on.
  void count_pending(const scenario::EventSpec& e, bool recovery, int delta);

  Simulator& sim_;
  net::FlowNetwork& network_;
  net::Topology& topology_;
  protocol::TrainingProtocol& protocol_;
  const scenario::Scenario& scenario_;
  const scenario::Timeline& timeline_;
  std::vector<net::NodeId> workers_, servers_;
  protocol::Observer* observer_;
  std::vector<std::uint32_t> one_shot_order_;  // one-shot entries in firing order: by time, then as written
  std::size_t next_one_shot_ = 0;
  std::deque<Firing> firings_;                 // stable addresses for the events
  std::vector<Firing*> free_firings_;
  std::map<std::size_t, RandomEngine> poisson_;               // per Poisson entry
  std::unordered_map<std::string, net::LinkId> link_of_target_;  // link events' targets, resolved
  std::map<net::LinkId, std::size_t> failed_links_;  // link -> the entry that failed it (capacity 0)
  std::map<net::LinkId, std::int64_t> link_restores_pending_;  // firings that give a link capacity
  std::vector<std::int64_t> server_recoveries_pending_;        // per server: recoveries scheduled
  std::vector<bool> worker_up_, server_up_;
  std::size_t pending_ = 0;  // every event of the timeline scheduled, not yet fired
  std::vector<TimeNs> server_down_since_;
  TimeNs server_downtime_ = 0;
  std::vector<double> event_factor_, markov_factor_;  // per worker
  std::vector<RandomEngine> markov_;                  // per worker (markov speed only)
  std::int64_t scheduled_recoveries_ = 0;  // worker recoveries scheduled and not yet fired
  bool recurring_recoveries_ = false;      // a recurring or Poisson worker_recover exists
  bool stalled_ = false;
};

}  // namespace pssim::dynamics
