#include "sim/compute/batch_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pssim::compute {

BatchBalancer::BatchBalancer(std::size_t workers, const AdaptiveBatchSpec& spec)
    : spec_(spec), windows_(workers), batches_(workers, spec.batch_size) {
  if (workers < 1 || spec.batch_size < 1 || spec.window < 1)
    throw std::invalid_argument("adaptive batch: needs workers, batch_size and window >= 1");
  if (!(spec.min > 0 && spec.min <= 1 && spec.max >= 1))
    throw std::invalid_argument("adaptive batch: bounds must satisfy 0 < min <= 1 <= max");
  const auto b = static_cast<double>(spec.batch_size);
  // Whole samples inside the fractional bounds; batch_size itself always fits.
  lower_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(spec.min * b - 1e-9)));
  upper_ = std::max(spec.batch_size, static_cast<std::int64_t>(std::floor(spec.max * b + 1e-9)));
  lower_ = std::min(lower_, spec.batch_size);
}

void BatchBalancer::record(std::size_t worker, std::int64_t samples, double seconds) {
  if (!(seconds > 0) || samples < 1) return;  // nothing measured (an instantaneous computation)
  auto& w = windows_.at(worker);
  w.push_back({samples, seconds});
  if (static_cast<std::int64_t>(w.size()) > spec_.window) w.pop_front();
}

std::int64_t BatchBalancer::batch(std::size_t worker, std::int64_t iteration) {
  if (iteration > allocated_for_) {
    allocated_for_ = iteration;
    const bool measured = std::all_of(windows_.begin(), windows_.end(), [this](const auto& w) {
      return static_cast<std::int64_t>(w.size()) >= spec_.window;
    });
    if (measured) {
      std::vector<double> rates;
      for (const auto& w : windows_) {
        double samples = 0, seconds = 0;
        for (const Sample& s : w) samples += static_cast<double>(s.samples), seconds += s.seconds;
        rates.push_back(samples / seconds);
      }
      batches_ = allocate(rates, spec_.batch_size * static_cast<std::int64_t>(windows_.size()), lower_, upper_);
    }
  }
  return batches_.at(worker);
}

std::vector<std::int64_t> BatchBalancer::allocate(const std::vector<double>& rates, std::int64_t total,
                                                  std::int64_t lower, std::int64_t upper) {
  const std::size_t n = rates.size();
  if (n == 0 || lower * static_cast<std::int64_t>(n) > total || upper * static_cast<std::int64_t>(n) < total)
    throw std::invalid_argument("adaptive batch: the bounds cannot hold the global batch");
  // Proportional shares, clamping to the bounds: fix every worker below the lower bound
  // (or, if none, every worker above the upper) and share the rest again among the others.
  std::vector<double> x(n, 0.0);
  std::vector<bool> fixed(n, false);
  for (;;) {
    double rest = static_cast<double>(total), rate = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (fixed[i])
        rest -= x[i];
      else
        rate += rates[i];
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!fixed[i]) x[i] = rest * rates[i] / rate;
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i)
      if (!fixed[i] && x[i] < static_cast<double>(lower)) x[i] = static_cast<double>(lower), fixed[i] = changed = true;
    if (!changed)
      for (std::size_t i = 0; i < n; ++i)
        if (!fixed[i] && x[i] > static_cast<double>(upper)) x[i] = static_cast<double>(upper), fixed[i] = changed = true;
    if (!changed || std::all_of(fixed.begin(), fixed.end(), [](bool f) { return f; })) break;
  }
  // Largest remainder: floor everything, then hand the missing samples to the largest
  // fractional parts (or take the surplus, which rounding error alone can leave, from the
  // smallest), never crossing a bound.
  std::vector<std::int64_t> b(n);
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = std::clamp(static_cast<std::int64_t>(std::floor(x[i])), lower, upper);
    sum += b[i];
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const auto remainder = [&](std::size_t i) { return x[i] - static_cast<double>(b[i]); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) { return remainder(a) > remainder(c); });
  while (sum < total)
    for (std::size_t i : order)
      if (sum < total && b[i] < upper) ++b[i], ++sum;
  while (sum > total)
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if (sum > total && b[*it] > lower) --b[*it], --sum;
  return b;
}

}  // namespace pssim::compute
