#include "models/data/partition.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/random/gamma_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>

#include "models/core/seed.hpp"

namespace pssim::models {
namespace {

// Fisher-Yates with Boost's uniform_int_distribution (std::shuffle's algorithm is not
// specified, so it could differ between standard libraries).
void shuffle(std::vector<std::int64_t>& v, Engine& engine) {
  for (std::size_t i = v.size(); i > 1; --i) {
    boost::random::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(v[i - 1], v[pick(engine)]);
  }
}

void check_workers(std::int64_t n, std::int64_t workers, const char* where) {
  if (workers < 1 || n < workers) {
    throw std::invalid_argument(fmt::format(
        "{}: cannot split {} items among {} workers; use between 1 and {} workers or a larger "
        "dataset",
        where, n, workers, n));
  }
}

}  // namespace

PartitionKind parse_partition_kind(std::string_view name) {
  if (name == "iid") return PartitionKind::iid;
  if (name == "dirichlet") return PartitionKind::dirichlet;
  throw std::invalid_argument(
      fmt::format("data.partition '{}' is unknown; use 'iid' or 'dirichlet'", name));
}

Partition partition_iid(std::int64_t n, std::int64_t workers, std::uint64_t seed) {
  check_workers(n, workers, "partition_iid");
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  Engine engine(derive_seed(seed, "partition-iid"));
  shuffle(all, engine);
  Partition parts(static_cast<std::size_t>(workers));
  std::size_t pos = 0;
  for (std::int64_t w = 0; w < workers; ++w) {
    const auto len = std::size_t(n / workers + (w < n % workers ? 1 : 0));
    parts[std::size_t(w)].assign(all.begin() + std::ptrdiff_t(pos),
                                 all.begin() + std::ptrdiff_t(pos + len));
    pos += len;
  }
  return parts;
}

Partition partition_dirichlet(std::span<const std::int32_t> labels, std::int64_t num_classes,
                              std::int64_t workers, double alpha, std::uint64_t seed) {
  const auto n = std::int64_t(labels.size());
  check_workers(n, workers, "partition_dirichlet");
  if (!(alpha > 0) || !std::isfinite(alpha)) {
    throw std::invalid_argument(fmt::format(
        "data.alpha {} must be > 0 (e.g. 0.1 strong skew, 100 nearly iid)", alpha));
  }
  std::vector<std::vector<std::int64_t>> by_class(static_cast<std::size_t>(num_classes));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto y = labels[std::size_t(i)];
    if (y < 0 || y >= num_classes) {
      throw std::invalid_argument(fmt::format(
          "partition_dirichlet: label {} of item {} is outside [0, {})", y, i, num_classes));
    }
    by_class[std::size_t(y)].push_back(i);
  }
  Engine engine(derive_seed(seed, "partition-dirichlet"));
  boost::random::gamma_distribution<double> gamma(alpha, 1.0);
  Partition parts(static_cast<std::size_t>(workers));
  std::vector<double> q(static_cast<std::size_t>(workers));
  for (auto& items : by_class) {
    shuffle(items, engine);
    double total = 0;
    for (auto& x : q) total += (x = gamma(engine));
    if (!(total > 0)) {  // all variates underflowed (tiny alpha): give the class to one worker
      std::fill(q.begin(), q.end(), 0.0);
      q[0] = total = 1.0;
    }
    double cum = 0;
    std::size_t start = 0;
    for (std::size_t w = 0; w < q.size(); ++w) {
      cum += q[w];
      const std::size_t end = w + 1 == q.size()
                                  ? items.size()
                                  : std::size_t(std::llround(cum / total * double(items.size())));
      for (std::size_t k = start; k < std::max(start, end); ++k) parts[w].push_back(items[k]);
      start = std::max(start, end);
    }
  }
  for (auto& p : parts) {
    if (!p.empty()) continue;
    auto largest = std::max_element(parts.begin(), parts.end(),
                                     [](const auto& a, const auto& b) { return a.size() < b.size(); });
    p.push_back(largest->back());
    largest->pop_back();
  }
  for (auto& p : parts) std::sort(p.begin(), p.end());
  return parts;
}

BatchSampler::BatchSampler(std::vector<std::int64_t> items, std::int64_t batch_size,
                           std::uint64_t seed)
    : base_(std::move(items)), batch_size_(batch_size), seed_(seed) {
  if (base_.empty() || batch_size < 1) {
    throw std::invalid_argument(fmt::format(
        "BatchSampler: needs at least one item (got {}) and batch_size >= 1 (got {})",
        base_.size(), batch_size));
  }
  order_ = base_;
  pos_ = order_.size();  // the first next() starts epoch 0
}

void BatchSampler::shuffle_epoch(std::int64_t epoch) {
  order_ = base_;
  Engine engine(derive_seed(seed_, "epoch", std::uint64_t(epoch)));
  shuffle(order_, engine);
  pos_ = 0;
  epoch_ = epoch;
}

std::span<const std::int64_t> BatchSampler::next(std::int64_t count) {
  if (count < 1) throw std::invalid_argument(fmt::format("BatchSampler: a batch of {} items", count));
  if (pos_ >= order_.size()) shuffle_epoch(epoch_ + 1);
  const auto len = std::min(order_.size() - pos_, std::size_t(count));
  std::span<const std::int64_t> out(order_.data() + pos_, len);
  pos_ += len;
  return out;
}

std::int64_t BatchSampler::batches_per_epoch() const {
  return (std::int64_t(order_.size()) + batch_size_ - 1) / batch_size_;
}

}  // namespace pssim::models
