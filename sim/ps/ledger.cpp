#include "sim/ps/ledger.hpp"

#include <algorithm>
#include <cmath>

namespace pssim::ps {

Ledger::Ledger(const Simulator& sim, std::size_t parts, protocol::StopLimits stop, protocol::Observer* observer)
    : sim_(sim), stop_(stop), observer_(observer), versions_(parts, 0), counted_clock_(parts, -1) {}

std::int64_t Ledger::least_version() const { return *std::min_element(versions_.begin(), versions_.end()); }

void Ledger::restore(std::size_t part, std::int64_t version) {
  // A part back below the update limit no longer counts as having reached it.
  if (stop_.updates && versions_[part] >= *stop_.updates && version < *stop_.updates) --parts_at_stop_;
  versions_[part] = version;
}

void Ledger::updated(std::size_t part, protocol::UpdateRecord& u, std::int64_t samples) {
  if (part == 0) totals_.samples += samples;
  if (stop_.samples && totals_.samples >= *stop_.samples) finished_ = true;
  u.version = versions_[part];
  ++totals_.updates;
  totals_.gradients_applied += u.gradients;
  if (part == 0) totals_.worker_gradients_applied += u.gradients;
  if (observer_) observer_->on_update(u);
  if (stop_.updates && versions_[part] == *stop_.updates && ++parts_at_stop_ == static_cast<std::int64_t>(parts()))
    finished_ = true;
}

void Ledger::record_staleness(std::int64_t tau) {
  auto& h = totals_.staleness_histogram;
  if (h.size() <= static_cast<std::size_t>(tau)) h.resize(static_cast<std::size_t>(tau) + 1, 0);
  ++h[static_cast<std::size_t>(tau)];
}

void Ledger::note_loss(const training::GradientRef& g) {
  if (std::isfinite(g->loss) || diverged_at_) return;
  diverged_at_ = least_version() + 1;  // the model update the gradient was for
  finished_ = true;
}

// A part restored from a checkpoint applies again clocks it had counted: a round is
// counted once, when its last part first applies it.
void Ledger::clock_applied(std::size_t part, std::int64_t clock, std::int64_t dropped) {
  if (clock <= counted_clock_[part]) return;
  counted_clock_[part] = clock;
  clock_applied(clock, dropped);
}

void Ledger::clock_applied(std::int64_t clock, std::int64_t dropped) {
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

}  // namespace pssim::ps
