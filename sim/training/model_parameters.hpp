// ModelParameters: ParameterStore with real optimizers (models/optim).
//
// Each part owns its ranges of the flat parameter vector as one contiguous slice and
// per-clock contribution lists. What an update does with the part is the scheme's server
// rule (server_rule.hpp: training.optimizer on the mean or on one gradient, the mean change
// added for local SGD, ...); the store collects, averages and rates. Every update writes a
// new slice, so a slice handed to workers never changes; slices come from per-part pools
// (buffer_pool.hpp).
//
// Learning rate of an update (learning_rate.hpp): optimizer lr x linear scaling x schedule
// (of the part's update count) x plateau factor x staleness factor; the optimizer's own
// warm-up applies on top. Delay compensation (DC-ASGD) adds lambda g*g*(w_now - w_then)
// to an async gradient (OptimizerRule).
//
// Pull compression (compression.hpp): a part's pulls to several workers are encoded in
// parallel on the job pool, each against that worker's copy. A rule's answers to single
// workers (ServerRule::take_answer) go out uncompressed: the scheme layer does not combine
// such a rule with pull compression.
//
// Sample-weighted average (weight_by_samples, for adaptive batches): each gradient is the
// mean over its own batch b_w, so sum_w (b_w / sum b) g_w is the mean gradient over the
// union of the batches, as one worker computing the global batch would get it.
//
// Determinism: an averaged update sums its gradients in worker order, whatever order they
// arrived in, so sharding and placement change the timing but not the parameters.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/optim/optimizer.hpp"
#include "sim/parallel/job_pool.hpp"
#include "sim/training/buffer_pool.hpp"
#include "sim/training/compression.hpp"
#include "sim/training/learning_rate.hpp"
#include "sim/training/parameter_store.hpp"
#include "sim/training/parts.hpp"
#include "sim/training/server_rule.hpp"

namespace pssim::training {

struct ModelParametersConfig {
  models::OptimizerSpec optimizer;
  LearningRatePolicy lr;
  std::int64_t workers = 1;
  std::uint64_t seed = 1;
  DirectionCompression pull;  ///< kind none: pulls send the slice itself
  /// Adaptive batches: an average weights each gradient by its samples / the samples of
  /// all (the gradient of the union batch); false: the plain mean (1 / count each).
  bool weight_by_samples = false;
};

class ModelParameters : public ParameterStore {
 public:
  /// `initial` is the whole parameter vector at version 0; `rule` says what an update does;
  /// `pool` must outlive this object.
  ModelParameters(const std::vector<float>& initial, std::vector<Part> parts, const ModelParametersConfig& config,
                  std::unique_ptr<ServerRule> rule, parallel::JobPool& pool);

  SliceRef current(std::size_t part) const override { return current_.at(part); }
  void accumulate(std::size_t part, std::int64_t clock, std::size_t worker, const GradientRef& g,
                  std::int64_t tau) override;
  SliceRef apply_average(std::size_t part, std::int64_t clock, std::int64_t count) override;
  SliceRef apply_one(std::size_t part, std::size_t worker, const GradientRef& g, std::int64_t tau,
                     const SliceRef& computed_on) override;
  std::vector<PullMessage> pull_messages(std::size_t part, const std::vector<std::size_t>& workers) override;
  bool needs_computed_on() const override { return rule_->needs_computed_on(); }
  void discard_pending(std::size_t part) override { parts_.at(part).pending.clear(); }
  void discard(std::size_t part, std::int64_t clock, std::size_t worker) override;
  void restore(std::size_t part, SliceRef slice, std::int64_t updates) override;
  /// An evaluation's held-out loss, for a plateau schedule.
  void observe_evaluation(double test_loss) { rate_.observe(test_loss); }

 private:
  struct PartState {
    std::vector<Range> ranges;
    std::size_t length = 0;
    struct Contribution {
      std::size_t worker;
      GradientRef gradient;
      std::int64_t tau;
    };
    std::unordered_map<std::int64_t, std::vector<Contribution>> pending;  // per clock
    std::vector<float> scratch;  // the contribution of an update by one
    std::int64_t updates = 0;
    std::unique_ptr<BufferPool<std::vector<float>>> slices;  // [length] each
  };

  std::shared_ptr<std::vector<float>> new_slice(std::size_t part) { return parts_[part].slices->get(); }
  double learning_rate(const PartState& p, std::int64_t tau) const { return rate_.at(p.updates, tau); }
  /// Part p's next version: `write` fills the new slice from the current one.
  template <typename Write>
  SliceRef update(std::size_t part, double lr, Write write);

  ModelParametersConfig config_;
  std::unique_ptr<ServerRule> rule_;
  LearningRate rate_;
  parallel::JobPool& pool_;
  std::vector<PartState> parts_;
  std::vector<SliceRef> current_;
  std::vector<PullCompressor> pull_;        // per part (pull compression only)
  std::vector<std::uint64_t> pull_seeds_;   // per part
  std::vector<std::uint64_t> pulls_sent_;   // per part: compressed messages so far
  std::vector<std::vector<float>> scratch_;  // per thread: a pull delta
};

}  // namespace pssim::training
