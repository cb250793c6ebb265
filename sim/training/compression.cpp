#include "sim/training/compression.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/training/parts.hpp"

namespace pssim::training {

std::optional<double> fixed_message_bytes(const DirectionCompression& d, std::int64_t params) {
  if (!d.enabled()) return kBytesPerParam * static_cast<double>(params);
  const auto size = models::Compressor(d.spec).fixed_size(static_cast<std::size_t>(params));
  if (!size) return std::nullopt;
  return static_cast<double>(*size);
}

PushCompressor::PushCompressor(const DirectionCompression& d, const std::vector<std::size_t>& shard_lengths)
    : compressor_(d.spec) {
  if (!d.enabled()) throw std::invalid_argument("PushCompressor without a compressor");
  std::size_t largest = 0;
  for (std::size_t n : shard_lengths) {
    largest = std::max(largest, n);
    if (d.momentum_correction) momentum_.emplace_back(n, *d.momentum_correction);
    else if (d.error_feedback) feedback_.emplace_back(n);
  }
  decoded_.resize(largest);
}

std::size_t PushCompressor::compress(std::size_t shard, std::span<float> slice, std::uint64_t seed) {
  const std::span<float> decoded(decoded_.data(), slice.size());
  std::size_t bytes = 0;
  if (!momentum_.empty()) {
    bytes = momentum_.at(shard).step(compressor_, slice, decoded, seed).size();
  } else if (!feedback_.empty()) {
    bytes = feedback_.at(shard).step(compressor_, slice, decoded, seed).size();
  } else {
    const auto message = compressor_.encode(slice, seed);
    compressor_.decode(message, decoded);
    bytes = message.size();
  }
  std::copy(decoded.begin(), decoded.end(), slice.begin());
  return bytes;
}

PullCompressor::PullCompressor(const DirectionCompression& d, std::size_t workers, const SliceRef& initial)
    : compressor_(d.spec), error_feedback_(d.error_feedback), held_(workers, initial) {
  if (!d.enabled()) throw std::invalid_argument("PullCompressor without a compressor");
  if (d.momentum_correction) throw std::invalid_argument("momentum correction applies to pushes only");
  if (!error_feedback_) last_sent_.assign(workers, initial);
}

PullCompressor::Message PullCompressor::encode(std::size_t worker, const SliceRef& current,
                                               std::shared_ptr<std::vector<float>> fresh, std::vector<float>& scratch,
                                               std::uint64_t seed) {
  const std::vector<float>& target = *current;
  const std::vector<float>& held = *held_.at(worker);
  // With error feedback the delta is against the worker's copy, so the copy absorbs every
  // past error; without, against what was last sent, so past errors stay in the copy.
  const std::vector<float>& base = error_feedback_ ? held : *last_sent_.at(worker);
  const std::size_t n = target.size();
  scratch.resize(n);
  for (std::size_t i = 0; i < n; ++i) scratch[i] = target[i] - base[i];
  const auto message = compressor_.encode(scratch, seed);
  compressor_.decode(message, scratch);
  std::vector<float>& next = *fresh;
  for (std::size_t i = 0; i < n; ++i) next[i] = held[i] + scratch[i];
  held_[worker] = fresh;
  if (!error_feedback_) last_sent_[worker] = current;
  return {std::move(fresh), message.size()};
}

}  // namespace pssim::training
