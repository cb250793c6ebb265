// The PS schemes whose shards apply one averaged update per clock.
//
//   sync  a shard collects one gradient per worker for its current version (all but
//         `backup_workers`: later ones are dropped), applies their average and sends its
//         new slice to every worker. A worker starts when it holds a newer slice from
//         every part than it last used (per-shard barrier, no global barrier).
//   ssp   shards apply one average per clock over all workers; a worker starts iteration
//         c as soon as every part is at version >= c - staleness, on the newest slices it
//         holds. Staleness 0 is sync (without backup workers).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/ps/scheme_policy.hpp"

namespace pssim::ps {

/// What sync and SSP shards share: gradients collected per clock, averaged updates,
/// answers to every worker.
class ClockedPolicy : public SchemePolicy {
 public:
  void begin_update(Shard& s, double& gradients, double& answers) override;
  std::int64_t apply(Shard& s, protocol::UpdateRecord& u) override;
  void after_update(Shard& s) override;
  bool waits_for_members() const override { return true; }
  void members_changed(Shard& s) override;
  void restored(Shard& s) override;

 protected:
  /// Gradients an update of a clock needs.
  virtual std::int64_t needed() const = 0;
  struct Clocks {
    // Per clock from the shard's version on ([0] is the clock it collects for now).
    std::deque<std::int64_t> collected;
    std::deque<double> staleness_sum;
    std::deque<std::int64_t> staleness_max;
    std::deque<double> loss_sum;       // math: training losses of the collected gradients
    std::deque<std::int64_t> samples;  // math: their samples
    std::int64_t dropped_this_round = 0;
  };
  void attached(std::size_t shards, std::size_t workers) override;
  Clocks& clocks(const Shard& s) { return clocks_[s.index]; }
  void ensure_slot(Clocks& c, std::size_t slot);
  /// Adds a gradient to clock slot `slot` of shard s (math, loss, staleness).
  void collect(Shard& s, const Message& m, std::size_t slot, std::int64_t clock, std::int64_t tau);
  /// True when a shard may find its next clock complete right after an update (workers
  /// ran ahead).
  virtual bool runs_ahead() const = 0;

 private:
  std::vector<Clocks> clocks_;
};

class SyncPolicy final : public ClockedPolicy {
 public:
  explicit SyncPolicy(std::int64_t backup_workers) : backup_workers_(backup_workers) {}
  bool counts(const Worker& w, std::size_t part, std::int64_t before, std::int64_t version) const override;
  std::int64_t ready_after_start(const Worker&) const override { return 0; }
  void on_push(Shard& s, const Message& m) override;

 protected:
  void attached(std::size_t shards, std::size_t workers) override;
  bool runs_ahead() const override { return false; }
  std::int64_t needed() const override;

 private:
  std::int64_t backup_workers_;
};

class SspPolicy final : public ClockedPolicy {
 public:
  explicit SspPolicy(std::int64_t staleness) : staleness_(staleness) {}
  bool counts(const Worker& w, std::size_t part, std::int64_t before, std::int64_t version) const override;
  std::int64_t ready_after_start(const Worker& w) const override;
  bool keeps_slices() const override { return true; }
  void on_push(Shard& s, const Message& m) override;

 protected:
  bool runs_ahead() const override { return true; }
  std::int64_t needed() const override { return members(); }

 private:
  /// Clock c needs every part at version >= c - s, and some slice at all (version 0).
  std::int64_t threshold(const Worker& w) const { return std::max<std::int64_t>(0, w.compute.iteration - staleness_); }
  std::int64_t staleness_;
};

}  // namespace pssim::ps
