// UtilizationSeries: the utilization (0..1) of a fixed set of link directions over time,
// in equal bins from time 0 of the recording, held as one flat float array [bin][link].
//
// Its size is bounded: it keeps at most `max_values` numbers (bins x links). When a full
// bin would take it to that bound, adjacent pairs of bins are merged into one of twice
// the width (their mean, which is the utilization of the doubled bin since both halves
// are equally long), as often as a run needs. A long run so keeps its whole time axis,
// at a coarser resolution, instead of an output that grows without limit (a 20,000 s
// run in 10 ms bins would be 2 million rows per link). Merging is exact up to float
// rounding of the mean.
//
// Costs: append O(links), amortized O(links) with merges; memory 4 bytes per value.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "sim/core/time.hpp"

namespace pssim::net {

class UtilizationSeries {
 public:
  /// Default bound on bins x links: 4,194,304 values (16 MiB; a link_utilization.csv
  /// of about 120 MB).
  static constexpr std::size_t kDefaultMaxValues = std::size_t{1} << 22;

  UtilizationSeries() = default;
  /// `links` >= 1 series in bins of `bin` > 0 ns, holding at most max_values numbers
  /// (at least two bins are always kept). Throws std::invalid_argument for bad values.
  UtilizationSeries(std::size_t links, TimeNs bin, std::size_t max_values = kDefaultMaxValues);

  std::size_t links() const { return links_; }
  std::size_t bins() const { return links_ == 0 ? 0 : values_.size() / links_; }
  /// Current bin width (the requested one times 2^merges()).
  TimeNs bin() const { return bin_; }
  /// How many times the bins were merged pairwise.
  int merges() const { return merges_; }
  /// Start of bin b, ns from the start of the recording.
  TimeNs bin_start(std::size_t b) const { return static_cast<TimeNs>(b) * bin_; }
  float at(std::size_t b, std::size_t link) const { return values_[b * links_ + link]; }
  std::span<const float> row(std::size_t b) const { return {values_.data() + b * links_, links_}; }

  /// Appends a bin of full width bin(). Afterwards the width may have doubled (the bins
  /// were merged); the next bin starts where this one ends either way.
  void append_full(std::span<const float> row);
  /// Appends the last, possibly shorter, bin (the recording ends with it).
  void append_last(std::span<const float> row);

 private:
  void merge_pairs();

  std::size_t links_ = 0;
  TimeNs bin_ = 0;
  std::size_t max_bins_ = 0;  // even, >= 2
  int merges_ = 0;
  bool closed_ = false;
  std::vector<float> values_;
};

}  // namespace pssim::net
