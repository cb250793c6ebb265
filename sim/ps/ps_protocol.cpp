#include "sim/ps/ps_protocol.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/ps/scheme_policy.hpp"

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
      time_(layout.worker_hosts.size(), sim.now(), observer),
      runner_(sim, layout.worker_hosts.size(), static_cast<compute::ComputeRunner::Listener&>(*this)) {
  const std::size_t n = layout.worker_hosts.size(), s = layout.shards.size();
  const std::size_t parts = s + (layout.all_reduced ? 1 : 0);
  if (n == 0 || parts == 0) throw std::invalid_argument("a training protocol needs workers and parameters");
  if (config_.adaptive_batch) balancer_.emplace(n, *config_.adaptive_batch);
  if (layout.shard_hosts.size() != s) throw std::invalid_argument("one host per shard");
  if (!policy_) throw std::invalid_argument("a PS protocol needs a scheme policy");
  if (!math_.gradients != !math_.store) throw std::invalid_argument("math needs both a gradient source and a store");
  workers_.resize(n);
  for (std::size_t w = 0; w < n; ++w) {
    Worker& worker = workers_[w];
    worker.protocol = this;
    worker.index = w;
    worker.host = layout.worker_hosts[w];
    worker.held.assign(parts, -1);
    worker.used.assign(parts, -1);
    worker.held_incarnation.assign(parts, 0);
    worker.used_incarnation.assign(parts, 0);
    if (math_.store) worker.held_slices.assign(parts, nullptr);
    all_workers_.push_back(w);
  }
  live_workers_ = all_workers_;
  members_ = static_cast<std::int64_t>(n);
  const auto sized = [&](const std::vector<double>& v, const char* what) {
    if (!v.empty() && v.size() != s) throw std::invalid_argument(fmt::format("{} needs one size per shard", what));
  };
  sized(config_.push_bytes, "push_bytes");
  sized(config_.pull_bytes, "pull_bytes");
  shards_.resize(s);
  for (std::size_t k = 0; k < s; ++k) {
    Shard& shard = shards_[k];
    shard.protocol = this;
    shard.index = k;
    shard.host = layout.shard_hosts[k];
    shard.bytes = layout.shards[k].bytes();
    shard.params = layout.shards[k].params;
    shard.push_bytes = config_.push_bytes.empty() ? shard.bytes : config_.push_bytes[k];
    shard.pull_bytes = config_.pull_bytes.empty() ? shard.bytes : config_.pull_bytes[k];
    total_params_ += static_cast<double>(shard.params);
  }
  versions_.assign(parts, 0);
  counted_clock_.assign(parts, -1);
  if (const auto& ar = layout.all_reduced) {
    all_reduce_.emplace();
    all_reduce_->part = s;
    all_reduce_->elements = ar->part.params;
    all_reduce_->ranks = all_workers_;
    all_reduce_->spec = *ar;
    all_reduce_->contributed.assign(n, -1);
    for (std::size_t w = 0; w < n; ++w) all_reduce_->rank_of.push_back(static_cast<std::int64_t>(w));
    all_reduce_->collective = std::make_unique<collective::Collective>(
        sim, transport, layout.worker_hosts, collective::make_algorithm(ar->algorithm, n, ar->racks),
        ar->part.params, ar->chunk_bytes, static_cast<collective::Collective::Listener&>(*this));
    total_params_ += static_cast<double>(ar->part.params);
  }
  if (config_.pieced()) {
    if (all_reduce_ && (s > 0 || config_.schedule != protocol::Schedule::Fifo || config_.partition_bytes))
      throw std::invalid_argument("schedule and partition_bytes apply to parameter-server shards; overlap to them or "
                                  "to a part all-reduced alone");
    std::vector<training::Range> ranges;
    for (const auto& l : config_.layers) {
      ranges.push_back(l.params);
      layer_flops_.push_back(l.flops);
    }
    if (ranges.empty()) {  // one layer holding everything, backward twice the forward
      ranges.push_back({0, static_cast<std::int64_t>(total_params_)});
      layer_flops_.push_back({1, 2});
    }
    layer_pushes_.assign(ranges.size(), false);
    const auto pieces = cut_pieces(layout.shards, ranges, config_.partition_bytes);
    for (std::size_t k = 0; k < s; ++k) {
      shards_[k].pieces = pieces[k];
      for (const Piece& p : pieces[k]) layer_pushes_.at(p.layer) = true;
    }
    for (auto& w : workers_) w.layer_arrival.assign(ranges.size(), 0);
    if (all_reduce_) make_buckets(ranges, layout);
  }
  policy_->attach(*this);
}

PsProtocol::~PsProtocol() = default;

void PsProtocol::make_buckets(const std::vector<training::Range>& layers, const PsLayout& layout) {
  AllReduce& a = *all_reduce_;
  const auto& ar = *layout.all_reduced;
  a.collective.reset();
  a.bucket_of_layer_start.assign(layers.size(), -1);
  // From the last layer back; a bucket closes once it holds bucket_bytes (a layer without
  // parameters joins the bucket being filled; what is left at the end joins the last one).
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // (first, last) layer
  std::int64_t params = 0;
  std::size_t last = layers.size() - 1;
  for (std::size_t j = layers.size(); j-- > 0;) {
    params += layers[j].size();
    if (params > 0 && (static_cast<double>(params) * training::kBytesPerParam >= config_.bucket_bytes || j == 0)) {
      spans.emplace_back(j, last);
      params = 0;
      last = j - 1;
    } else if (j == 0) {
      spans.back().first = 0;  // parameter-less first layers join the last bucket filled
    }
  }
  const std::int64_t n = static_cast<std::int64_t>(workers_.size());
  for (const auto& [first, end] : spans) {
    std::int64_t elements = 0;
    for (std::size_t l = first; l <= end; ++l) elements += layers[l].size();
    auto b = std::make_unique<AllReduce::Bucket>();
    b->protocol = this;
    b->index = a.buckets.size();
    b->first_layer = first;
    b->last_layer = end;
    b->collective = std::make_unique<collective::Collective>(
        sim_, transport_, layout.worker_hosts, collective::make_algorithm(ar.algorithm, static_cast<std::size_t>(n),
                                                                          ar.racks),
        elements, ar.chunk_bytes, *b);
    a.bucket_of_layer_start[first] = static_cast<std::int64_t>(b->index);
    layer_pushes_[first] = true;
    a.buckets.push_back(std::move(b));
  }
}

std::uint64_t PsProtocol::new_message(Message m) {
  const MessageHead head{.worker = static_cast<std::uint32_t>(m.worker),
                         .shard = static_cast<std::uint32_t>(m.shard),
                         .kind = m.kind,
                         .incarnation = 0,
                         .version = m.version,
                         .clock = m.clock};
  std::size_t i;
  if (!free_messages_.empty()) {
    i = free_messages_.back();
    free_messages_.pop_back();
    messages_[i] = head;
  } else {
    i = messages_.size();
    messages_.push_back(head);
    if (math_.store) message_refs_.emplace_back();
    if (config_.pieced()) pieces_left_.push_back(0);
  }
  if (math_.store) message_refs_[i] = {std::move(m.slice), std::move(m.gradient), std::move(m.computed_on)};
  return i;
}

void PsProtocol::start() {
  for (auto& shard : shards_) {
    const training::SliceRef initial = math_.store ? math_.store->current(shard.index) : nullptr;
    shard.checkpoint_slice = initial;  // a crash before any checkpoint goes back to the start
    for (std::size_t w = 0; w < workers_.size(); ++w) send_slice(shard, w, initial, shard.bytes);
  }
  if (all_reduce_) {  // every replica starts at version 0
    const std::size_t p = all_reduce_->part;
    for (auto& w : workers_) receive_part(w, p, 0, math_.store ? math_.store->current(p) : nullptr);
  }
  if (config_.checkpoint_every) schedule_checkpoint();
}

std::int64_t PsProtocol::least_updates() const { return *std::min_element(versions_.begin(), versions_.end()); }

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
    const MessageHead& head = messages_[tag];
    if (head.kind == Message::Kind::Pull && config_.overlap == protocol::Overlap::Full)
      workers_[head.worker].layer_arrival[shards_[head.shard].pieces[piece].layer] = sim_.now();
    if (--pieces_left_[tag] > 0) return;
  }
  const MessageHead& head = messages_[tag];
  Message m{head.kind, head.worker, head.shard, head.version, head.clock, nullptr, nullptr, nullptr};
  if (math_.store) {  // the pool slot must not keep slices alive
    MessageRefs& refs = message_refs_[tag];
    m.slice = std::move(refs.slice);
    m.gradient = std::move(refs.gradient);
    m.computed_on = std::move(refs.computed_on);
  }
  const std::uint16_t incarnation = head.incarnation;
  free_messages_.push_back(static_cast<std::uint32_t>(tag));
  if (m.kind == Message::Kind::Push) {
    Shard& s = shards_[static_cast<std::size_t>(m.shard)];
    if (incarnation != s.incarnation) {  // computed on a state the shard lost in a crash
      Worker& w = workers_[static_cast<std::size_t>(m.worker)];
      --activity(w).pushes_in_flight;
      update_time(w);
      ++failures_.lost_gradients;
      ++totals_.gradients_dropped;
      if (s.index == 0) ++totals_.worker_gradients_dropped;
      policy_->on_lost_push(s, m);
      return;
    }
    receive_push(m);
    return;
  }
  Worker& w = workers_[static_cast<std::size_t>(m.worker)];
  --activity(w).pulls_in_flight;
  const auto p = static_cast<std::size_t>(m.shard);
  if (m.version > w.held[p] || incarnation != w.held_incarnation[p]) w.held_incarnation[p] = incarnation;
  receive_part(w, p, m.version, std::move(m.slice));
}

// The transport dropped a message (a failed host): it counts as delivered nowhere.
void PsProtocol::on_cancelled(std::uint64_t tag) {
  const MessageHead head = messages_[tag];
  if (math_.store) message_refs_[tag] = {};
  free_messages_.push_back(static_cast<std::uint32_t>(tag));
  Worker& w = workers_[head.worker];
  if (head.kind == Message::Kind::Push) {
    --activity(w).pushes_in_flight;
    ++failures_.lost_gradients;
  } else {
    --activity(w).pulls_in_flight;
  }
  update_time(w);
}

void PsProtocol::send_slice(Shard& s, std::size_t worker, training::SliceRef slice, double bytes) {
  Worker& w = workers_[worker];
  if (!w.up) return;  // nobody to receive it
  const auto tag = new_message({Message::Kind::Pull, static_cast<std::int64_t>(worker),
                                static_cast<std::int64_t>(s.index), versions_[s.index], 0, std::move(slice), nullptr,
                                nullptr});
  messages_[tag].incarnation = s.incarnation;
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
  if (!layer) pieces_left_[tag] = static_cast<std::uint32_t>(s.pieces.size());
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
  const std::int64_t before = w.held[part];
  if (policy_->counts(w, part, before, version)) ++w.ready;
  if (version > before) {
    w.held[part] = version;
    if (math_.store) w.held_slices[part] = std::move(slice);
  }
  update_time(w);
  // protocol.abandon_stale: every part moved on since the computation under way started
  // (the round it computes for has closed): give it up and start on the new slices.
  if (config_.abandon_stale && activity(w).computing && w.ready >= static_cast<std::int64_t>(parts())) {
    abandon_compute(w);
    report_event("abandon", worker_name(w.index), std::numeric_limits<double>::quiet_NaN());
  }
  try_start(w);
}

// ---- computing -------------------------------------------------------------------------------

void PsProtocol::try_start(Worker& w) {
  if (activity(w).computing || finished_ || !w.up || w.ready < static_cast<std::int64_t>(parts())) return;
  w.used = w.held;
  w.used_incarnation = w.held_incarnation;
  w.compute_started = sim_.now();
  activity(w).computing = true;
  if (observer_) observer_->on_compute_start(static_cast<std::int64_t>(w.index), w.iteration);
  double flops = config_.flops_per_iteration;
  if (balancer_) {
    w.batch = balancer_->batch(w.index, w.iteration);
    flops *= static_cast<double>(w.batch) / static_cast<double>(config_.adaptive_batch->batch_size);
    if (math_.gradients) math_.gradients->set_batch(w.index, w.batch);
  }
  if (math_.gradients) {
    w.ticket = math_.gradients->start(w.index, w.iteration, w.held_slices);
    if (math_.store->needs_computed_on()) w.used_slices = w.held_slices;
    // Sync and async never compute twice on the same slices: let them go (memory). SSP
    // may start its next clock on the slices it holds.
    if (!policy_->keeps_slices()) std::fill(w.held_slices.begin(), w.held_slices.end(), nullptr);
  }
  ++w.iteration;
  w.ready = policy_->ready_after_start(w);
  update_time(w);
  const double codec = (config_.push_codec_seconds + config_.pull_codec_seconds) * total_params_;
  const TimeNs duration = compute_.next_duration(w.index, flops) + seconds_to_ns(codec);
  if (config_.overlap != protocol::Overlap::None) {
    schedule_layers(w, duration);
    return;
  }
  runner_.start(w.index, duration);
}

void PsProtocol::schedule_layers(Worker& w, TimeNs duration) {
  const std::vector<TimeNs> ends = compute::step_ends(duration, layer_flops_);
  const std::size_t layers = layer_flops_.size();
  const TimeNs now = sim_.now();
  TimeNs backward_start = now + ends[layers - 1];
  if (config_.overlap == protocol::Overlap::Full) {
    // Forward step l waits for the pieces of layer l (and for step l - 1).
    TimeNs t = w.last_finish, previous = 0;
    for (std::size_t l = 0; l < layers; ++l) {
      t = std::max(t, w.layer_arrival[l]) + (ends[l] - previous);
      previous = ends[l];
    }
    backward_start = std::max(t, now);
  }
  Worker* p = &w;
  // One event per layer that pushes, in backward order (the last layer first); each takes
  // the next such layer from w.backward_layer (events at one time run in schedule order).
  w.backward_layer = layers;
  for (std::size_t j = 0; j < layers; ++j) {
    if (!layer_pushes_[layers - 1 - j]) continue;
    sim_.schedule_at(backward_start + (ends[layers + j] - ends[layers - 1]), [p] {
      PsProtocol& protocol = *p->protocol;
      do --p->backward_layer;
      while (!protocol.layer_pushes_[p->backward_layer]);
      protocol.push_layer(*p, p->backward_layer);
    });
  }
  sim_.schedule_at(backward_start + (duration - ends[layers - 1]), [p] { p->protocol->finish_compute(*p); });
}

void PsProtocol::open_pushes(Worker& w) {
  const std::int64_t clock = w.iteration - 1;
  const std::vector<training::GradientRef> parts =
      math_.gradients ? math_.gradients->get(w.ticket) : std::vector<training::GradientRef>{};
  for (auto& s : shards_) {
    const training::GradientRef gradient = parts.empty() ? nullptr : parts[s.index];
    const training::SliceRef computed_on = w.used_slices.empty() ? nullptr : w.used_slices[s.index];
    const auto tag = new_message({Message::Kind::Push, static_cast<std::int64_t>(w.index),
                                  static_cast<std::int64_t>(s.index), w.used[s.index], clock, nullptr, gradient,
                                  computed_on});
    pieces_left_[tag] = static_cast<std::uint32_t>(s.pieces.size());
    ++activity(w).pushes_in_flight;
    const double bytes = gradient && gradient->wire_bytes ? *gradient->wire_bytes : s.push_bytes;
    w.push_tags.push_back(static_cast<std::uint32_t>(tag));
    w.push_sizes.push_back(bytes);
  }
  w.used_slices.clear();
  update_time(w);
}

void PsProtocol::push_layer(Worker& w, std::size_t layer) {
  if (w.push_tags.empty() && !shards_.empty()) open_pushes(w);
  for (auto& s : shards_)
    send_message(w.host, s.host, s, w.push_sizes[s.index], w.push_tags[s.index], net::ByteAccount::Push, layer);
  if (all_reduce_ && all_reduce_->bucket_of_layer_start[layer] >= 0) {
    AllReduce& a = *all_reduce_;
    if (!w.contributed) {  // the first bucket of the iteration: the gradient is complete for the math
      const std::vector<training::GradientRef> parts =
          math_.gradients ? math_.gradients->get(w.ticket) : std::vector<training::GradientRef>{};
      contribute(w, w.iteration - 1, parts.empty() ? nullptr : parts[a.part]);
      w.contributed = true;
    }
    a.buckets[static_cast<std::size_t>(a.bucket_of_layer_start[layer])]->collective->contribute(w.index);
  }
}

void PsProtocol::finish_compute(Worker& w) {
  activity(w).computing = false;
  if (balancer_) balancer_->record(w.index, w.batch, to_seconds(sim_.now() - w.compute_started));
  ++time_.stats(w.index).iterations;
  if (config_.overlap != protocol::Overlap::None) {  // the pushes left with the backward steps
    w.last_finish = sim_.now();
    w.contributed = false;
    w.push_tags.clear();
    w.push_sizes.clear();
    update_time(w);
    try_start(w);
    return;
  }
  const std::int64_t clock = w.iteration - 1;
  const std::vector<training::GradientRef> parts =
      math_.gradients ? math_.gradients->get(w.ticket) : std::vector<training::GradientRef>{};
  for (auto& s : shards_) {
    if (!s.up) {  // nobody to receive it
      ++failures_.lost_gradients;
      continue;
    }
    const training::GradientRef gradient = parts.empty() ? nullptr : parts[s.index];
    const training::SliceRef computed_on = w.used_slices.empty() ? nullptr : w.used_slices[s.index];
    const auto tag = new_message({Message::Kind::Push, static_cast<std::int64_t>(w.index),
                                  static_cast<std::int64_t>(s.index), w.used[s.index], clock, nullptr, gradient,
                                  computed_on});
    messages_[tag].incarnation = w.used_incarnation[s.index];
    ++activity(w).pushes_in_flight;
    const double bytes = gradient && gradient->wire_bytes ? *gradient->wire_bytes : s.push_bytes;
    send_message(w.host, s.host, s, bytes, tag, net::ByteAccount::Push);
  }
  w.used_slices.clear();
  update_time(w);
  if (all_reduce_) contribute(w, clock, parts.empty() ? nullptr : parts[all_reduce_->part]);
  try_start(w);  // SSP may go on at once
}

void PsProtocol::receive_push(const Message& m) {
  Worker& w = workers_[static_cast<std::size_t>(m.worker)];
  --activity(w).pushes_in_flight;
  update_time(w);
  policy_->on_push(shards_[static_cast<std::size_t>(m.shard)], m);
}

// ---- applying updates ------------------------------------------------------------------------

// A training loss that is NaN or infinite ends the run: the model diverged.
void PsProtocol::note_loss(const training::GradientRef& g) {
  if (std::isfinite(g->loss) || diverged_at_) return;
  diverged_at_ = least_updates() + 1;  // the model update the gradient was for
  finished_ = true;
}

void PsProtocol::begin_apply(Shard& s) {
  // The run has stopped (a stop limit was reached in this instant): gradients still queued
  // stay unapplied, so `training.stop.updates: 10` applies 10 updates, not the queue.
  if (finished_) return;
  if (s.checkpointing) {  // its time goes to the checkpoint first
    s.apply_waiting = true;
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
  s.apply_event = sim_.schedule_after(duration, [p] { p->protocol->finish_apply(*p); });
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
  updated(s.index, u, samples);
  policy_->after_update(s);
  if (s.checkpoint_due && !s.applying) begin_checkpoint(s);
}

void PsProtocol::updated(std::size_t part, protocol::UpdateRecord& u, std::int64_t samples) {
  if (part == 0) totals_.samples += samples;
  if (config_.stop.samples && totals_.samples >= *config_.stop.samples) finished_ = true;
  u.version = versions_[part];
  ++totals_.updates;
  totals_.gradients_applied += u.gradients;
  if (part == 0) totals_.worker_gradients_applied += u.gradients;
  if (observer_) observer_->on_update(u);
  if (config_.stop.updates && versions_[part] == *config_.stop.updates &&
      ++parts_at_stop_ == static_cast<std::int64_t>(parts()))
    finished_ = true;
}

void PsProtocol::record_staleness(std::int64_t tau) {
  auto& h = totals_.staleness_histogram;
  if (h.size() <= static_cast<std::size_t>(tau)) h.resize(static_cast<std::size_t>(tau) + 1, 0);
  ++h[static_cast<std::size_t>(tau)];
}

// A part restored from a checkpoint applies again clocks it had counted: a round is
// counted once, when its last part first applies it.
void PsProtocol::clock_applied(std::size_t part, std::int64_t clock, std::int64_t dropped) {
  if (clock <= counted_clock_[part]) return;
  counted_clock_[part] = clock;
  clock_applied(clock, dropped);
}

void PsProtocol::clock_applied(std::int64_t clock, std::int64_t dropped) {
  const auto slot = static_cast<std::size_t>(clock - first_open_clock_);
  while (parts_done_per_clock_.size() <= slot) parts_done_per_clock_.push_back(0), dropped_per_clock_.push_back(0);
  ++parts_done_per_clock_[slot];
  dropped_per_clock_[slot] += dropped;
  while (!parts_done_per_clock_.empty() && parts_done_per_clock_.front() == static_cast<std::int64_t>(parts())) {
    protocol::RoundRecord r;
    r.round = first_open_clock_;
    r.end = sim_.now();
    r.duration = r.end - last_round_end_;
    r.dropped = dropped_per_clock_.front();
    last_round_end_ = r.end;
    ++first_open_clock_;
    ++totals_.rounds;
    parts_done_per_clock_.pop_front();
    dropped_per_clock_.pop_front();
    if (observer_) observer_->on_round(r);
  }
}

// ---- the all-reduced part --------------------------------------------------------------------

void PsProtocol::contribute(Worker& w, std::int64_t clock, const training::GradientRef& gradient) {
  AllReduce& a = *all_reduce_;
  // At most two rounds are open (see AllReduce::rounds): anything else is a gradient for
  // a round that closed or is not due, which no bookkeeping could place (and a slot
  // computed from it would grow the deque without bound).
  if (clock < a.first_open || clock > a.first_open + 1)
    throw std::logic_error(fmt::format("worker {} hands in a gradient for round {} of the all-reduced part, whose "
                                       "open rounds are {} and {}",
                                       w.index, clock, a.first_open, a.first_open + 1));
  const auto slot = static_cast<std::size_t>(clock - a.first_open);
  while (a.rounds.size() <= slot) a.rounds.emplace_back();
  record_staleness(0);
  if (gradient) {
    math_.store->accumulate(a.part, clock, w.index, gradient, 0);
    a.rounds[slot].loss += gradient->loss;
    a.rounds[slot].samples += gradient->samples;
    note_loss(gradient);
  }
  a.contributed[w.index] = clock;
  // With buckets, the gradient goes in bucket by bucket (push_layer). A worker outside the
  // ring (it rejoined while a rebuild waits) hands its input in when the ring is rebuilt with it.
  if (a.collective && a.rank_of[w.index] >= 0)
    a.collective->contribute(static_cast<std::size_t>(a.rank_of[w.index]));
}

void PsProtocol::bucket_done(const AllReduce::Bucket& b, std::size_t rank, std::int64_t round) {
  AllReduce& a = *all_reduce_;
  const auto slot = static_cast<std::size_t>(round - a.first_open);
  while (a.rounds.size() <= slot) a.rounds.emplace_back();
  auto& done = a.rounds[slot].buckets_done;
  if (done.empty()) done.assign(workers_.size(), 0);
  Worker& w = workers_[rank];
  if (config_.overlap == protocol::Overlap::Full)
    for (std::size_t l = b.first_layer; l <= b.last_layer; ++l) w.layer_arrival[l] = sim_.now();
  if (++done[rank] == a.buckets.size()) on_done(rank, round);
}

void PsProtocol::on_done(std::size_t rank, std::int64_t ring_round) {
  AllReduce& a = *all_reduce_;
  const std::size_t p = a.part;
  const std::int64_t round = ring_round + a.round_offset;
  const std::size_t worker = a.ranks[rank];
  AllReduce::Round& r = a.rounds.at(static_cast<std::size_t>(round - a.first_open));
  const auto n = static_cast<std::int64_t>(a.ranks.size());
  // The first worker to hold the result: every gradient of the round is in; the replica
  // moves to the new version now, for it to compute on.
  if (r.done == 0 && math_.store) r.result = math_.store->apply_average(p, round, n);
  training::SliceRef result = r.result;
  if (++r.done == n) {  // the last: the update is complete everywhere, and so is the round
    protocol::UpdateRecord u;
    u.time = sim_.now();
    u.shard = static_cast<std::int64_t>(p);
    u.gradients = n;
    u.train_loss = math_.store ? r.loss / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
    const std::int64_t samples = r.samples;
    ++versions_[p];
    updated(p, u, samples);
    clock_applied(p, round, 0);
    a.rounds.pop_front();
    ++a.first_open;
  }
  receive_part(workers_[worker], p, round + 1, std::move(result));
}

void PsProtocol::on_message(std::size_t from, std::size_t to, collective::Phase phase, double /*bytes*/, bool sent) {
  const bool reduce = phase == collective::Phase::Reduce;
  // The worker's index, not its Worker: twice per message, a cache miss saved is time.
  const std::size_t worker = all_reduce_->ranks[reduce ? from : to];
  auto& a = time_.activity(worker);
  (reduce ? a.pushes_in_flight : a.pulls_in_flight) += sent ? 1 : -1;
  time_.update(worker, sim_.now());
}

void PsProtocol::on_step(std::size_t rank, std::int64_t round, std::size_t step, collective::Phase phase,
                         TimeNs start, TimeNs end) {
  if (observer_)
    observer_->on_collective_step(static_cast<std::int64_t>(all_reduce_->ranks[rank]), round + all_reduce_->round_offset,
                                  static_cast<std::int64_t>(step), phase, start, end);
}

}  // namespace pssim::ps
