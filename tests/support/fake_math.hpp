// Fake training math for protocol tests: gradients and updates simple enough to predict.
//
// FakeGradients: worker w's gradient is w + 1 in every element of every part, with loss 1
// and 1 sample; it records the versions of the slices each computation used (element 0
// of a FakeStore slice is its version).
// FakeStore: every part starts at 0 everywhere; an update subtracts the average (or the
// single gradient) and counts as a version; element 0 of each slice is overwritten with the
// part's version so tests can see which version a worker computed on.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/training/gradient_source.hpp"
#include "sim/training/parameter_store.hpp"

namespace pssim::testing {

class FakeGradients : public training::GradientSource {
 public:
  explicit FakeGradients(std::vector<std::size_t> part_lengths) : lengths_(std::move(part_lengths)) {}

  std::uint64_t start(std::size_t worker, std::int64_t, const std::vector<training::SliceRef>& held) override {
    std::vector<float> versions;
    for (const auto& s : held) versions.push_back(s ? (*s)[1] : -1.0f);
    used.push_back({worker, versions});
    std::vector<training::GradientRef> parts;
    for (std::size_t n : lengths_) {
      auto g = std::make_shared<training::GradientData>();
      g->values.assign(n, static_cast<float>(worker + 1));
      g->loss = 1;
      g->samples = 1;
      parts.push_back(g);
    }
    results_[next_] = parts;
    return next_++;
  }
  std::vector<training::GradientRef> get(std::uint64_t ticket) override {
    auto it = results_.find(ticket);
    if (it == results_.end()) throw std::logic_error("unknown ticket");
    auto out = it->second;
    results_.erase(it);
    return out;
  }
  void cancel(std::uint64_t ticket) override { results_.erase(ticket); }

  struct Use {
    std::size_t worker;
    std::vector<float> versions;  // per part: the version of the slice held (-1: none)
  };
  std::vector<Use> used;

 private:
  std::vector<std::size_t> lengths_;
  std::map<std::uint64_t, std::vector<training::GradientRef>> results_;
  std::uint64_t next_ = 1;
};

class FakeStore : public training::ParameterStore {
 public:
  /// Slices of at least 2 elements: [0] the running value, [1] the version.
  explicit FakeStore(std::vector<std::size_t> part_lengths) {
    for (std::size_t n : part_lengths) current_.push_back(std::make_shared<std::vector<float>>(n, 0.0f));
  }
  training::SliceRef current(std::size_t part) const override { return current_.at(part); }
  void accumulate(std::size_t part, std::int64_t clock, std::size_t worker, const training::GradientRef& g,
                  std::int64_t) override {
    pending_[{part, clock}][worker] = g;
  }
  void discard_pending(std::size_t part) override {
    std::erase_if(pending_, [part](const auto& e) { return e.first.first == part; });
  }
  void discard(std::size_t part, std::int64_t clock, std::size_t worker) override {
    if (auto it = pending_.find({part, clock}); it != pending_.end()) it->second.erase(worker);
  }
  void restore(std::size_t part, training::SliceRef slice, std::int64_t) override { current_.at(part) = std::move(slice); }
  training::SliceRef apply_average(std::size_t part, std::int64_t clock, std::int64_t count) override {
    auto& c = pending_.at({part, clock});
    if (static_cast<std::int64_t>(c.size()) != count) throw std::logic_error("average of missing gradients");
    float sum = 0;
    for (const auto& [worker, g] : c) sum += g->values[0];  // in worker order (a map)
    averages.push_back({part, clock, sum / static_cast<float>(count)});
    pending_.erase({part, clock});
    return update(part, sum / static_cast<float>(count));
  }
  training::SliceRef apply_one(std::size_t part, std::size_t, const training::GradientRef& g, std::int64_t,
                               const training::SliceRef&) override {
    return update(part, g->values[0]);
  }

  struct Average {
    std::size_t part;
    std::int64_t clock;
    float value;
  };
  std::vector<Average> averages;

 private:
  training::SliceRef update(std::size_t part, float step) {
    auto next = std::make_shared<std::vector<float>>(*current_.at(part));
    (*next)[0] -= step;
    (*next)[1] += 1;
    current_[part] = next;
    return next;
  }
  std::vector<training::SliceRef> current_;
  std::map<std::pair<std::size_t, std::int64_t>, std::map<std::size_t, training::GradientRef>> pending_;
};

}  // namespace pssim::testing
