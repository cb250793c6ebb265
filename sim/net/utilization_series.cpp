#include "sim/net/utilization_series.hpp"

#include <stdexcept>

namespace pssim::net {

UtilizationSeries::UtilizationSeries(std::size_t links, TimeNs bin, std::size_t max_values)
    : links_(links), bin_(bin) {
  if (links == 0) throw std::invalid_argument("a utilization series needs at least one link");
  if (bin <= 0) throw std::invalid_argument("utilization bin must be positive");
  // Room for an even number of full bins (so that pairs merge with none left over) plus
  // the last, partial one.
  const std::size_t per_link = max_values / links;
  max_bins_ = per_link >= 3 ? (per_link - 1) / 2 * 2 : 2;
}

void UtilizationSeries::append_full(std::span<const float> row) {
  if (row.size() != links_) throw std::invalid_argument("utilization row of the wrong width");
  if (closed_) throw std::logic_error("utilization series already ended");
  values_.insert(values_.end(), row.begin(), row.end());
  if (bins() == max_bins_) merge_pairs();
}

void UtilizationSeries::append_last(std::span<const float> row) {
  if (row.size() != links_) throw std::invalid_argument("utilization row of the wrong width");
  if (closed_) throw std::logic_error("utilization series already ended");
  values_.insert(values_.end(), row.begin(), row.end());
  closed_ = true;
}

// Every bin is full here and their number even: bins 2k and 2k + 1 become bin k.
void UtilizationSeries::merge_pairs() {
  const std::size_t half = bins() / 2;
  for (std::size_t b = 0; b < half; ++b)
    for (std::size_t i = 0; i < links_; ++i)
      values_[b * links_ + i] = (values_[2 * b * links_ + i] + values_[(2 * b + 1) * links_ + i]) / 2;
  values_.resize(half * links_);
  bin_ *= 2;
  ++merges_;
}

}  // namespace pssim::net
