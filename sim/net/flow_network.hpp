// FlowNetwork: messages over a Topology, timed by the flow-level max-min model.
//
// A message from host A to host B first waits the route's latency (sum of the links'
// latencies), then moves its bytes as a flow whose rate is its max-min fair share of
// every link direction it crosses (MaxMinSolver), re-solved whenever a flow starts or
// ends. Flow starts and ends at the same nanosecond are solved together, once.
// A message to the sending host itself, or of 0 bytes, arrives after the latency alone.
//
// Events: messages sent one after another (no other event scheduled in between) that
// start at the same instant start in one event, in send order; the solve their starts
// request runs in line when nothing else is due at that instant. Both happen exactly
// where the events they replace would have fired, and each counts as that event
// (Simulator::count_inline_event()): results and event counts are those of one event per
// start and per solve, for fewer queue operations (around an all-reduce ring, about one
// per flow).
//
// How flows progress, and how they become flows, is one Progress object that owns the
// solver (progress_tracker.hpp): under max-min sharing, GroupProgress tracks bottleneck
// groups (processor sharing: all flows bottlenecked at resource r move at r's level, so the
// group keeps one "virtual" byte counter V_r(t) = integral of the level, and a flow
// finishes when V_r reaches the value it was given on joining; a level change costs
// O(log n) instead of touching every flow); under general sharing, FlowProgress tracks
// each flow. Completion times are rounded to the nearest nanosecond; a flow within one
// nanosecond of transfer of its end at a completion event is complete.
//
// Statistics: bytes carried per link direction (exact) and, optionally, a utilization
// time series in fixed bins for chosen link directions (UtilizationSeries). Each recorded
// direction has a meter: bytes carried up to some instant and its aggregate rate since,
// kept current as rates change (each bottleneck group knows how many of its members
// cross each recorded direction, so a level change costs O(recorded directions its
// members cross), a flow changing group O(route length)). Rates are constant between
// network events, so bins are closed lazily at the first network event after their end,
// exactly, without events of their own: O(recorded directions) per bin, whatever the
// number of flows. A completed flow's meters are corrected to its exact size (its
// completion time is rounded to the nanosecond).
//
// Dynamics (failures, degraded links): set_capacity() changes a link direction's capacity
// at once for every flow crossing it (the sharing problem is re-solved in full; 0 stalls
// its flows until the capacity comes back); utilization then divides the bytes by the
// capacity integrated over the bin (links.csv: over the run, capacity_seconds()).
// cancel_host() / cancel_sink() withdraw messages: a flow leaves the solver, having
// carried what it moved so far (counted in resource_bytes), and is never delivered. Both
// are for max-min sharing only: under general sharing they throw std::logic_error (the
// scenario layer rejects events with tcp or priority scheduling).
//
// Models (network_model.hpp): maxmin as above; tcp (SimGrid's LV08) scales latencies,
// weighs flows by 1 / (route latency + weight_s / bandwidth per link), caps them at the
// TCP window, adds ACK cross-traffic on the reverse path and moves payload at 0.97 of the
// share. Under tcp, or with priority classes (SendOptions::priority), the solver is
// GeneralSharingSolver: flows of one bottleneck no longer share one rate, so progress is
// tracked per flow (FlowProgress): each message keeps its bytes left and speed, and a heap
// of finish times, updated for the flows whose rate changed. The byte counters and meters
// count payload on the forward path only (not the ACKs).
//
// Framing (NetworkModel::framing, both models): a message of b bytes is a flow of
// b / framing bytes on the wire; the byte counters, meters and utilization count those
// wire bytes, bytes_moved() the payload.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/core/stable_pool.hpp"
#include "sim/net/network_model.hpp"
#include "sim/net/sharing_solver.hpp"
#include "sim/net/topology.hpp"
#include "sim/net/transport.hpp"
#include "sim/net/utilization_series.hpp"

namespace pssim::net {

class FlowNetwork : public Transport {
 public:
  /// The topology must be complete (no more nodes or links) and outlive the network. Throws
  /// std::invalid_argument for a framing outside (0, 1].
  FlowNetwork(Simulator& sim, const Topology& topology, NetworkModel model = {});
  ~FlowNetwork() override;
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  /// Sends `bytes` (>= 0) from host `src` to host `dst`; calls sink->on_delivered(tag)
  /// when the last byte arrives. Throws std::runtime_error if dst is unreachable.
  void send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag) override;
  std::size_t cancel_host(NodeId host) override;
  std::size_t cancel_sink(const MessageSink* sink) override;

  /// Changes the capacity of link direction r (bytes/s, >= 0; 0: failed) from now on.
  /// The topology keeps the nominal value. O(flows x route length): a full solve.
  void set_capacity(ResourceId r, double capacity);
  /// The capacity of r now.
  double capacity(ResourceId r) const { return solver().capacity(r); }
  /// Capacity of r integrated over [0, now] in bytes (capacity x seconds while unchanged).
  double capacity_seconds(ResourceId r) const;
  /// True once set_capacity() changed r.
  bool capacity_changed(ResourceId r) const { return !capacity_log_.empty() && capacity_log_[r].changed; }
  /// The same with a priority class (a network with NetworkModel::priorities; throws
  /// std::logic_error otherwise for a class other than 0) and trains (SendOptions).
  void send(NodeId src, NodeId dst, double bytes, MessageSink* sink, std::uint64_t tag,
            const SendOptions& options) override;
  const NetworkModel& model() const { return model_; }

  /// Called with (resource, flows now crossing it) whenever a flow starts or ends on it
  /// (for traces). Empty: nothing is called.
  using FlowCountListener = std::function<void(ResourceId, std::size_t)>;
  void set_flow_count_listener(FlowCountListener listener) { flow_count_listener_ = std::move(listener); }

  /// Records the utilization of `resources` (distinct) in bins of `bin` ns from now on,
  /// keeping at most `max_values` numbers (see UtilizationSeries). Call before the first
  /// send(); throws std::logic_error after it, std::invalid_argument for bad values.
  void record_utilization(TimeNs bin, std::vector<ResourceId> resources,
                          std::size_t max_values = UtilizationSeries::kDefaultMaxValues);
  /// Brings the byte counters up to now (counting the transferred part of flows still in
  /// progress) and closes the current utilization bin. Call once, at the end of a run.
  void finish();

  const Topology& topology() const { return topology_; }
  std::uint64_t messages() const { return messages_; }
  std::uint64_t flows() const { return flows_started_; }
  /// Payload bytes of `account`'s messages that have crossed links by now: all of a delivered
  /// flow's, what a cancelled one or one still in progress has moved. A message to its own
  /// host, or of 0 bytes, crosses none. (links.csv counts the same bytes on every link
  /// direction of each route: a message's first one leaves its sender's host.)
  /// O(messages in flight).
  double bytes_moved(ByteAccount account) const;
  double bytes_moved() const { return bytes_moved(ByteAccount::Push) + bytes_moved(ByteAccount::Pull); }
  /// Bytes carried by each resource (link direction); complete after finish().
  const std::vector<double>& resource_bytes() const { return resource_bytes_; }
  /// The recorded resources, and their utilization (0..1) per bin: at(bin, i) for
  /// recorded_resources()[i]. The last bin may be shorter (it ends at finish()).
  const std::vector<ResourceId>& recorded_resources() const { return recorded_; }
  const UtilizationSeries& link_utilization() const { return series_; }
  const SharingSolver::Stats& solver_stats() const { return solver().stats(); }
  std::size_t active_flows() const { return solver().active_flows(); }

 private:
  // 72 bytes; a run holds one per message in flight (a sync round: 2 per worker and shard).
  // State Flowing means in the solver; a message that left it (complete, cancelled, free)
  // never is.
  struct Message {
    MessageSink* sink = nullptr;
    FlowNetwork* network = nullptr;  // events point at messages
    std::uint64_t tag = 0;
    std::uint64_t seq = 0;  // send order: deterministic delivery order for simultaneous ends
    double bytes = 0;        // on the wire: the payload / framing
    double finish = 0;       // GroupProgress: the group V at which it completes
    NodeId src = 0, dst = 0;  // the route is in the solver while the flow runs
    // Flowing: its flow in the solver. Waiting to start: the next message of its start
    // batch (kNoMessage: the last).
    SharingSolver::FlowId flow = 0;
    std::uint32_t epoch = 0; // GroupProgress: invalidates stale group-heap entries
    std::uint32_t index = 0; // own position in the pool
    // Waiting: latency, its start or delivery event pending; Flowing: in the solver;
    // Arriving: complete, delivery under way; Cancelled: its pending event frees it.
    enum class State : std::uint8_t { Waiting, Flowing, Arriving, Cancelled } state = State::Waiting;
    ByteAccount account = ByteAccount::Push;
  };
  // A recorded direction's bytes: `bytes` carried up to `since`, then `rate` bytes/s (the
  // sum of the levels of the flows crossing it that have a bottleneck).
  struct Meter {
    double bytes = 0;
    double rate = 0;
    TimeNs since = 0;
    std::uint32_t flows = 0;  // flows counted in `rate`; at 0 the rate is exactly 0
  };
  static constexpr std::uint32_t kNoMeter = 0xffffffffu;

  // How flows are made and progress (progress_tracker.hpp); it owns the solver.
  class Progress;
  class GroupProgress;  // max-min sharing: bottleneck groups (group_progress.hpp)
  class FlowProgress;   // general sharing: flow by flow (flow_progress.hpp)
  SharingSolver& solver() const { return *solver_; }

  // Capacity of a changed link direction: `seconds` = integral of it over [0, since].
  struct CapacityLog {
    bool changed = false;
    double seconds = 0;
    TimeNs since = 0;
  };
  static constexpr std::uint32_t kNoMessage = 0xffffffffu;
  // The last start event scheduled, until it fires: its messages, chained through
  // Message::flow from `first` to `last` (kNoMessage: no batch open).
  struct StartBatch {
    EventId event;
    std::uint32_t first = kNoMessage, last = kNoMessage;
  };

  std::uint32_t new_message();
  void schedule_start(std::uint32_t m, TimeNs latency);
  void start_batch(std::uint32_t first);
  template <typename Match>
  std::size_t cancel_matching(Match match);
  void start_flow(std::uint32_t m);
  /// A flow starts on `hops` (its forward route): flow counts and their listener.
  void count_start(std::span<const ResourceId> hops);
  /// A flow of message m ends on its forward route `hops` having moved `bytes`.
  void count_end(std::span<const ResourceId> hops, double bytes);
  void deliver(std::uint32_t m);
  void request_solve();
  void solve_now();
  void schedule_next_completion();
  void complete_due_flows();
  void close_bins();                        // bins that ended before now
  void close_bin(TimeNs end, bool last);
  void advance(Meter& m);
  void release_if_large(std::vector<std::pair<std::uint64_t, std::uint32_t>>& v);

  NetworkModel model_;
  Simulator& sim_;
  const Topology& topology_;
  std::unique_ptr<Progress> progress_;
  SharingSolver* solver_;  // progress_'s
  StablePool<Message> messages_pool_;  // stable addresses: events point at messages
  std::vector<std::uint32_t> free_messages_;
  std::vector<std::uint32_t> message_of_flow_;  // flow id -> message index
  std::vector<std::pair<std::uint64_t, std::uint32_t>> done_;  // (seq, message) ending now
  StartBatch open_batch_;
  bool solve_due_ = false;  // a solve is due at now (an event, or start_batch() runs it)
  EventId completion_event_;
  TimeNs completion_time_ = kTimeMax;

  std::uint64_t messages_ = 0;
  std::uint64_t flows_started_ = 0;
  std::uint64_t next_seq_ = 0;
  std::array<double, 2> ended_bytes_{};  // per ByteAccount: moved by flows that ended (delivered, cancelled)
  std::vector<double> resource_bytes_;  // completed flows only, until finish()

  FlowCountListener flow_count_listener_;
  std::vector<std::uint32_t> active_per_resource_;  // flows started and not ended
  // Utilization recording (empty when off).
  TimeNs bin_start_ = 0;
  std::vector<ResourceId> recorded_;
  std::vector<std::uint32_t> meter_of_;     // per resource: its meter, or kNoMeter
  std::vector<Meter> meters_;               // per recorded resource
  std::vector<double> bytes_at_bin_start_;  // per recorded resource
  std::vector<float> row_;                  // the bin being closed
  std::vector<double> capacity_at_bin_start_;  // per recorded resource: capacity_seconds then
  std::vector<CapacityLog> capacity_log_;    // per resource, once a capacity changed
  UtilizationSeries series_;
  bool finished_ = false;
};

}  // namespace pssim::net
