#include "sim/ps/ps_protocol.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::ps {

PsProtocol::PsProtocol(Simulator& sim, net::Transport& transport, compute::ComputeModel& compute, PsConfig config,
                       PsLayout layout, std::unique_ptr<SchemePolicy> policy, protocol::Observer* observer,
                       PsMath math)
    : sim_(sim),
      transport_(transport),
      compute_(compute),
      config_(std::move(config)),
      policy_(std::move(policy)),
      observer_(observer),
      math_(math),
      ledger_(sim, layout.shards.size() + (layout.all_reduced ? 1 : 0), config_.stop, observer),
      time_(layout.worker_hosts.size(), sim.now(), observer),
      runner_(sim, layout.worker_hosts.size(), static_cast<compute::ComputeRunner::Listener&>(*this)),
      messages_(math.store != nullptr, config_.pieced()) {
  const std::size_t n = layout.worker_hosts.size(), s = layout.shards.size();
  const std::size_t parts = ledger_.parts();
  if (n == 0 || parts == 0) throw std::invalid_argument("a training protocol needs workers and parameters");
  if (config_.adaptive_batch) balancer_.emplace(n, *config_.adaptive_batch);
  if (layout.shard_hosts.size() != s) throw std::invalid_argument("one host per shard");
  if (!policy_) throw std::invalid_argument("a PS protocol needs a scheme policy");
  if (!math_.gradients != !math_.store) throw std::invalid_argument("math needs both a gradient source and a store");
  workers_.resize(n);
  for (std::size_t w = 0; w < n; ++w) {
    Worker& worker = workers_[w];
    worker.engine = this;
    worker.index = w;
    worker.host = layout.worker_hosts[w];
    worker.parts.held.assign(parts, -1);
    worker.parts.used.assign(parts, -1);
    worker.parts.held_incarnation.assign(parts, 0);
    worker.parts.used_incarnation.assign(parts, 0);
    if (math_.store) worker.parts.held_slices.assign(parts, nullptr);
    live_workers_.push_back(w);
  }
  members_ = static_cast<std::int64_t>(n);
  const auto sized = [&](const std::vector<double>& v, const char* what) {
    if (!v.empty() && v.size() != s) throw std::invalid_argument(fmt::format("{} needs one size per shard", what));
  };
  sized(config_.push_bytes, "push_bytes");
  sized(config_.pull_bytes, "pull_bytes");
  shards_.resize(s);
  for (std::size_t k = 0; k < s; ++k) {
    Shard& shard = shards_[k];
    shard.engine = this;
    shard.index = k;
    shard.host = layout.shard_hosts[k];
    shard.bytes = layout.shards[k].bytes();
    shard.params = layout.shards[k].params;
    shard.push_bytes = config_.push_bytes.empty() ? shard.bytes : config_.push_bytes[k];
    shard.pull_bytes = config_.pull_bytes.empty() ? shard.bytes : config_.pull_bytes[k];
    total_params_ += static_cast<double>(shard.params);
  }
  if (const auto& ar = layout.all_reduced) {
    all_reducer_ = std::make_unique<AllReducer>(
        AllReducer::Context{sim, transport, layout.worker_hosts, time_, observer, math_.store, ledger_},
        static_cast<AllReducer::Replicas&>(*this), s, *ar);
    total_params_ += static_cast<double>(ar->part.params);
  }
  if (config_.pieced()) {
    if (all_reducer_ && (s > 0 || config_.schedule != protocol::Schedule::Fifo || config_.partition_bytes))
      throw std::invalid_argument("schedule and partition_bytes apply to parameter-server shards; overlap to them or "
                                  "to a part all-reduced alone");
    std::vector<training::Range> ranges;
    std::vector<compute::LayerFlops> flops;
    for (const auto& l : config_.layers) {
      ranges.push_back(l.params);
      flops.push_back(l.flops);
    }
    if (ranges.empty()) {  // one layer holding everything, backward twice the forward
      ranges.push_back({0, static_cast<std::int64_t>(total_params_)});
      flops.push_back({1, 2});
    }
    std::vector<bool> sends(ranges.size(), false);  // per layer: its backward step sends something
    const auto pieces = cut_pieces(layout.shards, ranges, config_.partition_bytes);
    for (std::size_t k = 0; k < s; ++k) {
      shards_[k].pieces = pieces[k];
      for (const Piece& p : pieces[k]) sends.at(p.layer) = true;
    }
    if (all_reducer_) all_reducer_->make_buckets(ranges, config_.bucket_bytes, sends);
    if (config_.overlap != protocol::Overlap::None)
      timing_ = std::make_unique<LayerOverlap>(sim, static_cast<ComputeTiming::Listener&>(*this), n, std::move(flops),
                                               std::move(sends), config_.overlap == protocol::Overlap::Full);
  }
  if (!timing_) timing_ = std::make_unique<WholeIteration>(runner_);
  policy_->attach(static_cast<PolicyEngine&>(*this), s);
}

PsProtocol::~PsProtocol() = default;

void PsProtocol::start() {
  for (auto& shard : shards_) {
    const training::SliceRef initial = math_.store ? math_.store->current(shard.index) : nullptr;
    shard.checkpoint.slice = initial;  // a crash before any checkpoint goes back to the start
    for (std::size_t w = 0; w < workers_.size(); ++w) send_slice(shard, w, initial, shard.bytes);
  }
  if (all_reducer_) all_reducer_->start();  // every replica starts at version 0
  if (config_.checkpoint_every) schedule_checkpoint();
}

std::vector<training::SliceRef> PsProtocol::current_parameters() const {
  std::vector<training::SliceRef> out;
  if (!math_.store) return out;
  for (std::size_t p = 0; p < parts(); ++p) out.push_back(math_.store->current(p));
  return out;
}

// ---- messages ------------------------------------------------------------------------------

void PsProtocol::on_delivered(std::uint64_t tag) {
  if (tag >> 32) {  // a piece: (piece index + 1) << 32 | message
    const std::size_t piece = (tag >> 32) - 1;
    tag &= 0xffffffffu;
    const MessagePool::Head& head = messages_.head(tag);
    if (head.kind == Message::Kind::Pull) {
      const std::size_t layer = shards_[head.shard].pieces[piece].layer;
      timing_->arrived(head.worker, layer, layer);
    }
    if (--messages_.pieces_left(tag) > 0) return;
  }
  std::uint16_t incarnation = 0;
  Message m = messages_.take(tag, incarnation);
  if (m.kind == Message::Kind::Push) {
    Shard& s = shards_[static_cast<std::size_t>(m.shard)];
    if (incarnation != s.incarnation) {  // computed on a state the shard lost in a crash
      Worker& w = workers_[static_cast<std::size_t>(m.worker)];
      --activity(w).pushes_in_flight;
      update_time(w);
      ++ledger_.failures().lost_gradients;
      ledger_.count_dropped(s.index);
      policy_->on_lost_push(s, m);
      return;
    }
    receive_push(m);
    return;
  }
  Worker& w = workers_[static_cast<std::size_t>(m.worker)];
  --activity(w).pulls_in_flight;
  const auto p = static_cast<std::size_t>(m.shard);
  if (m.version > w.parts.held[p] || incarnation != w.parts.held_incarnation[p])
    w.parts.held_incarnation[p] = incarnation;
  receive_part(w, p, m.version, std::move(m.slice));
}

// The transport dropped a message (a failed host): it counts as delivered nowhere.
void PsProtocol::on_cancelled(std::uint64_t tag) {
  const MessagePool::Head head = messages_.drop(tag);
  Worker& w = workers_[head.worker];
  if (head.kind == Message::Kind::Push) {
    --activity(w).pushes_in_flight;
    ++ledger_.failures().lost_gradients;
  } else {
    --activity(w).pulls_in_flight;
  }
  update_time(w);
}

void PsProtocol::send_slice(Shard& s, std::size_t worker, training::SliceRef slice, double bytes) {
  Worker& w = workers_[worker];
  if (!w.life.up) return;  // nobody to receive it
  const auto tag = messages_.add({Message::Kind::Pull, static_cast<std::int64_t>(worker),
                                  static_cast<std::int64_t>(s.index), ledger_.version(s.index), 0, std::move(slice),
                                  nullptr, nullptr});
  messages_.head(tag).incarnation = s.incarnation;
  ++activity(w).pulls_in_flight;
  update_time(w);
  send_message(s.host, w.host, s, bytes, tag, net::ByteAccount::Pull);
}

void PsProtocol::send_message(net::NodeId src, net::NodeId dst, const Shard& s, double bytes, std::uint64_t tag,
                              net::ByteAccount account, std::optional<std::size_t> layer) {
  if (!config_.pieced()) {
    transport_.send(src, dst, bytes, this, tag, {.account = account});
    return;
  }
  if (!layer) messages_.pieces_left(tag) = static_cast<std::uint32_t>(s.pieces.size());
  const bool priority = config_.schedule == protocol::Schedule::Priority;
  for (std::size_t k = 0; k < s.pieces.size(); ++k) {
    const Piece& p = s.pieces[k];
    if (layer && p.layer != *layer) continue;
    net::SendOptions options;
    options.account = account;
    options.priority = priority ? static_cast<std::uint32_t>(p.layer) : 0;
    const double piece_bytes = bytes * static_cast<double>(p.params) / static_cast<double>(s.params);
    transport_.send(src, dst, piece_bytes, this, tag | (static_cast<std::uint64_t>(k + 1) << 32), options);
  }
}

void PsProtocol::send_pulls(Shard& s, const std::vector<std::size_t>& workers) {
  if (!math_.store) {
    for (std::size_t w : workers) send_slice(s, w, nullptr, s.pull_bytes);
    return;
  }
  auto messages = math_.store->pull_messages(s.index, workers);
  for (std::size_t i = 0; i < workers.size(); ++i) {
    std::optional<double> bytes = messages[i].bytes;
    if (!bytes) bytes = math_.gradients->pull_bytes(workers[i], s.index);
    send_slice(s, workers[i], std::move(messages[i].held), bytes.value_or(s.pull_bytes));
  }
}

void PsProtocol::receive_part(Worker& w, std::size_t part, std::int64_t version, training::SliceRef slice) {
  const std::int64_t before = w.parts.held[part];
  if (policy_->counts(w, part, before, version)) ++w.parts.ready;
  if (version > before) {
    w.parts.held[part] = version;
    if (math_.store) w.parts.held_slices[part] = std::move(slice);
  }
  update_time(w);
  // protocol.abandon_stale: every part moved on since the computation under way started
  // (the round it computes for has closed): give it up and start on the new slices.
  if (config_.abandon_stale && activity(w).computing && w.parts.ready >= static_cast<std::int64_t>(parts())) {
    abandon_compute(w);
    report_event("abandon", worker_name(w.index), std::numeric_limits<double>::quiet_NaN());
  }
  try_start(w);
}

void PsProtocol::receive_push(const Message& m) {
  Worker& w = workers_[static_cast<std::size_t>(m.worker)];
  --activity(w).pushes_in_flight;
  update_time(w);
  policy_->on_push(shards_[static_cast<std::size_t>(m.shard)], m);
}

// ---- computing -------------------------------------------------------------------------------

void PsProtocol::try_start(Worker& w) {
  if (activity(w).computing || ledger_.finished() || !w.life.up ||
      w.parts.ready < static_cast<std::int64_t>(parts()))
    return;
  w.parts.used = w.parts.held;
  w.parts.used_incarnation = w.parts.held_incarnation;
  w.compute.started = sim_.now();
  activity(w).computing = true;
  if (observer_) observer_->on_compute_start(static_cast<std::int64_t>(w.index), w.compute.iteration);
  double flops = config_.flops_per_iteration;
  if (balancer_) {
    w.compute.batch = balancer_->batch(w.index, w.compute.iteration);
    flops *= static_cast<double>(w.compute.batch) / static_cast<double>(config_.adaptive_batch->batch_size);
    if (math_.gradients) math_.gradients->set_batch(w.index, w.compute.batch);
  }
  if (math_.gradients) {
    w.compute.ticket = math_.gradients->start(w.index, w.compute.iteration, w.parts.held_slices);
    if (math_.store->needs_computed_on()) w.parts.used_slices = w.parts.held_slices;
    // Sync and async never compute twice on the same slices: let them go (memory). SSP
    // may start its next clock on the slices it holds.
    if (!policy_->keeps_slices()) std::fill(w.parts.held_slices.begin(), w.parts.held_slices.end(), nullptr);
  }
  ++w.compute.iteration;
  w.parts.ready = policy_->ready_after_start(w);
  update_time(w);
  const double codec = (config_.push_codec_seconds + config_.pull_codec_seconds) * total_params_;
  timing_->start(w.index, compute_.next_duration(w.index, flops) + seconds_to_ns(codec));
}

std::vector<training::GradientRef> PsProtocol::gradient_parts(const Worker& w) {
  return math_.gradients ? math_.gradients->get(w.compute.ticket) : std::vector<training::GradientRef>{};
}

std::uint64_t PsProtocol::new_push(Worker& w, const Shard& s, std::int64_t clock, const training::GradientRef& gradient,
                                   double& bytes) {
  const training::SliceRef computed_on = w.parts.used_slices.empty() ? nullptr : w.parts.used_slices[s.index];
  const auto tag = messages_.add({Message::Kind::Push, static_cast<std::int64_t>(w.index),
                                  static_cast<std::int64_t>(s.index), w.parts.used[s.index], clock, nullptr, gradient,
                                  computed_on});
  ++activity(w).pushes_in_flight;
  bytes = gradient && gradient->wire_bytes ? *gradient->wire_bytes : s.push_bytes;
  return tag;
}

void PsProtocol::finish_compute(Worker& w) {
  activity(w).computing = false;
  if (balancer_) balancer_->record(w.index, w.compute.batch, to_seconds(sim_.now() - w.compute.started));
  ++time_.stats(w.index).iterations;
  if (timing_->finished(w.index)) {  // its gradient left layer by layer (layer_computed)
    w.layer_pushes.tags.clear();  // kept allocated for the next iteration
    w.layer_pushes.bytes.clear();
    w.layer_pushes.reduced = false;
    update_time(w);
    try_start(w);
    return;
  }
  const std::int64_t clock = w.compute.iteration - 1;
  const std::vector<training::GradientRef> parts = gradient_parts(w);
  for (auto& s : shards_) {
    if (!s.up) {  // nobody to receive it
      ++ledger_.failures().lost_gradients;
      continue;
    }
    double bytes = 0;
    const auto tag = new_push(w, s, clock, parts.empty() ? nullptr : parts[s.index], bytes);
    messages_.head(tag).incarnation = w.parts.used_incarnation[s.index];
    send_message(w.host, s.host, s, bytes, tag, net::ByteAccount::Push);
  }
  w.parts.used_slices.clear();
  update_time(w);
  if (all_reducer_) all_reducer_->contribute(w.index, clock, parts.empty() ? nullptr : parts[all_reducer_->part()]);
  try_start(w);  // SSP may go on at once
}

// Overlap: pushes carry no incarnation (a shard crash under overlap is not modelled
// apart), and go to every shard, up or not.
void PsProtocol::open_layer_pushes(Worker& w) {
  const std::int64_t clock = w.compute.iteration - 1;
  const std::vector<training::GradientRef> parts = gradient_parts(w);
  for (auto& s : shards_) {
    double bytes = 0;
    const auto tag = new_push(w, s, clock, parts.empty() ? nullptr : parts[s.index], bytes);
    messages_.pieces_left(tag) = static_cast<std::uint32_t>(s.pieces.size());
    w.layer_pushes.tags.push_back(static_cast<std::uint32_t>(tag));
    w.layer_pushes.bytes.push_back(bytes);
  }
  w.parts.used_slices.clear();
  update_time(w);
}

void PsProtocol::layer_computed(std::size_t worker, std::size_t layer) {
  Worker& w = workers_[worker];
  Worker::LayerPushes& out = w.layer_pushes;
  if (out.tags.empty() && !shards_.empty()) open_layer_pushes(w);
  for (auto& s : shards_)
    send_message(w.host, s.host, s, out.bytes[s.index], out.tags[s.index], net::ByteAccount::Push, layer);
  if (all_reducer_ && all_reducer_->starts_bucket(layer)) {
    if (!out.reduced) {  // the first bucket of the iteration: the gradient is complete for the math
      const std::vector<training::GradientRef> parts = gradient_parts(w);
      all_reducer_->contribute(worker, w.compute.iteration - 1, parts.empty() ? nullptr : parts[all_reducer_->part()]);
      out.reduced = true;
    }
    all_reducer_->contribute_bucket(worker, layer);
  }
}

// ---- applying updates ------------------------------------------------------------------------

void PsProtocol::begin_apply(Shard& s) {
  // The run has stopped (a stop limit was reached in this instant): gradients still queued
  // stay unapplied, so `training.stop.updates: 10` applies 10 updates, not the queue.
  if (ledger_.finished()) return;
  if (s.checkpoint.busy) {  // its time goes to the checkpoint first
    s.checkpoint.apply_waiting = true;
    return;
  }
  s.applying = true;
  s.apply_started = sim_.now();
  // Compression work of the update: decoding its pushes, encoding the pulls it answers.
  double gradients = 0, answers = 0;
  policy_->begin_update(s, gradients, answers);
  double seconds = (config_.push_codec_seconds * gradients + config_.pull_codec_seconds * answers) *
                   static_cast<double>(s.params);
  if (config_.apply_bandwidth) seconds += s.bytes / *config_.apply_bandwidth;
  const TimeNs duration = seconds_to_ns(seconds);
  if (duration == 0) {
    finish_apply(s);
    return;
  }
  Shard* p = &s;
  s.apply_event = sim_.schedule_after(duration, [p] { p->engine->finish_apply(*p); });
}

void PsProtocol::finish_apply(Shard& s) {
  s.applying = false;
  s.apply_event = {};
  if (observer_ && sim_.now() > s.apply_started)
    observer_->on_apply(static_cast<std::int64_t>(s.index), s.apply_started, sim_.now());
  protocol::UpdateRecord u;
  u.time = sim_.now();
  u.shard = static_cast<std::int64_t>(s.index);
  u.train_loss = std::numeric_limits<double>::quiet_NaN();
  const std::int64_t samples = policy_->apply(s, u);
  ledger_.updated(s.index, u, samples);
  policy_->after_update(s);
  if (s.checkpoint.due && !s.applying) begin_checkpoint(s);
}

}  // namespace pssim::ps
