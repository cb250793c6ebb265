#include "sim/compute/layer_timeline.hpp"

#include <cmath>
#include <stdexcept>

namespace pssim::compute {

std::vector<TimeNs> step_ends(TimeNs duration, std::span<const LayerFlops> layers) {
  if (duration < 0) throw std::invalid_argument("an iteration's duration must be >= 0");
  const std::size_t n = layers.size();
  std::vector<double> flops;
  flops.reserve(2 * n);
  for (const auto& l : layers) flops.push_back(l.forward);
  for (std::size_t j = n; j-- > 0;) flops.push_back(layers[j].backward);
  double total = 0;
  for (double f : flops) {
    if (!(f >= 0) || !std::isfinite(f)) throw std::invalid_argument("a layer's FLOPs must be finite and >= 0");
    total += f;
  }
  std::vector<TimeNs> ends(flops.size());
  double cumulative = 0;
  for (std::size_t k = 0; k < flops.size(); ++k) {
    cumulative += total > 0 ? flops[k] : 1.0;
    const double share = total > 0 ? cumulative / total : cumulative / static_cast<double>(flops.size());
    ends[k] = k + 1 == flops.size() ? duration : static_cast<TimeNs>(std::llround(static_cast<double>(duration) * share));
  }
  return ends;
}

}  // namespace pssim::compute
