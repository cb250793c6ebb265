#include "sim/ps/all_reducer.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace pssim::ps {

AllReducer::AllReducer(Context context, Replicas& replicas, std::size_t part, const AllReducedPart& spec)
    : c_(std::move(context)), replicas_(replicas), part_(part), spec_(spec) {
  const std::size_t n = c_.hosts.size();
  for (std::size_t w = 0; w < n; ++w) {
    ranks_.push_back(w);
    rank_of_.push_back(static_cast<std::int64_t>(w));
  }
  contributed_.assign(n, -1);
  collective_ = std::make_unique<collective::Collective>(c_.sim, c_.transport, c_.hosts,
                                                         collective::make_algorithm(spec.algorithm, n, spec.racks),
                                                         spec.part.params, spec.chunk_bytes,
                                                         static_cast<collective::Collective::Listener&>(*this));
}

void AllReducer::make_buckets(const std::vector<training::Range>& layers, double bucket_bytes,
                              std::vector<bool>& layer_pushes) {
  collective_.reset();
  bucket_of_layer_start_.assign(layers.size(), -1);
  // From the last layer back; a bucket closes once it holds bucket_bytes (a layer without
  // parameters joins the bucket being filled; what is left at the end joins the last one).
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // (first, last) layer
  std::int64_t params = 0;
  std::size_t last = layers.size() - 1;
  for (std::size_t j = layers.size(); j-- > 0;) {
    params += layers[j].size();
    if (params > 0 && (static_cast<double>(params) * training::kBytesPerParam >= bucket_bytes || j == 0)) {
      spans.emplace_back(j, last);
      params = 0;
      last = j - 1;
    } else if (j == 0) {
      spans.back().first = 0;  // parameter-less first layers join the last bucket filled
    }
  }
  const std::size_t n = c_.hosts.size();
  for (const auto& [first, end] : spans) {
    std::int64_t elements = 0;
    for (std::size_t l = first; l <= end; ++l) elements += layers[l].size();
    auto b = std::make_unique<Bucket>();
    b->reducer = this;
    b->index = buckets_.size();
    b->first_layer = first;
    b->last_layer = end;
    b->collective = std::make_unique<collective::Collective>(c_.sim, c_.transport, c_.hosts,
                                                             collective::make_algorithm(spec_.algorithm, n, spec_.racks),
                                                             elements, spec_.chunk_bytes, *b);
    bucket_of_layer_start_[first] = static_cast<std::int64_t>(b->index);
    layer_pushes[first] = true;
    buckets_.push_back(std::move(b));
  }
}

void AllReducer::start() {
  for (std::size_t w = 0; w < c_.hosts.size(); ++w)
    replicas_.deliver(w, 0, c_.store ? c_.store->current(part_) : nullptr);
}

AllReducer::Round& AllReducer::round_slot(std::int64_t round) {
  const auto slot = static_cast<std::size_t>(round - first_open_);
  while (rounds_.size() <= slot) rounds_.emplace_back();
  return rounds_[slot];
}

void AllReducer::contribute(std::size_t worker, std::int64_t clock, const training::GradientRef& gradient) {
  // At most two rounds are open (see rounds_): anything else is a gradient for a round
  // that closed or is not due, which no bookkeeping could place (and a slot computed from
  // it would grow the deque without bound).
  if (clock < first_open_ || clock > first_open_ + 1)
    throw std::logic_error(fmt::format("worker {} hands in a gradient for round {} of the all-reduced part, whose "
                                       "open rounds are {} and {}",
                                       worker, clock, first_open_, first_open_ + 1));
  Round& r = round_slot(clock);
  c_.ledger.record_staleness(0);
  if (gradient) {
    c_.store->accumulate(part_, clock, worker, gradient, 0);
    r.loss += gradient->loss;
    r.samples += gradient->samples;
    c_.ledger.note_loss(gradient);
  }
  contributed_[worker] = clock;
  // With buckets, the gradient goes in bucket by bucket (contribute_bucket). A worker
  // outside the ring (it rejoined while a rebuild waits) hands its input in when the ring
  // is rebuilt with it.
  if (collective_ && rank_of_[worker] >= 0) collective_->contribute(static_cast<std::size_t>(rank_of_[worker]));
}

void AllReducer::contribute_bucket(std::size_t worker, std::size_t layer) {
  buckets_[static_cast<std::size_t>(bucket_of_layer_start_[layer])]->collective->contribute(worker);
}

// Bucket collectives are never rebuilt: their ranks are the workers.
void AllReducer::bucket_done(const Bucket& b, std::size_t rank, std::int64_t round) {
  auto& done = round_slot(round).buckets_done;
  if (done.empty()) done.assign(c_.hosts.size(), 0);
  replicas_.layers_arrived(rank, b.first_layer, b.last_layer);
  if (++done[rank] == buckets_.size()) on_done(rank, round);
}

void AllReducer::close_round(std::int64_t gradients) {
  Round& r = rounds_.front();
  protocol::UpdateRecord u;
  u.time = c_.sim.now();
  u.shard = static_cast<std::int64_t>(part_);
  u.gradients = gradients;
  u.train_loss = c_.store ? r.loss / static_cast<double>(gradients) : std::numeric_limits<double>::quiet_NaN();
  c_.ledger.next_version(part_);
  c_.ledger.updated(part_, u, r.samples);
  c_.ledger.clock_applied(part_, first_open_, 0);
  rounds_.pop_front();
  ++first_open_;
}

void AllReducer::on_done(std::size_t rank, std::int64_t ring_round) {
  const std::int64_t round = ring_round + round_offset_;
  const std::size_t worker = ranks_[rank];
  Round& r = rounds_.at(static_cast<std::size_t>(round - first_open_));
  const auto n = static_cast<std::int64_t>(ranks_.size());
  // The first worker to hold the result: every gradient of the round is in; the replica
  // moves to the new version now, for it to compute on.
  if (r.done == 0 && c_.store) r.result = c_.store->apply_average(part_, round, n);
  training::SliceRef result = r.result;
  // The last: the update is complete everywhere, and so is the round (the oldest open:
  // every worker holds the rounds before it).
  if (++r.done == n) close_round(n);
  replicas_.deliver(worker, round + 1, std::move(result));
}

void AllReducer::on_message(std::size_t from, std::size_t to, collective::Phase phase, double /*bytes*/,
                            bool sent) {
  const bool reduce = phase == collective::Phase::Reduce;
  // The worker's index, not its Worker: twice per message, a cache miss saved is time.
  const std::size_t worker = ranks_[reduce ? from : to];
  auto& a = c_.time.activity(worker);
  (reduce ? a.pushes_in_flight : a.pulls_in_flight) += sent ? 1 : -1;
  c_.time.update(worker, c_.sim.now());
}

void AllReducer::on_step(std::size_t rank, std::int64_t round, std::size_t step, collective::Phase phase,
                         TimeNs start, TimeNs end) {
  if (c_.observer)
    c_.observer->on_collective_step(static_cast<std::int64_t>(ranks_[rank]), round + round_offset_,
                                    static_cast<std::int64_t>(step), phase, start, end);
}

// The ring is rebuilt over the workers up now (after a failure is detected, or when a
// worker rejoins): a round some rank already holds the result of is complete (its update
// was applied); the next round (`open`) runs again in the new ring, with the gradients of
// the workers of the new ring that had handed theirs in and still hold the version they
// computed on. A gradient handed in by a worker that left, or that crashed since (its
// memory went with it, whether or not it is back), is discarded. Every worker of the
// new ring not holding version `open` (one that is back, or waited for a result the
// rebuild completed) is given a copy of the replica and computes for round `open`.
void AllReducer::rebuild() {
  if (collective_) collective_->abort();  // its messages are reported with the old ranks
  while (!rounds_.empty() && rounds_.front().done > 0) close_round(static_cast<std::int64_t>(ranks_.size()));
  std::vector<std::size_t> behind;  // live workers to give a finished round's result
  for (std::size_t w : replicas_.live_workers())
    if (replicas_.version_held(w) < first_open_) behind.push_back(w);

  const std::int64_t open = first_open_;
  ranks_ = replicas_.live_workers();
  std::fill(rank_of_.begin(), rank_of_.end(), -1);
  for (std::size_t r = 0; r < ranks_.size(); ++r) rank_of_[ranks_[r]] = static_cast<std::int64_t>(r);
  round_offset_ = open;
  for (std::size_t w = 0; w < contributed_.size(); ++w)
    if (contributed_[w] == open && (rank_of_[w] < 0 || replicas_.version_held(w) < open)) {
      if (c_.store) c_.store->discard(part_, open, w);
      contributed_[w] = -1;
      ++c_.ledger.failures().lost_gradients;
    }
  collective_.reset();
  if (!ranks_.empty()) {
    std::vector<net::NodeId> hosts;
    for (std::size_t w : ranks_) hosts.push_back(c_.hosts[w]);
    const std::size_t n = ranks_.size();
    // Racks of unequal size cannot run the hierarchical algorithm: a plain ring then.
    const bool hierarchical = spec_.algorithm == collective::AlgorithmKind::Hierarchical;
    const auto kind = hierarchical && n % spec_.racks != 0 ? collective::AlgorithmKind::Ring : spec_.algorithm;
    collective_ = std::make_unique<collective::Collective>(
        c_.sim, c_.transport, hosts, collective::make_algorithm(kind, n, kind == spec_.algorithm ? spec_.racks : 1),
        spec_.part.params, spec_.chunk_bytes, static_cast<collective::Collective::Listener&>(*this));
    if (c_.observer)
      c_.observer->on_event({c_.sim.now(), "ring_rebuilt", "", static_cast<double>(n),
                             fmt::format("{} worker{} from round {}", n, n == 1 ? "" : "s", open)});
    for (std::size_t w : ranks_)
      if (contributed_[w] == open) collective_->contribute(static_cast<std::size_t>(rank_of_[w]));
  }
  const training::SliceRef current = c_.store ? c_.store->current(part_) : nullptr;
  for (std::size_t w : behind) {
    replicas_.compute_for(w, open);  // its next gradient is for round `open`
    replicas_.deliver(w, open, current);
  }
}

}  // namespace pssim::ps
